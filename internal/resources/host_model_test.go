package resources

import (
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// A pass that changes nothing (a refresh) keeps the host's last_updated:
// it once came back as Ironic's updated_at, a second or two older, so every
// refresh after an apply showed each host's last_updated changed outside
// of Terraform and wrote every host's state.
func TestHostStatusKeepsLastUpdated(t *testing.T) {
	m := hostModel{
		ID:                types.StringValue("6507e218-2f4f-4d58-8158-f0ad38b0ee1b"),
		ProvisioningState: types.StringValue(string(lifecycle.StateAvailable)),
		PoweredOn:         types.BoolValue(true),
		LastUpdated:       types.StringValue("2026-12-05T01:38:21Z"),
	}
	h := &lifecycle.Host{Status: m.status()}
	obs := &lifecycle.Observation{Exists: true, ProvisionState: "available", UpdatedAt: time.Date(2026, 12, 5, 1, 38, 19, 0, time.UTC)}
	m.setStatus(h, obs)
	if got := m.LastUpdated.ValueString(); got != "2026-12-05T01:38:21Z" {
		t.Errorf("last_updated after a pass that changed nothing = %q, want the state's 2026-12-05T01:38:21Z", got)
	}

	// A host with none (imported) takes Ironic's updated_at.
	m.LastUpdated = types.StringNull()
	h = &lifecycle.Host{Status: m.status()}
	m.setStatus(h, obs)
	if got := m.LastUpdated.ValueString(); got != "2026-12-05T01:38:19Z" {
		t.Errorf("last_updated of a host without one = %q, want Ironic's updated_at 2026-12-05T01:38:19Z", got)
	}
}
