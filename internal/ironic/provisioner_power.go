package ironic

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// errSoftPowerOffUnsupported marks a 400 answer to "soft power off".
var errSoftPowerOffUnsupported = errors.New("soft power off is unsupported by the BMC driver")

// powerSettle is how long after Ironic accepted a power request (202) a
// node that shows neither the new power state, nor a target power state,
// nor an error is taken to be on its way rather than asked again: Ironic's
// conductor records target_power_state in a task it starts after
// answering, so the next list can still show the node as it was, and a
// second request would only queue behind the first.
const powerSettle = 30 * time.Second

type powerRequest struct {
	target nodes.TargetPowerState
	at     time.Time
}

// changePower issues PUT states/power (BMO IR changePower). A detached
// node is refused (refuseDetached). Power changes wait while Ironic works
// on the node (target_provision_state set, unless the node is in a failed
// state: Ironic keeps the target of the failed operation there, with
// nothing running; BMO waits on it too, so that its power off before
// deleting a host whose cleaning failed gave up after three attempts), and
// while a request for the same target is settling (powerSettle).
func (p *Provisioner) changePower(ctx context.Context, h *lifecycle.Host, node *nodes.Node, target nodes.TargetPowerState) (lifecycle.Result, error) {
	verb := string(target)
	ps := node.ProvisionState
	if err := refuseDetached(node, "request "+verb); err != nil {
		return lifecycle.Result{Verb: verb, ProvisionState: ps}, err
	}
	if node.TargetProvisionState != "" && !failedState(ps) {
		logDebug(ctx, "provision state change in progress, power change waits", h, node, verb)
		return p.continuing(verb, ps, p.fastPoll), nil
	}
	if v, ok := p.powerSent.Load(node.UUID); ok {
		sent, _ := v.(powerRequest) // only powerRequests are stored
		if sent.target == target && node.LastError == "" && p.now().Sub(sent.at) < powerSettle {
			logDebug(ctx, "power request accepted, waiting for Ironic to show it", h, node, verb)
			return p.continuing(verb, ps, p.fastPoll), nil
		}
		p.powerSent.Delete(node.UUID)
	}
	opts := nodes.PowerStateOpts{Target: target}
	if target == nodes.SoftPowerOff || target == nodes.SoftRebooting {
		opts.Timeout = int(softPowerOffTimeout.Seconds())
	}
	if err := p.unparentBefore(ctx, node); err != nil {
		return lifecycle.Result{Verb: verb, ProvisionState: ps}, err
	}
	logInfo(ctx, "changing power state", h, node, verb)
	err := nodes.ChangePowerState(ctx, p.sc, node.UUID, opts).ExtractErr()
	p.wrote(ctx, node.UUID)
	switch {
	case err == nil:
		p.powerSent.Store(node.UUID, powerRequest{target: target, at: p.now()})
		p.nudge()
		return p.continuing(verb, ps, p.fastPoll), nil
	case isConflict(err):
		logDebug(ctx, "node busy, will retry", h, node, verb)
		return p.continuing(verb, ps, p.fastPoll), nil
	case isBadRequest(err) && (target == nodes.SoftPowerOff || target == nodes.SoftRebooting):
		return lifecycle.Result{Verb: verb, ProvisionState: ps}, fmt.Errorf("%w: %s", errSoftPowerOffUnsupported, ironicError(err))
	}
	return lifecycle.Result{Verb: verb, ProvisionState: ps},
		fmt.Errorf("%s node %s: %s", verb, node.UUID, ironicError(err))
}

// PowerOn converges the node to power on. force ignores a previous
// last_error (a retry).
func (p *Provisioner) PowerOn(ctx context.Context, h *lifecycle.Host, force bool) (lifecycle.Result, error) {
	node, err := p.changing(ctx, h, "power on")
	if err != nil {
		return lifecycle.Result{Verb: string(nodes.PowerOn)}, err
	}
	verb, ps := string(nodes.PowerOn), node.ProvisionState
	if node.PowerState == powerOn {
		p.powerSent.Delete(node.UUID)
		return done(verb, ps), nil
	}
	if node.TargetPowerState == powerOn {
		logDebug(ctx, "waiting for power on", h, node, verb)
		return p.continuing(verb, ps, p.fastPoll), nil
	}
	if node.LastError != "" && !force {
		return failed(verb, ps, "PowerOn operation failed: "+node.LastError), nil
	}
	return p.changePower(ctx, h, node, nodes.PowerOn)
}

