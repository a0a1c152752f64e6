package ironic

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// watchFields are the node fields the watcher compares. Ironic 21.4
// rejects updated_at in fields ("Field updated_at is not a valid field");
// provision_updated_at changes with every provision state change, so a
// round trip (manageable -> inspecting -> manageable) that happens between
// two ticks is still seen.
var watchFields = []string{
	"uuid", "provision_state", "target_provision_state", "power_state",
	"target_power_state", "last_error", "maintenance", "provision_updated_at",
}

// readFields are the node fields the provisioner reads; the watcher lists
// them, so that one list serves every host's next read (listFields adds
// those of newer microversions). Not allocation_uuid: Ironic 21.4 answers
// a list with that field with a 500 ("type object 'Node' has no attribute
// 'allocation_uuid'"); the provisioner does not need it.
var readFields = []string{
	"name", "driver", "fault", "inspection_finished_at", "properties", "instance_info",
	"instance_uuid", "automated_clean", "extra", "resource_class", "conductor_group",
	"traits", "reservation", "maintenance_reason", "driver_info",
	"bios_interface", "boot_interface", "console_interface", "deploy_interface",
	"inspect_interface", "management_interface", "network_interface", "power_interface",
	"raid_interface", "rescue_interface", "storage_interface", "vendor_interface",
	"clean_step",
}

// listFields is what the watcher asks for at microversion mv.
func listFields(mv string) []string {
	f := append(append([]string{}, watchFields...), readFields...)
	f = append(f, "deploy_step") // the step a wait names (steps.go); API 1.44, below the provider's minimum
	if lifecycle.FeatureServicing.In(mv) {
		f = append(f, "service_step")
	}
	if lifecycle.FeatureNetworkData.In(mv) {
		f = append(f, "network_data") // the boot settings read back (boot.go)
	}
	if lifecycle.FeatureShard.In(mv) {
		f = append(f, "shard")
	}
	if lifecycle.FeatureParentNode.In(mv) {
		f = append(f, "parent_node") // a node made its own parent (unparent)
	}
	if lifecycle.FeatureFirmware.In(mv) {
		f = append(f, "firmware_interface")
	}
	if lifecycle.FeatureDisablePowerOff.In(mv) {
		f = append(f, "disable_power_off")
	}
	if lifecycle.FeatureHealth.In(mv) {
		f = append(f, "health") // baremetal_host.health
	}
	return f
}

// WatcherOptions tune a Watcher. Zero values take the defaults.
type WatcherOptions struct {
	// MinInterval is the tick interval right after Nudge or a change
	// (DefaultMinTick).
	MinInterval time.Duration
	// MaxInterval caps the backoff while nothing changes (DefaultMaxTick).
	MaxInterval time.Duration
	// Backoff multiplies the interval after a tick without change (1.5).
	Backoff float64
	// FixedPace keeps the intervals above even when a list takes longer
	// than the interval (by default the interval grows to what the last
	// list took). Intervals run from the start of a list.
	FixedPace bool
	// Batch, when set, spaces the ticks after a change or a Nudge by the
	// time the recent rate of wakeups takes to gather min(Batch,
	// hosts/BatchPer) wakeups, whenever that is at least 2 (hosts: the
	// nodes the provisioner has read): with hundreds of hosts on a slow
	// Ironic, one list then serves several wakeups rather than one, so the
	// lists per host stay bounded however long the apply takes (a host
	// wakes about five times in an apply). 0: no batching (MinInterval).
	Batch int
	// WritesInFlight, when set, is how many of the provider's writes to
	// Ironic are sent and not yet answered (clients.Conn.WritesInFlight).
	// A Nudge that finds none left, after a batch of Nudges since the last
	// list began, lists as soon as the spacing of lists allows instead of
	// an interval later: the batch's writes have all been answered, and
	// Ironic would sit idle until the list wakes the hosts for their next
	// writes.
	WritesInFlight func() int
	// PageLimit is the list page size (0: Ironic's default, up to 1000
	// nodes per page; next links are followed).
	PageLimit int
	// OnTick, when set, is called after every tick (for tests and
	// benchmarks); it must not block.
	OnTick func(TickInfo)
	// LogContext carries the tflog logger for what the watcher logs from
	// its own goroutines, which run outside any request (a context
	// without one, such as context.Background(), drops the logs). The
	// provider passes its Configure context, without its cancellation.
	// nil: context.Background().
	LogContext context.Context
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
	// Rounds is the number of lists (of one or more pages) made, by ticks
	// and by reads.
	Rounds int64
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
	// after, when set, is this provider's last write to the node, newer
	// than the state the provisioner last read of it: the first list that
	// started after it wakes the waiter, changed or not, so that the next
	// pass sees what the write did (a change that happened before that list
	// would otherwise become the baseline and be missed).
	after time.Time
	ch    chan struct{}
}

