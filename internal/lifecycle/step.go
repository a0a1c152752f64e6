package lifecycle

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"time"
)

// Delays BMO uses (CTL hostErrorRetryDelay, AR, IR shortRetryDelay).
const (
	// retryCount is how many failures the delete rules tolerate (SM retryCount).
	retryCount = 3
	// defaultRequeue is the wait when the provisioner is busy but gave no
	// delay (IR longRetryDelay).
	defaultRequeue = 10 * time.Second
	// powerMonitorInterval is the steady-state poll (CTL BareMetalHostReconciler.manageHostPower).
	powerMonitorInterval = 60 * time.Second
	// slowPoll is the unmanaged and detached poll (unmanagedRetryDelay).
	slowPoll = 10 * time.Minute
	// clarifySoftPoweroffFailure prefixes a soft power-off failure (CTL hostErrorRetryDelay).
	clarifySoftPoweroffFailure = "Continuing with hard poweroff after soft poweroff fails. More details: "
)

// StepKind says what one reconcile pass did; it mirrors BMO's action
// results (AR) plus "steady", which BMO expresses as a long requeue.
type StepKind int

const (
	// StepContinue: work is in progress and the status did not change;
	// run again after Requeue (BMO actionContinue).
	StepContinue StepKind = iota
	// StepUpdate: work is in progress and the status changed (BMO
	// actionUpdate); run again after Requeue.
	StepUpdate
	// StepComplete: the host moved to another state (BMO actionComplete);
	// run again at once.
	StepComplete
	// StepFailed: the action failed; Status.ErrorType, ErrorMessage and
	// ErrorCount record it (BMO actionFailed). Requeue is the backoff; the
	// next pass restarts the action.
	StepFailed
	// StepError: a transient Go error (Err); BMO lets controller-runtime
	// retry it (actionError).
	StepError
	// StepDelayed: the capacity gate is full; opStatus is delayed (BMO
	// actionDelayed).
	StepDelayed
	// StepSteady: nothing left to do (available, externally provisioned or
	// provisioned with the power matched; unmanaged; detached; deleted).
	// Requeue is BMO's monitoring interval.
	StepSteady
)

var stepKindNames = [...]string{"continue", "update", "complete", "failed", "error", "delayed", "steady"}

func (k StepKind) String() string {
	if int(k) < len(stepKindNames) {
		return stepKindNames[k]
	}
	return fmt.Sprintf("StepKind(%d)", int(k))
}

// StepResult is the outcome of one Step.
type StepResult struct {
	Kind StepKind
	// Requeue is how long to wait before the next pass (0: at once).
	Requeue time.Duration
	// Result is the last provisioner Result of the pass (Verb and
	// ProvisionState for messages).
	Result Result
	// Err is the transient error of a StepError.
	Err error
	// From and To are the states before and after the pass.
	From, To State
	// Changed reports that the pass changed h.Status.
	Changed bool
}

// pass is one reconcile of one host (BMO's hostStateMachine + reconcileInfo).
type pass struct {
	m *Machine
	h *Host
	// next is the state to move to at the end of the pass (SM NextState).
	next State
	// haveCreds is false when the host has no BMC credentials (CTL BareMetalHostReconciler.Reconcile).
	haveCreds bool
	// last is the last provisioner Result seen.
	last Result
	// saved is the status to fall back to when the gate refuses the
	// transition. Handlers replace maps and pointers, never mutate them in
	// place, so a shallow copy is enough.
	saved HostStatus
	// keepSlot is set when the host keeps its capacity slot after the
	// pass although its state is not gated (automated cleaning in
	// available).
	keepSlot bool
}

type stateHandler func(*pass, context.Context) StepResult

// handlers is BMO's state table (SM stateHandler, hostStateMachine.handlers). StateDeleted is ours.
var handlers = map[State]stateHandler{
	StateNone:                    (*pass).handleNone,
	StateUnmanaged:               (*pass).handleUnmanaged,
	StateRegistering:             (*pass).handleRegistering,
	StateInspecting:              (*pass).handleInspecting,
	StatePreparing:               (*pass).handlePreparing,
	StateAvailable:               (*pass).handleAvailable,
	StateProvisioning:            (*pass).handleProvisioning,
	StateProvisioned:             (*pass).handleProvisioned,
	StateExternallyProvisioned:   (*pass).handleExternallyProvisioned,
	StateDeprovisioning:          (*pass).handleDeprovisioning,
	StatePoweringOffBeforeDelete: (*pass).handlePoweringOffBeforeDelete,
	StateDeleting:                (*pass).handleDeleting,
	StateDeleted:                 (*pass).handleDeleted,
}

