package ironic

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/noauth"
	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmc/sim"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// catIPAInventory is GET /v1/nodes/{id}/inventory as Ironic returns it after
// an in-band inspection with ironic-python-agent: a Dell-like server with
// two SATA disks (one rotational), one NVMe, a dual-stack NIC that booted
// by PXE, a second NIC without carrier and LLDP data with VLANs.
const catIPAInventory = `{
  "inventory": {
    "interfaces": [
      {"name": "eno1", "mac_address": "B4:96:91:1A:2B:3C", "ipv4_address": "192.168.111.20",
       "ipv6_address": "fd2e:6f44:5dd8:c956::14", "has_carrier": true, "lldp": null,
       "vendor": "0x8086", "product": "0x1593", "client_id": null, "biosdevname": "em1",
       "speed_mbps": 25000, "pci_address": "0000:19:00.0"},
      {"name": "eno2", "mac_address": "b4:96:91:1a:2b:3d", "ipv4_address": null,
       "ipv6_address": null, "has_carrier": false, "lldp": null,
       "vendor": "0x8086", "product": "0x1593", "client_id": null, "biosdevname": "em2",
       "speed_mbps": 10000, "pci_address": "0000:19:00.1"},
      {"name": "ens3f0", "mac_address": "0c:42:a1:00:11:22", "ipv4_address": "10.0.5.7",
       "ipv6_address": null, "has_carrier": true, "lldp": null,
       "vendor": "0x15b3", "product": "0x1017", "client_id": null, "biosdevname": null,
       "speed_mbps": 100000, "pci_address": "0000:3b:00.0"}
    ],
    "cpu": {"model_name": "Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz", "frequency": "2000.3740",
            "count": 128, "architecture": "x86_64",
            "flags": ["vmx", "fpu", "sse4_2", "avx512f", "aes"], "socket_count": 2},
    "disks": [
      {"name": "/dev/sda", "model": "PERC H755 Front", "size": 479559942144, "rotational": false,
       "wwn": "0x6f4ee08006b4a8002b1d7a8c1fd3c2c1", "serial": "006b4a8002b1d7a8c1fd3c2c1",
       "vendor": "DELL", "wwn_with_extension": "0x6f4ee08006b4a8002b1d7a8c1fd3c2c1",
       "wwn_vendor_extension": null, "hctl": "0:3:111:0",
       "by_path": "/dev/disk/by-path/pci-0000:67:00.0-scsi-0:3:111:0"},
      {"name": "/dev/sdb", "model": "ST4000NM0245", "size": 4000787030016, "rotational": true,
       "wwn": "0x5000c500a1b2c3d4", "serial": "ZC1AB2CD", "vendor": "ATA",
       "wwn_with_extension": "0x5000c500a1b2c3d4", "wwn_vendor_extension": null,
       "hctl": "1:0:0:0", "by_path": "/dev/disk/by-path/pci-0000:00:17.0-ata-1"},
      {"name": "/dev/nvme0n1", "model": "Dell Ent NVMe CM6 RI 1.92TB", "size": 1920383410176,
       "rotational": false, "wwn": "eui.36344730529000630025384500000001", "serial": "Y0T0A00XTCE8",
       "vendor": null, "wwn_with_extension": null, "wwn_vendor_extension": null, "hctl": null,
       "by_path": null}
    ],
    "memory": {"total": 270355296256, "physical_mb": 262144},
    "bmc_address": "10.10.0.21",
    "bmc_v6address": "::/0",
    "system_vendor": {"product_name": "PowerEdge R650 (SKU=0A6B;ModelName=PowerEdge R650)",
                      "serial_number": "7XYZ123", "manufacturer": "Dell Inc.",
                      "firmware": {"vendor": "Dell Inc.", "version": "1.8.2", "build_date": "10/11/2022"}},
    "boot": {"current_boot_mode": "uefi", "pxe_interface": "b4:96:91:1a:2b:3c"},
    "hostname": "worker-0.example.com"
  },
  "plugin_data": {
    "boot_interface": "b4:96:91:1a:2b:3c",
    "macs": ["b4:96:91:1a:2b:3c"],
    "all_interfaces": {
      "eno1": {"name": "eno1", "mac_address": "b4:96:91:1a:2b:3c", "ipv4_address": "192.168.111.20",
               "pxe_enabled": true},
      "eno2": {"name": "eno2", "mac_address": "b4:96:91:1a:2b:3d", "pxe_enabled": false},
      "ens3f0": {"name": "ens3f0", "mac_address": "0c:42:a1:00:11:22", "ipv4_address": "10.0.5.7",
                 "pxe_enabled": false}
    },
    "valid_interfaces": {
      "eno1": {"name": "eno1", "mac_address": "b4:96:91:1a:2b:3c", "pxe_enabled": true}
    },
    "parsed_lldp": {
      "eno1": {"switch_chassis_id": "64:64:9b:31:12:00", "switch_port_id": "ge-0/0/12",
               "switch_system_name": "tor-1", "switch_port_untagged_vlan_id": 100,
               "switch_port_vlans": [{"id": 100, "name": "prov"}, {"id": 200, "name": "storage"}]}
    },
    "root_disk": {"name": "/dev/sda", "size": 479559942144, "rotational": false}
  }
}`