// abortBeforePowerOff aborts inspect wait, and clean wait when the cleaning
// is manual or automated cleaning is disabled; it waits while inspecting or
// cleaning (BMO abortInspectionOrCleaning). ok means power off may go on.
func (p *Provisioner) abortBeforePowerOff(ctx context.Context, h *lifecycle.Host, node *nodes.Node) (lifecycle.Result, bool, error) {
	ps := node.ProvisionState
	manual := node.TargetProvisionState == psManageable || node.TargetProvisionState == "clean"
	disabled := h.Spec.AutomatedCleaningMode == lifecycle.CleaningDisabled ||
		(h.Spec.RegisteredElsewhere && node.AutomatedClean != nil && !*node.AutomatedClean)
	switch ps {
	case psInspectWait:
		res, _, err := p.changeState(ctx, h, node, nodes.ProvisionStateOpts{Target: nodes.TargetAbort})
		return res, false, err
	case psInspecting, psCleaning:
		return p.continuing("abort", ps, p.slowPoll), false, nil
	case psInspectFail:
		if node.TargetProvisionState != "" {
			res, _, err := p.changeState(ctx, h, node, nodes.ProvisionStateOpts{Target: nodes.TargetManage})
			return res, false, err
		}
	case psCleanWait:
		if manual || disabled {
			res, _, err := p.changeState(ctx, h, node, nodes.ProvisionStateOpts{Target: nodes.TargetAbort})
			return res, false, err
		}
		return p.continuing("abort", ps, p.slowPoll), false, nil
	}
	return lifecycle.Result{}, true, nil
}

// PowerOff converges the node to power off: soft power off (180 s timeout)
// unless mode is hard, force is set or the host has failed before; a 400 to
// soft power off falls back to hard power off.
func (p *Provisioner) PowerOff(ctx context.Context, h *lifecycle.Host, mode lifecycle.PowerMode, force bool) (lifecycle.Result, error) {
	node, err := p.changing(ctx, h, "power off")
	if err != nil {
		return lifecycle.Result{Verb: string(nodes.PowerOff)}, err
	}
	ps := node.ProvisionState
	if res, ok, err := p.abortBeforePowerOff(ctx, h, node); !ok {
		return res, err
	}
	if node.PowerState == powerOff {
		p.powerSent.Delete(node.UUID)
		return done(string(nodes.PowerOff), ps), nil
	}
	if node.TargetPowerState == powerOff || node.TargetPowerState == softPowerOff {
		logDebug(ctx, "waiting for power off", h, node, node.TargetPowerState)
		return p.continuing(node.TargetPowerState, ps, p.fastPoll), nil
	}
	soft := mode != lifecycle.PowerHard && !force && h.Status.ErrorCount == 0
	if node.TargetPowerState == "" && node.LastError != "" && !force && !strings.Contains(node.LastError, "aborted") {
		verb := string(nodes.PowerOff)
		if soft {
			verb = string(nodes.SoftPowerOff)
		}
		return failed(verb, ps, node.LastError), nil
	}
	if soft {
		target := nodes.SoftPowerOff
		if node.DisablePowerOff {
			target = nodes.SoftRebooting
		}
		res, err := p.changePower(ctx, h, node, target)
		if !errors.Is(err, errSoftPowerOffUnsupported) {
			return res, err
		}
		logInfo(ctx, "soft power off unsupported, falling back to hard power off", h, node, string(target))
	}
	target := nodes.PowerOff
	if node.DisablePowerOff {
		target = nodes.Rebooting
	}
	return p.changePower(ctx, h, node, target)
}
