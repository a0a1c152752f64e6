package ironic

// What an operator sees of a host on the fake Ironic: the step a wait
// names, the history a failure ends with, the request id an error names.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
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
	now  time.Time
	n    int
	then func(n int) error
	mu   sync.Mutex
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

// On the fake Ironic, through the state machine: a failed deployment's
// error ends with the node's last five history events, oldest first, the
// conductor's record of the failure last; the history is read once, when
// the failure is reported, never while waiting.
func TestFakeFailureShowsHistory(t *testing.T) {
	m, srv, h, id, _, w := deployingHost(t)
	at := time.Date(2026, 12, 2, 17, 0, 0, 0, time.UTC)
	for i, ev := range []string{"old 1", "old 2", "Deploy step deploy.deploy started", "Node powered on", "Agent is alive"} {
		srv.AddHistory(id, "INFO", "deploying", ev, at.Add(time.Duration(i)*time.Minute))
	}
	w.then = func(n int) error {
		if n == 3 {
			srv.FailNext(id, "Agent returned error for deploy step write_image: No space left on device")
			srv.Finish(id)
		}
		return nil
	}
	err := m.Converge(context.Background(), h, lifecycle.ConvergeOptions{Retries: 0})
	var he *lifecycle.HostError
	if !errors.As(err, &he) {
		t.Fatalf("err = %v, want a HostError", err)
	}
	msg := err.Error()
	lines := strings.Split(msg, "\n")
	if len(lines) != 7 || lines[1] != "Last 5 events of the node's Ironic history:" ||
		!strings.HasSuffix(lines[2], "INFO [deploying] old 2") ||
		!strings.Contains(lines[6], "ERROR [deploying] Agent returned error for deploy step write_image: No space left on device") {
		t.Fatalf("error:\n%s\nwant the failure, then the last five events, the error last", msg)
	}
	if n := srv.Count(http.MethodGet, "/history"); n != 1 {
		t.Errorf("history read %d times, want once", n)
	}
}

// Before API 1.78 there is no history: the error is the failure alone,
// and the provider does not ask.
func TestFakeFailureWithoutHistoryAPI(t *testing.T) {
	sc, srv := fakeClient(t)
	sc.Microversion = "1.77"
	p := NewProvisioner(sc, nil, WithJitter(0, nil))
	h := fakeSpecHost("h1")
	id := nodeIn(srv, h, "available", "")
	srv.AddHistory(id, "ERROR", "deploying", "never shown", time.Time{})
	if _, err := p.History(context.Background(), id, 5); !errors.Is(err, lifecycle.ErrHistoryUnsupported) {
		t.Fatalf("History at 1.77: %v, want ErrHistoryUnsupported", err)
	}
	if n := srv.Count(http.MethodGet, "/history"); n != 0 {
		t.Errorf("history read %d times at 1.77, want never", n)
	}
}

// lastRequestID is the request id the fake answered the last request to a
// path ending in suffix with.
func lastRequestID(t *testing.T, srv *ironictest.Server, method, suffix string) string {
	t.Helper()
	id := ""
	for _, r := range srv.Requests() {
		if r.Method == method && strings.HasSuffix(r.Path, suffix) {
			id = r.RequestID
		}
	}
	if id == "" {
		t.Fatalf("no %s request to *%s", method, suffix)
	}
	return id
}

// On the fake Ironic: an Ironic error names the request Ironic answered
// (its X-OpenStack-Request-Id), whether the provider shows Ironic's
// faultstring or gophercloud's whole message, after retries too (the id
// of the last attempt).
func TestFakeErrorsNameTheRequestID(t *testing.T) {
	ctx := context.Background()
	p, srv := onFake(t)
	h := fakeSpecHost("rid-1")
	id := nodeIn(srv, h, "active", "")

	// Ironic's faultstring (ironicError), after the transport's retries.
	srv.AddFault(ironictest.Fault{Method: http.MethodGet, PathSuffix: "/history", Status: http.StatusServiceUnavailable, Message: "conductor busy"})
	_, err := p.History(ctx, id, 5)
	want := "HTTP 503: conductor busy (request " + lastRequestID(t, srv, http.MethodGet, "/history") + ")"
	if err == nil || !strings.HasSuffix(err.Error(), want) {
		t.Errorf("history: %v, want it to end with %q", err, want)
	}
	if n := srv.Count(http.MethodGet, "/history"); n < 2 {
		t.Errorf("%d history requests: the 503 was not retried, the test proves less", n)
	}

	// gophercloud's message, wrapped (a read without the watcher).
	srv.AddFault(ironictest.Fault{Method: http.MethodGet, PathSuffix: "/" + id, Times: 1, Status: http.StatusBadRequest, Message: "Invalid field"})
	_, err = p.Observe(ctx, h)
	want = "Invalid field (request " + lastRequestID(t, srv, http.MethodGet, "/"+id) + ")"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("observe: %v, want it to contain %q", err, want)
	}
}
