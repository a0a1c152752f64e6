package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"
)

// This file is the host actions: one-off verbs on a host that Terraform
// 1.14's actions invoke (internal/actions: baremetal_host_reboot,
// baremetal_host_power, baremetal_host_boot_once, baremetal_host_inspect,
// baremetal_host_steps, baremetal_bmc_reset). Each reads the host, refuses
// a detached host (CheckAttached) and a host in a state where the verb does
// not belong, then runs the verb through the state machine: the power
// verbs through managePower and its reboot (BMO's reboot annotation) alone,
// so that nothing but the power changes; inspection and clean steps
// through Converge (their states take a capacity slot); service steps
// through ServiceFirmware. Every failure is a *HostError naming the host,
// its state, the verb and Ironic's last_error, or a *DetachedError.
// Progress goes to ActionRequest.Progress, one line per step.

// OnlineSettingKey is the key in the node's extra under which the
// baremetal_host resource records its online setting (HostSpec.OnlineSetting),
// so that the power actions know whether they would contradict it.
const OnlineSettingKey = "baremetal_online"

// OnlineSettingUnset is the recorded online setting of a baremetal_host
// whose configuration leaves online unset.
const OnlineSettingUnset = "unset"

// OnlineSetting is what HostSpec.OnlineSetting records of a configured
// online (nil: unset).
func OnlineSetting(configured *bool) string {
	switch {
	case configured == nil:
		return OnlineSettingUnset
	case *configured:
		return "true"
	}
	return "false"
}

// ManagedOnline says whether a baremetal_host keeps the observed host's
// power, and at what: a host that is not deployed is kept at its online
// (false when unset, the default), a deployed one only when its online is
// set (unset, the deployment powers it and online follows the power).
// Nothing is managed when the node carries no setting: it was registered
// by something else, or its baremetal_host was last applied by a provider
// version that did not record it.
func ManagedOnline(obs Observation) (online, managed bool) {
	switch obs.OnlineSetting {
	case "true":
		return true, true
	case "false":
		return false, true
	case OnlineSettingUnset:
		return false, !OnlineFollowsPower(obs.State)
	}
	return false, false
}

// ManualStep is one Ironic clean or service step (baremetal_host_steps),
// or, with Runbook set, a runbook run by name: Ironic's provision verb
// then carries the runbook instead of steps, and the step is the only
// one.
type ManualStep struct {
	Interface string
	Step      string
	Args      map[string]any
	// Runbook is the name (or UUID) of a runbook (API 1.92+): the node
	// must carry the trait of its name.
	Runbook string
}

// RunbookOf is the runbook steps name ("" when they are steps).
func RunbookOf(steps []ManualStep) string {
	if len(steps) == 1 {
		return steps[0].Runbook
	}
	return ""
}

var stepName = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// ValidateManualSteps checks steps before anything is sent: at least one,
// each with an interface and a step name as Ironic spells them.
func ValidateManualSteps(steps []ManualStep) error {
	if len(steps) == 0 {
		return errors.New("no steps: give at least one")
	}
	for _, s := range steps {
		if s.Runbook == "" {
			continue
		}
		if len(steps) > 1 {
			return errors.New("a runbook runs alone: give a runbook or steps, not both")
		}
		return CheckRunbookName(s.Runbook)
	}
	for i, s := range steps {
		if !stepName.MatchString(s.Interface) {
			return fmt.Errorf("step %d: interface %q is not an Ironic interface name (bios, deploy, firmware, management, power, raid, ...)", i, s.Interface)
		}
		if !stepName.MatchString(s.Step) {
			return fmt.Errorf("step %d: step %q is not an Ironic step name (lower case, digits and _)", i, s.Step)
		}
	}
	return nil
}

// BootDeviceSetter is implemented by provisioners that can set the device
// a node boots from next: done (empty Result), busy (Dirty: ask again) or
// refused (ErrorMessage).
type BootDeviceSetter interface {
	SetBootDevice(ctx context.Context, h *Host, device string, persistent bool) (Result, error)
}

// BootDevices are the devices baremetal_host_boot_once boots from, with
// Ironic's names.
var BootDevices = map[string]string{"pxe": "pxe", "cd": "cdrom", "disk": "disk"}

