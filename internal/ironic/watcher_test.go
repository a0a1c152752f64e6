package ironic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/hashicorp/terraform-plugin-log/tflogtest"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/noauth"
	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"
)

// fakeNodeList serves GET /v1/nodes like Ironic: fields, limit, marker and
// a next link. Nodes are kept sorted by uuid.
type fakeNodeList struct {
	mu       sync.Mutex
	nodes    map[string]map[string]any
	requests atomic.Int64
	srv      *httptest.Server
}

func newFakeNodeList(t *testing.T, n int) *fakeNodeList {
	f := &fakeNodeList{nodes: map[string]map[string]any{}}
	for i := 0; i < n; i++ {
		f.nodes[nodeID(i)] = map[string]any{
			"uuid": nodeID(i), "provision_state": "available", "target_provision_state": nil,
			"power_state": "power off", "target_power_state": nil, "last_error": nil, "maintenance": false,
		}
	}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func nodeID(i int) string { return fmt.Sprintf("00000000-0000-0000-0000-%012d", i) }

func (f *fakeNodeList) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/nodes" || r.Method != http.MethodGet {
		http.NotFound(w, r)
		return
	}
	f.requests.Add(1)
	q := r.URL.Query()
	limit, _ := strconv.Atoi(q.Get("limit"))
	marker := q.Get("marker")
	f.mu.Lock()
	ids := make([]string, 0, len(f.nodes))
	for id := range f.nodes {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var page []map[string]any
	next := ""
	for _, id := range ids {
		if marker != "" && id <= marker {
			continue
		}
		if limit > 0 && len(page) == limit {
			nq := r.URL.Query()
			nq.Set("marker", page[len(page)-1]["uuid"].(string))
			next = f.srv.URL + "/v1/nodes?" + nq.Encode()
			break
		}
		cp := map[string]any{}
		for k, v := range f.nodes[id] {
			cp[k] = v
		}
		page = append(page, cp)
	}
	f.mu.Unlock()
	body := map[string]any{"nodes": page}
	if next != "" {
		body["next"] = next
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(body)
}

func (f *fakeNodeList) set(id, key string, v any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.nodes[id][key] = v
}

func (f *fakeNodeList) remove(id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.nodes, id)
}

// newTestWatcher returns a fast watcher over f whose ticks are reported on
// the returned channel.
func newTestWatcher(t *testing.T, f *fakeNodeList, opts WatcherOptions) (*Watcher, <-chan TickInfo) {
	t.Helper()
	sc, err := noauth.NewBareMetalNoAuth(noauth.EndpointOpts{IronicEndpoint: f.srv.URL + "/v1"})
	if err != nil {
		t.Fatal(err)
	}
	sc.Microversion = "1.82"
	ticks := make(chan TickInfo, 10000)
	if opts.MinInterval == 0 {
		opts.MinInterval = 5 * time.Millisecond
	}
	if opts.MaxInterval == 0 {
		opts.MaxInterval = 20 * time.Millisecond
	}
	opts.OnTick = func(ti TickInfo) {
		select {
		case ticks <- ti:
		default:
		}
	}
	return NewWatcher(sc, opts), ticks
}

// nextTick returns the next tick that satisfies ok, or fails after 5 s.
func nextTick(t *testing.T, ticks <-chan TickInfo, ok func(TickInfo) bool) TickInfo {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		select {
		case ti := <-ticks:
			if ti.Err != nil {
				t.Fatalf("tick error: %v", ti.Err)
			}
			if ok(ti) {
				return ti
			}
		case <-deadline:
			t.Fatal("no matching watcher tick within 5s")
		}
	}
}

func (w *Watcher) isRunning() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.running
}

// waitStopped fails unless the watcher's goroutine stops within 5 s.
func waitStopped(t *testing.T, w *Watcher) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for w.isRunning() {
		if time.Now().After(deadline) {
			t.Fatal("watcher goroutine still running with no waiters")
		}
		<-time.After(time.Millisecond)
	}
}

