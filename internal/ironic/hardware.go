package ironic

import (
	"context"
	"crypto/x509"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/inventory"
	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"
	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/ports"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmc"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmcaddr"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// HardwareData sources (HardwareData.Source).
const (
	HardwareSourceInventory  = "inventory"
	HardwareSourceRedfish    = "redfish"
	HardwareSourceProperties = "properties"
)

// Hardware returns the hardware of a node: Ironic's stored inventory when
// there is one (API 1.81+) and it came from an agent or redfish is not
// given, else what the BMC reports over Redfish when redfish is given and
// reaches a Redfish BMC, else the node's properties and ports. The node is read first, so a missing node wraps
// lifecycle.ErrNotRegistered whatever the source.
func (c *Catalog) Hardware(ctx context.Context, idOrName string, redfish *lifecycle.BMCAccess) (*lifecycle.HardwareData, error) {
	n, err := c.node(ctx, idOrName)
	if err != nil {
		return nil, err
	}

	if has(c.sc, lifecycle.FeatureInventory) && !(redfish != nil && outOfBandInspection(n)) {
		r := nodes.GetInventory(ctx, c.sc, n.UUID)
		switch {
		case r.Err == nil:
			data, err := r.Extract()
			var lldp inventoryLLDP
			if err == nil {
				err = r.ExtractInto(&lldp)
			}
			if err != nil {
				return nil, fmt.Errorf("node %s: reading the inventory: %w", n.UUID, err)
			}
			hd := hardwareFromInventory(data, lldp.neighbours(ctx, n.UUID))
			if redfish != nil && unnamedNICs(hd) {
				c.nameNICsFromBMC(ctx, n, redfish, hd)
			}
			return hd, nil
		case isNotFound(r.Err) || gophercloud.ResponseCodeIs(r.Err, 406):
			// No inventory stored (fake and redfish inspection store none).
		default:
			if hint := inventoryHint(r.Err); hint != "" {
				return nil, fmt.Errorf("%w%s", apiError("get inventory of node "+n.UUID, r.Err), hint)
			}
			return nil, apiError("get inventory of node "+n.UUID, r.Err)
		}
	}

	byNode, err := c.listPorts(ctx, ports.ListOpts{NodeUUID: n.UUID, Fields: portFields})
	if err != nil {
		return nil, err
	}
	pts := byNode[n.UUID]

	if redfish != nil {
		cfg, systemID, ok, err := redfishConfigFor(redfish, n)
		if err != nil {
			return nil, fmt.Errorf("node %s: %w", n.UUID, err)
		}
		if ok {
			inv, err := bmc.ReadInventory(ctx, cfg, systemID)
			if err != nil {
				return nil, fmt.Errorf("node %s: reading the hardware from the BMC: %w", n.UUID, err)
			}
			return hardwareFromRedfish(inv, pts), nil
		}
		tflog.Debug(ctx, "the BMC does not speak Redfish: hardware from node properties", map[string]any{
			"node": n.UUID, "bmc": bmcaddr.Redact(redfish.Address),
		})
	}
	return hardwareFromProperties(n, pts), nil
}

// outOfBandInspection reports whether the node's inventory, if any, came
// from its BMC (inspect interface redfish, idrac-redfish, ...: Ironic
// 2024.1 and later store one, with unnamed NICs and no speeds), not from
// an agent: with BMC credentials, the BMC read directly says more. Only
// the BMC inspect interfaces count: an inventory stored on a node that
// inspects with "fake" or "no-inspect" was put there by someone, and
// stays the source.
func outOfBandInspection(n *nodes.Node) bool {
	switch n.InspectInterface {
	case "redfish", "idrac-redfish", "idrac-wsman", "idrac", "ilo", "irmc":
		return true
	}
	return false
}

// unnamedNICs reports whether an inventory has NICs without a name, as
// Ironic 2024.1+'s out-of-band (redfish) inspection stores them.
func unnamedNICs(hd *lifecycle.HardwareData) bool {
	for _, nic := range hd.NICs {
		if nic.Name == "" {
			return true
		}
	}
	return false
}

// nameNICsFromBMC names the inventory's unnamed NICs as the BMC names them
// over Redfish (by MAC), when the BMC can be read: network data refers to
// NICs by name. A BMC that cannot be read leaves them unnamed.
func (c *Catalog) nameNICsFromBMC(ctx context.Context, n *nodes.Node, redfish *lifecycle.BMCAccess, hd *lifecycle.HardwareData) {
	cfg, systemID, ok, err := redfishConfigFor(redfish, n)
	if err != nil || !ok {
		return
	}
	inv, err := bmc.ReadInventory(ctx, cfg, systemID)
	if err != nil {
		tflog.Warn(ctx, "the inventory's NICs have no names and the BMC could not be read for them", map[string]any{
			"node": n.UUID, "error": err.Error(),
		})
		return
	}
	named := map[string]string{}
	for _, nic := range hardwareFromRedfish(inv, nil).NICs {
		named[normalizeMAC(nic.MAC)] = nic.Name
	}
	for i, nic := range hd.NICs {
		if nic.Name == "" {
			hd.NICs[i].Name = named[normalizeMAC(nic.MAC)]
		}
	}
}

// ---------------------------------------------------------------------------
// Inventory (BMO hardwaredetails.go)

// hardwareFromInventory converts Ironic's inventory (the IPA format) and
// plugin data as BMO's hardwaredetails.GetHardwareDetails does, with PXE
// also taken from plugin_data.boot_interface or the inventory's
// boot.pxe_interface when all_interfaces says nothing. LLDP (the switch
// port and VLANs of each NIC) is lldp, by interface name
// (inventoryLLDP.neighbours: the agent's raw TLVs first, where BMO only
// reads the plugin data's parsed LLDP, with type assertions that never
// match decoded JSON).
func hardwareFromInventory(data *nodes.InventoryData, lldp map[string]*lifecycle.LLDPNeighbour) *lifecycle.HardwareData {
	inv := data.Inventory
	var pd inventory.StandardPluginData
	if len(data.PluginData.RawMessage) > 0 {
		// Unreadable plugin data only costs the PXE field.
		pd, _ = data.PluginData.AsStandardData()
	}
	hd := &lifecycle.HardwareData{
		Source:       HardwareSourceInventory,
		CPU:          cpuFromInventory(inv.CPU),
		RAMMebibytes: inv.Memory.PhysicalMb,
		SystemVendor: lifecycle.SystemVendor{
			Manufacturer: inv.SystemVendor.Manufacturer,
			ProductName:  inv.SystemVendor.ProductName,
			SerialNumber: inv.SystemVendor.SerialNumber,
		},
		Firmware: lifecycle.Firmware{
			BIOSVendor:  inv.SystemVendor.Firmware.Vendor,
			BIOSVersion: inv.SystemVendor.Firmware.Version,
			BIOSDate:    inv.SystemVendor.Firmware.BuildDate,
		},
		Hostname: inv.Hostname,
	}

	bootMACs := map[string]bool{}
	for _, m := range []string{pd.BootInterface, inv.Boot.PXEInterface} {
		if m = normalizeMAC(m); m != "" {
			bootMACs[m] = true
		}
	}
	for _, intf := range inv.Interfaces {
		pxe := pd.AllInterfaces[intf.Name].PXEEnabled || bootMACs[normalizeMAC(intf.MACAddress)]
		var vlans []int
		neighbour := lldp[intf.Name]
		if neighbour != nil {
			vlans = neighbour.VLANIDs
		}
		nic := lifecycle.HardwareNIC{
			Name:      intf.Name,
			Model:     strings.TrimLeft(intf.Vendor+" "+intf.Product, " "),
			MAC:       intf.MACAddress,
			SpeedGbps: gbps(intf.SpeedMbps),
			PXE:       pxe,
			VLANIDs:   slices.Clone(vlans),
			LLDP:      neighbour,
		}
		// One NIC per IP family; one even when neither is set.
		if intf.IPV4Address != "" || intf.IPV6Address == "" {
			v4 := nic
			v4.IP = intf.IPV4Address
			hd.NICs = append(hd.NICs, v4)
		}
		if intf.IPV6Address != "" {
			v6 := nic
			v6.IP = intf.IPV6Address
			v6.VLANIDs = slices.Clone(vlans)
			hd.NICs = append(hd.NICs, v6)
		}
	}

	for _, d := range inv.Disks {
		name := d.Name
		if d.ByPath != "" {
			name = d.ByPath
		}
		hd.Storage = append(hd.Storage, lifecycle.Storage{
			Name:               name,
			Type:               diskType(d),
			SizeBytes:          d.Size,
			Vendor:             d.Vendor,
			Model:              d.Model,
			SerialNumber:       d.Serial,
			WWN:                d.Wwn,
			WWNWithExtension:   d.WwnWithExtension,
			WWNVendorExtension: d.WwnVendorExtension,
			HCTL:               d.Hctl,
			Rotational:         d.Rotational,
		})
	}
	return hd
}

func cpuFromInventory(c inventory.CPUType) lifecycle.CPU {
	freq := c.Frequency
	if freq == "" {
		freq = string(c.RealFrequency)
	}
	var mhz float64
	_, _ = fmt.Sscanf(freq, "%f", &mhz)
	flags := slices.Clone(c.Flags)
	slices.Sort(flags)
	return lifecycle.CPU{
		Arch:           c.Architecture,
		Model:          c.ModelName,
		ClockMegahertz: math.Round(mhz),
		Count:          c.Count,
		Flags:          flags,
	}
}

// diskType is BMO's getDiskType: HDD when rotational, NVME for an NVMe
// device name, else SSD.
func diskType(d inventory.RootDiskType) string {
	switch {
	case d.Rotational:
		return "HDD"
	case strings.Contains(d.Name, "nvme"):
		return "NVME"
	}
	return "SSD"
}

// lldpVLANs reads the VLAN ids of a parsed LLDP record: the tagged ones
// (switch_port_vlans [{id, name}]) and the untagged one.
func lldpVLANs(l map[string]any) []int {
	var ids []int
	add := func(v any) {
		if f, ok := v.(float64); ok && f > 0 && !slices.Contains(ids, int(f)) {
			ids = append(ids, int(f))
		}
	}
	if list, ok := l["switch_port_vlans"].([]any); ok {
		for _, item := range list {
			if m, ok := item.(map[string]any); ok {
				add(m["id"])
			}
		}
	}
	add(l["switch_port_untagged_vlan_id"])
	return ids
}

func normalizeMAC(m string) string { return strings.ToLower(strings.TrimSpace(m)) }

// ---------------------------------------------------------------------------
// Redfish

// redfishConfigFor builds the Redfish client settings from the caller's
// BMC access: the endpoint from its address (else from redfish_address and
// redfish_system_id in its driver_info, else the node's), the credentials
// from its driver_info (Ironic masks the password), and TLS from
// redfish_verify_ca (false: insecure; a path: a CA bundle). ok is false
// when the BMC does not speak Redfish.
func redfishConfigFor(access *lifecycle.BMCAccess, n *nodes.Node) (cfg bmc.RedfishConfig, systemID string, ok bool, err error) {
	info := access.DriverInfo
	str := func(m map[string]any, k string) string { s, _ := m[k].(string); return s }

	base := ""
	if access.Address != "" {
		if b, sys, perr := bmcaddr.RedfishEndpoint(access.Address); perr == nil {
			base, systemID = b, sys
		}
	}
	if base == "" {
		for _, m := range []map[string]any{info, n.DriverInfo} {
			if b := str(m, "redfish_address"); b != "" {
				base, systemID = b, str(m, "redfish_system_id")
				break
			}
		}
	}
	if base == "" {
		return cfg, "", false, nil
	}
	cfg = bmc.RedfishConfig{
		Endpoint: base,
		Username: str(info, "redfish_username"),
		Password: str(info, "redfish_password"),
	}
	switch v := info["redfish_verify_ca"].(type) {
	case bool:
		cfg.Insecure = !v
	case string:
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "", "true", "yes", "1", "on":
		case "false", "no", "0", "off":
			cfg.Insecure = true
		default:
			pem, rerr := os.ReadFile(v)
			if rerr != nil {
				return cfg, "", false, fmt.Errorf("redfish_verify_ca: reading the CA bundle: %w", rerr)
			}
			pool := x509.NewCertPool()
			if !pool.AppendCertsFromPEM(pem) {
				return cfg, "", false, fmt.Errorf("redfish_verify_ca: %s holds no PEM certificate", v)
			}
			cfg.RootCAs = pool
		}
	}
	return cfg, systemID, true, nil
}

