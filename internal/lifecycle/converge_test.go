package lifecycle

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

// newUnregisteredHost is a host never registered, whose registration
// verifies once (node-7) and whose inspection waits once.
func newUnregisteredHost(e *testEnv) *Host {
	h := newHost(StateNone)
	h.Status = HostStatus{}
	e.prov.always("Register", provReply{id: "node-7"})
	e.prov.on("Register", provReply{res: Result{Dirty: true, RequeueAfter: 3 * time.Second, Verb: "manage", ProvisionState: "verifying"}, id: "node-7"})
	e.prov.on("Inspect", provReply{res: Result{Dirty: true, Verb: "inspect", ProvisionState: "inspect wait"}, started: true})
	return h
}

func TestConvergeNewHostToAvailable(t *testing.T) {
	e := newEnv()
	h := newUnregisteredHost(e)
	var changes []State
	err := e.m.Converge(context.Background(), h, ConvergeOptions{OnChange: func(h *Host) { changes = append(changes, h.Status.State) }})
	if err != nil {
		t.Fatal(err)
	}
	if h.Status.State != StateAvailable || h.Status.ID != "node-7" || !h.Status.PoweredOn || h.Status.GoodCredentials != "v1" {
		t.Fatalf("status = %+v", h.Status)
	}
	want := "Register,Register,Register,Inspect,Register,Inspect,Register,Prepare,Register,Provide,PowerOn"
	if got := e.prov.methods(); got != want {
		t.Errorf("calls = %s\nwant    %s", got, want)
	}
	// Waits: 3 s after the busy registration, 10 s (default) after the
	// busy inspection; none after transitions. Waits name the node.
	if len(e.wait.waits) != 2 || e.wait.waits[0] != 3*time.Second || e.wait.waits[1] != 10*time.Second {
		t.Errorf("waits = %v", e.wait.waits)
	}
	for _, id := range e.wait.ids {
		if id != "node-7" {
			t.Errorf("waited on %q", id)
		}
	}
	// The busy inspection pass changes nothing, so it is not reported.
	wantChanges := []State{StateRegistering, StateRegistering, StateInspecting, StatePreparing, StateAvailable, StateAvailable}
	if strings.Join(statesOf(changes), ",") != strings.Join(statesOf(wantChanges), ",") {
		t.Errorf("OnChange states = %v, want %v", changes, wantChanges)
	}
	for _, s := range []State{StateRegistering, StateInspecting, StatePreparing, StateAvailable} {
		if _, ok := h.Status.OperationHistory[s]; !ok {
			t.Errorf("no operation history for %q", s)
		}
	}
	if n := e.log.count("host state"); n != 4 {
		t.Errorf("%d transitions logged", n)
	}
	if n := e.log.count("waiting"); n != 2 {
		t.Errorf("%d waits logged", n)
	}
	for _, l := range e.log.lines {
		if strings.Contains(l, testSecret) || strings.Contains(l, "redfish_password") {
			t.Errorf("credentials logged: %s", l)
		}
		if strings.HasPrefix(l, "waiting ") && (!strings.Contains(l, "verb:") || !strings.Contains(l, "provision_state:") || !strings.Contains(l, "waited:")) {
			t.Errorf("wait log lacks fields: %s", l)
		}
	}
}

func statesOf(s []State) []string {
	out := make([]string, len(s))
	for i, v := range s {
		out[i] = string(v)
	}
	return out
}

func TestConvergeSteadyStates(t *testing.T) {
	for _, h := range []*Host{
		withHost(StateUnmanaged, noBMC)(),
		provisionedHost("http://img/a"),
		withHost(StateExternallyProvisioned, func(h *Host) { h.Spec.ExternallyProvisioned = true })(),
		withHost(StateDeleted, nil)(),
		withHost(StateAvailable, func(h *Host) { h.Detached = true })(),
	} {
		e := newEnv()
		if err := e.m.Converge(context.Background(), h, ConvergeOptions{}); err != nil {
			t.Errorf("%s: %v", h.Status.State, err)
		}
		if len(e.wait.waits) != 0 {
			t.Errorf("%s: waited %v", h.Status.State, e.wait.waits)
		}
	}
}

