package ironic

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// On the fake Ironic, through the state machine: a host whose node Ironic
// left in verifying with no reservation (a lost task) ends Converge with the
// stall error at the first look once the limit has passed, and nothing is
// sent to the node.
func TestFakeConvergeStopsOnLostTask(t *testing.T) {
	now := time.Now()
	p, srv := onFake(t, WithStallTimeout(3*time.Minute, func() time.Time { return now }))
	n := nodesNode("lost-1", "verifying", "")
	n.TargetProvisionState = "manageable"
	n.ProvisionUpdatedAt = now.Add(-5 * time.Minute)
	id := srv.AddNode(n)
	h := fakeSpecHost("lost-1")
	h.Status.ID, h.Status.State = id, lifecycle.StateRegistering
	h.Status.GoodCredentials = h.Spec.BMC.CredentialsVersion

	m := &lifecycle.Machine{Prov: p, Wait: instantWaiter{}, Rand: func() float64 { return 0 }}
	err := m.Converge(context.Background(), h, lifecycle.ConvergeOptions{Retries: 3})
	var se *lifecycle.StallError
	if !errors.As(err, &se) {
		t.Fatalf("err = %v, want a stall", err)
	}
	for _, want := range []string{`host "lost-1"`, `"verifying"`, "5m0s", "no Ironic conductor holds a lock"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}
	if got := srv.Calls(); len(got) != 0 {
		t.Errorf("writes to a stalled node: %q", got)
	}
}

// On the fake Ironic: after a conductor restart failed the node's verify
// ("can't be resumed by conductor"), the state machine issues manage again
// and the host converges, where any other registration failure is final.
func TestFakeConvergeRetriesVerifyCutByRestart(t *testing.T) {
	p, srv := onFake(t)
	id := srv.AddNode(nodesNode("cut-1", "enroll",
		"The verifying state can't be resumed by conductor localhost. Moving to fail state."))
	h := fakeSpecHost("cut-1")
	h.Status.ID, h.Status.State = id, lifecycle.StateRegistering
	h.Status.GoodCredentials = h.Spec.BMC.CredentialsVersion
	m := &lifecycle.Machine{Prov: p, Wait: instantWaiter{}, Rand: func() float64 { return 0 }}
	if err := m.Converge(context.Background(), h, lifecycle.ConvergeOptions{}); err != nil {
		t.Fatalf("Converge: %v", err)
	}
	if n := srv.MustNode("cut-1"); n.ProvisionState != "available" || h.Status.State != lifecycle.StateAvailable {
		t.Errorf("node in %q, host in %q; want available", n.ProvisionState, h.Status.State)
	}
	if c := srv.Count("PUT", "/states/provision"); c < 1 {
		t.Errorf("%d provision verbs", c)
	}

	// The same enroll with a BMC's refusal fails at once.
	p, srv = onFake(t)
	id = srv.AddNode(nodesNode("bad-1", "enroll", "Failed to get power state: 401"))
	h = fakeSpecHost("bad-1")
	h.Status.ID, h.Status.State = id, lifecycle.StateRegistering
	h.Status.GoodCredentials = h.Spec.BMC.CredentialsVersion
	m = &lifecycle.Machine{Prov: p, Wait: instantWaiter{}, Rand: func() float64 { return 0 }}
	var he *lifecycle.HostError
	if err := m.Converge(context.Background(), h, lifecycle.ConvergeOptions{}); !errors.As(err, &he) || he.ErrorType != lifecycle.RegistrationError {
		t.Errorf("err = %v, want a registration error", err)
	}
}
