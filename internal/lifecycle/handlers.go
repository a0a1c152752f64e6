package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"maps"
)

// defaultMaxProvisioningRetries is --max-provisioning-retries (BMO main.go, flag max-provisioning-retries).
const defaultMaxProvisioningRetries = 5

// handleNone decides managed or not (SM hostStateMachine.handleNone, handleUnmanaged).
func (p *pass) handleNone(context.Context) StepResult {
	if p.haveCreds {
		return p.complete(StateRegistering)
	}
	p.h.Status.OperationalStatus = OperationalDiscovered
	return p.complete(StateUnmanaged)
}

// handleUnmanaged waits for BMC details (SM hostStateMachine.handleUnmanaged, handleRegistering, CTL BareMetalHostReconciler.actionUnmanaged). For
// Converge an unmanaged host is steady.
func (p *pass) handleUnmanaged(context.Context) StepResult {
	if p.haveCreds {
		p.h.Status.OperationalStatus = OperationalOK
		return p.complete(StateRegistering)
	}
	return StepResult{Kind: StepSteady, Requeue: slowPoll}
}

// handleRegistering: reaching the handler means ensureRegistered succeeded
// with the current credentials (SM hostStateMachine.handleRegistering, handleInspecting).
func (p *pass) handleRegistering(context.Context) StepResult {
	switch {
	case p.h.Spec.Desired == DesiredEnroll:
		// Not BMO: an adopted node left in enroll (Register did not
		// manage it) is steady here.
		return StepResult{Kind: StepSteady, Requeue: slowPoll}
	case p.h.Spec.ExternallyProvisioned:
		return p.succeed(StateExternallyProvisioned)
	case p.h.Spec.InspectionDisabled:
		return p.succeed(StatePreparing)
	}
	return p.succeed(StateInspecting)
}

// handleInspecting is SM hostStateMachine.handleInspecting, handleMatchProfile and CTL BareMetalHostReconciler.actionInspecting.
func (p *pass) handleInspecting(ctx context.Context) StepResult {
	h := p.h
	if h.Spec.InspectionDisabled {
		return p.succeed(StatePreparing)
	}
	res, started, details, err := p.m.Prov.Inspect(ctx, h, h.Status.ErrorType == InspectionError, h.InspectRequested)
	if err == nil && res.ErrorMessage == "" && started {
		h.InspectRequested = false // BMO deletes the inspect annotation
	}
	if r, done := p.outcome(res, err, InspectionError); !done {
		return r
	}
	// BMO keeps waiting while details are nil; a done result here always
	// completes, so a provisioner without an inventory cannot stall it.
	if details != nil {
		h.Status.HardwareDetails = details
	}
	return p.succeed(StatePreparing)
}

// handlePreparing is SM hostStateMachine.handlePreparing, handleAvailable and CTL BareMetalHostReconciler.actionPreparing: manual cleaning for
// the root device hints and firmware settings that changed.
func (p *pass) handlePreparing(ctx context.Context) StepResult {
	h := p.h
	retrying := h.Status.ErrorType == PreparationError
	// After a failed cleaning the settings are applied again (CTL BareMetalHostReconciler.actionPreparing).
	unprepared := unprepared(h) || retrying
	res, started, err := p.m.Prov.Prepare(ctx, h, unprepared, retrying)
	p.last = res
	switch {
	case err != nil:
		return StepResult{Kind: StepError, Err: fmt.Errorf("error preparing host: %w", err)}
	case res.ErrorMessage != "":
		clearPreparedSettings(h)
		return p.fail(PreparationError, res.ErrorMessage)
	}
	// BMO records the settings once cleaning has started (CTL BareMetalHostReconciler.actionPreparing),
	// so that the next pass does not start it again.
	if unprepared && (started || !res.Dirty) {
		h.Status.PreparedRootDeviceHints = cloneHints(h.Spec.RootDeviceHints)
		h.Status.AppliedFirmware = maps.Clone(h.Spec.FirmwareSettings)
		h.Status.FirmwareResetDone = h.Spec.FirmwareReset
		h.Status.FirmwareUpdatesDone = len(h.Spec.FirmwareUpdates) > 0
		h.Status.StepsDone = len(h.Spec.Steps) > 0
		if h.Spec.RAID != nil {
			h.Status.PreparedRAID = CloneRAID(h.Spec.RAID)
		}
	}
	// The error stays until cleaning starts again: the retry must still
	// see it (CTL BareMetalHostReconciler.actionPreparing).
	if started {
		p.clearError()
	}
	if res.Dirty {
		return StepResult{Kind: StepContinue, Requeue: requeueFor(res)}
	}
	if p.h.Spec.Desired == DesiredManageable && !needsProvisioning(p.h) {
		// Not BMO: a host kept manageable is never provided (so never
		// automatically cleaned); its power follows online.
		return p.managePower(ctx)
	}
	return p.succeed(StateAvailable)
}

