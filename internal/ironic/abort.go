package ironic

import (
	"context"
	"fmt"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/ironic/clients"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// MicroversionAbortDeployWait is the API version whose abort verb ends a
// deployment waiting for its agent (wait call-back -> deploy failed):
// 1.110. Ironic 2025.1 stops at 1.96 and Debian's 21.4 at 1.82.
const MicroversionAbortDeployWait = 110

// waitStates are the provision states in which Ironic waits for an agent
// or a BMC with no conductor holding the node: those a detach can end
// with the abort verb.
var waitStates = map[string]bool{
	psInspectWait: true, psCleanWait: true, psRescueWait: true, psServiceWait: true, psDeployWait: true,
}

// AbortWait ends the operation the node waits in, for a detach
// (lifecycle.Aborter). waiting is false when the node waits in none (nothing
// is done); else the result is the abort's: Dirty while Ironic works (started:
// this call sent the verb), ErrorMessage when this Ironic cannot abort it.
func (p *Provisioner) AbortWait(ctx context.Context, h *lifecycle.Host) (res lifecycle.Result, waiting, started bool, err error) {
	node, err := p.current(ctx, h)
	if err != nil {
		return lifecycle.Result{Verb: "abort"}, false, false, err
	}
	ps := node.ProvisionState
	if !waitStates[ps] {
		return lifecycle.Result{Verb: "abort", ProvisionState: ps}, false, false, nil
	}
	need := 0
	switch ps {
	case psServiceWait:
		need = clients.MicroversionServicing
	case psDeployWait:
		need = MicroversionAbortDeployWait
	}
	if need > 0 && !p.microversionAtLeast(1, need) {
		return failed("abort", ps, fmt.Sprintf("Ironic cannot abort a node in %q before API 1.%d, and this Ironic speaks %s: "+
			"the host cannot be detached until the operation ends (the agent calls back, or Ironic's callback timeout fails it); "+
			"then apply again", ps, need, p.sc.Microversion)), true, false, nil
	}
	res, started, err = p.changeState(ctx, h, node, nodes.ProvisionStateOpts{Target: nodes.TargetAbort})
	return res, true, started, err
}
