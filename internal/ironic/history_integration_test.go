package ironic

import (
	"errors"
	"strings"
	"testing"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// TestIronicFailureHistory: on the rig's Ironic (API 1.78 or later), a
// deployment of an image nobody serves fails, and the state machine's
// error ends with the node's last history events, the conductor's record
// of the failure (severity ERROR) last.
func TestIronicFailureHistory(t *testing.T) {
	nt := newNodeTest(t, func(h *lifecycle.Host) {
		h.Spec.BMC.Interfaces["deploy_interface"] = "direct"
		h.Spec.AutomatedCleaningMode = lifecycle.CleaningDisabled
		// Ironic 2025.1 (29.0.5) makes every PATCHed node its own child,
		// and then fails a power off on the node's own lock unless it has
		// its own power supply: the failure shown would be that.
		h.Spec.BMC.DriverInfo["has_dedicated_power_supply"] = true
	})
	if res := nt.deployFrom("http://127.0.0.1:1/image.qcow2"); res.ErrorMessage == "" {
		t.Fatalf("the deployment did not fail: %+v", res)
	}
	last := nt.node().LastError
	events, err := nt.p.History(nt.ctx, nt.h.Status.ID, 5)
	if err != nil || len(events) == 0 || len(events) > 5 {
		t.Fatalf("history: %d events, %v; want 1 to 5", len(events), err)
	}
	if e := events[len(events)-1]; e.Severity != "ERROR" || !strings.Contains(last, strings.TrimSpace(e.Event)) {
		t.Errorf("last event %+v, want the failure %q", e, last)
	}

	// Through the state machine: the failure, then the history.
	nt.h.Status.State = lifecycle.StateProvisioning
	m := &lifecycle.Machine{Prov: nt.p, Wait: nt.w, Rand: func() float64 { return 0 }}
	err = m.Converge(nt.ctx, nt.h, lifecycle.ConvergeOptions{Retries: 0})
	var he *lifecycle.HostError
	if !errors.As(err, &he) || len(he.History) == 0 ||
		!strings.Contains(err.Error(), "events of the node's Ironic history:\n") {
		t.Fatalf("err = %v, want a HostError with the history", err)
	}
	t.Logf("the failure as reported:\n%s", err)
}