func TestConvergeFailureReturnsHostError(t *testing.T) {
	e := newEnv()
	h := newHost(StateProvisioning)
	h.Spec.Image = testImage("http://img/a")
	e.prov.on("Provision", provReply{res: Result{ErrorMessage: "Image provisioning failed: checksum mismatch", Verb: "active", ProvisionState: "deploy failed"}})
	changed := 0
	err := e.m.Converge(context.Background(), h, ConvergeOptions{OnChange: func(*Host) { changed++ }})
	var he *HostError
	if !errors.As(err, &he) {
		t.Fatalf("err = %v", err)
	}
	want := HostError{Host: "host-0", ID: "node-1", State: StateProvisioning, ErrorType: ProvisioningError,
		Verb: "active", ProvisionState: "deploy failed", LastError: "Image provisioning failed: checksum mismatch"}
	if !reflect.DeepEqual(*he, want) {
		t.Errorf("HostError = %+v\nwant        %+v", *he, want)
	}
	for _, s := range []string{`host "host-0"`, "node node-1", `"provisioning"`, "provisioning error", `"active"`, `"deploy failed"`, "checksum mismatch"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("message %q lacks %q", err.Error(), s)
		}
	}
	if changed != 1 || len(e.wait.waits) != 0 {
		t.Errorf("changed %d, waits %v", changed, e.wait.waits)
	}
}

func TestConvergeRetriesWithBackoff(t *testing.T) {
	e := newEnv()
	e.m.Rand = func() float64 { return 0.5 }
	h := newHost(StateInspecting)
	e.prov.on("Inspect", failMsg("inspect failed"), failMsg("inspect failed"))
	if err := e.m.Converge(context.Background(), h, ConvergeOptions{Retries: 2}); err != nil {
		t.Fatal(err)
	}
	if h.Status.State != StateAvailable || h.Status.ErrorCount != 0 {
		t.Fatalf("status = %+v", h.Status)
	}
	// 2^1 * 0.75 min, then 2^2 * 0.75 min.
	if len(e.wait.waits) != 2 || e.wait.waits[0] != 90*time.Second || e.wait.waits[1] != 3*time.Minute {
		t.Errorf("waits = %v", e.wait.waits)
	}
	calls := e.prov.callsTo("Inspect")
	if len(calls) != 3 || calls[0].Restart || !calls[1].Restart || !calls[2].Restart {
		t.Errorf("inspect calls = %+v", calls)
	}
	if e.log.count("retrying after a failure") != 2 {
		t.Errorf("retries not logged")
	}

	// One retry too few: the error comes back after two failures.
	e = newEnv()
	h = newHost(StateInspecting)
	e.prov.always("Inspect", failMsg("inspect failed"))
	err := e.m.Converge(context.Background(), h, ConvergeOptions{Retries: 1})
	var he *HostError
	if !errors.As(err, &he) || he.ErrorType != InspectionError || len(e.prov.callsTo("Inspect")) != 2 {
		t.Fatalf("err = %v, inspect calls %d", err, len(e.prov.callsTo("Inspect")))
	}
}

// TestConvergeProvisioningRetryPath: a failed deploy goes round through
// deprovisioning and available (BMO's retry path) until the provisioning
// retry limit refuses it.
func TestConvergeProvisioningRetryPath(t *testing.T) {
	e := newEnv()
	h := newHost(StateAvailable)
	h.Spec.Image = testImage("http://img/a")
	h.Spec.MaxProvisioningRetries = 2
	e.prov.always("Provision", failMsg("deploy failed"))
	err := e.m.Converge(context.Background(), h, ConvergeOptions{Retries: 10})
	var he *HostError
	if !errors.As(err, &he) {
		t.Fatalf("err = %v", err)
	}
	if he.State != StateAvailable || he.ErrorType != ProvisioningError || !strings.Contains(he.LastError, "retry limit (2)") {
		t.Errorf("HostError = %+v", he)
	}
	if n := len(e.prov.callsTo("Provision")); n != 2 {
		t.Errorf("%d deploys, want 2", n)
	}
	if n := len(e.prov.callsTo("Deprovision")); n != 2 {
		t.Errorf("%d deprovisions, want 2", n)
	}
	if h.Status.ProvisioningFailCount != 2 || h.Status.LastAttemptedImage != "http://img/a" {
		t.Errorf("status = %+v", h.Status)
	}
	// A new image resets the count and deploys again.
	h.Spec.Image = testImage("http://img/b")
	e.prov.always("Provision", provReply{})
	if err := e.m.Converge(context.Background(), h, ConvergeOptions{}); err != nil {
		t.Fatal(err)
	}
	if h.Status.State != StateProvisioned || h.Status.ProvisioningFailCount != 0 {
		t.Errorf("status = %+v", h.Status)
	}
}

