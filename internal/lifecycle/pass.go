package lifecycle

import (
	"context"
	"sync"
)

// PassMemo holds what a provisioner read during one reconcile pass, so that
// a pass does not read the same thing twice (BMO's Register and the state's
// action both read the node). Step starts every pass with an empty one; the
// Ironic transport (internal/ironic/clients) clears it after every request
// that is not a GET, so no call site has to remember to.
type PassMemo struct {
	mu sync.Mutex
	m  map[string]any
}

type passKey struct{}

// WithPass returns ctx carrying a fresh memo for one pass (Step calls it).
func WithPass(ctx context.Context) context.Context {
	return context.WithValue(ctx, passKey{}, &PassMemo{m: map[string]any{}})
}

type urgentKey struct{}

// WithUrgency marks ctx's Ironic requests as urgent: the transport sends
// them before the others queued for a connection. Step marks the passes of
// hosts holding a capacity slot (every queued host waits on them).
func WithUrgency(ctx context.Context) context.Context {
	return context.WithValue(ctx, urgentKey{}, true)
}

// Urgent reports whether ctx was marked by WithUrgency.
func Urgent(ctx context.Context) bool {
	u, _ := ctx.Value(urgentKey{}).(bool)
	return u
}

// Memo returns the current pass's memo, or nil outside a pass.
func Memo(ctx context.Context) *PassMemo {
	m, _ := ctx.Value(passKey{}).(*PassMemo)
	return m
}

// Get returns what was stored under key in this pass.
func (p *PassMemo) Get(key string) (any, bool) {
	if p == nil {
		return nil, false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	v, ok := p.m[key]
	return v, ok
}

// Set stores v under key for the rest of the pass.
func (p *PassMemo) Set(key string, v any) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.m[key] = v
	p.mu.Unlock()
}

// Clear forgets everything: call it after a write.
func (p *PassMemo) Clear() {
	if p == nil {
		return
	}
	p.mu.Lock()
	clear(p.m)
	p.mu.Unlock()
}
