package datasources

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/tfglue"
)

// NewHardware returns the baremetal_hardware data source.
func NewHardware() datasource.DataSource { return &hardwareDataSource{base{typeName: "_hardware"}} }

type hardwareDataSource struct{ base }

// hardwareModel is BMO's HardwareData shape.
type hardwareModel struct {
	bmcHostModel
	HostName     types.String       `tfsdk:"host_name"`
	CPU          *cpuModel          `tfsdk:"cpu"`
	RAMMebibytes types.Int64        `tfsdk:"ram_mebibytes"`
	NICs         []nicModel         `tfsdk:"nics"`
	NICMACs      types.Map          `tfsdk:"nic_macs"`
	Storage      []storageModel     `tfsdk:"storage"`
	SystemVendor *systemVendorModel `tfsdk:"system_vendor"`
	Firmware     *firmwareModel     `tfsdk:"firmware"`
	Hostname     types.String       `tfsdk:"hostname"`
	// HealthFromBMC asks for the BMC's health (health.go).
	HealthFromBMC types.Bool   `tfsdk:"health_from_bmc"`
	Health        types.String `tfsdk:"health"`
	HealthSource  types.String `tfsdk:"health_source"`
}

type cpuModel struct {
	Arch           types.String  `tfsdk:"arch"`
	Model          types.String  `tfsdk:"model"`
	ClockMegahertz types.Float64 `tfsdk:"clock_megahertz"`
	Count          types.Int64   `tfsdk:"count"`
	Flags          types.List    `tfsdk:"flags"`
}

type nicModel struct {
	Name      types.String `tfsdk:"name"`
	Model     types.String `tfsdk:"model"`
	MAC       types.String `tfsdk:"mac"`
	IP        types.String `tfsdk:"ip"`
	SpeedGbps types.Int64  `tfsdk:"speed_gbps"`
	PXE       types.Bool   `tfsdk:"pxe"`
	VLANIDs   types.List   `tfsdk:"vlan_ids"`
	LLDP      *lldpModel   `tfsdk:"lldp"`
}

// lldpModel is the switch port a NIC's inspection heard over LLDP.
type lldpModel struct {
	SwitchChassisID  types.String `tfsdk:"switch_chassis_id"`
	SwitchPortID     types.String `tfsdk:"switch_port_id"`
	SwitchSystemName types.String `tfsdk:"switch_system_name"`
	VLANIDs          types.List   `tfsdk:"vlan_ids"`
}

type storageModel struct {
	Name               types.String `tfsdk:"name"`
	Type               types.String `tfsdk:"type"`
	SizeBytes          types.Int64  `tfsdk:"size_bytes"`
	Vendor             types.String `tfsdk:"vendor"`
	Model              types.String `tfsdk:"model"`
	SerialNumber       types.String `tfsdk:"serial_number"`
	WWN                types.String `tfsdk:"wwn"`
	WWNWithExtension   types.String `tfsdk:"wwn_with_extension"`
	WWNVendorExtension types.String `tfsdk:"wwn_vendor_extension"`
	HCTL               types.String `tfsdk:"hctl"`
	Rotational         types.Bool   `tfsdk:"rotational"`
}

type systemVendorModel struct {
	Manufacturer types.String `tfsdk:"manufacturer"`
	ProductName  types.String `tfsdk:"product_name"`
	SerialNumber types.String `tfsdk:"serial_number"`
}

type firmwareModel struct {
	BIOS biosModel `tfsdk:"bios"`
}

type biosModel struct {
	Vendor  types.String `tfsdk:"vendor"`
	Version types.String `tfsdk:"version"`
	Date    types.String `tfsdk:"date"`
}

