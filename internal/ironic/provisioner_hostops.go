package ironic

import (
	"context"
	"fmt"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/ironic/clients"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// This file is what the host actions (internal/actions, through
// lifecycle's host actions) need of Ironic beyond the state machine:
// Ironic's reboot verb, the next boot device, arbitrary clean and service
// steps, and the online setting baremetal_host records on the node.

var (
	_ lifecycle.Rebooter         = (*Provisioner)(nil)
	_ lifecycle.BootDeviceSetter = (*Provisioner)(nil)
)

// rebootRequest is a reboot Ironic accepted: the power state it asked for,
// when, and the node's updated_at before it (Ironic saves the node when
// its conductor starts the power action and again when it ends).
type rebootRequest struct {
	target  nodes.TargetPowerState
	at      time.Time
	updated time.Time
}

// Reboot asks Ironic to reboot the node in place ("soft rebooting" in
// soft mode, with the soft power off timeout; "rebooting" in hard mode,
// and when the driver has no soft reboot) and reports it under way until
// Ironic has finished: the node is read with GET (node lists carry no
// updated_at), and the reboot is over once its updated_at moved past the
// one before the request with no target power state left. Ironic's
// last_error then is the failure.
func (p *Provisioner) Reboot(ctx context.Context, h *lifecycle.Host, mode lifecycle.PowerMode) (lifecycle.Result, error) {
	target := nodes.SoftRebooting
	if mode == lifecycle.PowerHard {
		target = nodes.Rebooting
	}
	verb := string(target)
	ident := h.Status.ID
	if ident == "" {
		ident = h.Spec.Name
	}
	node, err := nodes.Get(ctx, p.sc, ident).Extract()
	switch {
	case isNotFound(err):
		return lifecycle.Result{Verb: verb}, notRegistered(h)
	case err != nil:
		return lifecycle.Result{Verb: verb}, fmt.Errorf("get node %s: %s", ident, ironicError(err))
	}
	ps := node.ProvisionState
	if err := refuseDetached(node, "request "+verb); err != nil {
		return lifecycle.Result{Verb: verb, ProvisionState: ps}, err
	}
	if v, ok := p.rebootSent.Load(node.UUID); ok {
		sent, _ := v.(rebootRequest) // only rebootRequests are stored
		verb = string(sent.target)
		switch {
		case node.TargetPowerState != "":
			logDebug(ctx, "waiting for the reboot", h, node, verb)
			return p.continuing(verb, ps, p.fastPoll), nil
		case node.UpdatedAt.Equal(sent.updated) && p.now().Sub(sent.at) < powerSettle:
			logDebug(ctx, "reboot accepted, waiting for Ironic to start it", h, node, verb)
			return p.continuing(verb, ps, p.fastPoll), nil
		}
		p.rebootSent.Delete(node.UUID)
		if !node.UpdatedAt.Equal(sent.updated) {
			if node.LastError != "" {
				return failed(verb, ps, node.LastError), nil
			}
			if node.PowerState != powerOn {
				return failed(verb, ps, fmt.Sprintf("the node is %q after the reboot", node.PowerState)), nil
			}
			logInfo(ctx, "rebooted", h, node, verb)
			return done(verb, ps), nil
		}
		// Nothing happened within powerSettle: ask again.
	}
	if node.TargetProvisionState != "" || node.TargetPowerState != "" {
		logDebug(ctx, "node busy, the reboot waits", h, node, verb)
		return p.continuing(verb, ps, p.fastPoll), nil
	}
	opts := nodes.PowerStateOpts{Target: target}
	if target == nodes.SoftRebooting {
		opts.Timeout = int(softPowerOffTimeout.Seconds())
	}
	if err := p.unparentBefore(ctx, node); err != nil {
		return lifecycle.Result{Verb: verb, ProvisionState: ps}, err
	}
	logInfo(ctx, "rebooting", h, node, verb)
	err = nodes.ChangePowerState(ctx, p.sc, node.UUID, opts).ExtractErr()
	p.wrote(ctx, node.UUID)
	switch {
	case err == nil:
		p.rebootSent.Store(node.UUID, rebootRequest{target: target, at: p.now(), updated: node.UpdatedAt})
		p.nudge()
		return p.continuing(verb, ps, p.fastPoll), nil
	case isConflict(err):
		logDebug(ctx, "node busy, will retry", h, node, verb)
		return p.continuing(verb, ps, p.fastPoll), nil
	case isBadRequest(err) && target == nodes.SoftRebooting:
		logInfo(ctx, "soft reboot unsupported, rebooting hard", h, node, verb)
		return p.Reboot(ctx, h, lifecycle.PowerHard)
	}
	return lifecycle.Result{Verb: verb, ProvisionState: ps}, fmt.Errorf("%s node %s: %s", verb, node.UUID, ironicError(err))
}

// SetBootDevice sets the device the node boots from next (Ironic's
// management boot_device: pxe, disk, cdrom, ...), once or persistently.
// A node that is busy (409) answers Dirty: the caller asks again.
func (p *Provisioner) SetBootDevice(ctx context.Context, h *lifecycle.Host, device string, persistent bool) (lifecycle.Result, error) {
	const verb = "set boot device"
	node, err := p.changing(ctx, h, verb)
	if err != nil {
		return lifecycle.Result{Verb: verb}, err
	}
	ps := node.ProvisionState
	if node.TargetProvisionState != "" || node.TargetPowerState != "" {
		logDebug(ctx, "node busy, the boot device waits", h, node, verb)
		return p.continuing(verb, ps, p.fastPoll), nil
	}
	logInfo(ctx, "setting the boot device", h, node, verb)
	err = nodes.SetBootDevice(ctx, p.sc, node.UUID, nodes.BootDeviceOpts{BootDevice: device, Persistent: persistent}).ExtractErr()
	p.wrote(ctx, node.UUID)
	switch {
	case err == nil:
		return done(verb, ps), nil
	case isConflict(err):
		logDebug(ctx, "node busy, will retry", h, node, verb)
		return p.continuing(verb, ps, p.fastPoll), nil
	case isBadRequest(err):
		return failed(verb, ps, fmt.Sprintf("Ironic refused boot device %q: %s", device, ironicError(err))), nil
	}
	return lifecycle.Result{Verb: verb, ProvisionState: ps}, fmt.Errorf("%s of node %s: %s", verb, node.UUID, ironicError(err))
}

// manualSteps are the spec's arbitrary steps (Spec.Steps), once: nil when
// there are none or they were started already.
func manualSteps(h *lifecycle.Host) []nodes.CleanStep {
	if len(h.Spec.Steps) == 0 || h.Status.StepsDone || lifecycle.RunbookOf(h.Spec.Steps) != "" {
		return nil
	}
	out := make([]nodes.CleanStep, 0, len(h.Spec.Steps))
	for _, s := range h.Spec.Steps {
		args := s.Args
		if args == nil {
			args = map[string]any{}
		}
		out = append(out, nodes.CleanStep{Interface: nodes.StepInterface(s.Interface), Step: s.Step, Args: args})
	}
	return out
}

// pendingRunbook is the runbook the spec runs (Spec.Steps naming one),
// once: "" when there is none or it was started already.
func pendingRunbook(h *lifecycle.Host) string {
	if h.Status.StepsDone {
		return ""
	}
	return lifecycle.RunbookOf(h.Spec.Steps)
}

// runbookState is the provision state change that runs runbook rb as
// target's steps (clean or service), after the other steps of the spec
// (steps): a runbook runs alone, and needs API 1.92.
func (p *Provisioner) runbookState(target nodes.TargetProvisionState, rb string, steps []nodes.CleanStep, node *nodes.Node) (nodes.ProvisionStateOpts, error) {
	if !lifecycle.FeatureRunbooks.In(p.sc.Microversion) {
		return nodes.ProvisionStateOpts{}, fmt.Errorf("node %s: %w", node.UUID, &lifecycle.FeatureError{Attribute: "runbook " + rb,
			Feature: lifecycle.FeatureRunbooks, Microversion: p.sc.Microversion, ServerMax: p.sc.Microversion})
	}
	if len(steps) > 0 {
		return nodes.ProvisionStateOpts{}, fmt.Errorf("node %s: runbook %s cannot run with other pending steps (firmware settings or "+
			"updates): apply those first", node.UUID, rb)
	}
	if target == nodes.TargetService && p.serviceRunbookClient() == nil {
		return nodes.ProvisionStateOpts{}, fmt.Errorf("node %s: %w", node.UUID,
			&lifecycle.RunbookServiceError{Host: node.Name, Runbook: rb, ServerMax: p.api().ServerMax})
	}
	return nodes.ProvisionStateOpts{Target: target, Runbook: rb}, nil
}

// serviceRunbookClient is the client that runs a runbook through servicing:
// this one at lifecycle.RunbookServiceMicroversion, for that one request,
// when the server offers it; nil when it does not.
func (p *Provisioner) serviceRunbookClient() *gophercloud.ServiceClient {
	if clients.CompareMicroversions(p.api().ServerMax, lifecycle.RunbookServiceMicroversion) < 0 {
		return nil
	}
	sc := *p.sc
	sc.Microversion = lifecycle.RunbookServiceMicroversion
	return &sc
}

// onlineSettingOf reads the online setting baremetal_host records in the
// node's extra ("" when none).
func onlineSettingOf(n *nodes.Node) string {
	s, _ := n.Extra[lifecycle.OnlineSettingKey].(string)
	return s
}
