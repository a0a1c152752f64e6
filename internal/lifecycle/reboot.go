package lifecycle

import (
	"context"
	"fmt"
)

// reboot is BMO's reboot annotation (CTL BareMetalHostReconciler.manageHostPower with
// reboot.metal3.io): while h.RebootRequested, the desired power state is
// off; once the host is off the request is cleared and managePower powers it
// on again as Spec.Online says. A host that is to stay off (Online false)
// has nothing to reboot. The power off is soft first (Ironic's "soft power
// off" with its timeout); when Ironic reports that it failed or timed out,
// the same request goes on with a hard power off at once. BMO reaches hard
// through its error count and backoff; Terraform has one apply, so the
// fallback does not count as a failure. stop reports that the pass ends
// here with r.
func (p *pass) reboot(ctx context.Context) (r StepResult, stop bool) {
	h := p.h
	if !h.RebootRequested {
		return StepResult{}, false
	}
	if !h.Spec.Online {
		p.log(ctx, "reboot requested on a host that is to stay powered off: nothing to do", nil)
		h.RebootRequested, h.rebootHard, h.rebootForce = false, false, false
		return StepResult{}, false
	}
	mode := PowerSoft
	if h.rebootHard {
		mode = PowerHard
	}
	if rb, ok := p.m.Prov.(Rebooter); ok && h.Spec.DisablePowerOff {
		return p.rebootInPlace(ctx, rb, mode)
	}
	// The hard power off is forced (past the node's last_error) when it
	// is asked, and again when retrying after it failed; once Ironic
	// took it, its own outcome counts, so a hard power off that keeps
	// failing fails the pass instead of being asked again forever.
	force := h.rebootHard && (h.rebootForce || h.Status.ErrorType == PowerManagementError)
	res, err := p.m.Prov.PowerOff(ctx, h, mode, force)
	p.last = res
	switch {
	case err != nil:
		return StepResult{Kind: StepError, Err: fmt.Errorf("rebooting: %w", err)}, true
	case res.ErrorMessage != "" && mode == PowerSoft:
		p.log(ctx, "soft power off for reboot failed, continuing with hard power off",
			map[string]any{"last_error": res.ErrorMessage})
		h.rebootHard, h.rebootForce = true, true
		return StepResult{Kind: StepContinue}, true
	case res.ErrorMessage != "":
		return p.fail(PowerManagementError, "reboot: "+res.ErrorMessage), true
	case res.Dirty:
		h.rebootForce = false
		if h.Status.ErrorType == PowerManagementError {
			p.clearError()
		}
		return StepResult{Kind: StepContinue, Requeue: requeueFor(res)}, true
	}
	p.log(ctx, "host powered off for reboot, powering it on", map[string]any{"mode": string(mode)})
	h.RebootRequested, h.rebootHard, h.rebootForce = false, false, false
	h.Status.PoweredOn = false
	return StepResult{}, false
}

// Rebooter is implemented by provisioners that can ask for Ironic's reboot
// verb ("soft rebooting", "rebooting"): the one way to reboot a host whose
// power off is disabled (disable_power_off), which never shows power off.
// Reboot is called on every pass, as the Provisioner's calls are: the first
// call asks for the reboot, later calls report it under way (Dirty), done
// (an empty Result, once Ironic has finished the power action it started)
// or failed (ErrorMessage, Ironic's last_error).
type Rebooter interface {
	Reboot(ctx context.Context, h *Host, mode PowerMode) (Result, error)
}

// rebootInPlace is reboot for a host whose power off is disabled: Ironic's
// soft reboot, and its hard reboot when the soft one fails, with the same
// fallback as the power off. The host never goes off.
func (p *pass) rebootInPlace(ctx context.Context, rb Rebooter, mode PowerMode) (StepResult, bool) {
	h := p.h
	res, err := rb.Reboot(ctx, h, mode)
	p.last = res
	switch {
	case err != nil:
		return StepResult{Kind: StepError, Err: fmt.Errorf("rebooting: %w", err)}, true
	case res.ErrorMessage != "" && mode == PowerSoft:
		p.log(ctx, "soft reboot failed, continuing with hard reboot", map[string]any{"last_error": res.ErrorMessage})
		h.rebootHard = true
		return StepResult{Kind: StepContinue}, true
	case res.ErrorMessage != "":
		return p.fail(PowerManagementError, "reboot: "+res.ErrorMessage), true
	case res.Dirty:
		return StepResult{Kind: StepContinue, Requeue: requeueFor(res)}, true
	}
	p.log(ctx, "host rebooted in place (power off disabled)", map[string]any{"mode": string(mode)})
	h.RebootRequested, h.rebootHard = false, false
	return StepResult{}, false
}
