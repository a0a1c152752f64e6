package ironic

import (
	"context"
	"maps"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// tickRecent lists the opts.Recent nodes whose provision state changed
// last (one page, with every field a read needs), merges them into the
// latest full snapshot and wakes their waiters, as a full list would for
// them. Waiters whose node is not in the page wait on.
func (w *Watcher) tickRecent() {
	w.ticks.Add(1)
	start := time.Now()
	var list []nodes.Node
	q, err := nodes.ListOpts{Fields: w.fields, Limit: w.opts.Recent, SortKey: "provision_updated_at", SortDir: "desc"}.ToNodeListQuery()
	if err == nil {
		err = eachPage(lifecycle.WithUrgency(context.Background()), w.sc, w.sc.ServiceURL("nodes")+q, "nodes",
			func(page []nodes.Node) (bool, error) {
				w.lists.Add(1)
				list = page
				return false, nil
			})
	}
	w.rounds.Add(1)
	if err != nil {
		tflog.Debug(context.Background(), "watcher: listing recent changes failed", map[string]any{"error": err.Error()})
		return
	}
	info := w.mergeRecent(start, list)
	w.wakeups.Add(int64(info.Woken))
	if w.opts.OnTick != nil {
		w.opts.OnTick(info)
	}
}

// mergeRecent installs the nodes of a recent-changes list that started at
// start into a copy of the latest snapshot and wakes their waiters.
func (w *Watcher) mergeRecent(start time.Time, list []nodes.Node) TickInfo {
	w.mu.Lock()
	defer w.mu.Unlock()
	info := TickInfo{Waiters: len(w.waiters), Recent: true}
	old := w.snap
	if old == nil {
		return info
	}
	s := &snapshot{start: old.start, nodes: maps.Clone(old.nodes), names: maps.Clone(old.names), at: maps.Clone(old.at)}
	if s.at == nil {
		s.at = map[string]time.Time{}
	}
	states := make(map[string]nodeState, len(list))
	for i := range list {
		n := &list[i]
		if !s.nodeAt(n.UUID).Before(start) {
			continue // a list that started later already showed it
		}
		s.nodes[n.UUID], s.at[n.UUID] = n, start
		if n.Name != "" {
			s.names[n.Name] = n.UUID
		}
		states[n.UUID] = stateOf(n)
		w.cache[n.UUID] = states[n.UUID]
	}
	w.snap = s
	for wt := range w.waiters {
		cur, ok := states[wt.id]
		switch {
		case !ok, wt.after.After(start):
			// Not in the page, or written to since it started: the pass
			// that followed would need a newer list anyway (a full one, as
			// the write need not have changed the provision state).
			continue
		case !wt.after.IsZero():
			// The first list since our write: the next pass decides.
			info.Changed = info.Changed || !wt.known || wt.gone || cur != wt.base
		case !wt.known:
			wt.known, wt.base, wt.gone = true, cur, false
			continue
		case !wt.gone && cur == wt.base:
			continue
		default:
			info.Changed = true
		}
		info.Woken++
		close(wt.ch)
		delete(w.waiters, wt)
	}
	info.Next = w.interval
	return info
}

// recentNode is the node ident from the latest snapshot when a list that
// started at or after notBefore and after this provider's last write to
// it showed it (a recent-changes list may have, since the last full list);
// nil otherwise.
func (w *Watcher) recentNode(ident string, notBefore time.Time) *nodes.Node {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := w.snap
	if s == nil || len(s.at) == 0 {
		return nil
	}
	uuid, n := s.find(ident)
	if n == nil {
		return nil
	}
	if t := s.nodeAt(uuid); t.Before(notBefore) || t.Before(w.lastWriteLocked(ident, uuid)) {
		return nil
	}
	cp := *n
	return &cp
}
