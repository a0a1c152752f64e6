package resources

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/tfglue"
)

// firmwareSettingsModel is baremetal_firmware_settings' state.
type firmwareSettingsModel struct {
	ID             types.String         `tfsdk:"id"`
	HostID         types.String         `tfsdk:"host_id"`
	Settings       types.Map            `tfsdk:"settings"`
	Firmware       *firmwareSwitchModel `tfsdk:"firmware"`
	ResetOnDestroy types.Bool           `tfsdk:"reset_on_destroy"`
	BMC            *tfglue.BMCModel     `tfsdk:"bmc"`
	Current        types.Map            `tfsdk:"current"`
	SchemaSource   types.String         `tfsdk:"schema_source"`
	Timeouts       timeouts.Value       `tfsdk:"timeouts"`
}

type firmwareSwitchModel struct {
	VirtualizationEnabled             types.Bool `tfsdk:"virtualization_enabled"`
	SimultaneousMultithreadingEnabled types.Bool `tfsdk:"simultaneous_multithreading_enabled"`
	SriovEnabled                      types.Bool `tfsdk:"sriov_enabled"`
}

func (m *firmwareSettingsModel) config() *lifecycle.FirmwareConfig {
	if m.Firmware == nil {
		return nil
	}
	b := func(v types.Bool) *bool {
		if v.IsNull() || v.IsUnknown() {
			return nil
		}
		x := v.ValueBool()
		return &x
	}
	return &lifecycle.FirmwareConfig{
		VirtualizationEnabled:             b(m.Firmware.VirtualizationEnabled),
		SimultaneousMultithreadingEnabled: b(m.Firmware.SimultaneousMultithreadingEnabled),
		SriovEnabled:                      b(m.Firmware.SriovEnabled),
	}
}

func (m *firmwareSettingsModel) settings(ctx context.Context) (map[string]string, diag.Diagnostics) {
	out := map[string]string{}
	var diags diag.Diagnostics
	tfglue.ElementsAs(ctx, m.Settings, &out, &diags)
	return out, diags
}

// known reports whether everything the settings depend on is known.
func (m *firmwareSettingsModel) known() bool {
	if m.HostID.IsUnknown() || m.Settings.IsUnknown() {
		return false
	}
	if m.Settings.IsNull() {
		return true
	}
	for _, v := range m.Settings.Elements() {
		if v.IsUnknown() {
			return false
		}
	}
	return true
}

// want merges settings and the firmware switches for the host's driver
// and validates them against b; errors name the attribute.
func (m *firmwareSettingsModel) want(ctx context.Context, b *lifecycle.BIOS) (map[string]string, diag.Diagnostics) {
	settings, diags := m.settings(ctx)
	if diags.HasError() {
		return nil, diags
	}
	merged, err := lifecycle.MergeFirmwareSettings(b.Driver, m.config(), settings)
	if err != nil {
		diags.AddAttributeError(path.Root("firmware"), "Invalid firmware switches", err.Error())
		return nil, diags
	}
	for _, e := range lifecycle.ValidateFirmwareSettings(merged, b) {
		p := path.Root("settings").AtMapKey(e.Name)
		if _, ok := settings[e.Name]; !ok {
			p = path.Root("firmware")
		}
		diags.AddAttributeError(p, "Invalid BIOS setting "+e.Name,
			fmt.Sprintf("%s (schema from %s).", e.Error(), b.SchemaSource))
	}
	return merged, diags
}

// stateSetter is the part of tfsdk.State the resource writes.
type stateSetter interface {
	Set(ctx context.Context, val any) diag.Diagnostics
}

func (m *firmwareSettingsModel) setBIOS(b *lifecycle.BIOS) {
	cur := map[string]attr.Value{}
	for n, v := range b.Values() {
		cur[n] = types.StringValue(v)
	}
	m.Current = types.MapValueMust(types.StringType, cur)
	m.SchemaSource = types.StringValue(b.SchemaSource)
}
