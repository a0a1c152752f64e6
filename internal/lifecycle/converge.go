package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

const (
	// maxBackOffCount caps the failure backoff exponent (AR maxBackOffCount).
	maxBackOffCount = 9
	// maxTransientErrors is how many transient errors in a row Converge
	// retries before it gives up.
	maxTransientErrors = 10
	// transientBackoffBase and transientBackoffCap bound the wait after a
	// transient error (controller-runtime's rate limiter, roughly).
	transientBackoffBase = time.Second
	transientBackoffCap  = 30 * time.Second
	// maxDeleteFailures bounds the failures a delete retries. The delete
	// rules (retryCount) normally move on long before.
	maxDeleteFailures = 20
)

// Backoff is BMO's failure backoff (AR calculateBackoff, actionFailed.Result): 2^min(n,9) units minus up
// to 50% jitter, so 1-2 units after the first failure and at most 512.
func (m *Machine) Backoff(errorCount int) time.Duration {
	n := min(max(errorCount, 0), maxBackOffCount)
	base := math.Exp2(float64(n))
	return time.Duration(float64(m.unit()) * (base - m.rand()*base*0.5))
}

// transientBackoff is 2^(n-1) seconds, capped at 30 s, minus up to 50%.
func (m *Machine) transientBackoff(n int) time.Duration {
	d := transientBackoffBase << min(max(n-1, 0), 5)
	d = min(d, transientBackoffCap)
	return d - time.Duration(m.rand()*float64(d)*0.5)
}

// Converge runs Step until the host is steady (available, externally
// provisioned or provisioned with its power matched; unmanaged; detached;
// deleted) and returns nil; every failure comes back as a *HostError.
//
// Between passes it waits through m.Wait for the delay the pass asked for
// (none after a state change), and through the Gate while delayed. Where
// Terraform forces a difference from BMO, which retries forever:
//   - a failed action is retried (with BMO's backoff and restartOnFailure)
//     at most opts.Retries times per Converge; the count is Converge's own,
//     because ErrorCount resets when a provisioning failure goes round
//     through deprovisioning;
//   - while h.Deleting, opts.Retries is ignored: the delete rules give up
//     and move on after retryCount failures (SM hostStateMachine.handleDeprovisioning, handlePoweringOffBeforeDelete);
//   - transient errors are retried maxTransientErrors times in a row;
//   - ctx ends the loop with a *HostError wrapping ctx.Err().
//
// The gate slot a host holds is released when Converge returns.
func (m *Machine) Converge(ctx context.Context, h *Host, opts ConvergeOptions) error {
	defer func() { m.Gate.Release(gateKey(h)) }()
	return m.loop(ctx, h, opts, m.Step)
}

// loop runs the pass step until steady (loopPasses); a failure it reports
// ends with the node's last history events, read only then.
func (m *Machine) loop(ctx context.Context, h *Host, opts ConvergeOptions, step func(context.Context, *Host) StepResult) error {
	if err := m.loopPasses(ctx, h, opts, step); err != nil {
		return m.withHistory(ctx, err)
	}
	return nil
}

// loopPasses is Converge's loop around the pass step: Step, or one that
// runs part of the state machine (the power alone, for the host actions,
// which holds no capacity slot and so releases none).
func (m *Machine) loopPasses(ctx context.Context, h *Host, opts ConvergeOptions, step func(context.Context, *Host) StepResult) error {
	var failures, transients int
	state, since := h.Status.State, m.now()
	var st stepClock
	m.seen(h, since)
	for {
		if err := ctx.Err(); err != nil {
			return m.waitError(h, StepResult{}, since, err)
		}
		r := step(ctx, h)
		if r.Changed && opts.OnChange != nil {
			opts.OnChange(h)
		}
		if h.Status.State != state {
			state, since = h.Status.State, m.now()
		}
		st.observe(m.currentStep(h), m.now())
		if r.Kind != StepError {
			transients = 0
		}

		var d time.Duration
		switch r.Kind {
		case StepSteady:
			return nil
		case StepComplete:
			continue
		case StepContinue, StepUpdate:
			if r.Requeue == 0 {
				continue
			}
			d = r.Requeue
		case StepDelayed:
			m.log(ctx, "delayed by the capacity gate", map[string]any{
				"host": h.Spec.Name, "id": h.Status.ID, "state": string(h.Status.State),
				"busy": m.Gate.Busy(), "limit": m.Gate.Limit(), "queued": m.Gate.Waiting(),
			})
			ahead := h.Status.State != StateRegistering
			if err := m.Gate.WaitFree(ctx, gateKey(h), ahead); err != nil {
				return m.waitError(h, r, since, fmt.Errorf("waiting for a provisioning slot: %w", err))
			}
			continue
		case StepError:
			if err := ctx.Err(); err != nil {
				return m.waitError(h, r, since, err)
			}
			if stall := (*StallError)(nil); errors.As(r.Err, &stall) {
				// Retrying cannot help: nothing in Ironic works on the node.
				return m.hostError(h, r, r.Err)
			}
			transients++
			if transients > maxTransientErrors {
				return m.hostError(h, r, fmt.Errorf("giving up after %d transient errors: %w", maxTransientErrors, r.Err))
			}
			d = m.transientBackoff(transients)
			m.log(ctx, "retrying after a transient error", map[string]any{
				"host": h.Spec.Name, "id": h.Status.ID, "state": string(h.Status.State),
				"error": r.Err.Error(), "attempt": transients, "backoff": d.String(),
			})
		case StepFailed:
			failures++
			limit := opts.Retries
			if h.Deleting {
				limit = maxDeleteFailures
			}
			if failures > limit {
				return m.hostError(h, r, nil)
			}
			d = m.Backoff(h.Status.ErrorCount)
			m.log(ctx, "retrying after a failure", map[string]any{
				"host": h.Spec.Name, "id": h.Status.ID, "state": string(h.Status.State),
				"error_type": string(h.Status.ErrorType), "error": h.Status.ErrorMessage,
				"error_count": h.Status.ErrorCount, "attempt": failures, "backoff": d.String(),
			})
		}

		m.log(ctx, "waiting", st.fields(m.now(), map[string]any{
			"host": h.Spec.Name, "id": h.Status.ID, "state": string(h.Status.State),
			"verb": r.Result.Verb, "provision_state": r.Result.ProvisionState,
			"waited": m.now().Sub(since).String(), "next_check": d.String(),
		}))
		if err := m.waiter().Wait(ctx, h.Status.ID, d); err != nil {
			return m.waitError(h, r, since, err)
		}
	}
}

