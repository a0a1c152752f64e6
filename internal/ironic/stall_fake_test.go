package ironic

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/ironic/ironictest"
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
	h, m := registeringOn(p, "lost-1", id)

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

// registeringOn is host name, registering as node id with good
// credentials, and the machine that converges it through p.
func registeringOn(p *Provisioner, name, id string) (*lifecycle.Host, *lifecycle.Machine) {
	h := fakeSpecHost(name)
	h.Status.ID, h.Status.State = id, lifecycle.StateRegistering
	h.Status.GoodCredentials = h.Spec.BMC.CredentialsVersion
	return h, &lifecycle.Machine{Prov: p, Wait: instantWaiter{}, Rand: func() float64 { return 0 }}
}

// On the fake Ironic: after a conductor restart failed the node's verify
// ("can't be resumed by conductor"), the state machine issues manage again
// and the host converges, where any other registration failure is final.
func TestFakeConvergeRetriesVerifyCutByRestart(t *testing.T) {
	p, srv := onFake(t)
	id := srv.AddNode(nodesNode("cut-1", "enroll",
		"The verifying state can't be resumed by conductor localhost. Moving to fail state."))
	h, m := registeringOn(p, "cut-1", id)
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
	h, m = registeringOn(p, "bad-1", id)
	var he *lifecycle.HostError
	if err := m.Converge(context.Background(), h, lifecycle.ConvergeOptions{}); !errors.As(err, &he) || he.ErrorType != lifecycle.RegistrationError {
		t.Errorf("err = %v, want a registration error", err)
	}
}

// stallEnv is a fake Ironic (Settle off: nodes stay where they are) with
// node n as host-1, and a provisioner whose stall limit is three minutes
// at now; it returns the host, its node created.
func stallEnv(t *testing.T, n nodes.Node, now time.Time) (*Provisioner, *ironictest.Server, *lifecycle.Host) {
	t.Helper()
	p, srv := onFake(t, WithStallTimeout(3*time.Minute, func() time.Time { return now }))
	srv.Settle = false
	n.Name, n.Driver = "host-1", "fake-hardware"
	id := srv.AddNode(n)
	return p, srv, &lifecycle.Host{Spec: lifecycle.HostSpec{Name: "host-1"}, Status: lifecycle.HostStatus{ID: id}}
}

// A node in a state where a conductor works synchronously, with no
// reservation and no change for longer than the stall limit, is a lost
// task: every action that looks at it says so. Held nodes, "* wait"
// states and recent changes are not stalls.
func TestStallDetection(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	ago := func(d time.Duration) time.Time { return now.Add(-d) }
	cases := []struct {
		name        string
		state       string
		reservation string
		updated     time.Time
		stalled     bool
	}{
		{"verifying, no lock, 4 min", psVerifying, "", ago(4 * time.Minute), true},
		{"inspecting, no lock, 10 min", psInspecting, "", ago(10 * time.Minute), true},
		{"cleaning, no lock, 4 min", psCleaning, "", ago(4 * time.Minute), true},
		{"deploying, no lock, 4 min", psDeploying, "", ago(4 * time.Minute), true},
		{"deleting, no lock, 4 min", psDeleting, "", ago(4 * time.Minute), true},
		{"adopting, no lock, 4 min", psAdopting, "", ago(4 * time.Minute), true},
		{"verifying, locked by a conductor", psVerifying, "conductor-1", ago(30 * time.Minute), false},
		{"verifying, 2 min (under the limit)", psVerifying, "", ago(2 * time.Minute), false},
		{"clean wait (waits on an agent)", psCleanWait, "", ago(30 * time.Minute), false},
		{"inspect wait", psInspectWait, "", ago(30 * time.Minute), false},
		{"wait call-back", psDeployWait, "", ago(30 * time.Minute), false},
		{"manageable (stable)", psManageable, "", ago(30 * time.Minute), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, srv, h := stallEnv(t, nodes.Node{ProvisionState: c.state, Reservation: c.reservation, ProvisionUpdatedAt: c.updated}, now)
			_, err := p.current(context.Background(), h)
			var se *lifecycle.StallError
			if got := errors.As(err, &se); got != c.stalled {
				t.Fatalf("current: err = %v, stalled %v, want %v", err, got, c.stalled)
			}
			if !c.stalled {
				return
			}
			if se.ProvisionState != c.state || se.Limit != 3*time.Minute || se.Idle < 3*time.Minute {
				t.Errorf("stall = %+v", se)
			}
			// Register (which runs on every pass) and Delete see it too,
			// and send Ironic nothing.
			if _, id, err := p.Register(context.Background(), h, false, false); !errors.As(err, &se) || id != h.Status.ID {
				t.Errorf("Register: id %q, err %v", id, err)
			}
			if _, err := p.Delete(context.Background(), h); !errors.As(err, &se) {
				t.Errorf("Delete: err %v", err)
			}
			if got := srv.Calls(); len(got) != 0 {
				t.Errorf("writes to a stalled node: %q", got)
			}
		})
	}

	// Observe (Terraform's Read) reports the node as it is.
	p, _, h := stallEnv(t, nodes.Node{ProvisionState: psVerifying, ProvisionUpdatedAt: ago(time.Hour)}, now)
	if obs, err := p.Observe(context.Background(), h); err != nil || obs.ProvisionState != psVerifying {
		t.Errorf("Observe: %+v, %v", obs, err)
	}
	// A stall limit of 0 turns detection off.
	p, _, h = stallEnv(t, nodes.Node{ProvisionState: psVerifying, ProvisionUpdatedAt: ago(time.Hour)}, now)
	WithStallTimeout(0, nil)(p)
	if _, err := p.current(context.Background(), h); err != nil {
		t.Errorf("stall_timeout 0: %v", err)
	}
}

