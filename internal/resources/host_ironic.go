package resources

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmcaddr"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// checkIronicSupport refuses at plan what the Ironic in use cannot do:
// disable_power_off on an Ironic older than its microversion, and a BMC
// address whose hardware type Ironic does not enable (checked on create
// and when the address changes, so that hosts already registered keep
// planning).
func (r *hostResource) checkIronicSupport(ctx context.Context, req resource.ModifyPlanRequest, diags *diag.Diagnostics) {
	if r.clients == nil || req.Plan.Raw.IsNull() {
		return
	}
	var disable types.Bool
	diags.Append(req.Plan.GetAttribute(ctx, path.Root("disable_power_off"), &disable)...)
	if err := r.clients.API.Require(lifecycle.FeatureDisablePowerOff, "disable_power_off"); disable.ValueBool() && err != nil {
		diags.AddAttributeError(path.Root("disable_power_off"), "Ironic too old for disable_power_off", err.Error())
	}
	var groups types.Set
	diags.Append(req.Plan.GetAttribute(ctx, path.Root("port_groups"), &groups)...)
	checkPortGroupPhysnet(r.clients.API, groups, diags)
	addrPath := path.Root("bmc").AtName("address")
	var addr, driver, old types.String
	diags.Append(req.Plan.GetAttribute(ctx, addrPath, &addr)...)
	diags.Append(req.Plan.GetAttribute(ctx, path.Root("driver"), &driver)...)
	if !req.State.Raw.IsNull() {
		diags.Append(req.State.GetAttribute(ctx, addrPath, &old)...)
	}
	if diags.HasError() || addr.IsNull() || addr.IsUnknown() || !driver.IsNull() || addr.Equal(old) {
		return // no address, not known yet, overridden by driver, or unchanged
	}
	d, err := bmcaddr.Parse(addr.ValueString())
	if err != nil {
		return // the validators say
	}
	if err := r.clients.CheckHardwareType(ctx, d.HardwareTypeNeed()); err != nil {
		diags.AddAttributeError(addrPath, "Ironic lacks the BMC's hardware type", "bmc.address: "+err.Error())
	}
}
