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
		h.RebootRequested, h.rebootHard = false, false
		return StepResult{}, false
	}
	mode := PowerSoft
	if h.rebootHard {
		mode = PowerHard
	}
	res, err := p.m.Prov.PowerOff(ctx, h, mode, h.rebootHard)
	p.last = res
	switch {
	case err != nil:
		return StepResult{Kind: StepError, Err: fmt.Errorf("rebooting: %w", err)}, true
	case res.ErrorMessage != "" && mode == PowerSoft:
		p.log(ctx, "soft power off for reboot failed, continuing with hard power off",
			map[string]any{"last_error": res.ErrorMessage})
		h.rebootHard = true
		return StepResult{Kind: StepContinue}, true
	case res.ErrorMessage != "":
		return p.fail(PowerManagementError, "reboot: "+res.ErrorMessage), true
	case res.Dirty:
		return StepResult{Kind: StepContinue, Requeue: requeueFor(res)}, true
	}
	p.log(ctx, "host powered off for reboot, powering it on", map[string]any{"mode": string(mode)})
	h.RebootRequested, h.rebootHard = false, false
	h.Status.PoweredOn = false
	return StepResult{}, false
}