// A conductor that restarts moves the nodes it cannot resume to failed
// states; one that takes nodes over from a dead conductor aborts their
// cleaning. Neither is the host's failure: the verb is issued again at once.
func TestInterruptedTasksAreRetried(t *testing.T) {
	restart := "The inspecting state can't be resumed by conductor localhost. Moving to fail state."
	cases := []struct {
		state, lastError, want string
		call                   func(p *Provisioner, h *lifecycle.Host) (lifecycle.Result, error)
	}{
		{psInspectFail, restart, "inspect", func(p *Provisioner, h *lifecycle.Host) (lifecycle.Result, error) {
			r, _, _, err := p.Inspect(context.Background(), h, false, false)
			return r, err
		}},
		{psCleanFail, "Operation was aborted due to conductor take over", "manage", func(p *Provisioner, h *lifecycle.Host) (lifecycle.Result, error) {
			return p.Provide(context.Background(), h)
		}},
		{psInspectFail, "Unexpected exception of type InterfaceError: (pymysql.err.InterfaceError) (0, '')\n(Background on this error at: https://sqlalche.me/e/14/rvf5)", "inspect", func(p *Provisioner, h *lifecycle.Host) (lifecycle.Result, error) {
			r, _, _, err := p.Inspect(context.Background(), h, false, false)
			return r, err
		}},
		{psAdoptFail, "The adopting state can't be resumed by conductor 127.0.0.2. Moving to fail state.", "adopt", func(p *Provisioner, h *lifecycle.Host) (lifecycle.Result, error) {
			return p.Adopt(context.Background(), h, false)
		}},
	}
	for _, c := range cases {
		t.Run(c.state, func(t *testing.T) {
			p, srv, h := stallEnv(t, nodes.Node{ProvisionState: c.state, LastError: c.lastError}, time.Now())
			res, err := c.call(p, h)
			if err != nil || res.ErrorMessage != "" {
				t.Fatalf("res %+v, err %v: want the verb issued again", res, err)
			}
			if verbs, _ := provisionBodies(t, srv); len(verbs) != 1 || verbs[0] != c.want {
				t.Errorf("verbs = %v, want [%s]", verbs, c.want)
			}
		})
	}
	// The same failed state with another error is the host's failure.
	p, srv, h := stallEnv(t, nodes.Node{ProvisionState: psInspectFail, LastError: "BMC said no"}, time.Now())
	if res, _, _, err := p.Inspect(context.Background(), h, false, false); err != nil || !strings.Contains(res.ErrorMessage, "BMC said no") || len(srv.Calls()) != 0 {
		t.Errorf("res %+v, err %v, writes %q", res, err, srv.Calls())
	}
	// So is an unexpected exception that is not the database's.
	p, srv, h = stallEnv(t, nodes.Node{ProvisionState: psInspectFail, LastError: "Unexpected exception of type KeyError: 'cpu'"}, time.Now())
	if res, _, _, err := p.Inspect(context.Background(), h, false, false); err != nil || !strings.Contains(res.ErrorMessage, "KeyError") || len(srv.Calls()) != 0 {
		t.Errorf("KeyError: res %+v, err %v, writes %q", res, err, srv.Calls())
	}
}
