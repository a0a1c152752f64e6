package ironic

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"
	"github.com/gophercloud/gophercloud/v2/pagination"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// watchFields are the node fields the watcher lists on every tick.
// Ironic 21.4 rejects updated_at in fields ("Field updated_at is not a
// valid field"); provision_updated_at changes with every provision state
// change, so a round trip (manageable -> inspecting -> manageable) that
// happens between two ticks is still seen.
var watchFields = []string{
	"uuid", "provision_state", "target_provision_state", "power_state",
	"target_power_state", "last_error", "maintenance", "provision_updated_at",
}

// WatcherOptions tune a Watcher. Zero values take the defaults.
type WatcherOptions struct {
	// MinInterval is the tick interval right after Nudge or a change (1 s).
	MinInterval time.Duration
	// MaxInterval caps the backoff while nothing changes (10 s).
	MaxInterval time.Duration
	// Backoff multiplies the interval after a tick without change (1.5).
	Backoff float64
	// PageLimit is the list page size (0: Ironic's default, up to 1000
	// nodes per page; next links are followed).
	PageLimit int
	// OnTick, when set, is called after every tick (for tests and
	// benchmarks); it must not block.
	OnTick func(TickInfo)
}

// TickInfo describes one watcher tick.
type TickInfo struct {
	// Waiters is how many waits were pending during the tick; Woken how
	// many it woke.
	Waiters int
	Woken   int
	// Changed is true when a watched node changed.
	Changed bool
	// Next is the interval until the next tick.
	Next time.Duration
	// Err is the list error, if any.
	Err error
}

// WatcherStats are counters since the watcher was made.
type WatcherStats struct {
	// Ticks is the number of ticks, ListRequests the number of list page
	// requests sent to Ironic (one per tick unless the node list spans
	// several pages), Wakeups the number of waits ended by a change.
	Ticks        int64
	ListRequests int64
	Wakeups      int64
}

// nodeState is the part of a node the watcher compares.
type nodeState struct {
	ProvisionState       string
	TargetProvisionState string
	PowerState           string
	TargetPowerState     string
	LastError            string
	Maintenance          bool
	ProvisionUpdatedAt   time.Time
}

// stateOf is what the watcher compares of a node.
func stateOf(n *nodes.Node) nodeState {
	return nodeState{
		ProvisionState:       n.ProvisionState,
		TargetProvisionState: n.TargetProvisionState,
		PowerState:           n.PowerState,
		TargetPowerState:     n.TargetPowerState,
		LastError:            n.LastError,
		Maintenance:          n.Maintenance,
		ProvisionUpdatedAt:   n.ProvisionUpdatedAt.UTC(),
	}
}

type waiter struct {
	id    string
	known bool // base is set
	base  nodeState
	gone  bool // the node was absent when base was taken
	ch    chan struct{}
}

// Watcher is the provider's one shared view of Ironic node states: it
// implements lifecycle.Waiter with a single goroutine that lists every node
// with one request per tick while anyone waits, and wakes the waiters whose
// node changed. Ticks start at MinInterval after Nudge (or a change) and
// back off by Backoff up to MaxInterval while nothing changes.
type Watcher struct {
	sc   *gophercloud.ServiceClient
	opts WatcherOptions

	mu      sync.Mutex
	waiters map[*waiter]struct{}
	cache   map[string]nodeState // last seen state of every node
	// seen is the state the provisioner last read of a node: the baseline
	// of the next wait, so that a change between that read and the
	// watcher's next tick still wakes the waiter.
	seen     map[string]nodeState
	running  bool
	interval time.Duration
	kick     chan struct{} // Nudge / last waiter left

	ticks, lists, wakeups atomic.Int64
}

var _ lifecycle.Waiter = (*Watcher)(nil)

// NewWatcher returns a watcher over sc. It starts no goroutine until
// someone waits.
func NewWatcher(sc *gophercloud.ServiceClient, opts WatcherOptions) *Watcher {
	if opts.MinInterval <= 0 {
		opts.MinInterval = time.Second
	}
	if opts.MaxInterval <= 0 {
		opts.MaxInterval = 10 * time.Second
	}
	if opts.MaxInterval < opts.MinInterval {
		opts.MaxInterval = opts.MinInterval
	}
	if opts.Backoff < 1 {
		opts.Backoff = 1.5
	}
	return &Watcher{
		sc:       sc,
		opts:     opts,
		waiters:  map[*waiter]struct{}{},
		cache:    map[string]nodeState{},
		seen:     map[string]nodeState{},
		interval: opts.MinInterval,
		kick:     make(chan struct{}, 1),
	}
}

// Stats returns the watcher's counters.
func (w *Watcher) Stats() WatcherStats {
	return WatcherStats{Ticks: w.ticks.Load(), ListRequests: w.lists.Load(), Wakeups: w.wakeups.Load()}
}