// hardwareFromRedfish converts what the BMC reports. Redfish knows no IP
// addresses, disk paths or BIOS vendor; PXE comes from the node's ports.
func hardwareFromRedfish(inv *bmc.Inventory, pts []portInfo) *lifecycle.HardwareData {
	count := inv.CPU.Threads
	if count == 0 {
		count = inv.CPU.Cores
	}
	if count == 0 {
		count = inv.CPU.Count
	}
	hd := &lifecycle.HardwareData{
		Source: HardwareSourceRedfish,
		CPU: lifecycle.CPU{
			Arch:           inv.CPU.Arch,
			Model:          inv.CPU.Model,
			ClockMegahertz: float64(inv.CPU.SpeedMHz),
			Count:          count,
		},
		RAMMebibytes: int(inv.MemoryMiB),
		SystemVendor: lifecycle.SystemVendor{
			Manufacturer: inv.System.Manufacturer,
			ProductName:  inv.System.Model,
			SerialNumber: inv.System.SerialNumber,
		},
		Firmware: lifecycle.Firmware{BIOSVersion: inv.System.BIOSVersion},
		Hostname: inv.System.HostName,
	}
	if hd.Firmware.BIOSVersion == "" {
		for _, f := range inv.Firmware {
			if strings.EqualFold(f.ID, "BIOS") || strings.EqualFold(f.Name, "BIOS") {
				hd.Firmware.BIOSVersion = f.Version
				break
			}
		}
	}
	pxe := map[string]bool{}
	for _, p := range pts {
		if p.PXE {
			pxe[p.MAC] = true
		}
	}
	names := map[string]int{}
	for _, nic := range inv.NICs {
		names[strings.TrimSpace(nic.Name)]++
	}
	for _, nic := range inv.NICs {
		hd.NICs = append(hd.NICs, lifecycle.HardwareNIC{
			Name:      redfishNICName(nic, names),
			MAC:       nic.MAC,
			SpeedGbps: gbps(nic.SpeedMbps),
			PXE:       pxe[normalizeMAC(nic.MAC)],
		})
	}
	for _, d := range inv.Drives {
		name := d.Name
		if name == "" {
			name = d.ID
		}
		typ := d.Type
		if typ == "" {
			typ = "SSD"
			if d.Rotational {
				typ = "HDD"
			}
		}
		hd.Storage = append(hd.Storage, lifecycle.Storage{
			Name:         name,
			Type:         typ,
			SizeBytes:    d.SizeBytes,
			Vendor:       d.Vendor,
			Model:        d.Model,
			SerialNumber: d.Serial,
			Rotational:   d.Rotational,
		})
	}
	return hd
}