// catFakeIronic is a hermetic Ironic API for the hardware paths: one node,
// its ports, and an inventory (or a 404 when inventory is "").
type catFakeIronic struct {
	t         *testing.T
	node      map[string]any
	ports     []map[string]any
	inventory string

	mu       sync.Mutex
	requests []string
}

func (f *catFakeIronic) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.requests = append(f.requests, r.Method+" "+r.URL.Path)
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	uuid := f.node["uuid"].(string)
	name, _ := f.node["name"].(string)
	notFound := func(what string) {
		w.WriteHeader(http.StatusNotFound)
		_ = json.NewEncoder(w).Encode(map[string]string{
			"error_message": `{"faultcode": "Client", "faultstring": "` + what + ` could not be found.", "debuginfo": null}`,
		})
	}
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	switch {
	case r.Method != http.MethodGet:
		w.WriteHeader(http.StatusMethodNotAllowed)
	case len(parts) == 2 && parts[0] == "v1" && parts[1] == "ports":
		var list []map[string]any
		if q := r.URL.Query().Get("node_uuid"); q == "" || q == uuid {
			list = f.ports
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"ports": list})
	case len(parts) >= 3 && parts[0] == "v1" && parts[1] == "nodes":
		if id, _ := url.PathUnescape(parts[2]); id != uuid && id != name {
			notFound("Node " + id)
			return
		}
		switch {
		case len(parts) == 3:
			_ = json.NewEncoder(w).Encode(f.node)
		case len(parts) == 4 && parts[3] == "inventory" && f.inventory != "":
			_, _ = w.Write([]byte(f.inventory))
		case len(parts) == 4 && parts[3] == "inventory":
			notFound("Inventory for node " + uuid)
		default:
			notFound(r.URL.Path)
		}
	default:
		notFound(r.URL.Path)
	}
}

func (f *catFakeIronic) seen() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.requests)
}

// start serves f and returns a client for it at microversion mv.
func (f *catFakeIronic) start(mv string) *gophercloud.ServiceClient {
	f.t.Helper()
	srv := httptest.NewServer(f)
	f.t.Cleanup(srv.Close)
	sc, err := noauth.NewBareMetalNoAuth(noauth.EndpointOpts{IronicEndpoint: srv.URL + "/v1/"})
	if err != nil {
		f.t.Fatal(err)
	}
	sc.Microversion = mv
	return sc
}

const catNodeUUID = "6f1f6c44-8a63-4a52-9b6e-2b1bb0b0e001"

func newCatFakeIronic(t *testing.T, inventory string) *catFakeIronic {
	return &catFakeIronic{
		t: t,
		node: map[string]any{
			"uuid": catNodeUUID, "name": "worker-0", "provision_state": "manageable",
			"power_state": "power off", "driver": "redfish",
			"driver_info": map[string]any{"redfish_address": "http://192.0.2.1", "redfish_password": "******"},
			"properties":  map[string]any{"cpus": 8, "memory_mb": 16384, "local_gb": 99, "cpu_arch": "x86_64"},
			"extra":       map[string]any{},
		},
		ports: []map[string]any{
			{"node_uuid": catNodeUUID, "address": "52:54:00:00:00:01", "pxe_enabled": true},
			{"node_uuid": catNodeUUID, "address": "52:54:00:00:00:02", "pxe_enabled": false},
		},
		inventory: inventory,
	}
}

