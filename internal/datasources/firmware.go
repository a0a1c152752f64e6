package datasources

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/tfglue"
)

// NewFirmware returns the baremetal_firmware data source.
func NewFirmware() datasource.DataSource { return &firmwareDataSource{base{typeName: "_firmware"}} }

// firmwareDataSource is BMO's HostFirmwareComponents status: a host's
// firmware components and versions.
type firmwareDataSource struct {
	base
}

type firmwareDataModel struct {
	bmcHostModel
	BIOSVersion types.String             `tfsdk:"bios_version"`
	Components  []firmwareComponentModel `tfsdk:"components"`
}

type firmwareComponentModel struct {
	ID         types.String `tfsdk:"id"`
	Name       types.String `tfsdk:"name"`
	Version    types.String `tfsdk:"version"`
	Updateable types.Bool   `tfsdk:"updateable"`
	RelatedTo  types.List   `tfsdk:"related_to"`
}

func (d *firmwareDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "A host's firmware components and their versions, as Metal3's HostFirmwareComponents status: from " +
			"the BMC's Redfish FirmwareInventory when `bmc` is given, else from Ironic's firmware API (API 1.86+; the bios, " +
			"bmc and nic components) when it lists any. The BMC lists every item that belongs to the system, its managers, its " +
			"chassis and what they contain: drives, storage enclosures, NICs, storage controllers, power supplies; an " +
			"item is left out only when it is tied to another system of the same BMC. Plus the BIOS version. " +
			"`source` says which.",
		Attributes: bmcHostAttributes("lists no firmware components",
			"Where the components came from: `ironic` (firmware API), `redfish` (the BMC) or `none`.", map[string]schema.Attribute{
				"bios_version": computedString("The BIOS version (the `bios` component's, else the system's BiosVersion)."),
				"components": computedObjects("The firmware components, sorted by id.", map[string]schema.Attribute{
					"id":         computedString("Ironic's component name (`bios`, `bmc`, `nic:...`) or the Redfish inventory item's Id."),
					"name":       computedString("The component's name."),
					"version":    computedString("The version installed now."),
					"updateable": computedBool("Whether the component can be updated."),
					"related_to": computedList(types.StringType,
						"The Redfish resources the component belongs to, as the BMC links them (its `RelatedItem`: "+
							"the system, a manager, a drive, a NIC, a power supply, ...); empty for Ironic's components and "+
							"for items the BMC relates to nothing."),
				}),
			}),
	}
}

func (d *firmwareDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	readFirmware[firmwareDataModel](ctx, &d.base, req, resp, "the firmware", lifecycle.FirmwareCatalog.Firmware)
}

// set records the firmware inventory in the model.
func (m *firmwareDataModel) set(inv *lifecycle.FirmwareInventory) {
	m.Source = types.StringValue(inv.Source)
	m.BIOSVersion = types.StringValue(inv.BIOSVersion)
	m.Components = []firmwareComponentModel{}
	for _, c := range inv.Components {
		m.Components = append(m.Components, firmwareComponentModel{
			ID: types.StringValue(c.ID), Name: types.StringValue(c.Name),
			Version: types.StringValue(c.Version), Updateable: types.BoolValue(c.Updateable),
			RelatedTo: tfglue.StringList(c.RelatedTo),
		})
	}
}