// PowerOp is what baremetal_host_power does.
type PowerOp string

const (
	PowerOpOn    PowerOp = "on"
	PowerOpOff   PowerOp = "off"
	PowerOpCycle PowerOp = "cycle"
)

// ActionRequest names the host an action acts on and where its progress
// goes.
type ActionRequest struct {
	// Ref is the host's node UUID or name.
	Ref string
	// Progress receives one line per step the action takes (nil: none).
	Progress func(msg string)
}

// RebootHost reboots a powered-on host in place (baremetal_host_reboot):
// soft (Ironic's soft power off, hard when that fails or times out, then
// power on: BMO's reboot annotation) or hard; a host whose power off is
// disabled is rebooted with Ironic's reboot verb instead. The host keeps
// its state and ends powered on.
func (m *Machine) RebootHost(ctx context.Context, req ActionRequest, mode PowerMode) error {
	const verb = "reboot"
	h, obs, err := m.actionHost(ctx, req.Ref, verb, "reboot it")
	if err != nil {
		return err
	}
	if why := powerActionable(obs); why != "" {
		return refuse(obs, verb, why)
	}
	if obs.PoweredOn != nil && !*obs.PoweredOn {
		return refuse(obs, verb, "the host is powered off, there is nothing to reboot (baremetal_host_power with power = \"on\" starts it)")
	}
	a := m.withProgress(req.Progress)
	a.progress("%s: %s reboot of the %s host requested%s", obs.Name, mode, obs.State, inPlace(obs))
	h.Spec.Online, h.Status.PoweredOn = true, true
	h.RebootRequested, h.rebootHard, h.rebootForce = true, mode == PowerHard, mode == PowerHard
	return a.powerConverge(ctx, h, "rebooted")
}

// SetHostPower powers a host on or off, or cycles it (off, then on)
// (baremetal_host_power). mode is the power off's: soft (hard when the
// soft one fails) or hard. Refused when the result would contradict the
// online its baremetal_host keeps (ManagedOnline), and a power off of a
// host whose power off is disabled.
func (m *Machine) SetHostPower(ctx context.Context, req ActionRequest, op PowerOp, mode PowerMode) error {
	verb := "power " + string(op)
	h, obs, err := m.actionHost(ctx, req.Ref, verb, verb)
	if err != nil {
		return err
	}
	if why := powerActionable(obs); why != "" {
		return refuse(obs, verb, why)
	}
	want := op != PowerOpOff
	if online, managed := ManagedOnline(obs); managed && online != want {
		return refuse(obs, verb, fmt.Sprintf("its baremetal_host keeps it powered %s (online = %t): this would contradict it, "+
			"and the next apply of the host would undo it; change online instead", onOff(online), online))
	}
	if op == PowerOpOff && obs.DisablePowerOff {
		return refuse(obs, verb, "its power off is disabled (disable_power_off): it is never powered off")
	}
	on := obs.PoweredOn != nil && *obs.PoweredOn
	a := m.withProgress(req.Progress)
	h.Spec.Online = want
	h.Status.PoweredOn = on
	switch {
	case op == PowerOpOff:
		h.powerHard = mode == PowerHard
		a.progress("%s: %s power off requested", obs.Name, mode)
	case op == PowerOpCycle && on:
		h.RebootRequested, h.rebootHard, h.rebootForce = true, mode == PowerHard, mode == PowerHard
		a.progress("%s: power cycle requested (%s power off, then on)%s", obs.Name, mode, inPlace(obs))
	default:
		a.progress("%s: power on requested", obs.Name)
	}
	return a.powerConverge(ctx, h, "powered "+onOff(want))
}