func TestConvergeTransientErrors(t *testing.T) {
	e := newEnv()
	h := newHost(StateRegistering)
	boom := errors.New("connection reset")
	e.prov.on("Register", provReply{err: boom}, provReply{err: boom}, provReply{err: boom})
	if err := e.m.Converge(context.Background(), h, ConvergeOptions{}); err != nil {
		t.Fatal(err)
	}
	if len(e.wait.waits) != 3 || e.wait.waits[0] != time.Second || e.wait.waits[2] != 4*time.Second {
		t.Errorf("waits = %v", e.wait.waits)
	}

	e = newEnv()
	h = newHost(StateRegistering)
	e.prov.always("Register", provReply{err: boom, res: Result{Verb: "manage"}})
	err := e.m.Converge(context.Background(), h, ConvergeOptions{Retries: 100})
	var he *HostError
	if !errors.As(err, &he) || !errors.Is(err, boom) || he.Verb != "manage" {
		t.Fatalf("err = %v", err)
	}
	if n := len(e.prov.callsTo("Register")); n != maxTransientErrors+1 {
		t.Errorf("%d attempts", n)
	}
	for _, d := range e.wait.waits {
		if d > 30*time.Second {
			t.Errorf("transient backoff %v over the cap", d)
		}
	}
}

func TestConvergeDeadline(t *testing.T) {
	e := newEnv()
	e.wait.deadline = testEpoch.Add(25 * time.Second)
	h := newHost(StateInspecting)
	e.prov.always("Inspect", provReply{res: Result{Dirty: true, Verb: "inspect", ProvisionState: "inspect wait"}})
	err := e.m.Converge(context.Background(), h, ConvergeOptions{})
	var he *HostError
	if !errors.As(err, &he) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v", err)
	}
	if he.State != StateInspecting || he.Verb != "inspect" || he.ProvisionState != "inspect wait" {
		t.Errorf("HostError = %+v", he)
	}
	for _, s := range []string{`state "inspecting"`, `"inspect"`, "25s"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("message %q lacks %q", err.Error(), s)
		}
	}

	// A context already over.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err = newEnv().m.Converge(ctx, newHost(StateInspecting), ConvergeOptions{})
	if !errors.As(err, &he) || !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}

	// A context ending during a provisioner call.
	e = newEnv()
	ctx, cancel = context.WithCancel(context.Background())
	e.m.Prov = &cancelProv{fakeProv: e.prov, cancel: cancel}
	err = e.m.Converge(ctx, newHost(StateInspecting), ConvergeOptions{})
	if !errors.As(err, &he) || !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
}

// cancelProv cancels the context during Inspect.
type cancelProv struct {
	*fakeProv
	cancel context.CancelFunc
}

func (c *cancelProv) Inspect(ctx context.Context, _ *Host, _, _ bool) (Result, bool, *HardwareDetails, error) {
	c.cancel()
	return Result{}, false, nil, ctx.Err()
}

func TestConvergeDelete(t *testing.T) {
	e := newEnv()
	h := provisionedHost("http://img/a")
	h.Deleting = true
	if err := e.m.Converge(context.Background(), h, ConvergeOptions{}); err != nil {
		t.Fatal(err)
	}
	if h.Status.State != StateDeleted || h.Status.PoweredOn {
		t.Fatalf("status = %+v", h.Status)
	}
	want := "Register,Adopt,Deprovision,Register,PowerOff,Delete"
	if got := e.prov.methods(); got != want {
		t.Errorf("calls = %s, want %s", got, want)
	}
}