func TestWatcherManyWaitersOneListPerTick(t *testing.T) {
	f := newFakeNodeList(t, 50)
	w, ticks := newTestWatcher(t, f, WatcherOptions{FixedPace: true})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	results := make([]chan error, 50)
	for i := range results {
		results[i] = make(chan error, 1)
		go func(i int) { results[i] <- w.Wait(ctx, nodeID(i), time.Minute) }(i)
	}
	// All 50 wait, and a tick has seen them (baseline taken).
	nextTick(t, ticks, func(ti TickInfo) bool { return ti.Waiters == 50 })
	nextTick(t, ticks, func(ti TickInfo) bool { return ti.Waiters == 50 })

	f.set(nodeID(7), "provision_state", "deploying")
	ti := nextTick(t, ticks, func(ti TickInfo) bool { return ti.Changed })
	if ti.Woken != 1 || ti.Next != w.opts.MinInterval {
		t.Errorf("change tick: %+v", ti)
	}
	select {
	case err := <-results[7]:
		if err != nil {
			t.Fatalf("waiter 7: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("waiter 7 not woken")
	}
	// One more tick: nobody else woke.
	nextTick(t, ticks, func(ti TickInfo) bool { return ti.Waiters == 49 })
	for i, ch := range results {
		if i != 7 && len(ch) != 0 {
			t.Errorf("waiter %d woke without a change", i)
		}
	}
	// Cancelling returns every wait promptly.
	cancel()
	for i, ch := range results {
		if i == 7 {
			continue
		}
		select {
		case err := <-ch:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("waiter %d: %v, want context.Canceled", i, err)
			}
		case <-time.After(time.Second):
			t.Fatalf("waiter %d did not return after cancel", i)
		}
	}
	waitStopped(t, w)
	// Counted once the loop has stopped: a tick in flight would count its
	// tick before its list.
	st := w.Stats()
	if st.ListRequests != st.Ticks || st.Wakeups != 1 {
		t.Errorf("stats %+v: want one list request per tick and one wakeup", st)
	}
	if got := f.requests.Load(); got != st.ListRequests {
		t.Errorf("server saw %d requests, watcher counted %d", got, st.ListRequests)
	}
}

func TestWatcherPagination(t *testing.T) {
	f := newFakeNodeList(t, 50)
	w, ticks := newTestWatcher(t, f, WatcherOptions{PageLimit: 20})
	done := make(chan error, 1)
	go func() { done <- w.Wait(context.Background(), nodeID(45), time.Minute) }()
	nextTick(t, ticks, func(ti TickInfo) bool { return ti.Waiters == 1 })
	f.set(nodeID(45), "power_state", "power on")
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("waiter on the last page not woken")
	}
	st := w.Stats()
	if st.ListRequests != 3*st.Ticks {
		t.Errorf("stats %+v: want 3 page requests per tick", st)
	}
}

func TestWatcherBackoffAndNudge(t *testing.T) {
	f := newFakeNodeList(t, 1)
	w, ticks := newTestWatcher(t, f, WatcherOptions{MinInterval: 4 * time.Millisecond, MaxInterval: 40 * time.Millisecond, Backoff: 1.5, FixedPace: true})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- w.Wait(ctx, nodeID(0), time.Minute) }()

	var prev time.Duration
	for i := 0; ; i++ {
		ti := nextTick(t, ticks, func(TickInfo) bool { return true })
		if ti.Changed {
			t.Fatal("change without a change")
		}
		if ti.Next < prev {
			t.Fatalf("interval shrank without a change: %v after %v", ti.Next, prev)
		}
		if i == 0 && ti.Next != 6*time.Millisecond {
			t.Fatalf("first backoff %v, want 6ms", ti.Next)
		}
		prev = ti.Next
		if ti.Next == w.opts.MaxInterval {
			break
		}
		if i > 20 {
			t.Fatalf("interval never reached the max: %v", ti.Next)
		}
	}
	// Nudge brings it back to the minimum.
	w.Nudge()
	nextTick(t, ticks, func(ti TickInfo) bool { return ti.Next == 6*time.Millisecond })

	// A change wakes the waiter and resets to the minimum.
	f.set(nodeID(0), "last_error", "boom")
	nextTick(t, ticks, func(ti TickInfo) bool { return ti.Changed && ti.Next == w.opts.MinInterval })
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	waitStopped(t, w)
}

