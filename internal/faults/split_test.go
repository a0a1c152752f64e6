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
	prefix := acctest.Name("flt-split")
	config, names := fakeHosts(prefix, 10)
	const limit = 25 * time.Second
	w := newWorkspace(t, config, "BAREMETAL_STALL_TIMEOUT="+limit.String())
	defer w.destroy()

	start := time.Now()
	cmd := w.command("apply", "-auto-approve", "-input=false", "-no-color")
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 3*time.Minute, "10 nodes registered, 3 past enroll, not all available", func() bool {
		f := fleet(t, sc, prefix)
		avail, past := 0, 0
		for _, ns := range f {
			switch ns[0].ProvisionState {
			case "available":
				avail++
				past++
			case "enroll":
			default:
				past++
			}
		}
		return len(f) == 10 && past >= 3 && avail < 10
	})
	inState := map[string]int{}
	for _, ns := range fleet(t, sc, prefix) {
		inState[ns[0].ProvisionState]++
	}
	t.Logf("killing conductor-1 at %s; nodes in %v", time.Since(start).Round(time.Second), inState)
	rig(t, "kill", "conductor-1")

	err := cmd.Wait()
	took := time.Since(start)
	happened := fmt.Sprintf("apply finished on the surviving conductor (killed with the nodes in %v)", inState)
	if err != nil {
		errs := errorsIn(out.String())
		stalls := 0
		for _, e := range errs {
			if !hostErrorRE.MatchString(e) {
				t.Errorf("error does not name a host: %s", e)
			}
			if strings.Contains(e, "no Ironic conductor holds a lock") {
				stalls++
			}
		}
		t.Logf("apply failed (%v) after %s:\n%s", err, took.Round(time.Second), strings.Join(errs, "\n"))
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
	expectFleet(t, sc, prefix, names, "available")
	w.planEmpty()
	record(t, row{"Split topology: one of two conductors SIGKILLed mid-apply of 10 hosts", happened, secs(took), "nothing: 10 nodes, none duplicated"})
	// Leave the rig whole for whatever runs next.
	rig(t, "resume")
}