// redfishNICName is the best name a BMC gives an interface: its Name when
// it has one of its own (iLO leaves it empty, iDRAC names every interface
// "System Ethernet Interface"), else its Id with its MAC.
func redfishNICName(nic bmc.NICInfo, names map[string]int) string {
	if n := strings.TrimSpace(nic.Name); n != "" && names[n] == 1 {
		return n
	}
	switch {
	case nic.ID != "" && nic.MAC != "":
		return nic.ID + " (" + nic.MAC + ")"
	case nic.ID != "":
		return nic.ID
	}
	return nic.MAC
}

// gbps is a link speed in Gbps; nil when unknown (0 Mbps: BMCs and the
// agent say 0 or nothing when they do not know).
func gbps(mbps int) *int {
	if mbps <= 0 {
		return nil
	}
	g := mbps / 1000
	return &g
}

// ---------------------------------------------------------------------------
// Properties

// hardwareFromProperties is what Ironic knows without an inventory: the
// properties (cpus, cpu_arch, memory_mb, local_gb: set by hand or by
// out-of-band inspection) and the ports. Interface names are unknown; the
// root disk is a single entry named "root".
func hardwareFromProperties(n *nodes.Node, pts []portInfo) *lifecycle.HardwareData {
	hd := &lifecycle.HardwareData{
		Source:       HardwareSourceProperties,
		RAMMebibytes: intProp(n.Properties["memory_mb"]),
	}
	hd.CPU.Arch, _ = n.Properties["cpu_arch"].(string)
	hd.CPU.Count = intProp(n.Properties["cpus"])
	if gb := intProp(n.Properties["local_gb"]); gb > 0 {
		hd.Storage = append(hd.Storage, lifecycle.Storage{Name: "root", SizeBytes: int64(gb) << 30})
	}
	for _, p := range pts {
		hd.NICs = append(hd.NICs, lifecycle.HardwareNIC{MAC: p.MAC, PXE: p.PXE})
	}
	return hd
}