func TestWatcherTimeoutEmptyIDAndDisappearance(t *testing.T) {
	f := newFakeNodeList(t, 2)
	w, ticks := newTestWatcher(t, f, WatcherOptions{})
	ctx := context.Background()

	// d passes without a change.
	start := time.Now()
	if err := w.Wait(ctx, nodeID(0), 30*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el < 30*time.Millisecond || el > 5*time.Second {
		t.Errorf("wait took %v", el)
	}
	waitStopped(t, w)

	// An empty id just waits (no list request).
	before := f.requests.Load()
	if err := w.Wait(ctx, "", 10*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if f.requests.Load() != before {
		t.Error("an empty-id wait listed nodes")
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := w.Wait(cctx, "", time.Minute); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled empty-id wait: %v", err)
	}

	// A node that disappears wakes its waiter; the other node's does not.
	d1 := make(chan error, 1)
	d0 := make(chan error, 1)
	wctx, wcancel := context.WithCancel(ctx)
	defer wcancel()
	go func() { d1 <- w.Wait(wctx, nodeID(1), time.Minute) }()
	go func() { d0 <- w.Wait(wctx, nodeID(0), time.Minute) }()
	nextTick(t, ticks, func(ti TickInfo) bool { return ti.Waiters == 2 })
	f.remove(nodeID(1))
	select {
	case err := <-d1:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("waiter on a deleted node not woken")
	}
	if len(d0) != 0 {
		t.Error("waiter on node 0 woke")
	}
	wcancel()
	if err := <-d0; !errors.Is(err, context.Canceled) {
		t.Errorf("node 0 waiter: %v", err)
	}
	waitStopped(t, w)
}

// A fast round trip (manageable -> inspecting -> manageable) between the
// provisioner's read and the watcher's first tick still wakes the waiter:
// the baseline is what the provisioner saw, and provision_updated_at moved.
func TestWatcherWakesOnRoundTripSinceProvisionerRead(t *testing.T) {
	f := newFakeNodeList(t, 1)
	id := nodeID(0)
	before := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	f.set(id, "provision_state", "manageable")
	f.set(id, "provision_updated_at", before.Format(time.RFC3339Nano))
	w, _ := newTestWatcher(t, f, WatcherOptions{MinInterval: time.Millisecond, MaxInterval: time.Millisecond})
	// The provisioner read the node, then issued a verb; Ironic went
	// through inspecting and back before anyone looked again.
	w.Saw(&nodes.Node{UUID: id, ProvisionState: "manageable", PowerState: "power off", ProvisionUpdatedAt: before})
	f.set(id, "provision_updated_at", before.Add(time.Second).Format(time.RFC3339Nano))

	start := time.Now()
	if err := w.Wait(context.Background(), id, time.Minute); err != nil {
		t.Fatal(err)
	}
	if waited := time.Since(start); waited > 10*time.Second {
		t.Fatalf("waited %v: the round trip was not seen", waited)
	}
	if w.Stats().Wakeups != 1 {
		t.Errorf("wakeups = %d, want 1 (woken by the change, not the timeout)", w.Stats().Wakeups)
	}
}

// A slow Ironic is not listed faster than it answers: the next tick waits
// at least as long as the last list took.
func TestWatcherPacesToListLatency(t *testing.T) {
	f := newFakeNodeList(t, 1)
	slow := f.srv.Config.Handler
	f.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(30 * time.Millisecond) // Ironic taking its time
		slow.ServeHTTP(w, r)
	})
	w, ticks := newTestWatcher(t, f, WatcherOptions{MinInterval: time.Millisecond, MaxInterval: time.Second})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = w.Wait(ctx, nodeID(0), time.Minute) }()
	ti := nextTick(t, ticks, func(TickInfo) bool { return true })
	if ti.Next < 30*time.Millisecond {
		t.Errorf("next tick in %v after a 30 ms list, want at least 30 ms", ti.Next)
	}
}

