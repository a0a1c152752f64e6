package resources

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// hostDay2Model holds baremetal_host's day-2 arguments (Metal3's
// annotations): reboot and re-inspection triggers, detach and ports.
type hostDay2Model struct {
	RebootTrigger  types.String `tfsdk:"reboot_trigger"`
	Detached       types.Bool   `tfsdk:"detached"`
	DeleteMode     types.String `tfsdk:"delete_mode"`
	InspectTrigger types.String `tfsdk:"inspect_trigger"`
	Ports          types.Set    `tfsdk:"ports"`
	PortGroups     types.Set    `tfsdk:"port_groups"`
}

// addDay2Attributes adds the day-2 arguments to the host schema.
func addDay2Attributes(attrs map[string]schema.Attribute) {
	attrs["ports"] = portsAttribute()
	attrs["port_groups"] = portGroupsAttribute()
	attrs["inspect_trigger"] = schema.StringAttribute{
		Optional: true,
		Description: "Any string; changing it inspects the host again in place, as the Bare Metal Operator's `inspect.metal3.io` annotation " +
			"(after a hardware change: new NICs, disks): an `available` host goes to manageable, is inspected, and is made available again " +
			"(`inspecting`, `preparing`, `available`). Refused, at plan and at apply, on a deployed (`provisioned`) or `externally provisioned` host. " +
			"Setting it when the host is created inspects nothing more than registration does.",
	}
	attrs["detached"] = schema.BoolAttribute{
		Optional: true, Computed: true, Default: booldefault.StaticBool(false),
		Description: "Take the host out of management without touching the machine, as the Bare Metal Operator's `detached` annotation: " +
			"its Ironic node goes into maintenance with a reason naming this provider, so Ironic neither powers nor moves it, " +
			"and `operational_status` reads `detached`. Setting it back to false ends that maintenance. " +
			"Destroying a detached host only forgets it: the node stays in Ironic as it is (same UUID, provision state and power), " +
			"so another configuration can `terraform import` it by UUID or name and manage it (its first apply re-attaches it). " +
			"A host is detached once it is `available`, `provisioned` or `externally provisioned`, or at once when its node waits for its agent " +
			"or BMC: from `inspect wait`, `clean wait`, `rescue wait` and `service wait` (API 1.87+) the provider first sends Ironic's `abort` " +
			"and the node settles in the matching failed state (`clean failed`, ...), so re-attaching runs the operation again; " +
			"`wait call-back` (a deployment) cannot be aborted before Ironic API 1.110, and the detach fails saying so. Every other resource leaves a " +
			"detached host alone too: a `baremetal_deployment`, `baremetal_firmware_settings` (even with `reset_on_destroy`) or " +
			"`baremetal_host_claim` on it is only forgotten on destroy, and new ones, or changes to them, are refused until " +
			"it is re-attached. The host's own `ports` and `port_groups` do not change while it is detached (refused at plan, also in the apply " +
			"that detaches it; re-attaching may change them). Maintenance set by anyone else is not a detach. Default false.",
	}
	attrs["delete_mode"] = schema.StringAttribute{
		Optional: true, Computed: true, Default: stringdefault.StaticString("normal"),
		Validators: []validator.String{stringvalidator.OneOf("normal", "force")},
		Description: "How a destroy deletes the host. `normal` (the default) follows the Bare Metal Operator's delete rules: " +
			"deprovision (cleaning) and power off, then delete the Ironic node. `force` is BMO's forced detachment then delete, for a host " +
			"that cannot get through those (a dead BMC, an agent that never calls back): no power off and no cleaning; the operation the " +
			"node waits in is aborted where Ironic allows it (`inspect wait`, `clean wait`, `rescue wait`, `service wait` at API 1.87+; " +
			"not `wait call-back` before API 1.110), then the node is put in maintenance and deleted. Risks: the machine is left as it is, " +
			"possibly powered on, with whatever is on its disks (nothing is erased, even with `automated_cleaning_mode` `express` or `full`), " +
			"and the node's ports, BIOS and RAID settings go with it; registering the machine again starts from scratch. Refused at apply for " +
			"a host whose node runs a deployment (an image written on an `active` node, or one Ironic rescues or services): destroy its " +
			"`baremetal_deployment` first. A deployment that never got there (`deploying`, `wait call-back`, `deploy failed`: an agent that " +
			"never called back) does not hold the host: the node is put in maintenance and deleted as it is, the machine possibly still " +
			"running the agent or a half-written image. " +
			"A detached host is deleted too under `force` (under `normal` it is only forgotten).",
	}
	attrs["reboot_trigger"] = schema.StringAttribute{
		Optional: true,
		Description: "Any string; changing it reboots the host in place, as the Bare Metal Operator's `reboot.metal3.io` annotation: " +
			"a soft power off (Ironic's `soft power off`, with its timeout), a hard power off when that fails or times out, then power on. " +
			"Works on deployed and on available hosts; a host that is to stay off (`online = false` and not deployed) stays off. " +
			"Setting it when the host is created does not reboot it.",
	}
}