// TestConvergeDeleteForwardProgress: opts.Retries is ignored while
// deleting; failed cleaning and power off give up after retryCount
// failures and the node is deleted anyway.
func TestConvergeDeleteForwardProgress(t *testing.T) {
	e := newEnv()
	h := newHost(StateDeprovisioning)
	h.Deleting = true
	e.prov.always("Deprovision", failMsg("Cleaning failed"))
	e.prov.always("PowerOff", failMsg("no power"))
	if err := e.m.Converge(context.Background(), h, ConvergeOptions{Retries: 0}); err != nil {
		t.Fatal(err)
	}
	if h.Status.State != StateDeleted {
		t.Fatalf("state = %q", h.Status.State)
	}
	if n := len(e.prov.callsTo("Deprovision")); n != 4 {
		t.Errorf("%d deprovision attempts, want 4", n)
	}
	// ErrorCount is still 4 from cleaning: one power-off failure moves on.
	if n := len(e.prov.callsTo("PowerOff")); n != 1 {
		t.Errorf("%d power off attempts, want 1", n)
	}

	// An unregistered host without credentials skips power off.
	e = newEnv()
	h = newHost(StateAvailable)
	h.Spec.BMC = BMCAccess{}
	h.Deleting = true
	e.prov.always("PowerOff", provReply{err: ErrNotRegistered})
	if err := e.m.Converge(context.Background(), h, ConvergeOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := e.prov.methods(); got != "PowerOff,Delete" {
		t.Errorf("calls = %s", got)
	}
}

func TestConvergeDelayedByGate(t *testing.T) {
	e := newEnv()
	e.m.Gate = NewGate(1)
	e.m.Gate.TryAcquire("other")
	h := newHost(StateRegistering)
	done := make(chan error)
	var delayedSeen bool
	go func() {
		done <- e.m.Converge(context.Background(), h, ConvergeOptions{OnChange: func(h *Host) {
			if h.Status.OperationalStatus == OperationalDelayed {
				delayedSeen = true
				e.m.Gate.Release("other") // the other host leaves
			}
		}})
	}()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !delayedSeen || h.Status.State != StateAvailable || h.Status.OperationalStatus != OperationalOK {
		t.Errorf("delayed %v, status %+v", delayedSeen, h.Status)
	}
	if e.m.Gate.Busy() != 0 {
		t.Errorf("slot leaked")
	}

	// Waiting for a slot respects ctx.
	e = newEnv()
	e.m.Gate = NewGate(1)
	e.m.Gate.TryAcquire("other")
	ctx, cancel := context.WithCancel(context.Background())
	h = newHost(StateRegistering)
	go func() {
		done <- e.m.Converge(ctx, h, ConvergeOptions{OnChange: func(*Host) { cancel() }})
	}()
	err := <-done
	var he *HostError
	if !errors.As(err, &he) || !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "provisioning slot") {
		t.Fatalf("err = %v", err)
	}
}

// TestConvergeReleasesSlot: a Converge that fails in a gated state frees
// its slot.
func TestConvergeReleasesSlot(t *testing.T) {
	e := newEnv()
	e.m.Gate = NewGate(1)
	h := newHost(StateInspecting)
	e.prov.always("Inspect", failMsg("inspect failed"))
	if err := e.m.Converge(context.Background(), h, ConvergeOptions{}); err == nil {
		t.Fatal("no error")
	}
	if e.m.Gate.Busy() != 0 {
		t.Errorf("slot kept after Converge returned")
	}
}

