package ironic

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// historyRecord is one entry of GET /v1/nodes/{id}/history?detail=True.
type historyRecord struct {
	CreatedAt time.Time `json:"created_at"`
	Severity  string    `json:"severity"`
	EventType string    `json:"event_type"`
	Event     string    `json:"event"`
}

// History reads the node's last n history events, oldest first
// (lifecycle.HistoryReader). Ironic keeps a node's history bounded
// ([conductor]node_history_max_entries, 300 by default) and lists it
// oldest first, so one request reads it all. Called only when a failure is
// reported: never in a wait.
func (p *Provisioner) History(ctx context.Context, id string, n int) ([]lifecycle.HistoryEvent, error) {
	if !has(p.sc, lifecycle.FeatureHistory) {
		return nil, lifecycle.ErrHistoryUnsupported
	}
	var body struct {
		History []historyRecord `json:"history"`
	}
	resp, err := p.sc.Get(ctx, p.sc.ServiceURL("nodes", id, "history")+"?detail=True", &body, nil)
	if resp != nil && resp.Body != nil {
		_ = resp.Body.Close()
	}
	if err != nil {
		return nil, fmt.Errorf("get node %s history: %s", id, ironicError(err))
	}
	recs := body.History
	sort.SliceStable(recs, func(i, j int) bool { return recs[i].CreatedAt.Before(recs[j].CreatedAt) })
	if len(recs) > n {
		recs = recs[len(recs)-n:]
	}
	out := make([]lifecycle.HistoryEvent, 0, len(recs))
	for _, r := range recs {
		out = append(out, lifecycle.HistoryEvent{Time: r.CreatedAt, Event: r.Event, EventType: r.EventType, Severity: r.Severity})
	}
	return out, nil
}
