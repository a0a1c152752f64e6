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
	// freed is closed (and replaced) whenever a slot is released, to wake
	// the hosts waiting in WaitFree.
	freed chan struct{}
}

// NewGate returns a gate with limit slots (<= 0: unlimited).
func NewGate(limit int) *Gate {
	return &Gate{limit: limit, holders: map[string]struct{}{}, freed: make(chan struct{})}
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

// Release frees key's slot, if it holds one, and wakes the waiters.
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
	close(g.freed)
	g.freed = make(chan struct{})
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

// WaitFree blocks until key could get a slot (it holds one, or one is
// free) or ctx ends. It does not take the slot: the next Step does, and may
// lose the race to another host, in which case it is delayed again.
func (g *Gate) WaitFree(ctx context.Context, key string) error {
	if g == nil || g.limit <= 0 {
		return ctx.Err()
	}
	for {
		g.mu.Lock()
		_, held := g.holders[key]
		free := held || len(g.holders) < g.limit
		freed := g.freed
		g.mu.Unlock()
		if free {
			return ctx.Err()
		}
		select {
		case <-freed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
