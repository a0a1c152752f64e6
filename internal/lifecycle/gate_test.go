package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestGateBasics(t *testing.T) {
	g := NewGate(1)
	if !g.TryAcquire("a") {
		t.Fatal("first host refused")
	}
	if !g.TryAcquire("a") {
		t.Fatal("holder refused on its second try")
	}
	if g.TryAcquire("b") {
		t.Fatal("second host got a slot over the limit")
	}
	if !g.Holds("a") || g.Holds("b") || g.Busy() != 1 || g.Limit() != 1 {
		t.Fatalf("holds a=%v b=%v busy=%d", g.Holds("a"), g.Holds("b"), g.Busy())
	}
	g.Release("b") // not a holder: no-op
	g.Release("a")
	if !g.TryAcquire("b") {
		t.Fatal("slot not freed")
	}

	// nil and unlimited gates never limit.
	var nilGate *Gate
	for _, u := range []*Gate{nilGate, NewGate(0)} {
		for i := range 5 {
			if !u.TryAcquire(fmt.Sprint(i)) {
				t.Fatal("unlimited gate refused")
			}
		}
		u.Release("0")
		if u.Holds("0") || u.Busy() != 0 || u.Limit() != 0 {
			t.Fatal("unlimited gate tracks holders")
		}
		if err := u.WaitFree(context.Background(), "x", false); err != nil {
			t.Fatal(err)
		}
	}
}