// gated reports whether a state needs a capacity slot (SM hostStateMachine.updateHostStateFrom, 166-171).
// Preparing is gated too: BMO's gate counts the Ironic nodes that are
// cleaning as busy (loadBusyHosts), and preparing is manual cleaning.
func gated(s State) bool {
	return s == StateInspecting || s == StatePreparing || s == StateProvisioning || s == StateDeprovisioning
}

// Step runs one reconcile pass of BMO's state machine on h (SM hostStateMachine.ReconcileState):
// capacity check, delete initiation, detach handling, ensureRegistered,
// then the handler of the current state; a state change goes through the
// capacity gate, is stamped in OperationHistory and logged. Status changes
// stamp LastUpdated. Step is not safe for concurrent use on the same host.
func (m *Machine) Step(ctx context.Context, h *Host) StepResult {
	before := h.Status
	p := &pass{m: m, h: h, next: h.Status.State, haveCreds: h.Spec.BMC.HasCredentials()}
	pctx := WithPass(ctx)
	if m.Gate.Holds(gateKey(h)) {
		pctx = WithUrgency(pctx)
	}
	r := p.run(pctx)

	// BMO updateHostStateFrom (SM hostStateMachine.updateHostStateFrom): a transition into a gated
	// state needs a slot. Unlike BMO, which keeps the handler's side
	// effects (and so counts a provisioning failure again on every delayed
	// pass), a refused transition undoes the handler's status changes.
	if p.next != before.State {
		if gated(p.next) && !m.acquire(h) {
			h.Status = p.saved
			r = p.delayed()
		} else {
			p.enter(ctx, p.next)
			r = StepResult{Kind: StepComplete}
		}
	}
	if !gated(h.Status.State) && !p.keepSlot {
		m.Gate.Release(gateKey(h))
	}

	return p.finish(r, before)
}

// finish completes r, the result of the pass p that began with the host's
// status at before: the states it went from and to, the pass's last
// result and, when the status changed, Changed and a new LastUpdated (a
// step that changed it and would go on is an update).
func (p *pass) finish(r StepResult, before HostStatus) StepResult {
	h := p.h
	r.From, r.To = before.State, h.Status.State
	r.Result = p.last
	if !reflect.DeepEqual(before, h.Status) {
		r.Changed = true
		h.Status.LastUpdated = p.m.now()
		if r.Kind == StepContinue {
			r.Kind = StepUpdate
		}
	}
	return r
}

func (p *pass) run(ctx context.Context) StepResult {
	if r, stop := p.checkCapacity(); stop {
		return r
	}
	p.saved = p.h.Status
	if p.initiateDelete(ctx) {
		return StepResult{Kind: StepComplete}
	}
	if r, stop := p.checkDetached(ctx); stop {
		return r
	}
	if r, stop := p.ensureRegistered(ctx); stop {
		return r
	}
	p.saved = p.h.Status
	handler, ok := handlers[p.h.Status.State]
	if !ok {
		return StepResult{Kind: StepError, Err: fmt.Errorf("no handler found for state %q", p.h.Status.State)}
	}
	return handler(p, ctx)
}

// checkCapacity is BMO checkDelayedHost (SM hostStateMachine.checkDelayedHost): a host in a gated
// state needs a slot on every pass. A delayed host whose slot is now free
// (or which no longer needs one) is cleared; BMO saves and requeues, we go
// on in the same pass. A transition into a gated state is checked again.
func (p *pass) checkCapacity() (StepResult, bool) {
	if gated(p.h.Status.State) && !p.m.acquire(p.h) {
		return p.delayed(), true
	}
	if p.h.Status.OperationalStatus == OperationalDelayed {
		p.clearError()
	}
	return StepResult{}, false
}

// initiateDelete is BMO checkInitiateDelete (SM hostStateMachine.checkInitiateDelete).
func (p *pass) initiateDelete(ctx context.Context) bool {
	h := p.h
	if !h.Deleting || h.Status.State == StateDeleted {
		return false
	}
	if h.ForceDelete && h.Status.State != StateDeleting {
		p.log(ctx, "force delete: no power off nor deprovisioning; the node's running operation is aborted where Ironic allows it, "+
			"and the node deleted in maintenance", nil)
		p.next = StateDeleting
		return true
	}
	// Detached hosts skip power off and deprovisioning. BMO then deletes
	// the node from its own Ironic; here the Ironic is shared, and the
	// point of detaching is to hand the node on as it is (to another
	// configuration, or another Metal3), so the host is forgotten and the
	// node and the machine are left alone. BMO's
	// {"deleteAction":"delay"} annotation is not modelled.
	if h.Status.State != StateDeleting && (h.Detached || h.Status.OperationalStatus == OperationalDetached) {
		p.log(ctx, "requested deletion of a detached host: forgetting it, leaving its node and machine as they are", nil)
		p.next = StateDeleted
		return true
	}
	switch h.Status.State {
	case StateNone, StateUnmanaged, StateRegistering:
		p.next = StateDeleting // skip the power off
	case StateProvisioning, StateProvisioned:
		p.next = StateDeprovisioning
	case StateDeprovisioning, StatePoweringOffBeforeDelete:
		if h.Status.ErrorType == RegistrationError && h.Status.ErrorCount > retryCount {
			p.log(ctx, "giving up on registration, deleting", nil)
			p.next = StateDeleting
			return true
		}
		return false
	case StateDeleting:
		return false
	default:
		p.next = StatePoweringOffBeforeDelete
	}
	return true
}