// snapshot is one list of every node: what Ironic said between start and
// the end of the list.
type snapshot struct {
	start time.Time
	nodes map[string]*nodes.Node // by uuid
	names map[string]string      // name -> uuid
}

// find resolves a uuid or name.
func (s *snapshot) find(ident string) (uuid string, n *nodes.Node) {
	if n, ok := s.nodes[ident]; ok {
		return ident, n
	}
	if u, ok := s.names[ident]; ok {
		return u, s.nodes[u]
	}
	return "", nil
}

// round is one list in flight (of nodes, or of ports); done is closed
// when it has finished.
type round struct {
	start time.Time
	done  chan struct{}
	err   error
}

// await waits for r to finish, or for ctx to end (then ctx.Err()). It
// returns r's error when r failed and started at or after notBefore, so
// was the list the caller waited for; nil tells the caller to look again.
func (r *round) await(ctx context.Context, notBefore time.Time) error {
	select {
	case <-r.done:
	case <-ctx.Done():
		return ctx.Err()
	}
	if r.err != nil && !r.start.Before(notBefore) {
		return r.err
	}
	return nil
}

// Watcher is the provider's one shared view of Ironic's nodes. It lists
// every node (with the fields the provisioner reads) in rounds of one
// request per page, and everything that needs a node is served from the
// latest round:
//   - waits (lifecycle.Waiter): one goroutine runs a round per tick while
//     anyone waits and wakes the waiters whose node changed; ticks start at
//     MinInterval after Nudge (or a change) and back off by Backoff up to
//     MaxInterval while nothing changes;
//   - reads (Node): a read takes the latest round if it started after this
//     provider's last write to the node (Wrote) and is recent enough, else
//     it joins the round in flight or starts one, so that the reads of many
//     hosts at the same moment cost one list request.
type Watcher struct {
	sc     *gophercloud.ServiceClient
	opts   WatcherOptions
	fields []string
	// born is when the watcher was made: no read is served from a list
	// older than that (a re-run after a killed apply must see every node
	// the killed run created).
	born time.Time

	mu      sync.Mutex
	waiters map[*waiter]struct{}
	cache   map[string]nodeState // last seen state of every node
	// seen is the state the provisioner last read of a node: the baseline
	// of the next wait, so that a change between that read and the
	// watcher's next tick still wakes the waiter.
	seen     map[string]nodeState
	seenAt   map[string]time.Time // when seen was recorded
	snap     *snapshot
	cur      *round
	writes   map[string]time.Time // node uuid or name -> end of our last write
	allWrite time.Time            // end of our last write that may touch any node
	// The same for ports: the latest list, the one in flight, our last
	// port writes by MAC and node uuid.
	portSnap   *portSnapshot
	portCur    *round
	portWrites map[string]time.Time
	running    bool
	interval   time.Duration
	// rate is the recent rate of wakeups per second (a moving average over
	// rounds), lastStart the start of the last round: see Batch.
	rate      float64
	lastStart time.Time
	// lastWoken is how many waiters the last list round woke, lastTook
	// how long it took: see fastLocked.
	lastWoken int
	lastTook  time.Duration
	// nudges counts the Nudges since the last list began.
	nudges int
	kick   chan struct{} // Nudge / last waiter left

	ticks, lists, wakeups, rounds atomic.Int64
}

var _ lifecycle.Waiter = (*Watcher)(nil)

// gatherDelay is how long a read-driven round waits before it lists, so
// that the reads of hosts that arrive together share it.
const gatherDelay = 10 * time.Millisecond

// NewWatcher returns a watcher over sc (whose Microversion picks the
// fields listed). It starts no goroutine until someone waits or reads.
func NewWatcher(sc *gophercloud.ServiceClient, opts WatcherOptions) *Watcher {
	if opts.MinInterval <= 0 {
		opts.MinInterval = DefaultMinTick
	}
	if opts.MaxInterval <= 0 {
		opts.MaxInterval = DefaultMaxTick
	}
	if opts.MaxInterval < opts.MinInterval {
		opts.MaxInterval = opts.MinInterval
	}
	if opts.Backoff < 1 {
		opts.Backoff = 1.5
	}
	if opts.LogContext == nil {
		opts.LogContext = context.Background()
	}
	return &Watcher{
		sc:         sc,
		opts:       opts,
		fields:     listFields(sc.Microversion),
		born:       time.Now(),
		waiters:    map[*waiter]struct{}{},
		cache:      map[string]nodeState{},
		seen:       map[string]nodeState{},
		seenAt:     map[string]time.Time{},
		writes:     map[string]time.Time{},
		portWrites: map[string]time.Time{},
		interval:   opts.MinInterval,
		kick:       make(chan struct{}, 1),
	}
}