func TestGateWaitFree(t *testing.T) {
	g := NewGate(1)
	g.TryAcquire("a")
	if err := g.WaitFree(context.Background(), "a", false); err != nil {
		t.Fatalf("holder waited: %v", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := g.WaitFree(ctx, "b", false); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}

	done := make(chan error)
	go func() { done <- g.WaitFree(context.Background(), "b", false) }()
	select {
	case <-done:
		t.Fatal("WaitFree returned while the gate is full")
	case <-time.After(5 * time.Millisecond):
	}
	g.Release("a")
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// A released slot goes to the host that has queued longest, and only to
// it; a host that stops waiting leaves the queue.
func TestGateHandsSlotsInQueueOrder(t *testing.T) {
	g := NewGate(1)
	g.TryAcquire("a")
	got := make(chan string, 3)
	ctxC, cancelC := context.WithCancel(context.Background())
	defer cancelC()
	for _, k := range []string{"b", "c", "d"} {
		ctx := context.Background()
		if k == "c" {
			ctx = ctxC
		}
		go func() {
			if g.WaitFree(ctx, k, false) == nil {
				got <- k
			}
		}()
		for g.Waiting() != map[string]int{"b": 1, "c": 2, "d": 3}[k] {
			runtime.Gosched()
		}
	}
	cancelC() // c gives up
	for g.Waiting() != 2 {
		runtime.Gosched()
	}
	g.Release("a")
	if k := <-got; k != "b" || !g.Holds("b") || g.Busy() != 1 {
		t.Fatalf("first slot went to %q (holds b: %v, busy %d), want b", k, g.Holds("b"), g.Busy())
	}
	select {
	case k := <-got:
		t.Fatalf("%q woke while b holds the only slot", k)
	default:
	}
	g.Release("b")
	if k := <-got; k != "d" || !g.Holds("d") || g.Waiting() != 0 {
		t.Fatalf("second slot went to %q, want d (c gave up)", k)
	}

	// A host past registration queued after one about to inspect goes
	// first.
	for _, k := range []string{"inspect", "clean"} {
		go func() {
			if g.WaitFree(context.Background(), k, k == "clean") == nil {
				got <- k
			}
		}()
		for g.Waiting() != map[string]int{"inspect": 1, "clean": 2}[k] {
			runtime.Gosched()
		}
	}
	g.Release("d")
	if k := <-got; k != "clean" {
		t.Fatalf("slot went to %q, want the host past registration", k)
	}
	g.Release("clean")
	if k := <-got; k != "inspect" {
		t.Fatalf("slot went to %q, want inspect", k)
	}
}

// TestGateDelaysSecondHost: limit 1, two hosts entering inspecting. The
// second is delayed (transition undone) and proceeds once the first has
// left inspecting.
func TestGateDelaysSecondHost(t *testing.T) {
	e, a, b := gatedPair(StateRegistering)
	ctx := context.Background()
	b.Status.ErrorCount = 1 // undone with the refused transition

	if r := e.m.Step(ctx, a); r.Kind != StepComplete || a.Status.State != StateInspecting {
		t.Fatalf("a: %v %q", r.Kind, a.Status.State)
	}
	r := e.m.Step(ctx, b)
	if r.Kind != StepDelayed || b.Status.State != StateRegistering || b.Status.OperationalStatus != OperationalDelayed {
		t.Fatalf("b: %v %q %q", r.Kind, b.Status.State, b.Status.OperationalStatus)
	}
	if b.Status.ErrorCount != 1 {
		t.Errorf("refused transition kept the handler's changes")
	}
	if r.Requeue < time.Minute || r.Requeue > 2*time.Minute {
		t.Errorf("delayed requeue = %v", r.Requeue)
	}
	// Still full: still delayed.
	if r := e.m.Step(ctx, b); r.Kind != StepDelayed {
		t.Fatalf("b: %v", r.Kind)
	}
	// a holds its slot while inspecting and preparing (cleaning counts
	// as busy in BMO), then leaves it.
	e.prov.on("Inspect", busy10)
	if r := e.m.Step(ctx, a); r.Kind != StepContinue || !e.m.Gate.Holds("a") {
		t.Fatalf("a lost its slot: %v", r.Kind)
	}
	if r := e.m.Step(ctx, a); a.Status.State != StatePreparing || !e.m.Gate.Holds("a") {
		t.Fatalf("a: %v %q holds=%v", r.Kind, a.Status.State, e.m.Gate.Holds("a"))
	}
	if r := e.m.Step(ctx, b); r.Kind != StepDelayed {
		t.Fatalf("b entered inspecting while a was preparing: %v", r.Kind)
	}
	if r := e.m.Step(ctx, a); a.Status.State != StateAvailable || e.m.Gate.Holds("a") {
		t.Fatalf("a: %v %q holds=%v", r.Kind, a.Status.State, e.m.Gate.Holds("a"))
	}
	if r := e.m.Step(ctx, b); r.Kind != StepComplete || b.Status.State != StateInspecting || b.Status.OperationalStatus != OperationalOK {
		t.Fatalf("b after a left: %v %q %q", r.Kind, b.Status.State, b.Status.OperationalStatus)
	}
}

// TestGateInGatedState: a host already in a gated state without a slot is
// delayed before anything runs; once it gets one the delay clears.
func TestGateInGatedState(t *testing.T) {
	e := newEnv()
	e.m.Gate = NewGate(1)
	e.m.Gate.TryAcquire("other")
	h := newHost(StateProvisioning)
	h.Spec.Image = testImage("http://img/a")
	r := e.m.Step(context.Background(), h)
	if r.Kind != StepDelayed || e.prov.methods() != "" {
		t.Fatalf("kind %v calls %q", r.Kind, e.prov.methods())
	}
	e.m.Gate.Release("other")
	r = e.m.Step(context.Background(), h)
	if r.Kind != StepComplete || h.Status.State != StateProvisioned || h.Status.OperationalStatus != OperationalOK {
		t.Fatalf("kind %v state %q op %q", r.Kind, h.Status.State, h.Status.OperationalStatus)
	}
	if e.m.Gate.Busy() != 0 {
		t.Errorf("slot kept after provisioned")
	}
}

func TestGateVirtualMediaNeverLimited(t *testing.T) {
	e := newEnv()
	e.m.Gate = NewGate(1)
	e.m.Gate.TryAcquire("other")
	h := newHost(StateRegistering)
	h.Spec.BMC.VirtualMedia = true
	if r := e.m.Step(context.Background(), h); r.Kind != StepComplete || h.Status.State != StateInspecting {
		t.Fatalf("virtual media host delayed: %v", r.Kind)
	}
	if e.m.Gate.Busy() != 1 {
		t.Errorf("virtual media host took a slot")
	}
}

// TestGateConverge: two hosts converge concurrently through a gate of one;
// both end available, the gate is never over its limit, and one of them
// waited as delayed.
func TestGateConvergeConcurrent(t *testing.T) {
	const hosts = 6
	e := newEnv()
	e.m.Gate = NewGate(2)
	var inside, maxInside atomic.Int32
	delayed := make(chan struct{})
	prov := &countingProv{fakeProv: e.prov, inside: &inside, max: &maxInside, delayed: delayed}
	e.m.Prov = prov
	e.m.Log = &signalLog{logRec: e.log, msg: "delayed by the capacity gate", ch: delayed}
	e.m.Wait = &yieldWaiter{}

	var wg sync.WaitGroup
	errs := make(chan error, hosts)
	for i := range hosts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h := newHost(StateNone)
			h.Spec.Name = fmt.Sprintf("host-%d", i)
			h.Status.ID = ""
			errs <- e.m.Converge(context.Background(), h, ConvergeOptions{})
			if h.Status.State != StateAvailable {
				errs <- fmt.Errorf("%s ended in %q", h.Spec.Name, h.Status.State)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if maxInside.Load() > 2 {
		t.Errorf("%d hosts inspecting at once over a limit of 2", maxInside.Load())
	}
	if e.m.Gate.Busy() != 0 {
		t.Errorf("slots leaked: %d", e.m.Gate.Busy())
	}
	if e.log.count("delayed by the capacity gate") == 0 {
		t.Errorf("no host was delayed")
	}
}

// countingProv makes each inspection take three passes and counts the
// hosts inside inspecting.
type countingProv struct {
	*fakeProv
	mu          sync.Mutex
	passes      map[string]int
	inside, max *atomic.Int32
	// delayed is closed once a host has been delayed: the hosts inside
	// hold their slots until then, so the test does not depend on timing.
	delayed chan struct{}
}

func (c *countingProv) Inspect(ctx context.Context, h *Host, restart, refresh bool) (Result, bool, *HardwareDetails, error) {
	c.mu.Lock()
	if c.passes == nil {
		c.passes = map[string]int{}
	}
	c.passes[h.Spec.Name]++
	n := c.passes[h.Spec.Name]
	c.mu.Unlock()
	if n == 1 {
		v := c.inside.Add(1)
		for m := c.max.Load(); v > m && !c.max.CompareAndSwap(m, v); m = c.max.Load() {
		}
	}
	if n == 2 {
		select {
		case <-c.delayed:
		case <-time.After(5 * time.Second):
		}
	}
	if n < 3 {
		return Result{Dirty: true, RequeueAfter: time.Millisecond}, n == 1, nil, nil
	}
	c.inside.Add(-1)
	return Result{}, false, &HardwareDetails{}, nil
}

// yieldWaiter lets other goroutines run instead of waiting.
type yieldWaiter struct{}

func (yieldWaiter) Wait(ctx context.Context, _ string, _ time.Duration) error {
	runtime.Gosched()
	return ctx.Err()
}

// signalLog closes ch the first time msg is logged.
type signalLog struct {
	*logRec
	msg  string
	ch   chan struct{}
	once sync.Once
}

func (s *signalLog) Log(ctx context.Context, msg string, fields map[string]any) {
	s.logRec.Log(ctx, msg, fields)
	if msg == s.msg {
		s.once.Do(func() { close(s.ch) })
	}
}

// TestGateAutomatedCleaning: automated cleaning in available takes a slot
// and holds it while the node cleans; another host that needs one is
// delayed (its provide is not sent) until the first one's cleaning ends.
func TestGateAutomatedCleaning(t *testing.T) {
	e, a, b := gatedPair(StateAvailable)
	ctx := context.Background()
	a.Spec.Online, b.Spec.Online = false, false

	e.prov.on("Provide", busy10, busy10)
	if r := e.m.Step(ctx, a); r.Kind != StepContinue || !e.m.Gate.Holds("a") {
		t.Fatalf("a: %v holds=%v", r.Kind, e.m.Gate.Holds("a"))
	}
	if r := e.m.Step(ctx, b); r.Kind != StepDelayed || b.Status.OperationalStatus != OperationalDelayed {
		t.Fatalf("b: %v %q", r.Kind, b.Status.OperationalStatus)
	}
	if n := len(e.prov.callsTo("Provide")); n != 1 {
		t.Fatalf("%d provide calls, want 1 (b must not start cleaning)", n)
	}
	// Still cleaning: a keeps the slot.
	if r := e.m.Step(ctx, a); r.Kind != StepContinue || !e.m.Gate.Holds("a") {
		t.Fatalf("a: %v holds=%v", r.Kind, e.m.Gate.Holds("a"))
	}
	// Done: a lets go; b gets the slot, cleans, and lets go too.
	if r := e.m.Step(ctx, a); r.Kind == StepContinue || e.m.Gate.Holds("a") {
		t.Fatalf("a after cleaning: %v holds=%v", r.Kind, e.m.Gate.Holds("a"))
	}
	if r := e.m.Step(ctx, b); r.Kind == StepDelayed || b.Status.OperationalStatus != OperationalOK || e.m.Gate.Busy() != 0 {
		t.Fatalf("b: %v %q busy=%d", r.Kind, b.Status.OperationalStatus, e.m.Gate.Busy())
	}
}

// A host whose node finished cleaning waits for its power without a
// capacity slot: it is not delayed behind hosts that want to clean.
func TestGatePowerAfterCleaningNeedsNoSlot(t *testing.T) {
	e, a, b := gatedPair(StateAvailable)
	ctx := context.Background()
	a.Spec.Online, b.Spec.Online = true, false

	// a: cleaning done, power on asked and still on its way.
	e.prov.on("PowerOn", busy10, busy10)
	if r := e.m.Step(ctx, a); r.Kind != StepContinue || e.m.Gate.Holds("a") {
		t.Fatalf("a: %v holds=%v", r.Kind, e.m.Gate.Holds("a"))
	}
	// b takes the only slot to clean.
	e.prov.on("Provide", busy10)
	if r := e.m.Step(ctx, b); r.Kind != StepContinue || !e.m.Gate.Holds("b") {
		t.Fatalf("b: %v holds=%v", r.Kind, e.m.Gate.Holds("b"))
	}
	// a's next power pass goes on without the slot.
	if r := e.m.Step(ctx, a); r.Kind == StepDelayed || a.Status.OperationalStatus == OperationalDelayed {
		t.Fatalf("a delayed behind b's cleaning: %v", r.Kind)
	}
	if n := len(e.prov.callsTo("PowerOn")); n != 2 {
		t.Fatalf("%d power on calls, want 2", n)
	}
}

// A host lets its slot go as soon as it sees its node's cleaning done,
// before it asks for the power on: the power write is not Ironic's busy
// work, and under load it takes a second or more (BMO counts only Ironic's
// busy nodes).
func TestGateReleasedBeforePowerWrite(t *testing.T) {
	e, a, b := gatedPair(StateAvailable)
	ctx := context.Background()
	a.Spec.Online = true

	// a: cleaning starts (a takes the slot), then is seen done.
	e.prov.on("Provide", busy10, provReply{})
	if r := e.m.Step(ctx, a); r.Kind != StepContinue || !e.m.Gate.Holds("a") {
		t.Fatalf("a: %v holds=%v", r.Kind, e.m.Gate.Holds("a"))
	}
	var heldDuringPower, bGotSlot bool
	e.prov.on("PowerOn", provReply{during: func() {
		heldDuringPower = e.m.Gate.Holds("a")
		bGotSlot = e.m.Gate.TryAcquire(gateKey(b))
	}})
	if r := e.m.Step(ctx, a); r.Kind != StepSteady {
		t.Fatalf("a after cleaning: %v", r.Kind)
	}
	if heldDuringPower || !bGotSlot {
		t.Fatalf("during a's power on: a holds the slot %v, b could take it %v; want false, true", heldDuringPower, bGotSlot)
	}
}

// gatedPair is a test env whose machine has a gate of one slot, and two
// hosts in state st named a and b.
func gatedPair(st State) (e *testEnv, a, b *Host) {
	e = newEnv()
	e.m.Gate = NewGate(1)
	a, b = newHost(st), newHost(st)
	a.Spec.Name, b.Spec.Name = "a", "b"
	return e, a, b
}