// checkDetached is BMO checkDetachedHost (SM hostStateMachine.checkDetachedHost).
func (p *pass) checkDetached(ctx context.Context) (StepResult, bool) {
	h := p.h
	if h.Detached {
		switch h.Status.State {
		case StateProvisioned, StateExternallyProvisioned, StateAvailable:
			// (A provisioned node may wait in servicing or rescue.)
			if r, stop := p.abortThenDetach(ctx); stop {
				return r, true
			}
			return p.detach(ctx), true
		case StateDeleting, StateDeleted:
			// No point in detaching a host that is being deleted.
		default:
			if h.DetachForce {
				p.log(ctx, "forcing detach of host", nil)
				return p.detach(ctx), true
			}
			if r, stop := p.abortThenDetach(ctx); stop {
				return r, true
			}
			p.log(ctx, "host cannot be detached yet, waiting for the current operation to finish", nil)
		}
	}
	if h.Status.ErrorType == DetachError {
		// A failed re-attach leaves the host detached: try it again.
		stillDetached := h.Status.OperationalStatus == OperationalDetached
		p.clearError()
		h.Status.ErrorCount = 0
		if stillDetached {
			h.Status.OperationalStatus = OperationalDetached
		}
		return StepResult{Kind: StepUpdate}, true
	}
	if h.Status.OperationalStatus == OperationalDetached {
		if h.Detached || h.Deleting {
			// Still detached, or being forgotten: never re-attach.
			return StepResult{}, false
		}
		if r, done := p.attach(ctx); !done {
			return r, true
		}
		h.Status.OperationalStatus = OperationalOK
		if h.Status.ErrorType != NoError {
			h.Status.OperationalStatus = OperationalError
		}
		return StepResult{Kind: StepUpdate}, true
	}
	return StepResult{}, false
}

// attach ends a detach (the detached annotation removed): the node leaves
// maintenance. The host stays detached until it has; a failure is a
// detach error, and the next pass tries again.
func (p *pass) attach(ctx context.Context) (StepResult, bool) {
	res, err := p.m.Prov.Attach(ctx, p.h)
	p.last = res
	switch {
	case err != nil:
		return StepResult{Kind: StepError, Err: fmt.Errorf("failed to re-attach: %w", err)}, false
	case res.ErrorMessage != "":
		p.h.Status.ErrorType, p.h.Status.ErrorMessage = DetachError, res.ErrorMessage
		p.h.Status.ErrorCount++
		return StepResult{Kind: StepFailed, Requeue: p.m.Backoff(p.h.Status.ErrorCount)}, false
	case res.Dirty:
		return StepResult{Kind: StepContinue, Requeue: requeueFor(res)}, false
	}
	p.log(ctx, "host re-attached", nil)
	return StepResult{}, true
}

// detach is BMO detachHost (CTL BareMetalHostReconciler.detachHost): delete the node without
// deprovisioning it; the host then polls slowly.
func (p *pass) detach(ctx context.Context) StepResult {
	h := p.h
	res, err := p.m.Prov.Detach(ctx, h)
	p.last = res
	switch {
	case err != nil:
		return StepResult{Kind: StepError, Err: fmt.Errorf("failed to detach: %w", err)}
	case res.ErrorMessage != "":
		return p.fail(DetachError, res.ErrorMessage)
	case res.Dirty:
		if h.Status.ErrorType == DetachError {
			p.clearError()
		}
		return StepResult{Kind: StepContinue, Requeue: requeueFor(res)}
	}
	if h.Status.ErrorType == DetachError {
		p.clearError()
		h.Status.ErrorCount = 0
	}
	h.Status.OperationalStatus = OperationalDetached
	return StepResult{Kind: StepSteady, Requeue: slowPoll}
}