// Stats returns the watcher's counters.
func (w *Watcher) Stats() WatcherStats {
	return WatcherStats{Ticks: w.ticks.Load(), ListRequests: w.lists.Load(), Wakeups: w.wakeups.Load(), Rounds: w.rounds.Load()}
}

// Saw records the node as the provisioner just read it: the next Wait on
// it wakes as soon as Ironic reports anything else.
func (w *Watcher) Saw(n *nodes.Node) {
	w.mu.Lock()
	w.seen[n.UUID] = stateOf(n)
	w.seenAt[n.UUID] = time.Now()
	w.mu.Unlock()
}

// Wrote records that this provider just changed the nodes named (uuids or
// names): reads of them wait for a list that started after now.
func (w *Watcher) Wrote(idents ...string) {
	now := time.Now()
	w.mu.Lock()
	for _, id := range idents {
		if id != "" {
			w.writes[id] = now
		}
	}
	w.mu.Unlock()
}

// WroteAll records a write that may have changed any node (an allocation
// picks its node in Ironic): every read waits for a list that started after
// now.
func (w *Watcher) WroteAll() {
	w.mu.Lock()
	w.allWrite = time.Now()
	w.mu.Unlock()
}

// Node returns the node with the uuid or name ident as a list that started
// at or after notBefore, and after this provider's last write to the node,
// shows it; nil when that list has no such node. The node carries the
// fields the provisioner reads (readFields), not updated_at.
func (w *Watcher) Node(ctx context.Context, ident string, notBefore time.Time) (*nodes.Node, error) {
	if notBefore.Before(w.born) {
		notBefore = w.born
	}
	for {
		s, err := w.fresh(ctx, notBefore)
		if err != nil {
			return nil, err
		}
		uuid, n := s.find(ident)
		w.mu.Lock()
		lw := w.writes[ident]
		if w.allWrite.After(lw) {
			lw = w.allWrite
		}
		if t := w.writes[uuid]; uuid != "" && t.After(lw) {
			lw = t
		}
		w.mu.Unlock()
		if s.start.Before(lw) {
			notBefore = lw
			continue
		}
		if n == nil {
			return nil, nil
		}
		cp := *n
		return &cp, nil
	}
}

// fresh returns a snapshot that started at or after notBefore, joining the
// round in flight or starting one when the latest is older.
func (w *Watcher) fresh(ctx context.Context, notBefore time.Time) (*snapshot, error) {
	for {
		w.mu.Lock()
		if s := w.snap; s != nil && !s.start.Before(notBefore) {
			w.mu.Unlock()
			return s, nil
		}
		r := w.cur
		if r == nil {
			r = w.startRoundLocked(gatherDelay, false)
		}
		w.mu.Unlock()
		if err := r.await(ctx, notBefore); err != nil {
			return nil, err
		}
	}
}

// startRoundLocked starts a list round after delay, or later, when the
// last list started less than listSpacing ago (w.mu held).
func (w *Watcher) startRoundLocked(delay time.Duration, tick bool) *round {
	delay = max(delay, w.spacingDelayLocked())
	r := &round{done: make(chan struct{})}
	w.cur = r
	go func() {
		if delay > 0 {
			time.Sleep(delay)
		}
		w.mu.Lock()
		r.start = time.Now()
		w.nudges = 0 // this list covers every write answered so far
		w.mu.Unlock()
		// Not urgent (lifecycle.Urgent): lists wait their turn for a
		// connection like any request, which paces the lists reads ask
		// for; at 500 nodes lists sent ahead of the writes took most of
		// Ironic's time.
		s, err := w.list(context.Background())
		r.err = err
		w.finish(r, s, tick)
		close(r.done)
	}()
	return r
}

// Wait returns when the node with id changed (provision_state,
// target_provision_state, power_state, target_power_state, last_error or
// maintenance, or it disappeared) since the wait began, when d has passed,
// or when ctx ends (with ctx.Err()). After a write to the node newer than
// the provisioner's last read of it, d ends the wait only once a list
// since the write was made (or afterWriteGrace later). The baseline is the state the
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
	if t := w.writes[id]; !t.IsZero() && t.After(w.seenAt[id]) {
		wt.after = t
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
	case <-ctx.Done():
		return ctx.Err()
	}
	if wt.after.IsZero() {
		return nil
	}
	// d has passed before any list since our write: the pass that follows
	// would read the node and so wait for such a list anyway, or start one
	// of its own. Wait for the watcher's (its pace is the batching policy),
	// for at most afterWriteGrace more in case lists keep failing.
	grace := time.NewTimer(afterWriteGrace)
	defer grace.Stop()
	select {
	case <-wt.ch:
	case <-grace.C:
	case <-ctx.Done():
		return ctx.Err()
	}
	return nil
}

// afterWriteGrace bounds how long a wait after a write outlives its delay
// waiting for the first list since the write (see Wait).
const afterWriteGrace = 2 * DefaultMaxTick
