package faults

import (
	"context"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/acctest"
)

// Ironic (API and conductors) SIGKILLed in the middle of an apply of 10
// hosts and started again on the same database: the apply finishes, or
// fails clearly and a re-apply converges; no node is duplicated or lost.
func TestFaultIronicRestart(t *testing.T) {
	sc := preCheck(t)
	w := startFleetApply(t, acctest.Name("flt-restart"), 10)
	states, inState := w.waitMidApply(sc)
	t.Logf("killing Ironic at %s; nodes: %s", time.Since(w.start).Round(time.Second), strings.Join(states, " "))
	rig(t, "kill")
	down := time.Now()
	time.Sleep(5 * time.Second) // Ironic stays down for a while, as a crash would leave it
	rig(t, "resume")
	outage := time.Since(down)

	took, errs, err := w.wait()
	happened := fmt.Sprintf("apply finished; Ironic was down %s, killed with the nodes in %v", secs(outage), inState)
	if err != nil {
		d := w.mustApply("re-apply after the restart")
		happened = fmt.Sprintf("apply failed clearly (%d errors, first: %.400s); re-apply converged in %s", len(errs), hostPart(first(errs)), secs(d))
		took += d
	}
	expectFleet(t, sc, w.prefix, w.names, "available")
	w.planEmpty()
	if n := strings.Count(w.log(), "host state"); n < 10 {
		t.Errorf("%d \"host state\" progress lines at INFO for 10 hosts", n)
	}
	record(t, row{"Ironic (API and both conductors) SIGKILLed mid-apply of 10 hosts, restarted 5 s later", happened, secs(took), "nothing: 10 nodes, none duplicated"})
}

// A task Ironic lost: the node sits in verifying with no reservation, as
// after "database is locked" inside do_node_verify (set behind Ironic's
// back in its database). The apply fails within the stall limit naming the
// host, the state, that no conductor holds it, and what to do; after the
// advised conductor restart (which fails the node) a re-apply converges.
func TestFaultLostTask(t *testing.T) {
	sc := preCheck(t)
	name := acctest.Name("flt-lost")
	// The node exists in enroll, then "verifies" with nobody working on it.
	n, err := nodes.Create(context.Background(), sc, nodes.CreateOpts{Name: name, Driver: "fake-hardware",
		DriverInfo: map[string]any{"fake_note": "fault suite"}}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	rig(t, "sql", fmt.Sprintf(`UPDATE nodes SET provision_state = 'verifying', target_provision_state = 'manageable',
  reservation = NULL, provision_updated_at = UTC_TIMESTAMP() WHERE uuid = '%s'`, n.UUID))

	const limit = 15 * time.Second
	config := fmt.Sprintf(`
resource "baremetal_host" "lost" {
  name        = %q
  driver      = "fake-hardware"
  driver_info = { fake_note = "fault suite" }
}
`, name)
	w := newWorkspace(t, config, "BAREMETAL_STALL_TIMEOUT="+limit.String())
	defer w.destroy()
	out, took, err := w.apply()
	if err == nil {
		t.Fatalf("apply succeeded on a node nobody works on:\n%s", tail(out, 40))
	}
	errs := errorsIn(out)
	if len(errs) != 1 {
		t.Fatalf("want one error, got %d:\n%s", len(errs), tail(out, 40))
	}
	for _, want := range []string{`host "` + name + `"`, `"registering"`, `"verifying"`, "stall_timeout 15s",
		"no Ironic conductor holds a lock", "Ironic conductor's log", "restarting the conductor", "terraform apply again"} {
		if !strings.Contains(errs[0], want) {
			t.Errorf("stall error lacks %q: %s", want, errs[0])
		}
	}
	if took > limit+40*time.Second {
		t.Errorf("the stall error came after %s; the limit is %s", took, limit)
	}

	msg := hostPart(errs[0])
	t.Logf("the stall error: %s", msg)
	// What the error advises: restart the conductor, then apply again.
	rig(t, "kill")
	rig(t, "resume")
	d := w.mustApply("re-apply after the conductor restart")
	expectFleet(t, sc, name, []string{name}, "available")
	w.planEmpty()
	record(t, row{"Lost task: node in verifying, no reservation (set in the database), stall_timeout 15s",
		fmt.Sprintf("clear stall error: %s -- after the advised conductor restart a re-apply converged in %s", msg, secs(d)),
		secs(took) + " to the error", "nothing: 1 node"})
}

// Terraform SIGKILLed (with its provider) in the middle of an apply: the
// hosts it was creating are not in its state; a re-apply finds their nodes
// by name and converges without a duplicate.
func TestFaultTerraformKilled(t *testing.T) {
	sc := preCheck(t)
	t.Parallel() // with the other tests that leave Ironic alone
	w := startFleetApply(t, acctest.Name("flt-tfkill"), 5)
	prefix := w.prefix
	waitFor(t, 2*time.Minute, "5 nodes registered", func() bool { return len(fleet(t, sc, prefix)) == 5 })
	_ = syscall.Kill(-w.cmd.Process.Pid, syscall.SIGKILL)
	_ = w.cmd.Wait()
	killedAt := time.Since(w.start)
	var states []string
	for _, ns := range fleet(t, sc, prefix) {
		states = append(states, ns[0].ProvisionState)
	}
	t.Logf("killed terraform at %s; nodes in %v", killedAt.Round(time.Second), states)

	d := w.mustApply("re-apply after SIGKILL")
	expectFleet(t, sc, prefix, w.names, "available")
	w.planEmpty()
	record(t, row{"Terraform (and provider) SIGKILLed mid-apply of 5 hosts",
		fmt.Sprintf("killed at %s with nodes in %v; re-apply found the nodes by name and converged in %s", secs(killedAt), states, secs(d)),
		secs(killedAt + d), "nothing: 5 nodes, none duplicated"})
}

// hostPart drops Terraform's framing of an error, from its `host "` on.
func hostPart(e string) string {
	if i := strings.Index(e, `host "`); i >= 0 {
		return e[i:]
	}
	return e
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}