// ensureRegistered is BMO ensureRegistered + registerHost (SM hostStateMachine.ensureRegistered, handleNone,
// CTL BareMetalHostReconciler.registerHost): Register runs on every pass except in none, unmanaged
// and deleting. It returns stop=true when the pass ends here.
func (p *pass) ensureRegistered(ctx context.Context) (StepResult, bool) {
	h := p.h
	switch h.Status.State {
	case StateNone, StateUnmanaged, StateDeleting, StateDeleted:
		return StepResult{}, false
	}
	if h.Spec.RegisteredElsewhere && h.Status.ID != "" {
		return StepResult{}, false
	}
	if !p.haveCreds {
		if h.Deleting {
			// BMO goes on with empty credentials while deleting and
			// does not try to register (CTL BareMetalHostReconciler.Reconcile, SM hostStateMachine.ensureRegistered).
			return StepResult{}, false
		}
		// BMO fails with a registration error when the BMC details are
		// missing (CTL BareMetalHostReconciler.credentialsErrorResult); a host still registering is treated
		// as a host without a BMC instead (none/unmanaged rows).
		if h.Status.State == StateRegistering {
			h.Status.OperationalStatus = OperationalDiscovered
			p.next = StateUnmanaged
			return StepResult{Kind: StepComplete}, true
		}
		return p.fail(RegistrationError, "no BMC address or credentials"), true
	}

	credsChanged := h.Spec.BMC.CredentialsVersion != h.Status.GoodCredentials
	res, id, err := p.m.Prov.Register(ctx, h, credsChanged, h.Status.ErrorType == RegistrationError)
	// Save the id at once, even with an error: the node exists and a
	// re-run must find it (BMO saves it after the error checks, CTL BareMetalHostReconciler.registerHost).
	if id != "" && id != h.Status.ID {
		p.log(ctx, "setting provisioning id", map[string]any{"new_id": id})
		h.Status.ID = id
		if h.Status.State == StatePreparing {
			clearPreparedSettings(h)
		}
	}
	if r, done := p.outcome(res, err, RegistrationError); !done {
		return r, true
	}
	// Registered with these credentials (CTL BareMetalHostReconciler.registerHost). BMO returns
	// actionUpdate here to save the status; ours lives in memory, so the
	// pass goes on to the state handler.
	if h.Status.GoodCredentials != h.Spec.BMC.CredentialsVersion {
		h.Status.GoodCredentials = h.Spec.BMC.CredentialsVersion
		p.clearError()
	} else if h.Status.ErrorType == RegistrationError {
		p.clearError()
	}
	return StepResult{}, false
}

// outcome maps a provisioner answer the way every BMO action does: a Go
// error is transient, an ErrorMessage is a failure of type t, Dirty means
// still working (and clears a previous error). done is true when the
// provisioner has nothing more to do.
func (p *pass) outcome(res Result, err error, t ErrorType) (r StepResult, done bool) {
	p.last = res
	switch {
	case err != nil:
		return StepResult{Kind: StepError, Err: err}, false
	case res.ErrorMessage != "":
		return p.fail(t, res.ErrorMessage), false
	case res.Dirty:
		p.clearError()
		return StepResult{Kind: StepContinue, Requeue: requeueFor(res)}, false
	}
	return StepResult{}, true
}

// fail is BMO recordActionFailure/setErrorMessage (CTL recordActionFailure, 533-538).
func (p *pass) fail(t ErrorType, msg string) StepResult {
	s := &p.h.Status
	s.OperationalStatus = OperationalError
	s.ErrorType = t
	s.ErrorMessage = msg
	s.ErrorCount++
	return StepResult{Kind: StepFailed, Requeue: p.m.Backoff(s.ErrorCount)}
}

// clearError is BMO clearError (CTL clearErrorWithStatus, clearError).
func (p *pass) clearError() {
	s := &p.h.Status
	s.OperationalStatus = OperationalOK
	s.ErrorType = NoError
	s.ErrorMessage = ""
}

// complete moves the host to next at the end of the pass.
func (p *pass) complete(next State) StepResult {
	p.next = next
	return StepResult{Kind: StepComplete}
}

// succeed is a successful transition: the error and its count reset.
func (p *pass) succeed(next State) StepResult {
	p.clearError()
	p.h.Status.ErrorCount = 0
	return p.complete(next)
}

// delayed is BMO recordActionDelayed (CTL recordActionDelayed): retry after 1-2 min.
func (p *pass) delayed() StepResult {
	p.h.Status.OperationalStatus = OperationalDelayed
	return StepResult{Kind: StepDelayed, Requeue: p.m.Backoff(1)}
}

// enter records the state change (SM hostStateMachine.updateHostStateFrom).
func (p *pass) enter(ctx context.Context, next State) {
	p.m.setState(ctx, p.h, next, nil)
}

func (p *pass) log(ctx context.Context, msg string, fields map[string]any) {
	f := map[string]any{"host": p.h.Spec.Name, "id": p.h.Status.ID, "state": string(p.h.Status.State)}
	maps.Copy(f, fields)
	p.m.log(ctx, msg, f)
}

// requeueFor is the provisioner's delay, 10 s when it gave none.
func requeueFor(res Result) time.Duration {
	if res.RequeueAfter > 0 {
		return res.RequeueAfter
	}
	return defaultRequeue
}