// applyDay2 copies the day-2 arguments that hold while they are set
// (detached) into h, for Create, Update and Delete.
func (m *hostModel) applyDay2(h *lifecycle.Host) {
	h.Detached = m.Detached.ValueBool()
}

// readDay2 reads back what Ironic says of the day-2 arguments: a node in
// maintenance with the provider's detach reason is detached (so an
// imported detached node reads as detached, and a maintenance ended
// behind Terraform's back shows as drift).
func (m *hostModel) readDay2(ctx context.Context, machine *lifecycle.Machine, h *lifecycle.Host, obs lifecycle.Observation) diag.Diagnostics {
	detached := obs.Maintenance && obs.MaintenanceReason == lifecycle.DetachReason
	m.Detached = types.BoolValue(detached)
	if m.DeleteMode.IsNull() || m.DeleteMode.IsUnknown() {
		m.DeleteMode = types.StringValue("normal") // (an import: Ironic keeps no delete mode)
	}
	switch {
	case detached:
		m.OperationalStatus = types.StringValue(string(lifecycle.OperationalDetached))
	case m.OperationalStatus.ValueString() == string(lifecycle.OperationalDetached):
		m.OperationalStatus = types.StringValue(string(lifecycle.OperationalOK))
	}
	diags := m.readPorts(ctx, machine, h)
	diags.Append(m.readPortGroups(ctx, machine, h)...)
	return diags
}

// day2Requests turns the day-2 arguments that changed between state and
// plan into requests on h, before Update converges it (h.Status is what
// Ironic says now). A refused request is an error on its attribute.
func (m *hostModel) day2Requests(state *hostModel, h *lifecycle.Host, diags *diag.Diagnostics) {
	if !m.RebootTrigger.Equal(state.RebootTrigger) {
		h.RebootRequested = true
	}
	if !m.InspectTrigger.Equal(state.InspectTrigger) {
		if err := lifecycle.RequestInspection(h); err != nil {
			diags.AddAttributeError(path.Root("inspect_trigger"), "Re-inspection refused", err.Error())
		}
	}
}

// checkDay2Plan refuses at plan time what day2Requests would refuse at
// apply, from the state's (refreshed) provisioning state.
func (m *hostModel) checkDay2Plan(state *hostModel, diags *diag.Diagnostics) {
	if !m.InspectTrigger.Equal(state.InspectTrigger) && !m.InspectTrigger.IsUnknown() {
		st := lifecycle.State(state.ProvisioningState.ValueString())
		if err := lifecycle.CanReinspect(state.Name.ValueString(), st); err != nil {
			diags.AddAttributeError(path.Root("inspect_trigger"), "Re-inspection refused", err.Error())
		}
	}
}
