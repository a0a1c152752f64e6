package ironic

import (
	"context"
	"fmt"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// AbortWait ends the operation the node waits in, for a detach
// (lifecycle.Aborter). waiting is false when the node waits in none (nothing
// is done); else the result is the abort's: Dirty while Ironic works (started:
// this call sent the verb; sent: an earlier one did, so only wait),
// ErrorMessage when this Ironic cannot abort it.
func (p *Provisioner) AbortWait(ctx context.Context, h *lifecycle.Host, sent bool) (res lifecycle.Result, waiting, started bool, err error) {
	node, err := p.current(ctx, h)
	if err != nil {
		return lifecycle.Result{Verb: "abort"}, false, false, err
	}
	ps := node.ProvisionState
	wait, ok := lifecycle.AbortableWaits[ps]
	if !ok {
		return lifecycle.Result{Verb: "abort", ProvisionState: ps}, false, false, nil
	}
	if sent {
		return p.continuing("abort", ps, p.fastPoll), true, false, nil
	}
	if need, gated := wait.Needs(); gated && !has(p.sc, need) {
		return failed("abort", ps, fmt.Sprintf("Ironic cannot abort a node in %q before API %s, and this Ironic speaks %s: "+
			"the host cannot be detached until the operation ends (the agent calls back, or Ironic's callback timeout fails it); "+
			"then apply again", ps, need.Microversion(), p.sc.Microversion)), true, false, nil
	}
	res, started, err = p.changeState(ctx, h, node, nodes.ProvisionStateOpts{Target: nodes.TargetAbort})
	return res, true, started, err
}
