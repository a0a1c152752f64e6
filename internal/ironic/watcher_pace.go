package ironic

import (
	"time"
)

// This file is the watcher's pace: how soon the next list comes after a
// write (Nudge), when hosts are many (BatchPer, fastLocked), and when a
// batch's writes are all answered (kickDelay). It only reads and sets the
// Watcher's timing fields under w.mu; the list loop in watcher_loop.go
// acts on them.

// Default tick intervals: fast right after an action, backing off to
// DefaultMaxTick while nothing changes. Every write nudges the next list to
// DefaultMinTick from then (with Batch, from 100 hosts on, to what
// fastLocked says), or with WritesInFlight to as soon as the writes of a
// batch are all answered: a cohort of hosts woken by one list was listed
// again that long after Ironic answered the last of their writes, and
// Ironic sat idle meanwhile (at 250 ms, about a twentieth of a 20-host
// apply; at 500 hosts, with batching, Ironic was busy 77% of the apply
// against 87% with this).
const (
	DefaultMinTick = 100 * time.Millisecond
	DefaultMaxTick = 5 * time.Second
)

// Nudge makes the next tick come within MinInterval (or the batching
// interval, see Batch; or sooner, see WritesInFlight): call it after
// issuing an Ironic verb.
func (w *Watcher) Nudge() {
	w.mu.Lock()
	w.interval = w.fastLocked()
	w.nudges++
	w.mu.Unlock()
	w.signal()
}

// BatchPer is how many hosts make one wakeup of a Batch.
const BatchPer = 20

// fastLocked is the interval after a change or a Nudge: MinInterval, or
// with Batch the time the recent wakeup rate takes to gather a batch.
//
// When the last list woke a batch already, at most cohortSpacing times
// what that list took: hosts are woken in cohorts (a list wakes every host
// whose write it is the first to follow), and a cohort's writes then
// nudged its next list to the rate's estimate of a batch, a third of a
// second past the last of them, while Ironic sat idle (a list of 100
// nodes takes 40 ms). Lists then take at most 1/cohortSpacing of Ironic's
// time: without that bound, at 500 nodes, lists that each woke a few hosts
// went back to back (333 lists in one apply instead of about 80).
func (w *Watcher) fastLocked() time.Duration {
	k := w.batchLocked()
	if k < 2 || w.rate <= 0 {
		return w.opts.MinInterval
	}
	d := time.Duration(float64(k) / w.rate * float64(time.Second))
	if w.lastWoken >= k {
		d = min(d, cohortSpacing*w.lastTook)
	}
	return min(max(d, w.opts.MinInterval), w.opts.MaxInterval)
}

// batchLocked is how many wakeups make a batch (see Batch).
func (w *Watcher) batchLocked() int {
	return min(w.opts.Batch, len(w.seen)/BatchPer)
}

// cohortSpacing: see fastLocked and spacingDelayLocked.
const cohortSpacing = 3

// spacingDelayLocked is how long the next list must wait so that it
// starts at least cohortSpacing times the last list's time after the last
// list started: lists, whether a tick or a read asks for them, then take
// at most a third of Ironic's time, however many nodes it lists. Without
// that floor the reads of hosts that had just written started a list as
// soon as the last ended: at 2,000 nodes (a list of two 1,000-node pages
// took Ironic 2025.1 about 0.7 s) lists went back to back, 1.7 a second,
// and the provisioning writes queued behind them (3 s for a PUT), so the
// apply took 1.52 times the list-polling limit.
func (w *Watcher) spacingDelayLocked() time.Duration {
	if w.opts.FixedPace || w.lastStart.IsZero() {
		return 0
	}
	spacing := min(cohortSpacing*w.lastTook, w.opts.MaxInterval)
	return max(time.Until(w.lastStart.Add(spacing)), 0)
}

// fastListMaxNodes bounds the fleets kickDelay lists early for. At 100
// hosts it took the bench's apply from 1.14 to 0.96 times the floor's; at
// 500, where a list takes about 150 ms and the capacity gate, not an idle
// Ironic, sets the pace, it made the apply slower in two side-by-side
// benches (169 s against 144 s, 223 s against 164 s), though faster in
// two runs outside the bench (121 and 141 s against 169 and 164 s). Not
// established why; likely hosts woken right after the last answer find
// their nodes still in the conductor's hands and wait a cycle more,
// holding their slots.
const fastListMaxNodes = 200

// kickDelay is how long after a Nudge (or another kick) the next list
// comes: the interval, or, when a batch of Nudges since the last list
// began finds no write of the provider's left in flight (see
// WritesInFlight), as soon as lists stay MinInterval and cohortSpacing
// times the last list's time apart, from start to start.
func (w *Watcher) kickDelay() time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	need := max(1, w.batchLocked())
	if w.opts.WritesInFlight == nil || len(w.seen) > fastListMaxNodes || w.nudges < need || w.opts.WritesInFlight() != 0 {
		return w.interval
	}
	// gatherDelay at least: the goroutines whose writes were answered
	// just before record them (Wrote) for this list to cover them.
	spacing := max(w.opts.MinInterval, cohortSpacing*w.lastTook)
	return min(max(time.Until(w.lastStart.Add(spacing)), gatherDelay), w.interval)
}

func (w *Watcher) signal() {
	select {
	case w.kick <- struct{}{}:
	default:
	}
}
