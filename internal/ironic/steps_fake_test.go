package ironic

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/ironic/ironictest"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// logLines is a lifecycle.Logger that keeps every message and its fields.
type logLines struct {
	mu    sync.Mutex
	lines []logLine
}

type logLine struct {
	msg    string
	fields map[string]any
}

func (l *logLines) Log(_ context.Context, msg string, fields map[string]any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, logLine{msg, fields})
}

// waits returns "step for step_running" of every "waiting" message that
// names a step.
func (l *logLines) waits() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, x := range l.lines {
		if _, ok := x.fields["step"]; ok && x.msg == "waiting" {
			out = append(out, fmt.Sprintf("%v for %v", x.fields["step"], x.fields["step_running"]))
		}
	}
	return out
}

// clockWaiter advances a fake clock by every wait and calls then with the
// wait's number (1, 2, ...): a test script of what Ironic does meanwhile.
type clockWaiter struct {
	now   time.Time
	n     int
	then  func(n int) error
	mu    sync.Mutex
	calls int
}

func (w *clockWaiter) Now() time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.now
}

func (w *clockWaiter) Wait(ctx context.Context, _ string, d time.Duration) error {
	w.mu.Lock()
	w.now = w.now.Add(d)
	w.n++
	n := w.n
	w.mu.Unlock()
	if err := w.then(n); err != nil {
		return err
	}
	return ctx.Err()
}

// deployingHost is a host to deploy on the fake Ironic, whose node is
// available and whose operations wait for Finish, with the machine that
// converges it (logging to the returned lines) and its waiter.
func deployingHost(t *testing.T) (*lifecycle.Machine, *ironictest.Server, *lifecycle.Host, string, *logLines, *clockWaiter) {
	p, srv, h, id := imageHostIn(t, "available")
	srv.Settle = false
	h.Status.State = lifecycle.StateProvisioning
	h.Status.GoodCredentials = h.Spec.BMC.CredentialsVersion
	logs := &logLines{}
	w := &clockWaiter{now: time.Date(2026, 12, 2, 18, 0, 0, 0, time.UTC)}
	m := &lifecycle.Machine{Prov: p, Wait: w, Clock: w, Log: logs, Rand: func() float64 { return 0 }}
	return m, srv, h, id, logs, w
}

func setDeployStep(srv *ironictest.Server, id, step string) {
	srv.UpdateNode(id, func(n *nodes.Node) {
		n.DeployStep = map[string]any{"interface": "deploy", "step": step, "priority": 80, "args": map[string]any{}}
	})
}

// On the fake Ironic, through the state machine: the waits of a deployment
// name the deploy step Ironic runs (deploy_step, read with the node, no
// extra request) and how long the provider has seen it run; a new step
// starts again from 0s.
func TestFakeWaitNamesTheStep(t *testing.T) {
	m, srv, h, id, logs, w := deployingHost(t)
	w.then = func(n int) error {
		switch {
		case n == 2:
			setDeployStep(srv, id, "write_image")
		case n >= 4:
			srv.Finish(id)
		}
		return nil
	}
	if err := m.Converge(context.Background(), h, lifecycle.ConvergeOptions{}); err != nil {
		t.Fatalf("Converge: %v", err)
	}
	got := logs.waits()
	want := []string{"deploy.deploy for 0s", "deploy.write_image for 0s", "deploy.write_image for 10s"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("waits %q, want %q", got, want)
	}
	if h.Status.State != lifecycle.StateProvisioned {
		t.Errorf("state %q, want provisioned", h.Status.State)
	}
	obs, err := m.Prov.Observe(context.Background(), h)
	if err != nil || obs.CurrentStep != "" || obs.ProvisionUpdatedAt.IsZero() {
		t.Errorf("after the deployment: step %q, provision_updated_at %v, %v; want no step and a time",
			obs.CurrentStep, obs.ProvisionUpdatedAt, err)
	}
}

// A wait cut short names the step the node was in.
func TestFakeWaitErrorNamesTheStep(t *testing.T) {
	m, srv, h, id, _, w := deployingHost(t)
	w.then = func(n int) error {
		if n == 2 {
			setDeployStep(srv, id, "write_image")
		}
		if n == 3 {
			return context.DeadlineExceeded
		}
		return nil
	}
	err := m.Converge(context.Background(), h, lifecycle.ConvergeOptions{})
	var he *lifecycle.HostError
	if !errors.As(err, &he) || he.Step != "deploy.write_image" ||
		!strings.Contains(err.Error(), `Ironic step "deploy.write_image"`) {
		t.Fatalf("err = %v, want a HostError naming step deploy.write_image", err)
	}
}

// Observe reads the step of the node's state: clean_step while cleaning,
// service_step while servicing, none once Ironic empties them.
func TestObserveCurrentStep(t *testing.T) {
	p, srv := onFake(t)
	h := fakeSpecHost("step-1")
	id := nodeIn(srv, h, "clean wait", "")
	for _, tc := range []struct {
		state                 string
		clean, deploy, servic map[string]any
		want                  string
	}{
		{"clean wait", map[string]any{"interface": "raid", "step": "delete_configuration"}, nil, nil, "raid.delete_configuration"},
		{"service wait", map[string]any{"interface": "bios", "step": "apply_configuration"}, nil,
			map[string]any{"interface": "firmware", "step": "update"}, "firmware.update"},
		{"wait call-back", map[string]any{}, map[string]any{"interface": "deploy", "step": "write_image"}, nil, "deploy.write_image"},
		{"active", map[string]any{}, map[string]any{}, map[string]any{}, ""},
	} {
		srv.UpdateNode(id, func(n *nodes.Node) {
			n.ProvisionState, n.CleanStep, n.DeployStep, n.ServiceStep = tc.state, tc.clean, tc.deploy, tc.servic
		})
		obs, err := p.Observe(context.Background(), h)
		if err != nil || obs.CurrentStep != tc.want {
			t.Errorf("%s: step %q (%v), want %q", tc.state, obs.CurrentStep, err, tc.want)
		}
		if p.CurrentStep(id) != tc.want {
			t.Errorf("%s: CurrentStep %q, want %q", tc.state, p.CurrentStep(id), tc.want)
		}
	}
}