func (d *hardwareDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	str := computedString
	resp.Schema = schema.Schema{
		Description: "A host's hardware inventory in the shape of Metal3's HardwareData: CPU, RAM, NICs, disks, system vendor, " +
			"BIOS firmware and hostname. It comes from Ironic's inventory API when Ironic holds an inspection by the agent, " +
			"else from the BMC over Redfish when `bmc` is given (also when Ironic's inventory came from out-of-band inspection, " +
			"as Ironic 2024.1 and later store one with unnamed NICs; without `bmc` those NICs take no names), else from " +
			"Ironic's inventory, else from the node's properties and ports; `source` says which. `health` is " +
			"Ironic's node health, or the BMC's with `health_from_bmc`.",
		Attributes: bmcHostAttributes("holds no inspection inventory, or is asked for the health (`health_from_bmc`)",
			"Where the data came from: `inventory` (Ironic inspection), `redfish` (the BMC) or `properties` (node properties and ports).", map[string]schema.Attribute{
				"host_name":     str("The host's name (the Ironic node name)."),
				"ram_mebibytes": computedInt("Memory in MiB."),
				"hostname":      str("The hostname the host reported during inspection, or empty."),
				"cpu": computedObject("The processors.", map[string]schema.Attribute{
					"arch":            str("Architecture (e.g. `x86_64`)."),
					"model":           str("Model name."),
					"clock_megahertz": schema.Float64Attribute{Computed: true, Description: "Clock speed in MHz."},
					"count":           computedInt("Number of CPUs (threads)."),
					"flags":           computedList(types.StringType, "CPU flags."),
				}),
				"nic_macs": computedMap(types.StringType, "Each named NIC's MAC address, by interface name: one entry per interface "+
					"(where `nics` lists a dual-stack NIC twice), for `{ name = mac }` maps such as `baremetal_network_data.nics`."),
				"nics": computedObjects("Network interfaces, one entry per IP family the inspection saw on an interface, as the Bare Metal "+
					"Operator lists them: a NIC with an IPv4 and an IPv6 address (any dual-stack network, SLAAC included) appears twice, "+
					"with the same `name` and `mac`. Build maps by name from `nic_macs`, not from this list.", map[string]schema.Attribute{
					"name":       str("Interface name (e.g. `eth0`); from Redfish the interface's own Name, else its Id with its MAC (`1 (94:40:c9:5e:7a:c0)`)."),
					"model":      str("Vendor and product, when known."),
					"mac":        str("MAC address."),
					"ip":         str("IP address seen during inspection, when known."),
					"speed_gbps": computedInt("Link speed in Gbps; null when unknown (a BMC that does not say, or says 0)."),
					"pxe":        computedBool("Whether the host PXE-boots from this interface."),
					"vlan_ids":   computedList(types.Int64Type, "VLAN ids seen on the interface (the same as `lldp.vlan_ids`; empty without LLDP)."),
					"lldp": computedObject("The switch port the interface is cabled to, as it announced itself over LLDP during the last in-band "+
						"inspection; null when nothing was heard (the agent collects LLDP only with IPA's `ipa-collect-lldp=1`) and "+
						"always null from Redfish or the node's properties. Read from the raw LLDP TLVs of the agent's inventory, so "+
						"ironic-inspector's LLDP hooks are not needed; their parsed LLDP in the plugin data is the fallback.",
						map[string]schema.Attribute{
							"switch_chassis_id": str("The switch's chassis id: a MAC address in lower case (what " +
								"`baremetal_host.ports[*].local_link_connection.switch_id` takes), or the switch's text for other chassis id kinds; null when not sent."),
							"switch_port_id":     str("The switch port's id, e.g. `Ethernet1/12` (a MAC or an address for those port id kinds); null when not sent."),
							"switch_system_name": str("The switch's system name (its host name); null when not sent."),
							"vlan_ids": computedList(types.Int64Type,
								"The VLANs the port announced: its tagged VLANs (IEEE 802.1 VLAN name TLVs) in order, then its untagged port VLAN id."),
						}),
				}),
				"storage": computedObjects("Disks.", map[string]schema.Attribute{
					"name":                 str("Device name (e.g. `/dev/sda`), or a by-path name."),
					"type":                 str("`HDD`, `SSD` or `NVME`."),
					"size_bytes":           computedInt("Size in bytes."),
					"vendor":               str("Vendor; null when unknown."),
					"model":                str("Model."),
					"serial_number":        str("Serial number."),
					"wwn":                  str("World Wide Name."),
					"wwn_with_extension":   str("World Wide Name with vendor extension."),
					"wwn_vendor_extension": str("WWN vendor extension."),
					"hctl":                 str("SCSI address, `host:channel:target:lun`."),
					"rotational":           computedBool("true for spinning disks."),
				}),
				"system_vendor": computedObject("The system's maker.", map[string]schema.Attribute{
					"manufacturer":  str("Manufacturer."),
					"product_name":  str("Product name."),
					"serial_number": str("System serial number."),
				}),
				"firmware": computedObject("Firmware versions.", map[string]schema.Attribute{
					"bios": computedObject("BIOS firmware.", map[string]schema.Attribute{
						"vendor":  str("BIOS vendor; null when unknown (Redfish does not say)."),
						"version": str("BIOS version."),
						"date":    str("BIOS release date."),
					}),
				}),
			}),
	}
	healthAttributes(resp.Schema.Attributes)
	resp.Schema.Attributes["health_from_bmc"] = healthFromBMCAttribute()
}