// A wait after this provider wrote to a node ends at the first list that
// started after the write, even when that list shows no change from the
// state the watcher first sees: a node created and managed between two
// ticks (enroll -> verifying -> manageable before anyone listed it) must
// not leave its waiter sleeping until the timeout.
func TestWatcherWakesOnFirstListAfterWrite(t *testing.T) {
	f := newFakeNodeList(t, 1)
	id := nodeID(0)
	f.set(id, "provision_state", "manageable")
	w, ticks := newTestWatcher(t, f, WatcherOptions{MinInterval: time.Millisecond, MaxInterval: time.Millisecond})
	// Neither the provisioner nor the watcher has seen the node; the
	// provisioner wrote to it (the manage request) and waits.
	w.Wrote(id)
	start := time.Now()
	if err := w.Wait(context.Background(), id, time.Minute); err != nil {
		t.Fatal(err)
	}
	if waited := time.Since(start); waited > 10*time.Second {
		t.Fatalf("waited %v: the first list after the write did not wake the waiter", waited)
	}
	if w.Stats().Wakeups != 1 {
		t.Errorf("wakeups = %d, want 1", w.Stats().Wakeups)
	}

	// Once the provisioner has read the node after the write, a wait
	// sleeps until the node changes again.
	w.Saw(&nodes.Node{UUID: id, ProvisionState: "manageable", PowerState: "power off"})
	done := make(chan error, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { done <- w.Wait(ctx, id, time.Minute) }()
	for range 3 {
		nextTick(t, ticks, func(ti TickInfo) bool { return ti.Waiters == 1 })
	}
	if len(done) != 0 {
		t.Fatalf("woke without a change or a write: %v", <-done)
	}
	f.set(id, "provision_state", "inspecting")
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("change after the read not seen")
	}
}

// With Batch, many hosts and a known wakeup rate space the fast ticks so
// that one list gathers a batch of wakeups; few hosts keep MinInterval.
func TestWatcherBatchInterval(t *testing.T) {
	f := newFakeNodeList(t, 1)
	w, _ := newTestWatcher(t, f, WatcherOptions{MinInterval: 100 * time.Millisecond, MaxInterval: 5 * time.Second, Batch: 5})
	w.mu.Lock()
	defer w.mu.Unlock()
	w.rate = 10 // wakeups per second
	host := func(i int) { w.seen[nodeID(i)] = nodeState{} }
	for i := range 39 {
		host(i)
	}
	if d := w.fastLocked(); d != 100*time.Millisecond {
		t.Errorf("39 hosts: %v, want MinInterval", d)
	}
	host(39)
	if d := w.fastLocked(); d != 200*time.Millisecond {
		t.Errorf("40 hosts: %v, want 2 wakeups at 10/s = 200ms", d)
	}
	for i := range 400 {
		host(40 + i)
	}
	if d := w.fastLocked(); d != 500*time.Millisecond {
		t.Errorf("440 hosts: %v, want Batch (5) wakeups at 10/s = 500ms", d)
	}
	// The last list woke a batch already (a cohort): the next comes at
	// most cohortSpacing times what that list took after the last write.
	w.lastWoken, w.lastTook = 5, 40*time.Millisecond
	if d := w.fastLocked(); d != cohortSpacing*40*time.Millisecond {
		t.Errorf("440 hosts, last list woke 5 in 40ms: %v, want %v", d, cohortSpacing*40*time.Millisecond)
	}
	w.lastTook = 10 * time.Millisecond
	if d := w.fastLocked(); d != 100*time.Millisecond {
		t.Errorf("440 hosts, last list woke 5 in 10ms: %v, want MinInterval", d)
	}
	w.lastTook = time.Second
	if d := w.fastLocked(); d != 500*time.Millisecond {
		t.Errorf("440 hosts, last list woke 5 in 1s: %v, want the batch (500ms)", d)
	}
	w.lastWoken, w.lastTook = 4, 40*time.Millisecond
	if d := w.fastLocked(); d != 500*time.Millisecond {
		t.Errorf("440 hosts, last list woke 4: %v, want the batch (500ms)", d)
	}
	w.lastWoken, w.lastTook = 0, 0
	w.rate = 0.1
	if d := w.fastLocked(); d != 5*time.Second {
		t.Errorf("slow rate: %v, want MaxInterval", d)
	}
	w.opts.Batch = 0
	if d := w.fastLocked(); d != 100*time.Millisecond {
		t.Errorf("no batching: %v, want MinInterval", d)
	}
}

