package resources

import (
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// hostDay2Model holds baremetal_host's day-2 arguments (Metal3's
// annotations): reboot and re-inspection triggers, detach and ports.
type hostDay2Model struct {
	RebootTrigger types.String `tfsdk:"reboot_trigger"`
}

// addDay2Attributes adds the day-2 arguments to the host schema.
func addDay2Attributes(attrs map[string]schema.Attribute) {
	attrs["reboot_trigger"] = schema.StringAttribute{
		Optional: true,
		Description: "Any string; changing it reboots the host in place, as the Bare Metal Operator's `reboot.metal3.io` annotation: " +
			"a soft power off (Ironic's `soft power off`, with its timeout), a hard power off when that fails or times out, then power on. " +
			"Works on deployed and on available hosts; a host that is to stay off (`online = false` and not deployed) stays off. " +
			"Setting it when the host is created does not reboot it.",
	}
}

// day2Requests turns the day-2 arguments that changed between state and
// plan into requests on h, before Update converges it.
func (m *hostModel) day2Requests(state *hostModel, h *lifecycle.Host) {
	if !m.RebootTrigger.Equal(state.RebootTrigger) {
		h.RebootRequested = true
	}
}
