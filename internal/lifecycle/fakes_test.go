package lifecycle

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"
)

// provReply is one scripted provisioner answer.
type provReply struct {
	res     Result
	err     error
	id      string           // Register
	started bool             // Inspect, Prepare
	details *HardwareDetails // Inspect
	obs     Observation      // Observe
	during  func()           // called while the call is being answered
}

// provCall records one provisioner call.
type provCall struct {
	Method     string
	Host       string
	Restart    bool // restartOnFailure (force for power calls)
	Creds      bool // Register: credentialsChanged
	Unprepared bool // Prepare
	Refresh    bool // Inspect
	Mode       PowerMode
}

// fakeProv is a scriptable Provisioner: each method answers from its
// queue, then from its default (a done result).
type fakeProv struct {
	mu       sync.Mutex
	script   map[string][]provReply
	defaults map[string]provReply
	calls    []provCall
}

func newFakeProv() *fakeProv {
	return &fakeProv{
		script: map[string][]provReply{},
		defaults: map[string]provReply{
			"Register": {id: "node-1"},
			"Inspect":  {details: &HardwareDetails{CPUArch: "x86_64", CPUCount: 4}},
			"Observe":  {obs: Observation{Exists: true, ID: "node-1"}},
		},
	}
}

// on queues replies for method.
func (f *fakeProv) on(method string, rs ...provReply) *fakeProv {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.script[method] = append(f.script[method], rs...)
	return f
}

// always sets method's default provReply.
func (f *fakeProv) always(method string, r provReply) *fakeProv {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.defaults[method] = r
	return f
}

func (f *fakeProv) next(c provCall) provReply {
	f.mu.Lock()
	f.calls = append(f.calls, c)
	r := f.defaults[c.Method]
	if q := f.script[c.Method]; len(q) > 0 {
		f.script[c.Method] = q[1:]
		r = q[0]
	}
	f.mu.Unlock()
	if r.during != nil {
		r.during()
	}
	return r
}

// call is next for the methods that answer only a result and an error.
func (f *fakeProv) call(c provCall) (Result, error) {
	r := f.next(c)
	return r.res, r.err
}

// methods lists the calls made, e.g. "Register,Inspect".
func (f *fakeProv) methods() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	names := make([]string, len(f.calls))
	for i, c := range f.calls {
		names[i] = c.Method
	}
	return strings.Join(names, ",")
}

// callsTo returns the calls to method.
func (f *fakeProv) callsTo(method string) []provCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []provCall
	for _, c := range f.calls {
		if c.Method == method {
			out = append(out, c)
		}
	}
	return out
}

func (f *fakeProv) Register(_ context.Context, h *Host, credsChanged, restart bool) (Result, string, error) {
	r := f.next(provCall{Method: "Register", Host: h.Spec.Name, Creds: credsChanged, Restart: restart})
	return r.res, r.id, r.err
}

func (f *fakeProv) Inspect(_ context.Context, h *Host, restart, refresh bool) (Result, bool, *HardwareDetails, error) {
	r := f.next(provCall{Method: "Inspect", Host: h.Spec.Name, Restart: restart, Refresh: refresh})
	return r.res, r.started, r.details, r.err
}

func (f *fakeProv) Prepare(_ context.Context, h *Host, unprepared, restart bool) (Result, bool, error) {
	r := f.next(provCall{Method: "Prepare", Host: h.Spec.Name, Unprepared: unprepared, Restart: restart})
	return r.res, r.started, r.err
}

func (f *fakeProv) Provide(_ context.Context, h *Host) (Result, error) {
	return f.call(provCall{Method: "Provide", Host: h.Spec.Name})
}

func (f *fakeProv) Provision(_ context.Context, h *Host, restart bool) (Result, error) {
	return f.call(provCall{Method: "Provision", Host: h.Spec.Name, Restart: restart})
}

func (f *fakeProv) Deprovision(_ context.Context, h *Host, restart bool) (Result, error) {
	return f.call(provCall{Method: "Deprovision", Host: h.Spec.Name, Restart: restart})
}

func (f *fakeProv) Adopt(_ context.Context, h *Host, restart bool) (Result, error) {
	return f.call(provCall{Method: "Adopt", Host: h.Spec.Name, Restart: restart})
}

func (f *fakeProv) PowerOn(_ context.Context, h *Host, force bool) (Result, error) {
	return f.call(provCall{Method: "PowerOn", Host: h.Spec.Name, Restart: force})
}