// handleAvailable runs BMO's ordered checks (SM hostStateMachine.handleAvailable, CTL BareMetalHostReconciler.actionManageAvailable).
func (p *pass) handleAvailable(ctx context.Context) StepResult {
	h := p.h
	// 1. Externally provisioned.
	if h.Spec.ExternallyProvisioned {
		clearPreparedSettings(h)
		return p.succeed(StateExternallyProvisioned)
	}
	// 2. Inspection requested (inspect.metal3.io).
	if h.InspectRequested {
		return p.succeed(StateInspecting)
	}
	// 3. Root device hints or firmware settings changed.
	if unprepared(h) {
		return p.succeed(StatePreparing)
	}
	// 4. A new image or custom deploy, with the retry limit.
	if imageURL(h.Spec.Image) == "" && h.Status.ProvisioningFailCount > 0 {
		h.Status.ProvisioningFailCount = 0
		h.Status.LastAttemptedImage = ""
	}
	if needsProvisioning(h) {
		if attemptKey(h) != h.Status.LastAttemptedImage {
			h.Status.ProvisioningFailCount = 0
		}
		limit := h.Spec.MaxProvisioningRetries
		if limit <= 0 {
			limit = defaultMaxProvisioningRetries
		}
		if h.Status.ProvisioningFailCount >= limit {
			return p.fail(ProvisioningError, fmt.Sprintf(
				"provisioning failed %d times, retry limit (%d) reached; change the image to retry",
				h.Status.ProvisioningFailCount, limit))
		}
		return p.succeed(StateProvisioning)
	}
	// 5. Steady state. Not BMO: the node is made available in Ironic
	// (automated cleaning) here, because claims use Ironic allocations,
	// which only take available nodes; BMO keeps the node manageable
	// and provides it at the start of Provision.
	// Automated cleaning is provisioning work like inspection: it takes a
	// capacity slot, held while the node cleans (Step keeps it). A host
	// whose node is available already holds it for one pass; once Provide
	// has found the node available, the power passes that follow need no
	// slot (they would otherwise queue behind hosts that want to clean).
	if !h.provided && !p.m.acquire(h) {
		return p.delayed()
	}
	res, err := p.m.Prov.Provide(ctx, h)
	if h.provided && err == nil && res.Dirty {
		// The node went back to work: the next pass takes a slot first.
		h.provided = false
		return StepResult{Kind: StepContinue, Requeue: requeueFor(res)}
	}
	p.keepSlot = err == nil && res.Dirty
	if r, done := p.outcome(res, err, ProvisioningError); !done {
		return r
	}
	h.provided = true
	// Ironic's busy work is over: the slot goes to the next host now, not
	// after the power write below (a second or more under load).
	p.m.Gate.Release(gateKey(h))
	return p.managePower(ctx)
}

