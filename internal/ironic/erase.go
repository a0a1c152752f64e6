package ironic

import (
	"context"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// Disk erasure: automated_cleaning_mode express or full. Ironic's
// automated cleaning priorities are conductor-wide (the rig, like Metal3,
// runs erase_devices_metadata only), so a per-host erasure is a manual
// clean with the one erase step, run after the automated cleaning of a
// deprovision, and before the node of an available host is deleted.
//
// The node's extra records the host's mode (so that a deployment, which
// does not own the host's spec, erases as the host asked) and the
// erasure's progress: queued when the undeploy is requested, running once
// the manual clean is requested, done when it came back to manageable.
const (
	extraCleaningMode = "automated_cleaning_mode"
	extraErase        = "erase"

	eraseQueued  = "queued"
	eraseRunning = "running"
	eraseDone    = "done"
)

// eraseStepFor is the Ironic deploy step that mode erases disks with, or
// "" when it erases nothing.
func eraseStepFor(mode string) string {
	switch mode {
	case lifecycle.CleaningExpress:
		return "erase_devices_express"
	case lifecycle.CleaningFull:
		return "erase_devices"
	}
	return ""
}

// eraseStep is the erase step h's node needs: from the spec's mode, else
// (a deployment's undeploy knows no mode) from the mode the host recorded.
func eraseStep(h *lifecycle.Host, node *nodes.Node) string {
	mode := h.Spec.AutomatedCleaningMode
	if mode == "" {
		mode, _ = node.Extra[extraCleaningMode].(string)
	}
	return eraseStepFor(mode)
}

func extraString(node *nodes.Node, key string) string {
	s, _ := node.Extra[key].(string)
	return s
}

// cleaningModePatch records the spec's erasure mode in the node's extra
// (and removes it for metadata or disabled).
func cleaningModePatch(h *lifecycle.Host, node *nodes.Node) nodes.UpdateOpts {
	want := ""
	if eraseStepFor(h.Spec.AutomatedCleaningMode) != "" {
		want = h.Spec.AutomatedCleaningMode
	}
	_, has := node.Extra[extraCleaningMode]
	switch {
	case want == "" && has:
		return nodes.UpdateOpts{nodes.UpdateOperation{Op: nodes.RemoveOp, Path: "/extra/" + extraCleaningMode}}
	case want != "" && extraString(node, extraCleaningMode) != want:
		return nodes.UpdateOpts{nodes.UpdateOperation{Op: nodes.AddOp, Path: "/extra/" + extraCleaningMode, Value: want}}
	}
	return nil
}

func eraseMarkerOp(value string) nodes.UpdateOperation {
	return nodes.UpdateOperation{Op: nodes.AddOp, Path: "/extra/" + extraErase, Value: value}
}

// eraseDisks takes an available or manageable node through one manual
// clean running step. finished is true (with the updated node) once the
// clean came back to manageable; until then the caller returns res.
func (p *Provisioner) eraseDisks(ctx context.Context, h *lifecycle.Host, node *nodes.Node, verb, step string) (res lifecycle.Result, updated *nodes.Node, finished bool, err error) {
	ps := node.ProvisionState
	switch ps {
	case psAvailable:
		res, _, err := p.changeState(ctx, h, node, nodes.ProvisionStateOpts{Target: nodes.TargetManage})
		return res, node, false, err
	case psManageable:
		if extraString(node, extraErase) == eraseRunning {
			node, res, ok, err := p.update(ctx, h, node, "update", nodes.UpdateOpts{eraseMarkerOp(eraseDone)})
			if ok {
				logInfo(ctx, "disks erased ("+step+")", h, node, verb)
			}
			return res, node, ok, err
		}
		node, res, ok, err := p.update(ctx, h, node, "update", nodes.UpdateOpts{eraseMarkerOp(eraseRunning)})
		if !ok {
			return res, node, false, err
		}
		logInfo(ctx, "erasing disks ("+step+")", h, node, verb)
		res, _, err = p.changeState(ctx, h, node, nodes.ProvisionStateOpts{Target: nodes.TargetClean,
			CleanSteps: []nodes.CleanStep{{Interface: nodes.InterfaceDeploy, Step: step, Args: map[string]any{}}}})
		return res, node, false, err
	}
	return p.continuing(verb, ps, p.slowPoll), node, false, nil
}

// erasePending says whether the deprovision of node still owes its
// erasure (queued with the undeploy, or running).
func erasePending(node *nodes.Node) bool {
	m := extraString(node, extraErase)
	return m == eraseQueued || m == eraseRunning
}
