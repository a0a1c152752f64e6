package ironic

import (
	"context"
	"strings"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/ports"
)

// portFieldsRead are the port fields the provisioner reads.
var portFieldsRead = []string{"uuid", "address", "node_uuid", "pxe_enabled"}

// portSnapshot is one list of every port.
type portSnapshot struct {
	start  time.Time
	byAddr map[string]ports.Port   // lower-case MAC -> port
	byNode map[string][]ports.Port // node uuid -> its ports
}

// WrotePorts records that this provider just created or changed a port,
// named by keys (its lower-case MAC and its node's uuid): port reads by
// those keys wait for a list that started after now.
func (w *Watcher) WrotePorts(keys ...string) {
	now := time.Now()
	w.mu.Lock()
	for _, k := range keys {
		w.portWrites[k] = now
	}
	w.mu.Unlock()
}

// Ports returns a list of every port that started at or after notBefore
// (and after this provider's last write of a port named by keys: MACs,
// node uuids), joining the list in flight
// or starting one: the port lookups of many hosts at once (registration by
// boot MAC, the boot port check, hardware details) cost one request.
func (w *Watcher) Ports(ctx context.Context, notBefore time.Time, keys ...string) (*portSnapshot, error) {
	for {
		w.mu.Lock()
		if notBefore.Before(w.born) {
			notBefore = w.born
		}
		for _, k := range keys {
			if t := w.portWrites[k]; notBefore.Before(t) {
				notBefore = t
			}
		}
		if s := w.portSnap; s != nil && !s.start.Before(notBefore) {
			w.mu.Unlock()
			return s, nil
		}
		r := w.portCur
		if r == nil {
			r = &round{done: make(chan struct{})}
			w.portCur = r
			go w.listPorts(r)
		}
		w.mu.Unlock()
		if err := r.await(ctx, notBefore); err != nil {
			return nil, err
		}
	}
}

func (w *Watcher) listPorts(r *round) {
	time.Sleep(gatherDelay)
	r.start = time.Now()
	s := &portSnapshot{start: r.start, byAddr: map[string]ports.Port{}, byNode: map[string][]ports.Port{}}
	q, err := ports.ListOpts{Fields: portFieldsRead, Limit: w.opts.PageLimit}.ToPortListQuery()
	if err == nil {
		err = eachPage(context.Background(), w.sc, w.sc.ServiceURL("ports")+q, "ports", func(list []ports.Port) (bool, error) {
			w.lists.Add(1)
			for _, pt := range list {
				s.byAddr[strings.ToLower(pt.Address)] = pt
				s.byNode[pt.NodeUUID] = append(s.byNode[pt.NodeUUID], pt)
			}
			return true, nil
		})
	}
	r.err = err
	w.mu.Lock()
	if w.portCur == r {
		w.portCur = nil
	}
	if r.err == nil && (w.portSnap == nil || !r.start.Before(w.portSnap.start)) {
		w.portSnap = s
	}
	w.mu.Unlock()
	close(r.done)
}
