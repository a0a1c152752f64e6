package resources

import (
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// hostDay2Model holds baremetal_host's day-2 arguments (Metal3's
// annotations): reboot and re-inspection triggers, detach and ports.
type hostDay2Model struct {
	RebootTrigger types.String `tfsdk:"reboot_trigger"`
	Detached      types.Bool   `tfsdk:"detached"`
}

// addDay2Attributes adds the day-2 arguments to the host schema.
func addDay2Attributes(attrs map[string]schema.Attribute) {
	attrs["detached"] = schema.BoolAttribute{
		Optional: true, Computed: true, Default: booldefault.StaticBool(false),
		Description: "Take the host out of management without touching the machine, as the Bare Metal Operator's `detached` annotation: " +
			"its Ironic node goes into maintenance with a reason naming this provider, so Ironic neither powers nor moves it, " +
			"and `operational_status` reads `detached`. Setting it back to false ends that maintenance. " +
			"Destroying a detached host only forgets it: the node stays in Ironic as it is (same UUID, provision state and power), " +
			"so another configuration can `terraform import` it by UUID or name and manage it (its first apply re-attaches it). " +
			"A host is detached once it is `available`, `provisioned` or `externally provisioned`. Default false.",
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
func (m *hostModel) readDay2(obs lifecycle.Observation) {
	detached := obs.Maintenance && obs.MaintenanceReason == lifecycle.DetachReason
	m.Detached = types.BoolValue(detached)
	switch {
	case detached:
		m.OperationalStatus = types.StringValue(string(lifecycle.OperationalDetached))
	case m.OperationalStatus.ValueString() == string(lifecycle.OperationalDetached):
		m.OperationalStatus = types.StringValue(string(lifecycle.OperationalOK))
	}
}

// day2Requests turns the day-2 arguments that changed between state and
// plan into requests on h, before Update converges it.
func (m *hostModel) day2Requests(state *hostModel, h *lifecycle.Host) {
	if !m.RebootTrigger.Equal(state.RebootTrigger) {
		h.RebootRequested = true
	}
}
