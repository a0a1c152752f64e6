package faults

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/acctest"
)

// Split topology (ironic-api and two ironic-conductor processes on MariaDB):
// one conductor SIGKILLed in the middle of an apply of 10 hosts. The other
// takes its nodes over (Ironic fails the deploying and cleaning ones it
// inherits; verifying and inspecting ones it leaves unlocked, which the
// provider reports as stalled). The apply finishes, or fails clearly and
// converges on a re-apply, after the restart of the surviving conductor
// that the stall error advises; nothing is duplicated or lost.
func TestFaultSplitConductorKilled(t *testing.T) {
	sc := preCheck(t)
	if topo := rig(t, "topology"); topo != "split" {
		t.Skipf("needs the split rig (IRONIC_TOPOLOGY=split), this one is %s", topo)
	}
	const limit = 25 * time.Second
	w := startFleetApply(t, acctest.Name("flt-split"), 10, "BAREMETAL_STALL_TIMEOUT="+limit.String())
	_, inState := w.waitMidApply(sc)
	t.Logf("killing conductor-1 at %s; nodes in %v", time.Since(w.start).Round(time.Second), inState)
	rig(t, "kill", "conductor-1")

	took, errs, err := w.wait()
	happened := fmt.Sprintf("apply finished on the surviving conductor (killed with the nodes in %v)", inState)
	if err != nil {
		stalls := 0
		for _, e := range errs {
			if strings.Contains(e, "no Ironic conductor holds a lock") {
				stalls++
			}
		}
		restarted := ""
		if stalls > 0 {
			// As the stall error advises: restart the conductor.
			rig(t, "kill", "conductor-2")
			rig(t, "resume", "conductor-2")
			restarted = ", the surviving conductor restarted as the stall errors advise"
		}
		d := w.mustApply("re-apply after the conductor was killed")
		happened = fmt.Sprintf("apply failed clearly after %s (%d errors, %d of them stalls on nodes the dead conductor held, first: %.400s)%s; re-apply converged in %s",
			secs(took), len(errs), stalls, hostPart(first(errs)), restarted, secs(d))
		took += d
	}
	expectFleet(t, sc, w.prefix, w.names, "available")
	w.planEmpty()
	record(t, row{"Split topology: one of two conductors SIGKILLed mid-apply of 10 hosts", happened, secs(took), "nothing: 10 nodes, none duplicated"})
	// Leave the rig whole for whatever runs next.
	rig(t, "resume")
}