// A wait after a write whose delay ends before the watcher listed again
// goes on until that list (the pass after it would wait for one anyway);
// without a write, the delay ends the wait.
func TestWatcherWaitAfterWriteOutlivesItsDelay(t *testing.T) {
	f := newFakeNodeList(t, 1)
	id := nodeID(0)
	w, _ := newTestWatcher(t, f, WatcherOptions{MinInterval: 50 * time.Millisecond, MaxInterval: 50 * time.Millisecond, FixedPace: true})
	w.Saw(&nodes.Node{UUID: id, ProvisionState: "available", PowerState: "power off"})
	if err := w.Wait(context.Background(), id, time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if st := w.Stats(); st.Wakeups != 0 {
		t.Fatalf("no write: %+v, want the delay to end the wait", st)
	}
	w.Wrote(id)
	if err := w.Wait(context.Background(), id, time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if st := w.Stats(); st.Wakeups != 1 || st.ListRequests == 0 {
		t.Fatalf("after a write: %+v, want the wait to end at a list since the write", st)
	}
}

// syncWriter is a log sink the watcher's goroutines and the test share.
type syncWriter struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

func (s *syncWriter) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

// The watcher's lists run outside any request: they log through
// LogContext (a context.Background() logger drops every line), each list
// at trace level and a failed one at debug level.
func TestWatcherLogsThroughLogContext(t *testing.T) {
	f := newFakeNodeList(t, 3)
	var logs syncWriter
	w, ticks := newTestWatcher(t, f, WatcherOptions{FixedPace: true, LogContext: tflogtest.RootLogger(context.Background(), &logs)})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- w.Wait(ctx, nodeID(1), time.Minute) }()
	nextTick(t, ticks, func(ti TickInfo) bool { return ti.Waiters == 1 && ti.Err == nil })
	f.srv.Close()
	for ti := range ticks { // nextTick fails on an error tick: wait for one here
		if ti.Err != nil {
			break
		}
	}
	cancel()
	<-done
	entries, err := tflogtest.MultilineJSONDecode(strings.NewReader(logs.String()))
	if err != nil {
		t.Fatal(err)
	}
	var listed, failed bool
	for _, e := range entries {
		switch e["@message"] {
		case "watcher: listed nodes":
			listed = listed || (e["@level"] == "trace" && e["waiters"] == float64(1) && e["took"] != nil)
		case "watcher: listing nodes failed":
			failed = failed || (e["@level"] == "debug" && strings.Contains(fmt.Sprint(e["error"]), "connect"))
		}
	}
	if !listed || !failed {
		t.Errorf("want a trace line per list (with waiters and took) and a debug line for the failed list; got listed=%v failed=%v in:\n%s", listed, failed, logs.String())
	}
}

// A cohort woken by one list is listed again soon after its writes (at
// most cohortSpacing times what the list took), not after the batching
// interval; a list that woke fewer than a batch brings the batching back.
func TestWatcherCohortSkipsTheBatchWait(t *testing.T) {
	const hosts = 60 // 3 wakeups make a batch (Batch 5, BatchPer 20)
	f := newFakeNodeList(t, hosts)
	w, _ := newTestWatcher(t, f, WatcherOptions{MinInterval: 5 * time.Millisecond, MaxInterval: time.Hour, Batch: 5, FixedPace: true})
	for i := range hosts {
		w.Saw(&nodes.Node{UUID: nodeID(i), ProvisionState: "available", PowerState: "power off"})
	}
	step := 0
	wake := func(n int) {
		t.Helper()
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := w.Wait(context.Background(), nodeID(i), time.Hour); err != nil {
					t.Error(err)
				}
			}()
		}
		// All n wait before their nodes change, and change at once (one
		// list sees all or none of it).
		waitersRegistered(t, w, n)
		step++
		f.mu.Lock()
		for i := range n {
			f.nodes[nodeID(i)]["provision_state"] = fmt.Sprintf("step-%d", step)
		}
		f.mu.Unlock()
		wg.Wait()
	}
	// The cohort of 3 woken by one list makes a batch (the rate, set after
	// the list, would ask for 50 minutes).
	wake(3)
	w.mu.Lock()
	w.rate = 0.001
	got, took := w.fastLocked(), w.lastTook
	w.mu.Unlock()
	if want := max(cohortSpacing*took, 5*time.Millisecond); took <= 0 || got != want {
		t.Fatalf("after a list that woke 3 of a batch of 3 in %v: %v, want %v", took, got, want)
	}
	// One host woken: the next list waits for the batching interval (3
	// wakeups at 0.001/s).
	wake(1)
	w.mu.Lock()
	w.rate = 0.001
	got = w.fastLocked()
	w.mu.Unlock()
	if got != 3000*time.Second {
		t.Fatalf("after a list that woke 1: %v, want the batching interval (50m)", got)
	}
}