// InventoryDisks reads the disks of the node's inspection inventory
// (lifecycle.DiskReader); ok is false when Ironic holds no inventory for
// it or speaks no inventory API (before 1.81).
func (c *Catalog) InventoryDisks(ctx context.Context, id string) ([]lifecycle.Disk, bool, error) {
	if !has(c.sc, lifecycle.FeatureInventory) {
		return nil, false, nil
	}
	r := nodes.GetInventory(ctx, c.sc, id)
	switch {
	case r.Err == nil:
	case isNotFound(r.Err) || gophercloud.ResponseCodeIs(r.Err, 406):
		return nil, false, nil
	default:
		return nil, false, apiError("get inventory of node "+id, r.Err)
	}
	data, err := r.Extract()
	if err != nil {
		return nil, false, fmt.Errorf("node %s: reading the inventory: %w", id, err)
	}
	disks := make([]lifecycle.Disk, 0, len(data.Inventory.Disks))
	for _, d := range data.Inventory.Disks {
		disks = append(disks, lifecycle.Disk{Name: d.Name, SizeBytes: d.Size})
	}
	return disks, len(disks) > 0, nil
}

var _ lifecycle.BMCHealthReader = (*Catalog)(nil)

// BMCHealth reads the node's health from its BMC over Redfish
// (lifecycle.BMCHealthReader): the BMC address of redfish, else the
// node's redfish_address and redfish_system_id, with redfish's
// credentials. A BMC that does not speak Redfish is an error.
func (c *Catalog) BMCHealth(ctx context.Context, idOrName string, redfish *lifecycle.BMCAccess) (string, error) {
	if redfish == nil {
		return "", fmt.Errorf("node %s: the BMC's health needs its credentials", idOrName)
	}
	n, err := c.node(ctx, idOrName)
	if err != nil {
		return "", err
	}
	cfg, systemID, ok, err := redfishConfigFor(redfish, n)
	if err != nil {
		return "", fmt.Errorf("node %s: %w", n.UUID, err)
	}
	if !ok {
		return "", fmt.Errorf("node %s: the BMC %s does not speak Redfish: no health to read", n.UUID, bmcaddr.Redact(redfish.Address))
	}
	h, err := bmc.ReadHealth(ctx, cfg, systemID)
	if err != nil {
		return "", fmt.Errorf("node %s: reading the health from the BMC: %w", n.UUID, err)
	}
	return h, nil
}