// BootHostOnce sets the device the host boots from next, once (pxe, cd or
// disk), then reboots it (mode as RebootHost), or powers it on when it is
// off (refused when its baremetal_host keeps it off).
func (m *Machine) BootHostOnce(ctx context.Context, req ActionRequest, device string, mode PowerMode) error {
	verb := "boot once from " + device
	ironicDevice, ok := BootDevices[device]
	if !ok {
		return &HostError{Host: req.Ref, Verb: verb, Err: fmt.Errorf("unknown boot device %q: want pxe, cd or disk", device)}
	}
	h, obs, err := m.actionHost(ctx, req.Ref, verb, verb)
	if err != nil {
		return err
	}
	if why := powerActionable(obs); why != "" {
		return refuse(obs, verb, why)
	}
	on := obs.PoweredOn == nil || *obs.PoweredOn
	if online, managed := ManagedOnline(obs); !on && managed && !online {
		return refuse(obs, verb, "the host is powered off and its baremetal_host keeps it off (online = false): booting it would contradict that")
	}
	bd, ok := m.Prov.(BootDeviceSetter)
	if !ok {
		return refuse(obs, verb, "this provisioner cannot set a boot device")
	}
	a := m.withProgress(req.Progress)
	a.progress("%s: setting the next boot device to %s (once)", obs.Name, ironicDevice)
	if err := a.untilDone(ctx, h, func() (Result, error) { return bd.SetBootDevice(ctx, h, ironicDevice, false) }); err != nil {
		return err
	}
	h.Spec.Online, h.Status.PoweredOn = true, on
	if on {
		a.progress("%s: %s reboot to boot from %s%s", obs.Name, mode, device, inPlace(obs))
		h.RebootRequested, h.rebootHard, h.rebootForce = true, mode == PowerHard, mode == PowerHard
	} else {
		a.progress("%s: powering on to boot from %s", obs.Name, device)
	}
	return a.powerConverge(ctx, h, "booting from "+device)
}

// InspectHost inspects a host again (baremetal_host_inspect, BMO's
// inspect annotation): an available or manageable host goes through
// inspecting (a capacity slot) and preparing back to available. Refused on
// a deployed host.
func (m *Machine) InspectHost(ctx context.Context, req ActionRequest) error {
	const verb = "inspect"
	h, obs, err := m.actionHost(ctx, req.Ref, verb, "inspect it")
	if err != nil {
		return err
	}
	if obs.TargetProvisionState != "" {
		return refuse(obs, verb, busy(obs))
	}
	if err := CanReinspect(obs.Name, obs.State); err != nil {
		return refuse(obs, verb, err.Error())
	}
	if h.Status.State == StatePreparing || h.Status.State == StateRegistering {
		// A manageable node is inspected from where it is, without
		// going through available (and its cleaning) first.
		h.Status.State = StateInspecting
	}
	h.InspectRequested = true
	a := m.withProgress(req.Progress)
	a.progress("%s: inspection requested (the host is %s)", obs.Name, obs.State)
	if err := a.Converge(ctx, h, ConvergeOptions{}); err != nil {
		return err
	}
	a.progress("%s: inspected, %s", obs.Name, h.Status.State)
	return nil
}

// RunHostSteps runs Ironic steps on a host (baremetal_host_steps): manual
// clean steps on an available or manageable host (through preparing, a
// capacity slot, back to available), service steps on a provisioned one
// (Ironic API 1.87+; the host stays provisioned).
func (m *Machine) RunHostSteps(ctx context.Context, req ActionRequest, steps []ManualStep) error {
	verb := "clean"
	if err := ValidateManualSteps(steps); err != nil {
		return &HostError{Host: req.Ref, Verb: verb, Err: err}
	}
	h, obs, err := m.actionHost(ctx, req.Ref, verb, "run steps on it")
	if err != nil {
		return err
	}
	if obs.State == StateProvisioned {
		verb = "service"
	}
	if obs.TargetProvisionState != "" {
		return refuse(obs, verb, busy(obs))
	}
	h.Spec.Steps = steps
	a := m.withProgress(req.Progress)
	names := make([]string, len(steps))
	for i, s := range steps {
		names[i] = s.Interface + "." + s.Step
	}
	if rb := RunbookOf(steps); rb != "" {
		if err := CheckRunbookTraits(obs.Name, rb, obs.Traits); err != nil {
			return refuse(obs, verb, err.Error())
		}
		names = []string{"runbook " + rb}
	}
	switch obs.State {
	case StateProvisioned:
		a.progress("%s: servicing the provisioned host with %s", obs.Name, strings.Join(names, ", "))
		err = a.ServiceFirmware(ctx, h, 0)
	case StateAvailable, StatePreparing:
		a.progress("%s: manual cleaning of the %s host with %s", obs.Name, obs.State, strings.Join(names, ", "))
		err = a.Converge(ctx, h, ConvergeOptions{})
	default:
		return refuse(obs, verb, "steps run on available or manageable hosts (clean steps) and on provisioned ones (service steps)")
	}
	if err != nil {
		return err
	}
	a.progress("%s: steps done, the host is %s", obs.Name, h.Status.State)
	return nil
}