func (f *fakeProv) PowerOff(_ context.Context, h *Host, mode PowerMode, force bool) (Result, error) {
	return f.call(provCall{Method: "PowerOff", Host: h.Spec.Name, Restart: force, Mode: mode})
}

func (f *fakeProv) Delete(_ context.Context, h *Host) (Result, error) {
	return f.call(provCall{Method: "Delete", Host: h.Spec.Name})
}

func (f *fakeProv) Detach(_ context.Context, h *Host) (Result, error) {
	return f.call(provCall{Method: "Detach", Host: h.Spec.Name})
}

func (f *fakeProv) Attach(_ context.Context, h *Host) (Result, error) {
	return f.call(provCall{Method: "Attach", Host: h.Spec.Name})
}

func (f *fakeProv) Observe(_ context.Context, h *Host) (Observation, error) {
	r := f.next(provCall{Method: "Observe", Host: h.Spec.Name})
	return r.obs, r.err
}

// fakeClock is a settable clock.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// fakeWaiter advances the fake clock instead of sleeping. With deadline
// set, a wait that would pass it returns context.DeadlineExceeded.
type fakeWaiter struct {
	clock    *fakeClock
	mu       sync.Mutex
	waits    []time.Duration
	ids      []string
	deadline time.Time
}

func (w *fakeWaiter) Wait(ctx context.Context, id string, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	w.mu.Lock()
	w.waits = append(w.waits, d)
	w.ids = append(w.ids, id)
	deadline := w.deadline
	w.mu.Unlock()
	if !deadline.IsZero() && w.clock.Now().Add(d).After(deadline) {
		w.clock.advance(deadline.Sub(w.clock.Now()))
		return context.DeadlineExceeded
	}
	w.clock.advance(d)
	return nil
}

// logRec records log lines.
type logRec struct {
	mu     sync.Mutex
	lines  []string
	msgs   []string
	fields []map[string]any
}

func (l *logRec) Log(_ context.Context, msg string, fields map[string]any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.msgs = append(l.msgs, msg)
	l.fields = append(l.fields, fields)
	l.lines = append(l.lines, fmt.Sprintf("%s %v", msg, fields))
}

// with returns the fields of the lines logged as msg, in order.
func (l *logRec) with(msg string) []map[string]any {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]any
	for i, m := range l.msgs {
		if m == msg {
			out = append(out, l.fields[i])
		}
	}
	return out
}

func (l *logRec) count(msg string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, m := range l.msgs {
		if m == msg {
			n++
		}
	}
	return n
}

var testEpoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// testEnv is a Machine wired to fakes.
type testEnv struct {
	m     *Machine
	prov  *fakeProv
	clock *fakeClock
	wait  *fakeWaiter
	log   *logRec
}

func newEnv() *testEnv {
	clock := &fakeClock{t: testEpoch}
	e := &testEnv{prov: newFakeProv(), clock: clock, wait: &fakeWaiter{clock: clock}, log: &logRec{}}
	e.m = &Machine{Prov: e.prov, Wait: e.wait, Clock: clock, Log: e.log, Rand: func() float64 { return 0 }}
	return e
}

const testSecret = "s3cr3t-passw0rd"

// newHost is a registered, online host with credentials in state st.
func newHost(st State) *Host {
	return &Host{
		Spec: HostSpec{
			Name: "host-0",
			BMC: BMCAccess{
				Address:            "redfish://10.0.0.1/redfish/v1/Systems/1",
				Driver:             "redfish",
				DriverInfo:         map[string]any{"redfish_username": "admin", "redfish_password": testSecret},
				CredentialsVersion: "v1",
			},
			Online: true,
		},
		Status: HostStatus{ID: "node-1", State: st, OperationalStatus: OperationalOK, GoodCredentials: "v1"},
	}
}

func testImage(url string) *Image { return &Image{URL: url, Checksum: "abc", Format: "qcow2"} }

// provisionedHost is a host with url deployed.
func provisionedHost(url string) *Host {
	h := newHost(StateProvisioned)
	h.Spec.Image = testImage(url)
	h.Status.DeployedImage = testImage(url)
	h.Status.PoweredOn = true
	return h
}

var (
	busyManage = provReply{res: Result{Dirty: true, RequeueAfter: 3 * time.Second, Verb: "manage", ProvisionState: "verifying"}}
	busy10     = provReply{res: Result{Dirty: true}}
	failMsg    = func(msg string) provReply {
		return provReply{res: Result{ErrorMessage: msg, Verb: "deploy", ProvisionState: "deploy failed"}}
	}
)