// handleProvisioning is SM hostStateMachine.imageProvisioningCancelled, handleProvisioning, handleProvisioned and CTL BareMetalHostReconciler.actionProvisioning.
func (p *pass) handleProvisioning(ctx context.Context) StepResult {
	h := p.h
	if h.Status.ErrorType != NoError || provisioningCancelled(h) {
		if h.Status.ErrorType != NoError {
			h.Status.ProvisioningFailCount++
			p.log(ctx, "provisioning failed, incrementing fail count",
				map[string]any{"provisioning_fail_count": h.Status.ProvisioningFailCount})
		}
		// BMO keeps the error: deprovisioning then restarts on it.
		return p.complete(StateDeprovisioning)
	}
	h.Status.LastAttemptedImage = attemptKey(h)
	res, err := p.m.Prov.Provision(ctx, h, h.Status.ErrorType == ProvisioningError)
	if r, done := p.outcome(res, err, ProvisioningError); !done {
		return r
	}
	h.Status.DeployedImage = cloneImage(h.Spec.Image)
	h.Status.DeployedCustomDeploy = h.Spec.CustomDeploy
	h.Status.ProvisioningFailCount = 0
	return p.succeed(StateProvisioned)
}

// handleProvisioned is SM hostStateMachine.handleProvisioned.
func (p *pass) handleProvisioned(ctx context.Context) StepResult {
	if provisioningCancelled(p.h) {
		return p.complete(StateDeprovisioning)
	}
	return p.steadyState(ctx)
}

// handleExternallyProvisioned is SM hostStateMachine.handleExternallyProvisioned, handlePreparing.
func (p *pass) handleExternallyProvisioned(ctx context.Context) StepResult {
	h := p.h
	if h.Spec.ExternallyProvisioned {
		return p.steadyState(ctx)
	}
	// Leaving externally provisioned: record the spec image so the host
	// is not deprovisioned unconditionally. Without one, deprovisioning
	// starts on the next pass.
	if h.Spec.Image != nil {
		h.Status.DeployedImage = cloneImage(h.Spec.Image)
	}
	if h.Spec.CustomDeploy != "" {
		h.Status.DeployedCustomDeploy = h.Spec.CustomDeploy
	}
	return p.complete(StateProvisioned)
}

// handleDeprovisioning is SM hostStateMachine.handleDeprovisioning with the forward-progress rules.
func (p *pass) handleDeprovisioning(ctx context.Context) StepResult {
	h := p.h
	r, done := p.deprovision(ctx)
	if !h.Deleting {
		if done {
			return p.succeed(StateAvailable)
		}
		return r
	}
	switch {
	case done:
		return p.succeed(StatePoweringOffBeforeDelete)
	case r.Kind == StepFailed && h.Status.ErrorCount > retryCount:
		p.log(ctx, "giving up on host clean up after 3 attempts, the host may still be operational: clean it up manually", nil)
		return p.complete(StatePoweringOffBeforeDelete)
	case r.Kind == StepError && errors.Is(r.Err, ErrNotRegistered) && !p.haveCreds:
		p.log(ctx, "host is not registered and has no credentials, deleting without deprovisioning", nil)
		return p.complete(StateDeleting)
	}
	return r
}

// deprovision is CTL BareMetalHostReconciler.actionDeprovisioning: adopt first when an image is recorded (the
// node may have been re-registered), then undeploy and clean.
func (p *pass) deprovision(ctx context.Context) (StepResult, bool) {
	h := p.h
	if imageURL(h.Status.DeployedImage) != "" || h.Status.DeployedCustomDeploy != "" {
		res, err := p.m.Prov.Adopt(ctx, h, h.Status.ErrorType == ProvisionedRegistrationError)
		if r, done := p.outcome(res, err, ProvisionedRegistrationError); !done {
			return r, false
		}
	}
	res, err := p.m.Prov.Deprovision(ctx, h, h.Status.ErrorType == ProvisioningError)
	if r, done := p.outcome(res, err, ProvisioningError); !done {
		return r, false
	}
	h.Status.DeployedImage = nil
	h.Status.DeployedCustomDeploy = ""
	clearPreparedSettings(h)
	return StepResult{}, true
}