// BMCResetter resets the BMC (Redfish Manager.Reset) of the system a BMC
// access names, and checks whether it answers again.
type BMCResetter interface {
	ResetBMC(ctx context.Context, access BMCAccess, resetType string) error
	CheckBMC(ctx context.Context, access BMCAccess) error
}

// bmcBackPoll is how often ResetHostBMC asks whether the BMC is back.
var bmcBackPoll = 10 * time.Second

// ResetHostBMC resets the BMC of a host (baremetal_bmc_reset): the
// Redfish Manager.Reset of the manager of the host's system, with
// resetType (GracefulRestart or ForceRestart), then waits until the BMC
// answers again. Refused while Ironic is working on the node (a BMC that
// goes away mid-operation fails it).
func (m *Machine) ResetHostBMC(ctx context.Context, req ActionRequest, r BMCResetter, access BMCAccess, resetType string) error {
	const verb = "BMC reset"
	_, obs, err := m.actionHost(ctx, req.Ref, verb, "reset its BMC")
	if err != nil {
		return err
	}
	if obs.TargetProvisionState != "" {
		return refuse(obs, verb, busy(obs))
	}
	a := m.withProgress(req.Progress)
	a.progress("%s: %s of its BMC requested", obs.Name, resetType)
	if err := r.ResetBMC(ctx, access, resetType); err != nil {
		return refuse(obs, verb, err.Error())
	}
	since := a.now()
	for {
		err := r.CheckBMC(ctx, access)
		if err == nil {
			a.progress("%s: the BMC answers again (after %s)", obs.Name, a.now().Sub(since).Round(time.Second))
			return nil
		}
		a.progress("%s: waiting for the BMC to come back (%s so far): %v", obs.Name, a.now().Sub(since).Round(time.Second), err)
		if werr := a.waiter().Wait(ctx, "", bmcBackPoll); werr != nil {
			return refuse(obs, verb, fmt.Sprintf("the BMC did not answer again within the action's time: %v (last: %v)", werr, err))
		}
	}
}

// actionHost reads the host ref names and refuses a detached one; h is the
// host to run the verb on, as registered by its baremetal_host.
func (m *Machine) actionHost(ctx context.Context, ref, verb, action string) (*Host, Observation, error) {
	obs, err := m.Observe(ctx, HostRef{ID: ref})
	if err != nil {
		return nil, obs, &HostError{Host: ref, Verb: verb, Err: fmt.Errorf("reading the host: %w", err)}
	}
	if !obs.Exists {
		return nil, obs, &HostError{Host: ref, Verb: verb,
			Err: fmt.Errorf("no Ironic node has the UUID or name %q: %w", ref, ErrNotRegistered)}
	}
	if err := CheckAttached(obs, action); err != nil {
		return nil, obs, err
	}
	h := FirmwareHost(obs, nil, false)
	h.Spec.DisablePowerOff = obs.DisablePowerOff
	return h, obs, nil
}

// powerActionable says why the power verbs do not apply to the observed
// host ("" when they do): Ironic is moving it, or it is not in a state
// whose power the state machine manages.
func powerActionable(obs Observation) string {
	if obs.TargetProvisionState != "" {
		return busy(obs)
	}
	switch obs.State {
	case StateAvailable, StatePreparing, StateProvisioned, StateExternallyProvisioned:
		return ""
	}
	return "power actions need an available, manageable or provisioned host"
}

