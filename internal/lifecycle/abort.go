package lifecycle

import (
	"context"
	"errors"
	"fmt"
)

// AbortableWait is what a detach does to a node in one of Ironic's wait
// states: Ironic's abort leaves it in Settles, and needs feature (when
// gated).
type AbortableWait struct {
	Settles string
	feature Feature
	gated   bool
}

// Needs is the feature the abort needs, if any.
func (w AbortableWait) Needs() (Feature, bool) { return w.feature, w.gated }

// AbortableWaits are the Ironic provision states in which Ironic waits for
// an agent or a BMC with no conductor holding the node, by what a detach's
// abort does there: wait call-back's abort is API 1.110 (FeatureAbortCallBack) (no Ironic the
// provider is tested with has it: Debian's 21.4 is 1.82, 2025.1 1.96).
var AbortableWaits = map[string]AbortableWait{
	"inspect wait":   {Settles: "inspect failed"},
	"clean wait":     {Settles: "clean failed"},
	"rescue wait":    {Settles: "rescue failed"},
	"service wait":   {Settles: "service failed", feature: FeatureServicing, gated: true},
	"wait call-back": {Settles: "deploy failed", feature: FeatureAbortCallBack, gated: true},
}

// Aborter is a Provisioner that can end the operation a node waits in
// (for its agent or its BMC) with Ironic's abort verb, so that a host
// stuck there can be detached (baremetal_host detached = true) instead of
// waiting for the operation's timeout.
//
// AbortWait: waiting is false when the node waits in no such state
// (nothing done); otherwise res is the abort's progress: Dirty while the
// node still waits (started: this call sent the verb; sent says an earlier
// call did, and only asks to look), ErrorMessage when the Ironic cannot
// abort that state (wait call-back before API 1.110).
type Aborter interface {
	AbortWait(ctx context.Context, h *Host, sent bool) (res Result, waiting, started bool, err error)
}

// abortThenDetach detaches a host whose node waits in an abortable state:
// abort first, then detach once the node has left the wait (Ironic may
// keep its target_provision_state in the failed state it lands in). stop
// is false when there is nothing to abort (the state machine goes on as
// before: the detach waits for the operation to finish).
func (p *pass) abortThenDetach(ctx context.Context) (StepResult, bool) {
	ab, ok := p.m.Prov.(Aborter)
	if !ok {
		return StepResult{}, false
	}
	h := p.h
	res, waiting, started, err := ab.AbortWait(ctx, h, h.abortSent)
	if err == nil && !waiting && !h.abortSent {
		return StepResult{}, false
	}
	if err != nil || waiting {
		p.last = res
		switch {
		case err != nil:
			return StepResult{Kind: StepError, Err: fmt.Errorf("failed to abort before detaching: %w", err)}, true
		case res.ErrorMessage != "":
			return p.fail(DetachError, res.ErrorMessage), true
		}
		if started {
			h.abortSent = true
			p.log(ctx, "aborted the operation the node waited in, to detach it", map[string]any{"provision_state": res.ProvisionState})
		}
		return StepResult{Kind: StepContinue, Requeue: requeueFor(res)}, true
	}
	r := p.detach(ctx)
	if h.Status.OperationalStatus == OperationalDetached {
		h.abortSent = false
	}
	return r, true
}

// abortForDelete ends the operation a force-deleted host's node waits in
// (ForceDelete), where Ironic allows it; stop is true while that goes on.
// Where Ironic cannot abort, or the node is detached (its maintenance
// refuses the verb), the node is deleted in maintenance as it is.
func (p *pass) abortForDelete(ctx context.Context) (StepResult, bool) {
	ab, ok := p.m.Prov.(Aborter)
	if !p.h.ForceDelete || !ok {
		return StepResult{}, false
	}
	res, waiting, started, err := ab.AbortWait(ctx, p.h, p.h.abortSent)
	switch {
	case err != nil && AsDetached(err) == nil && !errors.Is(err, ErrNotRegistered):
		return StepResult{Kind: StepError, Err: fmt.Errorf("failed to abort before deleting: %w", err)}, true
	case err != nil || !waiting || res.ErrorMessage != "":
		return StepResult{}, false
	}
	p.last = res
	if started {
		p.h.abortSent = true
		p.log(ctx, "aborted the operation the node waited in, to delete it", map[string]any{"provision_state": res.ProvisionState})
	}
	return StepResult{Kind: StepContinue, Requeue: requeueFor(res)}, true
}

// deployedStates are the Ironic provision states of a node that runs its
// deployment: active, and what Ironic does to an active node (rescue,
// servicing).
var deployedStates = map[string]bool{
	"active": true, "rescuing": true, "rescue wait": true, "rescue": true, "rescue failed": true, "unrescuing": true,
	"unrescue failed": true, "servicing": true, "service wait": true, "service failed": true,
}

// ForceDeleteRefused is the error of a force delete (delete_mode =
// "force") of a host whose node runs a deployment: an image written
// (instance_info) on a node that reached active. Deleting it would leave a
// machine running its image and, often, a baremetal_deployment whose host
// is gone. A deployment that never got there (deploying, wait call-back,
// deploy failed: an agent that never called back) is no deployment to
// keep: its host is force-deleted like any other stuck host. nil when the
// node is gone or runs none.
func ForceDeleteRefused(obs Observation) error {
	if !obs.Exists || obs.DeployedImage == nil || !deployedStates[obs.ProvisionState] {
		return nil
	}
	return fmt.Errorf("host %q (node %s) still carries a deployment (Ironic provision state %q, image %s): delete_mode = \"force\" refuses to delete it. "+
		"Destroy its baremetal_deployment first (it deprovisions the host), or set delete_mode = \"normal\", whose delete "+
		"deprovisions the host before deleting its node", hostLabel(obs), obs.ID, obs.ProvisionState, obs.DeployedImage.URL)
}