// waitersRegistered returns once n waits are registered with w, or fails
// after 10 s.
func waitersRegistered(t *testing.T, w *Watcher, n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; {
		w.mu.Lock()
		waiting := len(w.waiters)
		w.mu.Unlock()
		if waiting == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d waits registered", waiting, n)
		}
		runtime.Gosched()
	}
}

// TestWatcherListsWhenTheBatchsWritesAreAnswered: once a batch of Nudges
// finds none of the provider's writes left in flight, the next list comes
// at once (spaced from the last by MinInterval and cohortSpacing times its
// time), not a batching interval (here 50 minutes) after the last Nudge.
func TestWatcherListsWhenTheBatchsWritesAreAnswered(t *testing.T) {
	const hosts = 60 // a batch is 3 Nudges (Batch 5, BatchPer 20)
	f := newFakeNodeList(t, hosts)
	var inFlight atomic.Int64
	w, _ := newTestWatcher(t, f, WatcherOptions{
		MinInterval: 5 * time.Millisecond, MaxInterval: time.Hour, Batch: 5, FixedPace: true,
		WritesInFlight: func() int { return int(inFlight.Load()) },
	})
	for i := range hosts {
		w.Saw(&nodes.Node{UUID: nodeID(i), ProvisionState: "available", PowerState: "power off"})
	}
	// A first list, and a wakeup rate that asks for 50 minutes.
	if _, err := w.fresh(context.Background(), time.Now()); err != nil {
		t.Fatal(err)
	}
	slow := func() {
		w.mu.Lock()
		w.rate = 0.001
		w.interval = w.fastLocked()
		w.mu.Unlock()
	}
	slow()
	delay := func() time.Duration {
		t.Helper()
		d := w.kickDelay()
		if d < 0 || d > time.Hour {
			t.Fatalf("kickDelay %v", d)
		}
		return d
	}
	nudges := func(n int) {
		w.mu.Lock()
		w.nudges = n
		w.mu.Unlock()
	}
	for _, c := range []struct {
		nudges, inFlight int
		soon             bool
	}{
		{nudges: 3, inFlight: 1},             // the batch's last write is not answered yet
		{nudges: 2, inFlight: 0},             // fewer Nudges than a batch: the batching interval
		{nudges: 3, inFlight: -1},            // the transport does not count writes
		{nudges: 3, inFlight: 0, soon: true}, // the batch is answered
		{nudges: 7, inFlight: 0, soon: true},
	} {
		nudges(c.nudges)
		inFlight.Store(int64(c.inFlight))
		if d := delay(); (d <= time.Second) != c.soon {
			t.Errorf("%d Nudges, %d writes in flight: next list in %v, want soon=%v", c.nudges, c.inFlight, d, c.soon)
		}
	}
	w.mu.Lock()
	spacing := max(w.opts.MinInterval, cohortSpacing*w.lastTook, gatherDelay)
	w.mu.Unlock()
	if d := delay(); d > spacing {
		t.Errorf("next list in %v, more than the spacing of lists or gatherDelay (%v)", d, spacing)
	}

	// Through the loop: a host that wrote waits for the first list after
	// its write; the batch's last Nudge, with nothing in flight, brings it.
	nudges(0)
	inFlight.Store(1)
	w.Wrote(nodeID(0))
	woke := make(chan error, 1)
	go func() { woke <- w.Wait(context.Background(), nodeID(0), time.Hour) }()
	waitersRegistered(t, w, 1)
	slow()
	w.Nudge()
	w.Nudge()
	inFlight.Store(0)
	w.Nudge()
	select {
	case err := <-woke:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no list 10 s after the batch's writes were answered")
	}

	// Beyond fastListMaxNodes the batching interval stays.
	for i := hosts; i <= fastListMaxNodes; i++ {
		w.Saw(&nodes.Node{UUID: nodeID(i), ProvisionState: "available"})
	}
	slow()
	nudges(7)
	inFlight.Store(0)
	if d := delay(); d <= time.Second {
		t.Errorf("%d nodes: next list in %v, want the batching interval", fastListMaxNodes+1, d)
	}
}