func (d *hardwareDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m hardwareModel
	host, redfish, ok := d.readBMCHost(ctx, req.Config, &m, &resp.Diagnostics)
	if !ok {
		return
	}
	hw, err := d.clients.Catalog.Hardware(ctx, host.ID, redfish)
	if err != nil {
		resp.Diagnostics.AddError("Reading the hardware of host "+host.Name, err.Error())
		return
	}
	m.HostName = types.StringValue(host.Name)
	m.setHardware(hw)
	m.Health, m.HealthSource = d.readHealth(ctx, host, m.HealthFromBMC, redfish, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

var _ datasource.DataSourceWithValidateConfig = (*hardwareDataSource)(nil)

// ValidateConfig refuses health_from_bmc = true without a bmc block.
func (d *hardwareDataSource) ValidateConfig(ctx context.Context, req datasource.ValidateConfigRequest, resp *datasource.ValidateConfigResponse) {
	validateHealthFromBMC(ctx, req, resp)
}

func (m *hardwareModel) setHardware(hw *lifecycle.HardwareData) {
	if hw == nil {
		hw = &lifecycle.HardwareData{}
	}
	m.Source = types.StringValue(hw.Source)
	m.RAMMebibytes = types.Int64Value(int64(hw.RAMMebibytes))
	m.Hostname = types.StringValue(hw.Hostname)
	m.CPU = &cpuModel{
		Arch: types.StringValue(hw.CPU.Arch), Model: types.StringValue(hw.CPU.Model),
		ClockMegahertz: types.Float64Value(hw.CPU.ClockMegahertz), Count: types.Int64Value(int64(hw.CPU.Count)),
		Flags: tfglue.StringList(hw.CPU.Flags),
	}
	m.NICs = make([]nicModel, 0, len(hw.NICs))
	macs := map[string]attr.Value{}
	for _, n := range hw.NICs {
		if _, seen := macs[n.Name]; !seen && n.Name != "" {
			macs[n.Name] = types.StringValue(n.MAC)
		}
		m.NICs = append(m.NICs, nicModel{
			Name: types.StringValue(n.Name), Model: types.StringValue(n.Model), MAC: types.StringValue(n.MAC),
			IP: types.StringValue(n.IP), SpeedGbps: speedGbps(n.SpeedGbps), PXE: types.BoolValue(n.PXE),
			VLANIDs: int64List(n.VLANIDs), LLDP: lldpOf(n.LLDP),
		})
	}
	m.NICMACs = types.MapValueMust(types.StringType, macs)
	m.Storage = make([]storageModel, 0, len(hw.Storage))
	for _, s := range hw.Storage {
		m.Storage = append(m.Storage, storageModel{
			Name: types.StringValue(s.Name), Type: types.StringValue(s.Type), SizeBytes: types.Int64Value(s.SizeBytes),
			Vendor: tfglue.NullableString(s.Vendor), Model: types.StringValue(s.Model), SerialNumber: types.StringValue(s.SerialNumber),
			WWN: types.StringValue(s.WWN), WWNWithExtension: types.StringValue(s.WWNWithExtension),
			WWNVendorExtension: types.StringValue(s.WWNVendorExtension), HCTL: types.StringValue(s.HCTL),
			Rotational: types.BoolValue(s.Rotational),
		})
	}
	m.SystemVendor = &systemVendorModel{
		Manufacturer: types.StringValue(hw.SystemVendor.Manufacturer),
		ProductName:  types.StringValue(hw.SystemVendor.ProductName),
		SerialNumber: types.StringValue(hw.SystemVendor.SerialNumber),
	}
	m.Firmware = &firmwareModel{BIOS: biosModel{
		Vendor: tfglue.NullableString(hw.Firmware.BIOSVendor), Version: types.StringValue(hw.Firmware.BIOSVersion),
		Date: types.StringValue(hw.Firmware.BIOSDate),
	}}
}

// lldpOf is a NIC's LLDP neighbour, nil when none was heard.
func lldpOf(n *lifecycle.LLDPNeighbour) *lldpModel {
	if n == nil {
		return nil
	}
	return &lldpModel{
		SwitchChassisID: tfglue.NullableString(n.SwitchChassisID), SwitchPortID: tfglue.NullableString(n.SwitchPortID),
		SwitchSystemName: tfglue.NullableString(n.SwitchSystemName), VLANIDs: int64List(n.VLANIDs),
	}
}

// int64List is a list of VLAN ids.
func int64List(ids []int) types.List {
	vals := make([]attr.Value, 0, len(ids))
	for _, v := range ids {
		vals = append(vals, types.Int64Value(int64(v)))
	}
	return types.ListValueMust(types.Int64Type, vals)
}

// speedGbps is a link speed, null when unknown.
func speedGbps(g *int) types.Int64 {
	if g == nil {
		return types.Int64Null()
	}
	return types.Int64Value(int64(*g))
}
