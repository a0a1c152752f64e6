package lifecycle

import (
	"context"
	"fmt"
	"time"
)

// abortPoll is how often a detach looks whether the abort it sent has ended.
const abortPoll = 3 * time.Second

// Aborter is a Provisioner that can end the operation a node waits in
// (for its agent or its BMC) with Ironic's abort verb, so that a host
// stuck there can be detached (baremetal_host detached = true) instead of
// waiting for the operation's timeout.
//
// AbortWait: waiting is false when the node waits in no such state
// (nothing done); otherwise res is the abort's progress: Dirty while it
// runs (started: this call sent the verb), ErrorMessage when the Ironic
// cannot abort that state (wait call-back before API 1.110), empty once
// nothing runs any more.
type Aborter interface {
	AbortWait(ctx context.Context, h *Host) (res Result, waiting, started bool, err error)
}

// abortThenDetach detaches a host whose node waits in an abortable state:
// abort first, then detach once the node has left the wait. stop is false
// when there is nothing to abort (the state machine goes on as before:
// the detach waits for the operation to finish).
func (p *pass) abortThenDetach(ctx context.Context) (StepResult, bool) {
	ab, ok := p.m.Prov.(Aborter)
	if !ok {
		return StepResult{}, false
	}
	h := p.h
	if h.abortedForDetach {
		obs, err := p.m.Prov.Observe(ctx, h)
		if err != nil {
			return StepResult{Kind: StepError, Err: fmt.Errorf("reading the node after its abort: %w", err)}, true
		}
		if obs.Exists && obs.TargetProvisionState != "" {
			p.last = Result{Verb: "abort", ProvisionState: obs.ProvisionState}
			return StepResult{Kind: StepContinue, Requeue: abortPoll}, true
		}
	} else {
		res, waiting, started, err := ab.AbortWait(ctx, h)
		if err == nil && !waiting {
			return StepResult{}, false
		}
		p.last = res
		switch {
		case err != nil:
			return StepResult{Kind: StepError, Err: fmt.Errorf("failed to abort before detaching: %w", err)}, true
		case res.ErrorMessage != "":
			return p.fail(DetachError, res.ErrorMessage), true
		case res.Dirty:
			if started {
				h.abortedForDetach = true
				p.log(ctx, "aborted the operation the node waited in, to detach it", map[string]any{"provision_state": res.ProvisionState})
			}
			return StepResult{Kind: StepContinue, Requeue: requeueFor(res)}, true
		}
	}
	r := p.detach(ctx)
	if h.Status.OperationalStatus == OperationalDetached {
		h.abortedForDetach = false
	}
	return r, true
}
