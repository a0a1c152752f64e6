package datasources

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/tfglue"
)

// NewFirmwareSchema returns the baremetal_firmware_schema data source.
func NewFirmwareSchema() datasource.DataSource {
	return &firmwareSchemaDataSource{base{typeName: "_firmware_schema"}}
}

// firmwareSchemaDataSource is BMO's FirmwareSchema: the BIOS attribute
// registry of a host, as the firmware settings validation reads it
// (lifecycle.FirmwareCatalog.BIOS).
type firmwareSchemaDataSource struct {
	base
}

type firmwareSchemaDataModel struct {
	bmcHostModel
	Attributes map[string]firmwareSchemaSettingModel `tfsdk:"attributes"`
}

type firmwareSchemaSettingModel struct {
	Type            types.String `tfsdk:"type"`
	AllowableValues types.List   `tfsdk:"allowable_values"`
	LowerBound      types.Int64  `tfsdk:"lower_bound"`
	UpperBound      types.Int64  `tfsdk:"upper_bound"`
	MinLength       types.Int64  `tfsdk:"min_length"`
	MaxLength       types.Int64  `tfsdk:"max_length"`
	ReadOnly        types.Bool   `tfsdk:"read_only"`
	ResetRequired   types.Bool   `tfsdk:"reset_required"`
	Value           types.String `tfsdk:"value"`
}

func (d *firmwareSchemaDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "A host's BIOS attribute registry, as Metal3's FirmwareSchema: which BIOS settings exist, their " +
			"types, allowed values, bounds, whether they are read-only and whether a change needs a reboot. It is the " +
			"schema `baremetal_firmware_settings` validates against: from Ironic's `GET /v1/nodes/{id}/bios?detail=True` " +
			"(API 1.74+) when the node's BIOS interface fills the registry (`redfish` does, `fake` does not), else from " +
			"the BMC's Redfish AttributeRegistry when `bmc` is given, else none (`source = \"none\"`: the settings Ironic " +
			"caches, without types). Settings whose name contains `Password` are left out, as Metal3 leaves them out.",
		Attributes: bmcHostAttributes("has no BIOS attribute registry for the node",
			"Where the registry came from: `ironic` (`/bios?detail=True`), `redfish` (the BMC's AttributeRegistry) or "+
				"`none` (no registry: `type` and the limits are empty).", map[string]schema.Attribute{
				"attributes": schema.MapNestedAttribute{
					Computed:    true,
					Description: "The BIOS attributes by name.",
					NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
						"type":             computedString("`Enumeration`, `String`, `Integer` or `Boolean`; empty when no registry is known."),
						"allowable_values": computedList(types.StringType, "The values an `Enumeration` accepts; empty for other types."),
						"lower_bound":      computedInt("The smallest value of an `Integer`; null when the registry gives none."),
						"upper_bound":      computedInt("The largest value of an `Integer`; null when the registry gives none."),
						"min_length":       computedInt("The shortest value of a `String`; null when the registry gives none."),
						"max_length":       computedInt("The longest value of a `String`; null when the registry gives none."),
						"read_only":        computedBool("Whether the attribute cannot be set."),
						"reset_required":   computedBool("Whether a change takes effect only after the host reboots."),
						"value":            computedString("The current value (Ironic's cached one when it has it, else the BMC's)."),
					}},
				},
			}),
	}
}

func (d *firmwareSchemaDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	readFirmware[firmwareSchemaDataModel](ctx, &d.base, req, resp, "the BIOS attribute registry", lifecycle.FirmwareCatalog.BIOS)
}

// set records the BIOS attribute registry in the model.
func (m *firmwareSchemaDataModel) set(b *lifecycle.BIOS) {
	m.Source = types.StringValue(b.SchemaSource)
	m.Attributes = firmwareSchemaSettings(b)
}

// firmwareSchemaSettings is the attributes map of b.
func firmwareSchemaSettings(b *lifecycle.BIOS) map[string]firmwareSchemaSettingModel {
	out := make(map[string]firmwareSchemaSettingModel, len(b.Settings))
	for name, s := range b.Settings {
		out[name] = firmwareSchemaSettingModel{
			Type:            types.StringValue(s.Type),
			AllowableValues: tfglue.StringList(s.AllowableValues),
			LowerBound:      types.Int64PointerValue(s.LowerBound),
			UpperBound:      types.Int64PointerValue(s.UpperBound),
			MinLength:       types.Int64PointerValue(s.MinLength),
			MaxLength:       types.Int64PointerValue(s.MaxLength),
			ReadOnly:        types.BoolValue(s.ReadOnly),
			ResetRequired:   types.BoolValue(s.ResetRequired),
			Value:           types.StringValue(s.Value),
		}
	}
	return out
}