// handlePoweringOffBeforeDelete is SM hostStateMachine.handlePoweringOffBeforeDelete and CTL BareMetalHostReconciler.actionPowerOffBeforeDeleting.
func (p *pass) handlePoweringOffBeforeDelete(ctx context.Context) StepResult {
	h := p.h
	done := h.Spec.DisablePowerOff
	var r StepResult
	if !done {
		res, err := p.m.Prov.PowerOff(ctx, h, PowerHard, h.Status.ErrorType == PowerManagementError)
		r, done = p.outcome(res, err, PowerManagementError)
	}
	switch {
	case done:
		h.Status.PoweredOn = false
		return p.succeed(StateDeleting)
	case r.Kind == StepFailed && h.Status.ErrorCount > retryCount:
		p.log(ctx, "giving up on host power off after 3 attempts", nil)
		return p.complete(StateDeleting)
	case r.Kind == StepError && errors.Is(r.Err, ErrNotRegistered) && !p.haveCreds:
		p.log(ctx, "host is not registered and has no credentials, deleting without power off", nil)
		return p.complete(StateDeleting)
	}
	return r
}

// handleDeleting deletes the node (CTL BareMetalHostReconciler.actionDeleting).
func (p *pass) handleDeleting(ctx context.Context) StepResult {
	if r, stop := p.abortForDelete(ctx); stop {
		return r
	}
	res, err := p.m.Prov.Delete(ctx, p.h)
	p.last = res
	switch {
	case err != nil:
		return StepResult{Kind: StepError, Err: fmt.Errorf("failed to delete: %w", err)}
	case res.ErrorMessage != "":
		// BMO ignores an error message here and drops the host; we
		// retry it as a transient error rather than orphan the node.
		return StepResult{Kind: StepError, Err: errors.New(res.ErrorMessage)}
	case res.Dirty:
		return StepResult{Kind: StepContinue, Requeue: requeueFor(res)}
	}
	return p.complete(StateDeleted)
}

// handleDeleted: the node is gone; nothing left to do.
func (p *pass) handleDeleted(context.Context) StepResult {
	return StepResult{Kind: StepSteady}
}

// steadyState is BMO actionManageSteadyState (CTL BareMetalHostReconciler.actionManageSteadyState).
func (p *pass) steadyState(ctx context.Context) StepResult {
	res, err := p.m.Prov.Adopt(ctx, p.h, p.h.Status.ErrorType == ProvisionedRegistrationError)
	if r, done := p.outcome(res, err, ProvisionedRegistrationError); !done {
		return r
	}
	return p.managePower(ctx)
}

// managePower is BMO manageHostPower (CTL BareMetalHostReconciler.manageHostPower) without reboot
// annotations, servicing and DataImage. The provisioner's power calls read
// and converge the node's power state, so they run on every steady pass
// (BMO reads it with UpdateHardwareState first).
func (p *pass) managePower(ctx context.Context) StepResult {
	if r, stop := p.reboot(ctx); stop {
		return r
	}
	h := p.h
	force := h.Status.ErrorType == PowerManagementError
	var (
		res Result
		err error
	)
	mode := PowerSoft
	if h.Spec.Online {
		res, err = p.m.Prov.PowerOn(ctx, h, force)
	} else {
		if h.Status.ErrorCount > 0 || h.powerHard {
			mode = PowerHard
		}
		res, err = p.m.Prov.PowerOff(ctx, h, mode, force)
	}
	if res.ErrorMessage != "" && !h.Spec.Online && mode == PowerSoft && !force {
		res.ErrorMessage = clarifySoftPoweroffFailure + res.ErrorMessage
	}
	if r, done := p.outcome(res, err, PowerManagementError); !done {
		return r
	}
	h.Status.PoweredOn = h.Spec.Online
	p.clearError()
	h.Status.ErrorCount = 0
	return StepResult{Kind: StepSteady, Requeue: powerMonitorInterval}
}