// TestConvergeDefaults: no Waiter, Clock or Log configured.
func TestConvergeDefaults(t *testing.T) {
	prov := newFakeProv()
	prov.on("Register", provReply{res: Result{Dirty: true, RequeueAfter: time.Millisecond}})
	m := &Machine{Prov: prov}
	h := newHost(StateRegistering)
	if err := m.Converge(context.Background(), h, ConvergeOptions{}); err != nil {
		t.Fatal(err)
	}
	if h.Status.LastUpdated.IsZero() {
		t.Errorf("lastUpdated not stamped")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := (timerWaiter{}).Wait(ctx, "", time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("timerWaiter err = %v", err)
	}
}

func TestRefresh(t *testing.T) {
	on := true
	e := newEnv()
	h := newHost(StateProvisioning)
	h.Status.ID = ""
	e.prov.on("Observe", provReply{obs: Observation{Exists: true, ID: "node-3", State: StateProvisioned, PoweredOn: &on, DeployedImage: testImage("http://img/a")}})
	ok, err := e.m.Refresh(context.Background(), h)
	if err != nil || !ok {
		t.Fatalf("ok %v err %v", ok, err)
	}
	s := h.Status
	if s.ID != "node-3" || s.State != StateProvisioned || !s.PoweredOn || imageURL(s.DeployedImage) != "http://img/a" || !s.LastUpdated.Equal(testEpoch) {
		t.Errorf("status = %+v", s)
	}
	// Nothing new: no stamp.
	e.clock.advance(time.Hour)
	e.prov.on("Observe", provReply{obs: Observation{Exists: true, ID: "node-3", State: StateProvisioned, PoweredOn: &on, DeployedImage: testImage("http://img/a")}})
	if _, err := e.m.Refresh(context.Background(), h); err != nil || !h.Status.LastUpdated.Equal(testEpoch) {
		t.Errorf("err %v lastUpdated %v", err, h.Status.LastUpdated)
	}

	e.prov.on("Observe", provReply{obs: Observation{Exists: false}})
	if ok, err := e.m.Refresh(context.Background(), h); ok || err != nil {
		t.Errorf("gone node: ok %v err %v", ok, err)
	}

	boom := errors.New("503")
	e.prov.on("Observe", provReply{err: boom})
	_, err = e.m.Refresh(context.Background(), h)
	var he *HostError
	if !errors.As(err, &he) || !errors.Is(err, boom) || he.Host != "host-0" {
		t.Errorf("err = %v", err)
	}
}

// A deployment moves a host it does not own: no registration (it has no
// credentials), and its root device hints do not send the host through
// preparing.
func TestConvergeRegisteredElsewhere(t *testing.T) {
	e := newEnv()
	h := newHost(StateAvailable)
	h.Spec.BMC = BMCAccess{}
	h.Spec.RegisteredElsewhere = true
	h.Spec.RootDeviceHints = &RootDeviceHints{DeviceName: "/dev/sdb"}
	h.Spec.Image = &Image{URL: "http://example.com/img.qcow2", Checksum: "abc"}
	h.Spec.Online = true
	e.prov.always("PowerOn", provReply{})
	if err := e.m.Converge(context.Background(), h, ConvergeOptions{}); err != nil {
		t.Fatal(err)
	}
	if h.Status.State != StateProvisioned {
		t.Fatalf("state = %q, want provisioned", h.Status.State)
	}
	for _, c := range strings.Split(e.prov.methods(), ",") {
		if c == "Register" || c == "Prepare" {
			t.Errorf("%s called for a host registered elsewhere: %s", c, e.prov.methods())
		}
	}
}

// Every transition of a wait is logged once, as "host state", with the
// host, the new and previous states and the time spent in the previous
// one (counted from the start of the wait for the state it started in).
func TestConvergeLogsEveryTransition(t *testing.T) {
	e := newEnv()
	h := newUnregisteredHost(e)
	if err := e.m.Converge(context.Background(), h, ConvergeOptions{}); err != nil {
		t.Fatal(err)
	}
	want := []struct{ from, to, elapsed string }{
		{"", "registering", "0s"},
		{"registering", "inspecting", "3s"},
		{"inspecting", "preparing", "10s"},
		{"preparing", "available", "0s"},
	}
	got := e.log.with("host state")
	if len(got) != len(want) {
		t.Fatalf("%d host state lines, want %d: %v", len(got), len(want), got)
	}
	for i, w := range want {
		f := got[i]
		if f["host"] != "host-0" || f["previous_state"] != w.from || f["state"] != w.to || f["elapsed"] != w.elapsed {
			t.Errorf("line %d = %v, want %s -> %s after %s", i, f, w.from, w.to, w.elapsed)
		}
	}

	// A read that finds Ironic moved the host logs it too, marked observed.
	on := true
	e.clock.advance(time.Minute)
	e.prov.on("Observe", provReply{obs: Observation{Exists: true, ID: "node-7", State: StateProvisioned, PoweredOn: &on}})
	if _, err := e.m.Refresh(context.Background(), h); err != nil {
		t.Fatal(err)
	}
	got = e.log.with("host state")
	if f := got[len(got)-1]; len(got) != 5 || f["state"] != "provisioned" || f["previous_state"] != "available" || f["elapsed"] != "1m0s" || f["observed"] != true {
		t.Errorf("observed transition logged as %v", f)
	}
}
