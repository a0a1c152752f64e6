package resources

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// Where a host rests (desired_state), and the rule that no update moves a
// node between provision states unless the plan says so: the plan shows
// the Ironic state the node ends in (ironic_state) and warns with what the
// move runs (cleaning, power-off).

const desiredStateDescription = "The Ironic provision state the host rests in when nothing is deployed on it. " +
	"`available` (default): registered, inspected, cleaned (`automated_cleaning_mode`) and made available, powered as `online` says, " +
	"as the Bare Metal Operator does; only available hosts can be claimed and deployed. " +
	"`manageable`: registered and inspected, then left `manageable`: never provided, so never automatically cleaned; power follows `online`. " +
	"`enroll`: registered only, never verified, inspected, cleaned or powered (what an adopted node in `enroll` reads as). " +
	"An import reads the node's own state (`enroll`, `manageable`, else `available`), so importing or adopting a node with " +
	"`terraform query` leaves it where it is. A change toward `available` moves the node forward, and the plan says so: it shows " +
	"`ironic_state` changing and warns with what runs (verifying, inspection, cleaning, power-off). The provider never takes a node " +
	"back (from `available` to `manageable`, or to `enroll`): such a plan is refused."

func desiredStateAttribute() schema.StringAttribute {
	return schema.StringAttribute{
		Optional: true, Computed: true, Default: stringdefault.StaticString(string(lifecycle.DesiredAvailable)),
		Description: desiredStateDescription,
		Validators:  []validator.String{stringvalidator.OneOf(lifecycle.DesiredStates...)},
	}
}

// defaultOnCreate is an Optional+Computed string's default that applies
// only when the resource is created: once it exists, an unset value keeps
// what the state has (an imported node's own value, even ""), so that a
// configuration without it, as terraform query generates for a node that
// has none, plans no change.
type defaultOnCreate string

func (d defaultOnCreate) Description(context.Context) string {
	return fmt.Sprintf("Defaults to %q when the resource is created; unset later, keeps the value it has.", string(d))
}

func (d defaultOnCreate) MarkdownDescription(ctx context.Context) string { return d.Description(ctx) }

func (d defaultOnCreate) PlanModifyString(_ context.Context, req planmodifier.StringRequest, resp *planmodifier.StringResponse) {
	if !req.ConfigValue.IsNull() {
		return
	}
	if req.State.Raw.IsNull() || req.StateValue.IsNull() {
		resp.PlanValue = types.StringValue(string(d))
		return
	}
	resp.PlanValue = req.StateValue
}

// planStateMove is ModifyPlan's check of an update: the node's provision
// state after the apply, in ironic_state, and a warning naming what a move
// runs; an error for a move backward. A node in a state the plan cannot
// foresee (deployed, cleaning, failed) keeps ironic_state unknown.
func planStateMove(ctx context.Context, plan, state *hostModel, resp *resource.ModifyPlanResponse) {
	from := state.IronicState.ValueString()
	if state.DesiredState.IsUnknown() || plan.DesiredState.IsUnknown() || plan.Detached.ValueBool() {
		return
	}
	desired := lifecycle.DesiredState(plan.DesiredState.ValueString())
	mv, err := lifecycle.PlanStateMove(from, desired, plan.AutomatedCleaningMode.ValueString(),
		plan.Inspection.ValueString() == "enabled", plan.Online.ValueBool())
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("desired_state"), "Host cannot go back to "+string(desired),
			fmt.Sprintf("Host %s: %v.", plan.Name.ValueString(), err))
		return
	}
	var end string
	switch {
	case mv.To != "":
		end = mv.To
		resp.Diagnostics.AddAttributeWarning(path.Root("desired_state"),
			fmt.Sprintf("Host %s moves from %s to %s", plan.Name.ValueString(), from, mv.To),
			fmt.Sprintf("This apply moves Ironic node %s from provision state %q to %q (desired_state = %q). It runs:\n  - %s\n"+
				"To leave the host where it is, set desired_state = %q.",
				state.ID.ValueString(), from, mv.To, desired, strings.Join(mv.Runs, "\n  - "), lifecycle.DesiredFromIronic(from)))
	case from == lifecycle.IronicEnroll || from == lifecycle.IronicManageable:
		end = from // kept where it is
	default:
		return
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("ironic_state"), types.StringValue(end))...)
}

// planDetachAbort is ModifyPlan's word on a detach of a host whose node
// waits for its agent or BMC: the apply aborts that wait, so the plan says
// where the node settles (ironic_state) and warns, naming the API version
// the abort needs where Ironic has one.
func planDetachAbort(ctx context.Context, plan, state *hostModel, resp *resource.ModifyPlanResponse) {
	if !plan.Detached.ValueBool() || state.Detached.ValueBool() {
		return
	}
	from := state.IronicState.ValueString()
	wait, ok := lifecycle.AbortableWaits[from]
	if !ok {
		return
	}
	detail := fmt.Sprintf("Ironic node %s waits in %q (current step %q since %s). To detach it, this apply sends Ironic's abort, "+
		"so the node settles in %q, then puts it in maintenance. Re-attaching it later runs the aborted operation again.",
		state.ID.ValueString(), from, state.CurrentStep.ValueString(), state.LastTransition.ValueString(), wait.Settles)
	if need, gated := wait.Needs(); gated {
		detail += fmt.Sprintf(" Ironic accepts this abort from API %s on; an older Ironic refuses it, and the apply "+
			"then fails without writing anything (wait for the operation to end instead).", need.Microversion())
	}
	resp.Diagnostics.AddAttributeWarning(path.Root("detached"),
		fmt.Sprintf("Detaching host %s aborts its %s", plan.Name.ValueString(), from), detail)
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("ironic_state"), types.StringValue(wait.Settles))...)
}

// readDesiredState fills an unset desired_state (an import, or a state
// written before the attribute existed) from the node's provision state.
func (m *hostModel) readDesiredState(obs lifecycle.Observation) {
	if m.DesiredState.IsNull() || m.DesiredState.IsUnknown() {
		m.DesiredState = types.StringValue(string(lifecycle.DesiredFromIronic(obs.ProvisionState)))
	}
}
