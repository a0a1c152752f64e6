package lifecycle

import (
	"context"
	"maps"
	"time"
)

// Logger receives progress: state transitions, what is being waited on and
// for how long. The resources hand in a tflog-backed one. Fields never carry
// credentials.
type Logger interface {
	Log(ctx context.Context, msg string, fields map[string]any)
}

// Machine runs hosts through BMO's state machine. One Machine serves the
// whole provider; it is safe for concurrent use (per-host data lives in Host).
type Machine struct {
	Prov  Provisioner
	Wait  Waiter
	Clock Clock
	// Gate is the capacity gate (BMO's provisioning limit); nil: no limit.
	Gate *Gate
	Log  Logger
	// BackoffUnit scales the failure backoff: BMO waits
	// 2^min(n,9) * BackoffUnit minus up to 50% jitter after the n-th
	// failure (BackoffUnit is one minute in BMO). Zero means one minute.
	BackoffUnit time.Duration
	// Rand returns a float in [0,1) for jitter; nil uses math/rand.
	Rand func() float64
}

// ConvergeOptions tune one Converge call.
type ConvergeOptions struct {
	// Retries is how many failures Converge retries (with BMO's backoff and
	// restartOnFailure) before it gives up and returns the *HostError.
	// Zero fails on the first failure. Delete ignores it: the delete rules'
	// own retry count (3) applies.
	Retries int
	// OnChange is called after every pass that changed the status (new
	// state, new id, new error), so the caller can persist the node id the
	// moment it is known.
	OnChange func(h *Host)
}

// setState is the one place a host's state changes, whether a reconcile
// pass moved it (Step) or a read found Ironic had (Refresh, which adds
// "observed": true to the fields). It stamps OperationHistory and logs
// "host state" at INFO with the host name, the new state, the previous
// state and the time spent in the previous state (field elapsed, from
// when this provider process saw the host enter it or, for the state a
// wait started in, when the wait started; absent when unknown), so that
// TF_LOG_PROVIDER=INFO reads as a progress log of the fleet.
func (m *Machine) setState(ctx context.Context, h *Host, next State, extra map[string]any) {
	s := &h.Status
	from, now := s.State, m.now()
	f := map[string]any{
		"host": h.Spec.Name, "id": s.ID, "state": string(next), "previous_state": string(from),
	}
	if t, ok := s.OperationHistory[from]; ok && !t.IsZero() {
		f["elapsed"] = now.Sub(t).Round(time.Millisecond).String()
	}
	maps.Copy(f, extra)
	s.State = next
	h.provided = false
	hist := maps.Clone(s.OperationHistory)
	if hist == nil {
		hist = map[State]time.Time{}
	}
	hist[next] = now
	s.OperationHistory = hist
	m.log(ctx, "host state", f)
}

// seen stamps when a wait first saw h in its current state, if nothing
// stamped that state before, so that the next transition's elapsed time
// is known.
func (m *Machine) seen(h *Host, now time.Time) {
	if _, ok := h.Status.OperationHistory[h.Status.State]; ok {
		return
	}
	hist := maps.Clone(h.Status.OperationHistory)
	if hist == nil {
		hist = map[State]time.Time{}
	}
	hist[h.Status.State] = now
	h.Status.OperationHistory = hist
}
