package resources

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// Power of a host: online (BMO's online) and disable_power_off.

const onlineDescription = "Whether the host is powered on, as BMO's `online`. Default false: inventory hosts wait powered off. " +
	"A deployed host (`provisioned`) is powered by its `baremetal_deployment` while `online` is left unset; set `online = false` " +
	"to power the running host off in place (soft power off, hard when that fails) and `true` to power it on again. On a deployed " +
	"host `online` is read back from the power state, so a change behind Terraform's back shows in the plan."

func disablePowerOffAttribute() schema.BoolAttribute {
	return schema.BoolAttribute{
		Optional: true,
		Description: "BMO's `disablePowerOff`, for hosts that must never be powered off: Ironic's node `disable_power_off` " +
			"(Ironic API 1.95 and later: setting it on an older Ironic is refused at plan, naming the microversion needed and " +
			"the server's). Changed in place on an existing host and read back, so a change behind Terraform's back shows in " +
			"the plan. `online = false` is then refused at plan time, and destroy skips the power off.",
	}
}

// onlinePlan is how online is planned: a deployed host's online stays as
// the state has it (the observed power) while the configuration leaves it
// unset, instead of the default false, which would power the running host
// off. PlanModifyBool keeps the attribute's own value; settle keeps the
// rest of the plan from changing because of it.
type onlinePlan struct{}

func (onlinePlan) Description(context.Context) string {
	return "keeps a deployed host's power as it is while online is unset"
}
func (m onlinePlan) MarkdownDescription(ctx context.Context) string { return m.Description(ctx) }

func (onlinePlan) PlanModifyBool(ctx context.Context, req planmodifier.BoolRequest, resp *planmodifier.BoolResponse) {
	if !req.ConfigValue.IsNull() || req.StateValue.IsNull() || req.State.Raw.IsNull() {
		return
	}
	var st types.String
	if req.State.GetAttribute(ctx, path.Root("provisioning_state"), &st).HasError() {
		return
	}
	if lifecycle.OnlineFollowsPower(lifecycle.State(st.ValueString())) {
		resp.PlanValue = req.StateValue
	}
}

// readOnline reads online back for a provisioned host (the observed power);
// a host that is no longer provisioned goes back to the default, false,
// which a configuration that says otherwise then applies.
func (m *hostModel) readOnline(obs lifecycle.Observation) {
	switch {
	case lifecycle.OnlineFollowsPower(obs.State) && obs.PoweredOn != nil:
		m.Online = types.BoolValue(*obs.PoweredOn)
	case lifecycle.OnlineFollowsPower(lifecycle.State(m.ProvisioningState.ValueString())) && !lifecycle.OnlineFollowsPower(obs.State):
		m.Online = types.BoolValue(false)
	}
}

// applyOnline records the configured online on the node (for the power
// actions, lifecycle.ManagedOnline) and sets the power a deployed host
// converges to: its configured online when the configuration sets it,
// else on.
func applyOnline(ctx context.Context, cfg tfsdk.Config, h *lifecycle.Host) diag.Diagnostics {
	var online types.Bool
	diags := cfg.GetAttribute(ctx, path.Root("online"), &online)
	var configured *bool
	if !online.IsNull() && !online.IsUnknown() {
		v := online.ValueBool()
		configured = &v
	}
	h.Spec.OnlineSetting = lifecycle.OnlineSetting(configured)
	if lifecycle.Deployed(h.Status.State) {
		h.Spec.Online = lifecycle.DeployedOnline(h.Status.State, configured)
	}
	return diags
}

// powerValidator refuses online = false with disable_power_off.
type powerValidator struct{}

func (powerValidator) Description(context.Context) string {
	return "refuses online = false on a host whose power off is disabled"
}
func (v powerValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (powerValidator) ValidateResource(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var online, disable types.Bool
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("online"), &online)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("disable_power_off"), &disable)...)
	if disable.ValueBool() && !online.IsNull() && !online.IsUnknown() && !online.ValueBool() {
		resp.Diagnostics.AddAttributeError(path.Root("online"), "Power off disabled",
			"online = false: disable_power_off = true says this host must never be powered off (the Bare Metal Operator refuses the same).")
	}
}

// settle undoes what the framework does to a deployed host whose online is
// unset: the default (false) differs from the state (the observed power,
// true), so it marks every computed attribute unknown before
// PlanModifyBool puts online back. When nothing else differs from the
// state, the plan is the state: no change.
//
// The host's ModifyPlan runs it: an attribute's plan modifier sets only its
// own value, and the framework marks the other computed attributes unknown
// before any of them runs. Without the default the marking would not
// happen, but then a host that is not deployed, whose online goes from true
// back to the unset default, would keep its computed attributes known
// across a power off (an inconsistent result after apply).
func (onlinePlan) settle(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	var st types.String
	var cfgOnline types.Bool
	if req.Config.GetAttribute(ctx, path.Root("online"), &cfgOnline).HasError() || !cfgOnline.IsNull() {
		return
	}
	if req.State.GetAttribute(ctx, path.Root("provisioning_state"), &st).HasError() ||
		!lifecycle.OnlineFollowsPower(lifecycle.State(st.ValueString())) {
		return
	}
	filled, err := tftypes.Transform(resp.Plan.Raw, func(p *tftypes.AttributePath, v tftypes.Value) (tftypes.Value, error) {
		if v.IsKnown() {
			return v, nil
		}
		if sv, _, err := tftypes.WalkAttributePath(req.State.Raw, p); err == nil {
			if tv, ok := sv.(tftypes.Value); ok {
				return tv, nil
			}
		}
		return v, nil
	})
	if err == nil && filled.Equal(req.State.Raw) {
		resp.Plan.Raw = req.State.Raw.Copy()
	}
}