func busy(obs Observation) string {
	return fmt.Sprintf("Ironic is moving the node to %q: wait until it is done", obs.TargetProvisionState)
}

// refuse is the *HostError of a verb that was not done (nothing was
// changed) because of why.
func refuse(obs Observation, verb, why string) *HostError {
	return &HostError{Host: hostLabel(obs), ID: obs.ID, State: obs.State, Verb: verb,
		ProvisionState: obs.ProvisionState, LastError: obs.LastError, Err: errors.New(why)}
}

func inPlace(obs Observation) string {
	if obs.DisablePowerOff {
		return " (power off disabled: Ironic's reboot verb)"
	}
	return ""
}

func onOff(on bool) string {
	if on {
		return "on"
	}
	return "off"
}

// powerStep is one pass of the host's power management alone (BMO's
// manageHostPower with the reboot annotation): no state handler runs, so
// nothing but the power changes, and no capacity slot is needed (BMO
// gates no power change).
func (m *Machine) powerStep(ctx context.Context, h *Host) StepResult {
	before := h.Status
	p := &pass{m: m, h: h, next: h.Status.State, haveCreds: true}
	return p.finish(p.managePower(WithPass(ctx)), before)
}

// powerConverge runs powerStep until the power is as h asks (one failure
// retried: a failed soft power off goes on hard) and reports it.
func (m *Machine) powerConverge(ctx context.Context, h *Host, what string) error {
	since := m.now()
	if err := m.loop(ctx, h, ConvergeOptions{Retries: 1}, m.powerStep); err != nil {
		return err
	}
	m.progress("%s: %s (after %s)", h.Spec.Name, what, m.now().Sub(since).Round(time.Second))
	return nil
}

// untilDone calls f until it is done, waiting as it asks; a failure is a
// *HostError with Ironic's message, transient errors are retried as
// Converge retries them.
func (m *Machine) untilDone(ctx context.Context, h *Host, f func() (Result, error)) error {
	since := m.now()
	transients := 0
	for {
		res, err := f()
		r := StepResult{Result: res}
		var d time.Duration
		switch {
		case err != nil:
			if ctx.Err() != nil {
				return m.waitError(h, r, since, ctx.Err())
			}
			if AsDetached(err) != nil {
				return err
			}
			transients++
			if transients > maxTransientErrors {
				return m.hostError(h, r, fmt.Errorf("giving up after %d transient errors: %w", maxTransientErrors, err))
			}
			d = m.transientBackoff(transients)
		case res.ErrorMessage != "":
			h.Status.ErrorMessage = res.ErrorMessage
			return m.hostError(h, r, nil)
		case !res.Dirty:
			return nil
		default:
			transients = 0
			d = requeueFor(res)
			m.log(ctx, "waiting", map[string]any{"host": h.Spec.Name, "id": h.Status.ID, "state": string(h.Status.State),
				"verb": res.Verb, "provision_state": res.ProvisionState, "waited": m.now().Sub(since).String(), "next_check": d.String()})
		}
		if err := m.waiter().Wait(ctx, h.Status.ID, d); err != nil {
			return m.waitError(h, r, since, err)
		}
	}
}

// ResetHostBMC is Machine.ResetHostBMC with the provider's BMC clients
// (ResetBMC, CheckBMC).
func (c *Clients) ResetHostBMC(ctx context.Context, req ActionRequest, access BMCAccess, resetType string) error {
	if c.ResetBMC == nil || c.CheckBMC == nil {
		return &HostError{Host: req.Ref, Verb: "BMC reset", Err: errors.New("this provider cannot reach BMCs")}
	}
	return c.Machine.ResetHostBMC(ctx, req, bmcFuncs{reset: c.ResetBMC, check: c.CheckBMC}, access, resetType)
}

type bmcFuncs struct {
	reset func(ctx context.Context, access BMCAccess, resetType string) error
	check func(ctx context.Context, access BMCAccess) error
}

func (b bmcFuncs) ResetBMC(ctx context.Context, a BMCAccess, t string) error {
	return b.reset(ctx, a, t)
}
func (b bmcFuncs) CheckBMC(ctx context.Context, a BMCAccess) error { return b.check(ctx, a) }
