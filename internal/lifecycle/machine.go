package lifecycle

import (
	"context"
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
