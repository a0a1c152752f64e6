package ironic

import (
	"context"
	"errors"
	"fmt"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// Delete removes the node (BMO IR ironicProvisioner.Delete, realDelete, Detach). A node that is already gone
// (404) counts as done.
func (p *Provisioner) Delete(ctx context.Context, h *lifecycle.Host) (lifecycle.Result, error) {
	node, err := p.lookup(ctx, h)
	if err != nil {
		return lifecycle.Result{Verb: "delete"}, err
	}
	if node == nil {
		logDebug(ctx, "node already gone", h, nil, "delete")
		return done("delete", ""), nil
	}
	if err := p.checkStall(ctx, h, node); err != nil {
		return lifecycle.Result{Verb: "delete", ProvisionState: node.ProvisionState}, err
	}
	ps := node.ProvisionState
	if ps == psCleanWait && extraString(node, extraErase) == eraseRunning {
		return p.continuing("delete", ps, p.slowPoll), nil
	}
	switch ps {
	case psVerifying:
		return p.continuing("manage", ps, p.slowPoll), nil
	case psEnroll:
	case psAvailable, psManageable:
		// express and full erase the disks of a host deleted while
		// available, unless its deprovision just did.
		if step := eraseStep(h, node); step != "" && extraString(node, extraErase) != eraseDone {
			res, updated, finished, err := p.eraseDisks(ctx, h, node, "delete", step)
			if !finished {
				return res, err
			}
			node = updated
		}
		if node.InstanceUUID != "" {
			_, res, ok, err := p.update(ctx, h, node, "update", nodes.UpdateOpts{
				nodes.UpdateOperation{Op: nodes.RemoveOp, Path: "/instance_uuid"},
			})
			if !ok {
				return res, err
			}
		}
	case psCleanFail:
		if extraString(node, extraErase) == eraseRunning {
			return failed("delete", ps, "Erasing the disks failed: "+node.LastError), nil
		}
		if !node.Maintenance {
			return p.setMaintenance(ctx, h, node, true, "forcing deletion in terraform-provider-baremetal")
		}
	case psDeploying, psCleaning, psInspecting, psServicing, psDeleting, psAdopting, psRescuing, psUnrescuing:
		logDebug(ctx, "waiting for the node to settle before delete", h, node, "delete")
		return p.continuing(node.TargetProvisionState, ps, p.slowPoll), nil
	default:
		// Wait states, failed states, active, error: delete in maintenance
		// to bypass Ironic's checks.
		if !node.Maintenance {
			return p.setMaintenance(ctx, h, node, true, "forcing deletion in terraform-provider-baremetal")
		}
	}
	logInfo(ctx, "deleting node", h, node, "delete")
	err = nodes.Delete(ctx, p.sc, node.UUID).ExtractErr()
	p.wrote(ctx, node.UUID)
	switch {
	case err == nil, isNotFound(err):
		p.nudge()
		return done("delete", ps), nil
	case isConflict(err):
		return p.continuing("delete", ps, p.fastPoll), nil
	}
	return lifecycle.Result{Verb: "delete", ProvisionState: ps},
		fmt.Errorf("delete node %s: %s", node.UUID, ironicError(err))
}

// Detach takes the node out of management, leaving the machine as it is:
// maintenance on with lifecycle.DetachReason, so that Ironic neither
// syncs its power nor lets anyone move it until it is attached again. BMO
// deletes the node from its own Ironic instead; a shared Ironic keeps it,
// for the next owner to import. A node that is gone counts as detached.
func (p *Provisioner) Detach(ctx context.Context, h *lifecycle.Host) (lifecycle.Result, error) {
	node, err := p.lookup(ctx, h)
	if errors.Is(err, lifecycle.ErrNotRegistered) || (err == nil && node == nil) {
		return done("maintenance on", ""), nil
	}
	if err != nil {
		return lifecycle.Result{Verb: "maintenance on"}, err
	}
	if node.Maintenance && node.MaintenanceReason == lifecycle.DetachReason {
		return done("maintenance on", node.ProvisionState), nil
	}
	return p.setMaintenance(ctx, h, node, true, lifecycle.DetachReason)
}

// Attach ends a detach: maintenance off, only when Detach set it (a
// maintenance someone else started, with another reason, stays).
func (p *Provisioner) Attach(ctx context.Context, h *lifecycle.Host) (lifecycle.Result, error) {
	node, err := p.lookup(ctx, h)
	if err != nil {
		return lifecycle.Result{Verb: "maintenance off"}, err
	}
	if node == nil {
		return lifecycle.Result{Verb: "maintenance off"}, notRegistered(h)
	}
	if !node.Maintenance || node.MaintenanceReason != lifecycle.DetachReason {
		return done("maintenance off", node.ProvisionState), nil
	}
	return p.writeMaintenance(ctx, h, node, false, "")
}
