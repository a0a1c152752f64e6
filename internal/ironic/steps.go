package ironic

import (
	"fmt"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"
)

// currentStep is the step Ironic runs on the node, as interface.step
// ("deploy.write_image"), "" when none: the step of the node's operation
// (servicing, deploying, cleaning), else any step Ironic still shows.
func currentStep(n *nodes.Node) string {
	var order []map[string]any
	switch n.ProvisionState {
	case psServicing, psServiceWait, psServiceFail, psServiceHold:
		order = []map[string]any{n.ServiceStep, n.DeployStep, n.CleanStep}
	case psDeploying, psDeployWait, psDeployFail, psDeployHold:
		order = []map[string]any{n.DeployStep, n.CleanStep, n.ServiceStep}
	default:
		order = []map[string]any{n.CleanStep, n.DeployStep, n.ServiceStep}
	}
	for _, s := range order {
		if name := stepName(s); name != "" {
			return name
		}
	}
	return ""
}

// stepName is interface.step of one of Ironic's step objects ("" for an
// empty one: Ironic shows {} between steps).
func stepName(s map[string]any) string {
	step, _ := s["step"].(string)
	if step == "" {
		return ""
	}
	if iface, _ := s["interface"].(string); iface != "" {
		return fmt.Sprintf("%s.%s", iface, step)
	}
	return step
}

// sawStep remembers the step the node was last read running, for
// CurrentStep.
func (p *Provisioner) sawStep(n *nodes.Node) {
	if n.UUID == "" {
		return
	}
	p.steps.Store(n.UUID, currentStep(n))
}

// CurrentStep is the step the node with this id was running when the
// provisioner last read it ("" for none, or a node never read). It makes
// no request: the wait loop calls it for its progress lines
// (lifecycle.StepReporter).
func (p *Provisioner) CurrentStep(id string) string {
	v, _ := p.steps.Load(id)
	step, _ := v.(string)
	return step
}