// Saw records the node as the provisioner just read it: the next Wait on
// it wakes as soon as Ironic reports anything else.
func (w *Watcher) Saw(n *nodes.Node) {
	w.mu.Lock()
	w.seen[n.UUID] = stateOf(n)
	w.mu.Unlock()
}

// Nudge makes the next tick come within MinInterval: call it after issuing
// an Ironic verb.
func (w *Watcher) Nudge() {
	w.mu.Lock()
	w.interval = w.opts.MinInterval
	w.mu.Unlock()
	w.signal()
}

func (w *Watcher) signal() {
	select {
	case w.kick <- struct{}{}:
	default:
	}
}

// Wait returns when the node with id changed (provision_state,
// target_provision_state, power_state, target_power_state, last_error or
// maintenance, or it disappeared) since the wait began, when d has passed,
// or when ctx ends (with ctx.Err()). The baseline is the state the
// provisioner last read (Saw), else the state the watcher last saw, else
// the first state it sees after Wait began. An empty id just waits.
func (w *Watcher) Wait(ctx context.Context, id string, d time.Duration) error {
	timer := time.NewTimer(d)
	defer timer.Stop()
	if id == "" {
		select {
		case <-timer.C:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	wt := &waiter{id: id, ch: make(chan struct{})}
	w.mu.Lock()
	if s, ok := w.seen[id]; ok {
		wt.known, wt.base = true, s
	} else if s, ok := w.cache[id]; ok {
		wt.known, wt.base = true, s
	}
	w.waiters[wt] = struct{}{}
	if !w.running {
		w.running = true
		go w.loop()
	}
	w.mu.Unlock()

	defer func() {
		w.mu.Lock()
		delete(w.waiters, wt)
		empty := len(w.waiters) == 0
		w.mu.Unlock()
		if empty {
			w.signal() // let the loop stop now rather than at its next tick
		}
	}()
	select {
	case <-wt.ch:
		return nil
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// loop is the single polling goroutine; it exits when nobody waits.
func (w *Watcher) loop() {
	timer := time.NewTimer(w.currentInterval())
	defer timer.Stop()
	for {
		select {
		case <-timer.C:
		case <-w.kick:
			if w.stopIfIdle() {
				return
			}
			// Nudged: tick within MinInterval.
			if !timer.Stop() {
				select {
				case <-timer.C:
				default:
				}
			}
			timer.Reset(w.currentInterval())
			continue
		}
		if w.stopIfIdle() {
			return
		}
		next := w.tick()
		if w.stopIfIdle() {
			return
		}
		timer.Reset(next)
	}
}

func (w *Watcher) currentInterval() time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.interval
}

// stopIfIdle marks the loop stopped when nobody waits.
func (w *Watcher) stopIfIdle() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.waiters) == 0 {
		w.running = false
		w.interval = w.opts.MinInterval
		return true
	}
	return false
}

// list fetches the state of every node (one request per page).
func (w *Watcher) list(ctx context.Context) (map[string]nodeState, error) {
	out := map[string]nodeState{}
	opts := nodes.ListOpts{Fields: watchFields, Limit: w.opts.PageLimit}
	err := nodes.List(w.sc, opts).EachPage(ctx, func(_ context.Context, page pagination.Page) (bool, error) {
		w.lists.Add(1)
		list, err := nodes.ExtractNodes(page)
		if err != nil {
			return false, err
		}
		for i := range list {
			out[list[i].UUID] = stateOf(&list[i])
		}
		return true, nil
	})
	return out, err
}

// tick lists the nodes once, wakes the waiters whose node changed, and
// returns the interval until the next tick.
func (w *Watcher) tick() time.Duration {
	w.ticks.Add(1)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	states, err := w.list(ctx)
	cancel()

	w.mu.Lock()
	info := TickInfo{Waiters: len(w.waiters), Err: err}
	if err == nil {
		for wt := range w.waiters {
			cur, present := states[wt.id]
			if !wt.known {
				// First sight since the wait began: this is the baseline.
				wt.known, wt.base, wt.gone = true, cur, !present
				continue
			}
			if (present && !wt.gone && cur == wt.base) || (!present && wt.gone) {
				continue
			}
			info.Changed = true
			info.Woken++
			close(wt.ch)
			delete(w.waiters, wt)
		}
		// The cache also catches changes to nodes nobody waits on now.
		w.cache = states
	}
	if info.Changed {
		w.interval = w.opts.MinInterval
	} else {
		next := time.Duration(float64(w.interval) * w.opts.Backoff)
		w.interval = min(next, w.opts.MaxInterval)
	}
	info.Next = w.interval
	w.mu.Unlock()

	w.wakeups.Add(int64(info.Woken))
	if err != nil {
		tflog.Debug(context.Background(), "watcher: listing nodes failed", map[string]any{"error": err.Error()})
	}
	if w.opts.OnTick != nil {
		w.opts.OnTick(info)
	}
	return info.Next
}
