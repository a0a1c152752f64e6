package lifecycle

import (
	"context"
	"sync"
)

// Gate is BMO's provisioning limit (PROVISIONING_LIMIT, SM hostStateMachine.ensureCapacity, updateHostStateFrom, checkDelayedHost,
// IR ironicProvisioner.HasCapacity, loadBusyHosts), provider-wide: a host needs a slot to enter, and to stay
// in, inspecting, provisioning and deprovisioning. A host that already
// holds a slot proceeds; one that cannot get a slot is "delayed". Hosts
// behind virtual-media BMCs never take a slot (factory.go:349-356).
//
// BMO counts busy Ironic nodes on every check; the provider owns every node
// it drives, so the Gate counts the hosts holding a slot instead, keyed by
// host name (or node id when the name is empty).
//
// A nil *Gate, or one with a limit <= 0, never limits. Gate is safe for
// concurrent use.
type Gate struct {
	limit int

	mu      sync.Mutex
	holders map[string]struct{}
	// queues are the hosts waiting in WaitFree, first come first served,
	// those past registration (queues[0]) before those about to inspect
	// (queues[1]): a released slot is handed to the first of them (and
	// only it wakes), rather than hundreds of hosts waking to race for one
	// slot. Hosts nearer the end go first, so that they finish (and power
	// on, and free Terraform's RPC) while others inspect.
	queues [2][]*gateWaiter
}

// gateWaiter is one host in the queue; ch is closed when it is handed a
// slot.
type gateWaiter struct {
	key string
	ch  chan struct{}
}

// NewGate returns a gate with limit slots (<= 0: unlimited).
func NewGate(limit int) *Gate {
	return &Gate{limit: limit, holders: map[string]struct{}{}}
}

// Limit is the number of slots (<= 0: unlimited).
func (g *Gate) Limit() int {
	if g == nil {
		return 0
	}
	return g.limit
}

// TryAcquire takes a slot for key, or confirms key already holds one. It
// reports false when every slot is taken by other hosts.
func (g *Gate) TryAcquire(key string) bool {
	if g == nil || g.limit <= 0 {
		return true
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, ok := g.holders[key]; ok {
		return true
	}
	if len(g.holders) >= g.limit {
		return false
	}
	g.holders[key] = struct{}{}
	return true
}

// Release frees key's slot, if it holds one, and hands it to the first
// host in WaitFree's queue.
func (g *Gate) Release(key string) {
	if g == nil || g.limit <= 0 {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, ok := g.holders[key]; !ok {
		return
	}
	delete(g.holders, key)
	g.handOffLocked()
}

// handOffLocked gives free slots to the hosts at the head of the queue.
func (g *Gate) handOffLocked() {
	for q := range g.queues {
		for len(g.queues[q]) > 0 && len(g.holders) < g.limit {
			w := g.queues[q][0]
			g.queues[q][0] = nil
			g.queues[q] = g.queues[q][1:]
			g.holders[w.key] = struct{}{}
			close(w.ch)
		}
	}
}

// Waiting is the number of hosts queued in WaitFree.
func (g *Gate) Waiting() int {
	if g == nil {
		return 0
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.queuedLocked()
}

// queuedLocked is how many hosts wait in WaitFree (g.mu held).
func (g *Gate) queuedLocked() int {
	return len(g.queues[0]) + len(g.queues[1])
}

// Holds reports whether key holds a slot.
func (g *Gate) Holds(key string) bool {
	if g == nil || g.limit <= 0 {
		return false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	_, ok := g.holders[key]
	return ok
}

// Busy is the number of slots taken.
func (g *Gate) Busy() int {
	if g == nil {
		return 0
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.holders)
}

// WaitFree blocks until key holds a slot or ctx ends. A host that waits
// joins the queue and is handed the next slot released, in the order the
// hosts came, those with ahead set (past registration) before the others
// (BMO requeues delayed hosts and lets them race; one slot then wakes one
// host). The slot is key's until Release, which Converge calls when it
// returns, and which Step calls when the host's next state needs no slot.
func (g *Gate) WaitFree(ctx context.Context, key string, ahead bool) error {
	if g == nil || g.limit <= 0 {
		return ctx.Err()
	}
	q := 1
	if ahead {
		q = 0
	}
	g.mu.Lock()
	if _, held := g.holders[key]; held || len(g.holders) < g.limit && g.queuedLocked() == 0 {
		g.mu.Unlock()
		return ctx.Err()
	}
	w := &gateWaiter{key: key, ch: make(chan struct{})}
	g.queues[q] = append(g.queues[q], w)
	g.mu.Unlock()
	select {
	case <-w.ch:
		return ctx.Err()
	case <-ctx.Done():
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	for i, x := range g.queues[q] {
		if x == w {
			g.queues[q] = append(g.queues[q][:i], g.queues[q][i+1:]...)
			break
		}
	}
	// A slot handed over as ctx ended stays key's: Converge releases it.
	return ctx.Err()
}