// unprepared reports whether preparing has to run again: the root device
// hints or the firmware settings differ from what it last applied.
func unprepared(h *Host) bool {
	if h.Spec.RegisteredElsewhere {
		return firmwarePending(h)
	}
	hintsChanged := !hintsEqual(h.Spec.RootDeviceHints, h.Status.PreparedRootDeviceHints)
	return hintsChanged || raidPending(h) || firmwarePending(h)
}

// firmwarePending reports whether the firmware settings differ from what
// was last applied, or a factory reset is asked for and not yet started.
func firmwarePending(h *Host) bool {
	changed := len(h.Spec.FirmwareSettings) > 0 && !maps.Equal(h.Spec.FirmwareSettings, h.Status.AppliedFirmware)
	return changed || (h.Spec.FirmwareReset && !h.Status.FirmwareResetDone) ||
		(len(h.Spec.FirmwareUpdates) > 0 && !h.Status.FirmwareUpdatesDone) ||
		(len(h.Spec.Steps) > 0 && !h.Status.StepsDone)
}

// needsProvisioning is BMO NeedsProvisioning (API BareMetalHost.NeedsProvisioning).
func needsProvisioning(h *Host) bool {
	if !h.Spec.Online {
		return false
	}
	newImage := imageURL(h.Spec.Image) != "" && imageURL(h.Status.DeployedImage) == ""
	newCustom := h.Spec.CustomDeploy != "" && h.Spec.CustomDeploy != h.Status.DeployedCustomDeploy
	return newImage || newCustom
}

// provisioningCancelled is BMO provisioningCancelled (SM hostStateMachine.provisioningCancelled, imageProvisioningCancelled): the
// spec no longer asks for what is (being) deployed.
func provisioningCancelled(h *Host) bool {
	specURL, statusURL := imageURL(h.Spec.Image), imageURL(h.Status.DeployedImage)
	if h.Spec.CustomDeploy != "" {
		if h.Status.DeployedCustomDeploy != "" && h.Spec.CustomDeploy != h.Status.DeployedCustomDeploy {
			return true
		}
		return statusURL != "" && specURL != statusURL
	}
	if h.Status.DeployedCustomDeploy != "" {
		return true
	}
	switch {
	case specURL == "":
		return true
	case statusURL == "":
		return false
	}
	return specURL != statusURL
}

// attemptKey identifies what a provisioning attempt deployed, for the
// retry limit: the image URL, else the custom deploy method.
func attemptKey(h *Host) string {
	if u := imageURL(h.Spec.Image); u != "" {
		return u
	}
	if h.Spec.CustomDeploy != "" {
		return "custom-deploy:" + h.Spec.CustomDeploy
	}
	return ""
}

// clearPreparedSettings is BMO clearHostProvisioningSettings (CTL clearHostProvisioningSettings).
func clearPreparedSettings(h *Host) {
	h.Status.PreparedRootDeviceHints = nil
	h.Status.AppliedFirmware = nil
	h.Status.FirmwareResetDone = false
	h.Status.FirmwareUpdatesDone = false
	h.Status.StepsDone = false
	h.Status.PreparedRAID = nil
}

func imageURL(i *Image) string {
	if i == nil {
		return ""
	}
	return i.URL
}

func cloneImage(i *Image) *Image {
	if i == nil {
		return nil
	}
	c := *i
	return &c
}

func cloneHints(h *RootDeviceHints) *RootDeviceHints {
	if h.IsZero() {
		return nil
	}
	c := *h
	if h.Rotational != nil {
		r := *h.Rotational
		c.Rotational = &r
	}
	return &c
}

func hintsEqual(a, b *RootDeviceHints) bool {
	if a.IsZero() || b.IsZero() {
		return a.IsZero() && b.IsZero()
	}
	x, y := *a, *b
	if (x.Rotational == nil) != (y.Rotational == nil) || (x.Rotational != nil && *x.Rotational != *y.Rotational) {
		return false
	}
	x.Rotational, y.Rotational = nil, nil
	return x == y
}