// Lists that reads ask for are spaced like ticks: the next starts at
// least cohortSpacing times the last list's time after the last one
// started, so lists take at most a third of Ironic's time. Without that,
// at 2,000 nodes the reads of hosts that had just written kept one list
// after another in flight.
func TestWatcherSpacesListsReadsAskFor(t *testing.T) {
	f := newFakeNodeList(t, 1)
	slow := f.srv.Config.Handler
	var mu sync.Mutex
	var starts []time.Time
	f.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		starts = append(starts, time.Now())
		mu.Unlock()
		time.Sleep(30 * time.Millisecond) // Ironic taking its time
		slow.ServeHTTP(w, r)
	})
	w, _ := newTestWatcher(t, f, WatcherOptions{MinInterval: time.Millisecond, MaxInterval: time.Second})
	ctx := context.Background()
	for i := 0; i < 3; i++ {
		// As after a write: only a list that starts from now will do.
		if n, err := w.Node(ctx, nodeID(0), time.Now()); err != nil || n == nil {
			t.Fatalf("read %d: %v %v", i, n, err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(starts) != 3 {
		t.Fatalf("%d lists for 3 reads, want 3", len(starts))
	}
	for i := 1; i < len(starts); i++ {
		// Each list took at least 30 ms: the next starts 90 ms or more
		// after it (less a little for where the server and the client
		// each take the time).
		if gap := starts[i].Sub(starts[i-1]); gap < 85*time.Millisecond {
			t.Errorf("list %d started %v after the one before, want at least %d x its 30 ms", i, gap, cohortSpacing)
		}
	}
}