func catCtx(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func TestHardwareInventory(t *testing.T) {
	f := newCatFakeIronic(t, catIPAInventory)
	c := NewCatalog(f.start("1.82"))
	hd, err := c.Hardware(catCtx(t, 10*time.Second), "worker-0", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := f.seen(), []string{"GET /v1/nodes/worker-0", "GET /v1/nodes/" + catNodeUUID + "/inventory"}; !slices.Equal(got, want) {
		t.Errorf("requests = %q, want %q", got, want)
	}
	if hd.Source != "inventory" {
		t.Errorf("source = %q", hd.Source)
	}
	wantCPU := lifecycle.CPU{Arch: "x86_64", Model: "Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz", ClockMegahertz: 2000,
		Count: 128, Flags: []string{"aes", "avx512f", "fpu", "sse4_2", "vmx"}}
	if hd.CPU.Arch != wantCPU.Arch || hd.CPU.Model != wantCPU.Model || hd.CPU.ClockMegahertz != wantCPU.ClockMegahertz ||
		hd.CPU.Count != wantCPU.Count || !slices.Equal(hd.CPU.Flags, wantCPU.Flags) {
		t.Errorf("cpu = %+v, want %+v", hd.CPU, wantCPU)
	}
	if hd.RAMMebibytes != 262144 {
		t.Errorf("ram = %d", hd.RAMMebibytes)
	}
	if hd.SystemVendor != (lifecycle.SystemVendor{Manufacturer: "Dell Inc.", ProductName: "PowerEdge R650 (SKU=0A6B;ModelName=PowerEdge R650)", SerialNumber: "7XYZ123"}) {
		t.Errorf("system vendor = %+v", hd.SystemVendor)
	}
	if hd.Firmware != (lifecycle.Firmware{BIOSVendor: "Dell Inc.", BIOSVersion: "1.8.2", BIOSDate: "10/11/2022"}) {
		t.Errorf("firmware = %+v", hd.Firmware)
	}
	if hd.Hostname != "worker-0.example.com" {
		t.Errorf("hostname = %q", hd.Hostname)
	}

	// One NIC per IP family: eno1 twice (v4, v6), eno2 once without IP.
	type nic struct {
		name, ip, mac, model string
		gbps                 int
		pxe                  bool
		vlans                string
	}
	var got []nic
	for _, n := range hd.NICs {
		vl, _ := json.Marshal(n.VLANIDs)
		got = append(got, nic{n.Name, n.IP, n.MAC, n.Model, deref(n.SpeedGbps), n.PXE, string(vl)})
	}
	want := []nic{
		{"eno1", "192.168.111.20", "B4:96:91:1A:2B:3C", "0x8086 0x1593", 25, true, "[100,200]"},
		{"eno1", "fd2e:6f44:5dd8:c956::14", "B4:96:91:1A:2B:3C", "0x8086 0x1593", 25, true, "[100,200]"},
		{"eno2", "", "b4:96:91:1a:2b:3d", "0x8086 0x1593", 10, false, "null"},
		{"ens3f0", "10.0.5.7", "0c:42:a1:00:11:22", "0x15b3 0x1017", 100, false, "null"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("nics:\n got  %+v\n want %+v", got, want)
	}

	if len(hd.Storage) != 3 {
		t.Fatalf("storage = %+v", hd.Storage)
	}
	sda, sdb, nvme := hd.Storage[0], hd.Storage[1], hd.Storage[2]
	if sda != (lifecycle.Storage{Name: "/dev/disk/by-path/pci-0000:67:00.0-scsi-0:3:111:0", Type: "SSD", SizeBytes: 479559942144,
		Vendor: "DELL", Model: "PERC H755 Front", SerialNumber: "006b4a8002b1d7a8c1fd3c2c1",
		WWN: "0x6f4ee08006b4a8002b1d7a8c1fd3c2c1", WWNWithExtension: "0x6f4ee08006b4a8002b1d7a8c1fd3c2c1", HCTL: "0:3:111:0"}) {
		t.Errorf("sda = %+v", sda)
	}
	if sdb.Type != "HDD" || !sdb.Rotational || sdb.Name != "/dev/disk/by-path/pci-0000:00:17.0-ata-1" || sdb.SizeBytes != 4000787030016 {
		t.Errorf("sdb = %+v", sdb)
	}
	if nvme.Type != "NVME" || nvme.Name != "/dev/nvme0n1" || nvme.Rotational || nvme.WWN != "eui.36344730529000630025384500000001" {
		t.Errorf("nvme = %+v", nvme)
	}
}

// PXE falls back to the boot interface MAC when plugin_data has no
// all_interfaces (e.g. an inventory stored without processing).
func TestHardwareInventoryPXEFromBootInterface(t *testing.T) {
	var data nodes.InventoryData
	if err := json.Unmarshal([]byte(catIPAInventory), &data); err != nil {
		t.Fatal(err)
	}
	data.Inventory.Compat()
	data.PluginData.RawMessage = json.RawMessage(`{"boot_interface": "B4:96:91:1A:2B:3D"}`)
	data.Inventory.Boot.PXEInterface = ""
	hd := hardwareFromInventory(&data, nil)
	for _, n := range hd.NICs {
		if want := n.Name == "eno2"; n.PXE != want {
			t.Errorf("nic %s pxe = %v, want %v", n.Name, n.PXE, want)
		}
		if n.VLANIDs != nil {
			t.Errorf("nic %s vlans = %v without LLDP", n.Name, n.VLANIDs)
		}
	}
	// No plugin data at all: nothing breaks.
	data.PluginData.RawMessage = nil
	if hd := hardwareFromInventory(&data, nil); len(hd.NICs) != 4 || hd.NICs[0].PXE {
		t.Errorf("nics without plugin data = %+v", hd.NICs)
	}
}

// Without a stored inventory (Ironic 404) and without BMC access, the
// node's properties and ports answer; below 1.81 the inventory is not
// even asked for.
func TestHardwareFromPropertiesWhenNoInventory(t *testing.T) {
	for _, tc := range []struct {
		mv        string
		inventory bool
	}{{"1.82", true}, {"1.80", false}} {
		t.Run(tc.mv, func(t *testing.T) {
			f := newCatFakeIronic(t, "")
			c := NewCatalog(f.start(tc.mv))
			hd, err := c.Hardware(catCtx(t, 10*time.Second), catNodeUUID, nil)
			if err != nil {
				t.Fatal(err)
			}
			want := []string{"GET /v1/nodes/" + catNodeUUID}
			if tc.inventory {
				want = append(want, "GET /v1/nodes/"+catNodeUUID+"/inventory")
			}
			want = append(want, "GET /v1/ports")
			if got := f.seen(); !slices.Equal(got, want) {
				t.Errorf("requests = %q, want %q", got, want)
			}
			if hd.Source != "properties" || hd.CPU.Count != 8 || hd.CPU.Arch != "x86_64" || hd.RAMMebibytes != 16384 {
				t.Errorf("hardware = %+v", hd)
			}
			if len(hd.Storage) != 1 || hd.Storage[0].Name != "root" || hd.Storage[0].SizeBytes != 99<<30 {
				t.Errorf("storage = %+v", hd.Storage)
			}
			if len(hd.NICs) != 2 || !reflect.DeepEqual(hd.NICs[0], lifecycle.HardwareNIC{MAC: "52:54:00:00:00:01", PXE: true}) ||
				!reflect.DeepEqual(hd.NICs[1], lifecycle.HardwareNIC{MAC: "52:54:00:00:00:02"}) {
				t.Errorf("nics = %+v", hd.NICs)
			}
		})
	}
}

// With BMC access and no inventory, the BMC is read over Redfish (the
// in-process simulator); the node's ports say which NIC boots by PXE.
// An inventory, when there is one, still wins over the BMC.
func TestHardwareRedfish(t *testing.T) {
	const user, pass = "admin", "s3cret-Passw0rd"
	bmcSrv, err := sim.Start(sim.Options{}, 2, user, pass)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = bmcSrv.Close() })
	prof := sim.DefaultProfile(1)
	host := strings.TrimPrefix(bmcSrv.URL(), "http://")
	access := &lifecycle.BMCAccess{
		Address: "redfish+http://" + host + "/redfish/v1/Systems/sys-1",
		Driver:  "redfish",
		DriverInfo: map[string]any{
			"redfish_address": "http://" + host, "redfish_system_id": "/redfish/v1/Systems/sys-1",
			"redfish_username": user, "redfish_password": pass, "redfish_verify_ca": false,
		},
	}

	f := newCatFakeIronic(t, "")
	f.ports = []map[string]any{
		{"node_uuid": catNodeUUID, "address": strings.ToUpper(prof.NICs[1].MAC), "pxe_enabled": true},
	}
	c := NewCatalog(f.start("1.82"))
	ctx := catCtx(t, 30*time.Second)
	hd, err := c.Hardware(ctx, catNodeUUID, access)
	if err != nil {
		t.Fatal(err)
	}
	if hd.Source != "redfish" {
		t.Fatalf("source = %q", hd.Source)
	}
	if hd.CPU.Arch != "x86_64" || hd.CPU.Model != prof.CPU.Model || hd.CPU.Count != 80 || hd.CPU.ClockMegahertz != 2100 {
		t.Errorf("cpu = %+v", hd.CPU)
	}
	if hd.RAMMebibytes != prof.RAMGiB*1024 {
		t.Errorf("ram = %d", hd.RAMMebibytes)
	}
	if hd.SystemVendor != (lifecycle.SystemVendor{Manufacturer: prof.Manufacturer, ProductName: prof.Model, SerialNumber: prof.SerialNumber}) {
		t.Errorf("system vendor = %+v", hd.SystemVendor)
	}
	if hd.Firmware.BIOSVersion != prof.BIOSVersion || hd.Hostname != prof.HostName {
		t.Errorf("firmware = %+v, hostname = %q", hd.Firmware, hd.Hostname)
	}
	if len(hd.NICs) != len(prof.NICs) {
		t.Fatalf("nics = %+v", hd.NICs)
	}
	for i, n := range hd.NICs {
		w := prof.NICs[i]
		if n.Name != w.Name || n.MAC != w.MAC || n.SpeedGbps == nil || *n.SpeedGbps != w.SpeedMbps/1000 || n.PXE != (i == 1) {
			t.Errorf("nic %d = %+v, want %+v (pxe %v)", i, n, w, i == 1)
		}
	}
	if len(hd.Storage) != len(prof.Disks) {
		t.Fatalf("storage = %+v", hd.Storage)
	}
	for i, d := range hd.Storage {
		w := prof.Disks[i]
		if d.Name != w.Name || d.SizeBytes != w.SizeBytes || d.Type != w.MediaType || d.Rotational != w.Rotational ||
			d.SerialNumber != w.Serial || d.Model != w.Model {
			t.Errorf("disk %d = %+v, want %+v", i, d, w)
		}
	}

	// Wrong credentials: an error naming the BMC, no silent fallback.
	bad := *access
	bad.DriverInfo = map[string]any{"redfish_username": user, "redfish_password": "wrong"}
	if _, err := c.Hardware(ctx, catNodeUUID, &bad); err == nil || strings.Contains(err.Error(), "wrong") {
		t.Errorf("wrong credentials: err = %v", err)
	}

	// An IPMI BMC cannot be read over Redfish: properties (the node's own
	// redfish_address is not used here because the fake node's is
	// unreachable, so make it an IPMI node).
	f.node["driver_info"] = map[string]any{"ipmi_address": "192.0.2.9"}
	ipmi := &lifecycle.BMCAccess{Address: "ipmi://192.0.2.9", Driver: "ipmi", DriverInfo: map[string]any{"ipmi_username": "u"}}
	if hd, err := c.Hardware(ctx, catNodeUUID, ipmi); err != nil || hd.Source != "properties" {
		t.Errorf("ipmi: hardware = %+v, err = %v", hd, err)
	}

	// A stored inventory wins.
	f.inventory = catIPAInventory
	if hd, err := c.Hardware(ctx, catNodeUUID, access); err != nil || hd.Source != "inventory" {
		t.Errorf("with inventory: hardware = %+v, err = %v", hd, err)
	}
}

// Against the real Ironic: a fake-hardware node with properties and a port
// (fake inspection stores no inventory), and a missing node.
func TestHardwareProperties(t *testing.T) {
	sc, _ := realIronic(t)
	ctx := catCtx(t, 60*time.Second)
	csc, count := catCountingClient(t)
	mac := randomMAC()
	n := createCatalogNode(t, ctx, sc, catalogNodeSpec{
		properties: map[string]any{"cpus": 16, "memory_mb": 65536, "local_gb": 446, "cpu_arch": "aarch64"},
		macs:       []string{mac},
	})

	c := NewCatalog(csc)
	count.reset()
	hd, err := c.Hardware(ctx, n.Name, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Hardware (properties path): %d requests: %v", count.total(), count.paths())
	if count.total() != 3 {
		t.Errorf("requests = %v, want node, inventory, ports", count.paths())
	}
	if hd.Source != "properties" || hd.CPU.Count != 16 || hd.CPU.Arch != "aarch64" || hd.RAMMebibytes != 65536 {
		t.Errorf("hardware = %+v", hd)
	}
	if len(hd.Storage) != 1 || hd.Storage[0] != (lifecycle.Storage{Name: "root", SizeBytes: 446 << 30}) {
		t.Errorf("storage = %+v", hd.Storage)
	}
	if len(hd.NICs) != 1 || !reflect.DeepEqual(hd.NICs[0], lifecycle.HardwareNIC{MAC: mac, PXE: true}) {
		t.Errorf("nics = %+v", hd.NICs)
	}

	missing := uniqueName(t) + "-missing"
	if _, err := c.Hardware(ctx, missing, nil); !errors.Is(err, lifecycle.ErrNotRegistered) {
		t.Errorf("Hardware(missing) err = %v, want ErrNotRegistered", err)
	}
	if _, err := c.Host(ctx, missing); !errors.Is(err, lifecycle.ErrNotRegistered) {
		t.Errorf("Host(missing) err = %v, want ErrNotRegistered", err)
	}
}
