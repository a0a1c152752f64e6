package ironic

import (
	"context"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"
	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// This file is the watcher's list loop: the one goroutine that lists
// Ironic's nodes at the pace watcher_pace.go sets, stops when nobody
// waits, and hands each list to the waiters (finish) whose nodes changed.

// loop is the single ticking goroutine; it exits when nobody waits.
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
			// Nudged: tick after kickDelay.
			if !timer.Stop() {
				select {
				case <-timer.C:
				default:
				}
			}
			timer.Reset(w.kickDelay())
			continue
		}
		if w.stopIfIdle() {
			return
		}
		// The interval runs from the start of the list: a list that took
		// longer than the interval is followed by the next at once (one
		// list in flight at a time, never more).
		started := time.Now()
		next := w.tick()
		if w.stopIfIdle() {
			return
		}
		timer.Reset(max(next-time.Since(started), 0))
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

// list fetches every node (one request per page).
func (w *Watcher) list(ctx context.Context) (*snapshot, error) {
	s := &snapshot{nodes: map[string]*nodes.Node{}, names: map[string]string{}}
	q, err := nodes.ListOpts{Fields: w.fields, Limit: w.opts.PageLimit}.ToNodeListQuery()
	if err != nil {
		return nil, err
	}
	err = eachPage(ctx, w.sc, w.sc.ServiceURL("nodes")+q+withChildren(w.sc, q), "nodes", func(list []nodes.Node) (bool, error) {
		w.lists.Add(1)
		for i := range list {
			n := &list[i]
			s.nodes[n.UUID] = n
			if n.Name != "" {
				s.names[n.Name] = n.UUID
			}
		}
		return true, nil
	})
	return s, err
}

// tick runs a round (or joins the one in flight when it started recently)
// and returns the interval until the next tick.
func (w *Watcher) tick() time.Duration {
	w.ticks.Add(1)
	w.mu.Lock()
	r := w.cur
	if r == nil {
		r = w.startRoundLocked(0, true)
	}
	w.mu.Unlock()
	<-r.done
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.interval
}

// finish installs the round's snapshot, wakes the waiters whose node
// changed and sets the next tick interval (a tick's round without a change
// backs off).
func (w *Watcher) finish(r *round, s *snapshot, tick bool) {
	w.rounds.Add(1)
	took := time.Since(r.start)
	w.mu.Lock()
	if w.cur == r {
		w.cur = nil
	}
	info := TickInfo{Waiters: len(w.waiters), Err: r.err}
	if r.err == nil {
		s.start = r.start
		if w.snap == nil || !s.start.Before(w.snap.start) {
			w.snap = s
		}
		states := make(map[string]nodeState, len(s.nodes))
		for id, n := range s.nodes {
			states[id] = stateOf(n)
		}
		for wt := range w.waiters {
			cur, present := states[wt.id]
			if !wt.after.IsZero() && !r.start.Before(wt.after) {
				// The first list since our write: the next pass decides.
				if !wt.known || (present && !wt.gone && cur != wt.base) || (!present && !wt.gone) {
					info.Changed = true
				}
				info.Woken++
				w.wakeups.Add(1) // before the waiter returns and may read Stats
				close(wt.ch)
				delete(w.waiters, wt)
				continue
			}
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
			w.wakeups.Add(1)
			close(wt.ch)
			delete(w.waiters, wt)
		}
		// The cache also catches changes to nodes nobody waits on now.
		w.cache = states
		if dt := r.start.Sub(w.lastStart).Seconds(); !w.lastStart.IsZero() && dt > 0 {
			w.rate = 0.7*w.rate + 0.3*float64(info.Woken)/dt
		}
		w.lastStart = r.start
		w.lastWoken = info.Woken
		w.lastTook = took
	}
	switch {
	case info.Changed:
		w.interval = w.fastLocked()
	case tick:
		next := time.Duration(float64(w.interval) * w.opts.Backoff)
		w.interval = min(next, w.opts.MaxInterval)
	}
	// Never list faster than Ironic answers: the next list starts no
	// sooner than the last one took after that one's start (the loop
	// measures intervals from the start of a list), so a slow Ironic sees
	// one list at a time, back to back at worst, as a client polling in a
	// loop would.
	if !w.opts.FixedPace && r.err == nil && took > w.interval {
		w.interval = min(took, w.opts.MaxInterval)
	}
	info.Next = w.interval
	w.mu.Unlock()

	if r.err != nil {
		tflog.Debug(w.opts.LogContext, "watcher: listing nodes failed", map[string]any{"error": r.err.Error()})
	} else {
		// TF_LOG_PROVIDER=trace shows the watcher's pace: at 100 and 500
		// hosts every tick wakes a whole cohort, ticks as far apart as
		// Ironic takes to answer the cohort's writes.
		tflog.Trace(w.opts.LogContext, "watcher: listed nodes", map[string]any{
			"tick": tick, "took": took.Round(time.Millisecond).String(), "waiters": info.Waiters,
			"woken": info.Woken, "changed": info.Changed, "next": info.Next.Round(time.Millisecond).String(),
		})
	}
	if info.Changed {
		w.signal() // the loop picks up the shorter interval
	}
	if w.opts.OnTick != nil {
		w.opts.OnTick(info)
	}
}