// hostError builds the *HostError for h after the pass r.
func (m *Machine) hostError(h *Host, r StepResult, err error) *HostError {
	return &HostError{
		Host:           h.Spec.Name,
		ID:             h.Status.ID,
		State:          h.Status.State,
		ErrorType:      h.Status.ErrorType,
		Verb:           r.Result.Verb,
		ProvisionState: r.Result.ProvisionState,
		Step:           m.currentStep(h),
		LastError:      h.Status.ErrorMessage,
		Err:            err,
	}
}

// currentStep is the Ironic step the provisioner last saw h's node run
// ("" when none, or when the provisioner does not say).
func (m *Machine) currentStep(h *Host) string {
	if sr, ok := m.Prov.(StepReporter); ok && h.Status.ID != "" {
		return sr.CurrentStep(h.Status.ID)
	}
	return ""
}

// stepClock times the Ironic step a wait goes through: since is when the
// loop first saw step.
type stepClock struct {
	step  string
	since time.Time
}

func (c *stepClock) observe(step string, now time.Time) {
	if step != c.step {
		c.step, c.since = step, now
	}
}

// fields adds the step and how long it has run to a wait's log fields.
func (c *stepClock) fields(now time.Time, f map[string]any) map[string]any {
	if c.step != "" {
		f["step"], f["step_running"] = c.step, now.Sub(c.since).String()
	}
	return f
}

// waitError reports a wait cut short: what was awaited and for how long.
func (m *Machine) waitError(h *Host, r StepResult, since time.Time, err error) *HostError {
	what := fmt.Sprintf("state %q", h.Status.State)
	if r.Result.Verb != "" {
		what += fmt.Sprintf(" (Ironic verb %q)", r.Result.Verb)
	}
	return m.hostError(h, r, fmt.Errorf("gave up waiting on %s after %s: %w",
		what, m.now().Sub(since).Round(time.Millisecond), err))
}

// Refresh reads the node behind h (Terraform Read) and updates h.Status:
// the id, the state when the observation implies another one, the power
// state and the deployed image. exists is false when the node is gone.
func (m *Machine) Refresh(ctx context.Context, h *Host) (exists bool, err error) {
	obs, err := m.Prov.Observe(ctx, h)
	if err != nil {
		return false, m.hostError(h, StepResult{}, fmt.Errorf("reading the node: %w", err))
	}
	if !obs.Exists {
		return false, nil
	}
	before := h.Status
	if obs.ID != "" {
		h.Status.ID = obs.ID
	}
	if obs.State != "" && obs.State != h.Status.State {
		m.setState(ctx, h, obs.State, map[string]any{"observed": true})
	}
	if obs.PoweredOn != nil {
		h.Status.PoweredOn = *obs.PoweredOn
	}
	if imageURL(obs.DeployedImage) != imageURL(h.Status.DeployedImage) {
		h.Status.DeployedImage = cloneImage(obs.DeployedImage)
	}
	if h.Status.State != before.State || h.Status.ID != before.ID ||
		h.Status.PoweredOn != before.PoweredOn || h.Status.DeployedImage != before.DeployedImage {
		h.Status.LastUpdated = m.now()
	}
	return true, nil
}

// acquire takes (or confirms) h's capacity slot. Virtual-media hosts are
// never limited (factory.go:349-356).
func (m *Machine) acquire(h *Host) bool {
	if h.Spec.BMC.VirtualMedia {
		return true
	}
	return m.Gate.TryAcquire(gateKey(h))
}

// gateKey names a host in the Gate.
func gateKey(h *Host) string {
	if h.Spec.Name != "" {
		return h.Spec.Name
	}
	return h.Status.ID
}

func (m *Machine) now() time.Time {
	if m.Clock == nil {
		return time.Now()
	}
	return m.Clock.Now()
}

func (m *Machine) unit() time.Duration {
	if m.BackoffUnit <= 0 {
		return time.Minute
	}
	return m.BackoffUnit
}

func (m *Machine) rand() float64 {
	if m.Rand == nil {
		return rand.Float64()
	}
	return m.Rand()
}

// log sends msg to m.Log. Callers never put credentials in fields: no
// field is ever taken from Spec.BMC.
func (m *Machine) log(ctx context.Context, msg string, fields map[string]any) {
	if m.Log != nil {
		m.Log.Log(ctx, msg, fields)
	}
}

func (m *Machine) waiter() Waiter {
	if m.Wait == nil {
		return timerWaiter{}
	}
	return m.Wait
}

// timerWaiter waits with a timer when no Waiter is configured.
type timerWaiter struct{}

func (timerWaiter) Wait(ctx context.Context, _ string, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
