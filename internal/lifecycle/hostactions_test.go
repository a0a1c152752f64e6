package lifecycle

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// actionProv is fakeProv with the optional verbs the host actions use:
// Ironic's reboot (power off disabled), the next boot device and servicing.
type actionProv struct{ *fakeProv }

func (p actionProv) SetBootDevice(_ context.Context, h *Host, device string, persistent bool) (Result, error) {
	return p.call(provCall{Method: "SetBootDevice:" + device, Host: h.Spec.Name, Restart: persistent})
}

func (p actionProv) Reboot(_ context.Context, h *Host, mode PowerMode) (Result, error) {
	return p.call(provCall{Method: "Reboot", Host: h.Spec.Name, Mode: mode})
}

func (p actionProv) Service(_ context.Context, h *Host, restart bool) (Result, bool, error) {
	r := p.next(provCall{Method: "Service", Host: h.Spec.Name, Restart: restart})
	return r.res, r.started, r.err
}

// hookLog is a logRec that runs fn (once) when msg is logged: the seam that
// interleaves another host's work at a chosen point of a run.
type hookLog struct {
	*logRec
	msg string
	fn  func()
}

func (l *hookLog) Log(ctx context.Context, msg string, fields map[string]any) {
	l.logRec.Log(ctx, msg, fields)
	if msg == l.msg && l.fn != nil {
		fn := l.fn
		l.fn = nil
		fn()
	}
}

// actionEnv is a Machine over actionProv (plain fakeProv with bare) whose
// node is obs, with a capacity gate of one slot that another host holds
// until the run asks for it: it is released when the run logs that it is
// delayed, so a run that needs a slot is delayed exactly once.
type actionEnv struct {
	*testEnv
	gate     *Gate
	progress []string
}

const actionNode = "host-0"

func newActionEnv(obs Observation, bare bool) *actionEnv {
	e := &actionEnv{testEnv: newEnv(), gate: NewGate(1)}
	e.prov.always("Observe", provReply{obs: obs})
	e.prov.always("Inspect", provReply{started: true, details: &HardwareDetails{CPUArch: "x86_64"}})
	if !bare {
		e.m.Prov = actionProv{e.prov}
	}
	e.gate.TryAcquire("other")
	e.m.Gate = e.gate
	e.m.Log = &hookLog{logRec: e.log, msg: "delayed by the capacity gate", fn: func() { e.gate.Release("other") }}
	return e
}

func (e *actionEnv) req() ActionRequest {
	return ActionRequest{Ref: actionNode, Progress: func(s string) { e.progress = append(e.progress, s) }}
}

// acted lists the provisioner calls other than Observe.
func (e *actionEnv) acted() string {
	var out []string
	for _, m := range strings.Split(e.prov.methods(), ",") {
		if m != "Observe" && m != "" {
			out = append(out, m)
		}
	}
	return strings.Join(out, ",")
}

// node is an observed node in state st, powered on, that no
// baremetal_host manages the power of, changed by mods.
func node(st State, mods ...func(*Observation)) Observation {
	on := true
	o := Observation{Exists: true, ID: "node-1", Name: actionNode, State: st, ProvisionState: string(st), PoweredOn: &on}
	for _, m := range mods {
		m(&o)
	}
	return o
}

func powered(on bool) func(*Observation) { return func(o *Observation) { o.PoweredOn = &on } }
func online(s string) func(*Observation) { return func(o *Observation) { o.OnlineSetting = s } }
func moving(to string) func(*Observation) {
	return func(o *Observation) { o.TargetProvisionState = to }
}
func maint(reason string) func(*Observation) {
	return func(o *Observation) { o.Maintenance, o.MaintenanceReason = true, reason }
}
func noPowerOff(o *Observation) { o.DisablePowerOff = true }

var (
	ctxBG = context.Background()

	reboot = func(mode PowerMode) func(*actionEnv) error {
		return func(e *actionEnv) error { return e.m.RebootHost(ctxBG, e.req(), mode) }
	}
	power = func(op PowerOp, mode PowerMode) func(*actionEnv) error {
		return func(e *actionEnv) error { return e.m.SetHostPower(ctxBG, e.req(), op, mode) }
	}
	bootOnce = func(dev string) func(*actionEnv) error {
		return func(e *actionEnv) error { return e.m.BootHostOnce(ctxBG, e.req(), dev, PowerSoft) }
	}
	inspect = func(e *actionEnv) error { return e.m.InspectHost(ctxBG, e.req()) }
	steps   = func(s ...ManualStep) func(*actionEnv) error {
		return func(e *actionEnv) error { return e.m.RunHostSteps(ctxBG, e.req(), s) }
	}
	oneStep = ManualStep{Interface: "bios", Step: "apply_configuration"}

	notPowerState = "power actions need an available, manageable or provisioned host"
	movingActive  = `Ironic is moving the node to "active": wait until it is done`
)

type actionCase struct {
	name  string
	obs   Observation
	bare  bool // a provisioner without the optional verbs
	run   func(*actionEnv) error
	want  string // a part of the error; "" for success
	calls string // the provisioner calls other than Observe
	gated bool   // the run needed a capacity slot
	// script queues provisioner replies by method; modes are the modes of
	// the power off and reboot calls, in order, "!" marking a forced one
	// (checked when set).
	script map[string][]provReply
	modes  string
}

func runActionCases(t *testing.T, cases []actionCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newActionEnv(c.obs, c.bare)
			for method, replies := range c.script {
				e.prov.on(method, replies...)
			}
			err := c.run(e)
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("err %v, want success", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("err %v, want one saying %q", err, c.want)
			}
			if got := e.acted(); got != c.calls {
				t.Errorf("calls %q, want %q", got, c.calls)
			}
			if got := e.log.count("delayed by the capacity gate") == 1; got != c.gated {
				t.Errorf("waited for a capacity slot: %v, want %v", got, c.gated)
			}
			if e.gate.Holds(actionNode) {
				t.Errorf("the action kept its capacity slot")
			}
			var modes []string
			for _, call := range e.prov.calls {
				if call.Method == "PowerOff" || call.Method == "Reboot" {
					modes = append(modes, string(call.Mode)+map[bool]string{true: "!"}[call.Restart])
				}
			}
			if got := strings.Join(modes, ","); c.modes != "" && got != c.modes {
				t.Errorf("power off and reboot modes %s, want %s", got, c.modes)
			}
			if c.want == "" && len(e.progress) == 0 {
				t.Errorf("no progress reported")
			}
		})
	}
}

// Every action reads the host first: a missing, unreadable or detached
// host is refused with nothing done; maintenance set by someone else is
// not a detach.
func TestHostActionsRefuseMissingAndDetached(t *testing.T) {
	runs := map[string]func(*actionEnv) error{
		"reboot": reboot(PowerSoft), "power on": power(PowerOpOn, PowerSoft), "boot once": bootOnce("pxe"),
		"inspect": inspect, "steps": steps(oneStep),
		"BMC reset": func(e *actionEnv) error {
			return e.m.ResetHostBMC(ctxBG, e.req(), &fakeBMC{}, BMCAccess{}, "ForceRestart")
		},
	}
	var cases []actionCase
	for name, run := range runs {
		cases = append(cases,
			actionCase{name: name + " missing", obs: Observation{}, run: run, want: `no Ironic node has the UUID or name "host-0"`},
			actionCase{name: name + " detached", obs: node(StateAvailable, maint(DetachReason)), run: run,
				want: `Host "host-0" (node node-1) is detached`},
		)
	}
	runActionCases(t, cases)

	e := newActionEnv(Observation{}, false)
	e.prov.always("Observe", provReply{err: errors.New("ironic down")})
	if err := reboot(PowerSoft)(e); err == nil || !strings.Contains(err.Error(), "reading the host: ironic down") {
		t.Errorf("unreadable host: %v", err)
	}
	for name, run := range runs {
		e := newActionEnv(node(StateAvailable, maint("replacing a DIMM")), false)
		if err := run(e); AsDetached(err) != nil {
			t.Errorf("%s: operator maintenance taken for a detach: %v", name, err)
		}
	}
}

// The power verbs act on available, manageable and provisioned hosts only,
// never while Ironic moves the node, and change nothing but the power: no
// state handler runs and no capacity slot is taken.
func TestRebootHost(t *testing.T) {
	var cases []actionCase
	for _, st := range []State{StateAvailable, StatePreparing, StateProvisioned, StateExternallyProvisioned} {
		cases = append(cases, actionCase{name: "soft in " + string(st), obs: node(st), run: reboot(PowerSoft), calls: "PowerOff,PowerOn"})
	}
	for _, st := range []State{StateRegistering, StateInspecting, StateProvisioning, StateDeprovisioning, StateUnmanaged, StateDeleting} {
		cases = append(cases, actionCase{name: "refused in " + string(st), obs: node(st), run: reboot(PowerSoft), want: notPowerState})
	}
	cases = append(cases,
		actionCase{name: "hard", obs: node(StateAvailable), run: reboot(PowerHard), calls: "PowerOff,PowerOn"},
		actionCase{name: "power off disabled: Ironic's reboot", obs: node(StateProvisioned, noPowerOff), run: reboot(PowerSoft), calls: "Reboot,PowerOn"},
		actionCase{name: "busy", obs: node(StateAvailable, moving("active")), run: reboot(PowerSoft), want: movingActive},
		actionCase{name: "powered off", obs: node(StateAvailable, powered(false)), run: reboot(PowerSoft),
			want: `state "available", Ironic verb "reboot", Ironic provision state "available": the host is powered off, there is nothing to reboot`},
		actionCase{name: "power unknown", obs: node(StateAvailable, func(o *Observation) { o.PoweredOn = nil }), run: reboot(PowerSoft), calls: "PowerOff,PowerOn"},
	)
	// How the power off (or Ironic's reboot) goes: a soft one that fails
	// goes on hard at once; a hard one that fails is retried once.
	softFails := provReply{res: Result{ErrorMessage: "Timed out waiting for a soft power off"}}
	hardFails := provReply{res: Result{ErrorMessage: "BMC unreachable"}}
	down := provReply{err: errors.New("connection reset")}
	inPlace := node(StateProvisioned, noPowerOff)
	cases = append(cases,
		actionCase{name: "soft fails: hard", obs: node(StateAvailable), run: reboot(PowerSoft),
			script: map[string][]provReply{"PowerOff": {softFails, busy10}}, calls: "PowerOff,PowerOff,PowerOff,PowerOn", modes: "soft,hard!,hard"},
		actionCase{name: "hard fails at once, retried forced", obs: node(StateAvailable), run: reboot(PowerSoft),
			script: map[string][]provReply{"PowerOff": {softFails, hardFails, busy10}}, calls: "PowerOff,PowerOff,PowerOff,PowerOff,PowerOn", modes: "soft,hard!,hard!,hard"},
		actionCase{name: "hard fails once taken, retried forced", obs: node(StateAvailable), run: reboot(PowerSoft),
			script: map[string][]provReply{"PowerOff": {softFails, busy10, hardFails}}, calls: "PowerOff,PowerOff,PowerOff,PowerOff,PowerOn", modes: "soft,hard!,hard,hard!"},
		actionCase{name: "hard fails twice", obs: node(StateAvailable), run: reboot(PowerHard),
			script: map[string][]provReply{"PowerOff": {hardFails, hardFails}}, calls: "PowerOff,PowerOff", modes: "hard!,hard!",
			want: `state "available", power management error: last_error: reboot: BMC unreachable`},
		actionCase{name: "power off errs: retried", obs: node(StateAvailable), run: reboot(PowerSoft),
			script: map[string][]provReply{"PowerOff": {down}}, calls: "PowerOff,PowerOff,PowerOn"},
		actionCase{name: "in place: soft fails, hard", obs: inPlace, run: reboot(PowerSoft),
			script: map[string][]provReply{"Reboot": {softFails, busy10}}, calls: "Reboot,Reboot,Reboot,PowerOn", modes: "soft,hard,hard"},
		actionCase{name: "in place: hard fails twice", obs: inPlace, run: reboot(PowerSoft),
			script: map[string][]provReply{"Reboot": {softFails, hardFails, hardFails}}, calls: "Reboot,Reboot,Reboot", modes: "soft,hard,hard",
			want: "reboot: BMC unreachable"},
		actionCase{name: "in place: errs, retried", obs: inPlace, run: reboot(PowerHard),
			script: map[string][]provReply{"Reboot": {down}}, calls: "Reboot,Reboot,PowerOn", modes: "hard,hard"},
	)
	runActionCases(t, cases)

	for _, mode := range []PowerMode{PowerSoft, PowerHard} {
		e := newActionEnv(node(StateAvailable), false)
		if err := reboot(mode)(e); err != nil {
			t.Fatal(err)
		}
		off := e.prov.callsTo("PowerOff")[0]
		if off.Mode != mode || off.Restart != (mode == PowerHard) {
			t.Errorf("%s reboot: power off %s, forced %v", mode, off.Mode, off.Restart)
		}
	}
}

// baremetal_host_power: on, off and cycle, refused when the result would
// contradict the online the host's baremetal_host keeps, and a power off
// of a host whose power off is disabled.
func TestSetHostPower(t *testing.T) {
	off := powered(false)
	keeps := `its baremetal_host keeps it powered %s (online = %s): this would contradict it`
	cases := []actionCase{
		{name: "on", obs: node(StateAvailable, off), run: power(PowerOpOn, PowerSoft), calls: "PowerOn"},
		{name: "off", obs: node(StateAvailable), run: power(PowerOpOff, PowerSoft), calls: "PowerOff"},
		{name: "off in manageable", obs: node(StatePreparing), run: power(PowerOpOff, PowerSoft), calls: "PowerOff"},
		{name: "cycle of a host that is on", obs: node(StateProvisioned), run: power(PowerOpCycle, PowerSoft), calls: "PowerOff,PowerOn"},
		{name: "cycle of a host that is off: on", obs: node(StateProvisioned, off), run: power(PowerOpCycle, PowerSoft), calls: "PowerOn"},
		{name: "off, online true", obs: node(StateAvailable, online("true")), run: power(PowerOpOff, PowerSoft),
			want: strings.Replace(strings.Replace(keeps, "%s", "on", 1), "%s", "true", 1)},
		{name: "on, online false", obs: node(StateAvailable, off, online("false")), run: power(PowerOpOn, PowerSoft),
			want: strings.Replace(strings.Replace(keeps, "%s", "off", 1), "%s", "false", 1)},
		{name: "cycle, online false", obs: node(StateAvailable, online("false")), run: power(PowerOpCycle, PowerSoft), want: "keeps it powered off"},
		{name: "on, online unset, not deployed: kept off", obs: node(StateAvailable, off, online(OnlineSettingUnset)),
			run: power(PowerOpOn, PowerSoft), want: "keeps it powered off (online = false)"},
		{name: "off, online unset, deployed: follows the power", obs: node(StateProvisioned, online(OnlineSettingUnset)),
			run: power(PowerOpOff, PowerSoft), calls: "PowerOff"},
		{name: "on, online true", obs: node(StateProvisioned, off, online("true")), run: power(PowerOpOn, PowerSoft), calls: "PowerOn"},
		{name: "off, power off disabled", obs: node(StateProvisioned, noPowerOff), run: power(PowerOpOff, PowerSoft),
			want: "its power off is disabled (disable_power_off): it is never powered off"},
		{name: "on, power off disabled", obs: node(StateProvisioned, off, noPowerOff), run: power(PowerOpOn, PowerSoft), calls: "PowerOn"},
		{name: "busy", obs: node(StateProvisioned, moving("active")), run: power(PowerOpOn, PowerSoft), want: movingActive},
		{name: "inspecting", obs: node(StateInspecting), run: power(PowerOpOff, PowerSoft), want: notPowerState},
		{name: "deprovisioning", obs: node(StateDeprovisioning), run: power(PowerOpOn, PowerSoft), want: notPowerState},
	}
	runActionCases(t, cases)

	e := newActionEnv(node(StateAvailable), false)
	if err := power(PowerOpOff, PowerHard)(e); err != nil {
		t.Fatal(err)
	}
	if c := e.prov.callsTo("PowerOff"); len(c) != 1 || c[0].Mode != PowerHard {
		t.Errorf("hard power off: %+v", c)
	}
}

// baremetal_host_boot_once sets the next boot device once, then reboots
// (or powers on a host that is off, unless it is kept off).
func TestBootHostOnce(t *testing.T) {
	dirty := provReply{res: Result{Dirty: true, RequeueAfter: time.Second}}
	cases := []actionCase{
		{name: "pxe, on: reboot", obs: node(StateAvailable), run: bootOnce("pxe"), calls: "SetBootDevice:pxe,PowerOff,PowerOn"},
		{name: "cd, off: power on", obs: node(StateAvailable, powered(false)), run: bootOnce("cd"), calls: "SetBootDevice:cdrom,PowerOn"},
		{name: "disk, provisioned", obs: node(StateProvisioned), run: bootOnce("disk"), calls: "SetBootDevice:disk,PowerOff,PowerOn"},
		{name: "power off disabled", obs: node(StateProvisioned, noPowerOff), run: bootOnce("pxe"), calls: "SetBootDevice:pxe,Reboot,PowerOn"},
		{name: "off, kept off", obs: node(StateAvailable, powered(false), online("false")), run: bootOnce("pxe"),
			want: "the host is powered off and its baremetal_host keeps it off (online = false)"},
		{name: "on, kept off: rebooted all the same", obs: node(StateAvailable, online("false")), run: bootOnce("pxe"),
			calls: "SetBootDevice:pxe,PowerOff,PowerOn"},
		{name: "unknown device", obs: node(StateAvailable), run: bootOnce("floppy"), want: `unknown boot device "floppy": want pxe, cd or disk`},
		{name: "no boot device setter", obs: node(StateAvailable), bare: true, run: bootOnce("pxe"), want: "this provisioner cannot set a boot device"},
		{name: "busy", obs: node(StateAvailable, moving("manageable")), run: bootOnce("pxe"), want: `moving the node to "manageable"`},
		{name: "provisioning", obs: node(StateProvisioning), run: bootOnce("pxe"), want: notPowerState},
	}
	runActionCases(t, cases)

	e := newActionEnv(node(StateAvailable), false)
	e.prov.on("SetBootDevice:pxe", dirty, provReply{res: Result{ErrorMessage: "unsupported boot device"}})
	err := bootOnce("pxe")(e)
	if err == nil || !strings.Contains(err.Error(), "unsupported boot device") || e.acted() != "SetBootDevice:pxe,SetBootDevice:pxe" {
		t.Errorf("refused boot device: %v, calls %s", err, e.acted())
	}
	if c := e.prov.callsTo("SetBootDevice:pxe"); c[0].Restart {
		t.Errorf("boot device set persistently")
	}
}

// baremetal_host_inspect: available or manageable hosts are inspected
// through the state machine, which takes a capacity slot.
func TestInspectHost(t *testing.T) {
	cases := []actionCase{
		{name: "available", obs: node(StateAvailable), run: inspect, calls: "Inspect,Prepare,Provide,PowerOn", gated: true},
		{name: "manageable: inspected from where it is", obs: node(StatePreparing), run: inspect, calls: "Inspect,Prepare,Provide,PowerOn", gated: true},
		{name: "provisioned", obs: node(StateProvisioned), run: inspect, want: `re-inspection (a change of inspect_trigger) needs an available or manageable host`},
		{name: "busy", obs: node(StateAvailable, moving("manageable")), run: inspect, want: `Ironic verb "inspect"`},
	}
	runActionCases(t, cases)

	e := newActionEnv(node(StateAvailable), false)
	if err := inspect(e); err != nil {
		t.Fatal(err)
	}
	if c := e.prov.callsTo("Inspect"); len(c) != 1 || !c[0].Refresh {
		t.Errorf("inspect calls %+v, want one refresh", c)
	}
	if last := e.progress[len(e.progress)-1]; last != "host-0: inspected, available" {
		t.Errorf("last progress %q", last)
	}
}

// baremetal_host_steps: manual clean steps on available or manageable
// hosts (a capacity slot), service steps on provisioned ones.
func TestRunHostSteps(t *testing.T) {
	cases := []actionCase{
		{name: "available: clean", obs: node(StateAvailable), run: steps(oneStep), calls: "Prepare,Provide,PowerOn", gated: true},
		{name: "manageable: clean", obs: node(StatePreparing), run: steps(oneStep), calls: "Prepare,Provide,PowerOn", gated: true},
		{name: "provisioned: service", obs: node(StateProvisioned), run: steps(oneStep), calls: "Service"},
		{name: "provisioned, no servicing", obs: node(StateProvisioned), bare: true, run: steps(oneStep), want: ErrServicingUnsupported.Error()},
		{name: "inspecting", obs: node(StateInspecting), run: steps(oneStep),
			want: `Ironic verb "clean", Ironic provision state "inspecting": steps run on available or manageable hosts`},
		{name: "externally provisioned", obs: node(StateExternallyProvisioned), run: steps(oneStep), want: "steps run on available"},
		{name: "busy provisioned", obs: node(StateProvisioned, moving("active")), run: steps(oneStep), want: `Ironic verb "service"`},
		{name: "busy available", obs: node(StateAvailable, moving("manageable")), run: steps(oneStep), want: `Ironic verb "clean"`},
		{name: "no steps", obs: node(StateAvailable), run: steps(), want: "no steps: give at least one"},
		{name: "bad interface", obs: node(StateAvailable), run: steps(ManualStep{Interface: "BIOS", Step: "x"}),
			want: `step 0: interface "BIOS" is not an Ironic interface name`},
		{name: "bad step", obs: node(StateAvailable), run: steps(oneStep, ManualStep{Interface: "raid", Step: "delete-configuration"}),
			want: `step 1: step "delete-configuration" is not an Ironic step name`},
	}
	runActionCases(t, cases)

	e := newActionEnv(node(StateAvailable), false)
	if err := steps(oneStep)(e); err != nil {
		t.Fatal(err)
	}
	if c := e.prov.callsTo("Prepare"); len(c) == 0 || !c[0].Unprepared {
		t.Errorf("prepare calls %+v, want the steps as unprepared", c)
	}
}

// fakeBMC answers a reset with resetErr, and down checks with errors before
// the BMC answers again.
type fakeBMC struct {
	resetErr error
	down     int
	resets   []string
	checks   int
}

func (b *fakeBMC) ResetBMC(_ context.Context, _ BMCAccess, t string) error {
	b.resets = append(b.resets, t)
	return b.resetErr
}

func (b *fakeBMC) CheckBMC(context.Context, BMCAccess) error {
	b.checks++
	if b.checks <= b.down {
		return errors.New("connection refused")
	}
	return nil
}

// baremetal_bmc_reset: refused while Ironic works on the node; waits until
// the BMC answers again, within the action's time.
func TestResetHostBMC(t *testing.T) {
	for _, c := range []struct {
		name     string
		obs      Observation
		bmc      fakeBMC
		deadline time.Duration
		want     string
		resets   int
		waits    int
	}{
		{name: "back at once", obs: node(StateProvisioned), resets: 1},
		{name: "back after two checks", obs: node(StateAvailable), bmc: fakeBMC{down: 2}, resets: 1, waits: 2},
		{name: "never back", obs: node(StateAvailable), bmc: fakeBMC{down: 100}, deadline: 25 * time.Second, resets: 1, waits: 3,
			want: "the BMC did not answer again within the action's time: context deadline exceeded (last: connection refused)"},
		{name: "reset refused", obs: node(StateAvailable), bmc: fakeBMC{resetErr: errors.New("401 Unauthorized")}, resets: 1,
			want: `Ironic verb "BMC reset", Ironic provision state "available": 401 Unauthorized`},
		{name: "busy", obs: node(StateAvailable, moving("active")), want: movingActive},
		{name: "any state", obs: node(StateInspecting), resets: 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newActionEnv(c.obs, false)
			if c.deadline > 0 {
				e.wait.deadline = testEpoch.Add(c.deadline)
			}
			err := e.m.ResetHostBMC(ctxBG, e.req(), &c.bmc, BMCAccess{}, "GracefulRestart")
			if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
				t.Fatalf("err %v, want %q", err, c.want)
			}
			if len(c.bmc.resets) != c.resets || len(e.wait.waits) != c.waits || e.acted() != "" {
				t.Errorf("resets %v, waits %v, calls %q", c.bmc.resets, e.wait.waits, e.acted())
			}
			if c.resets == 1 && c.bmc.resets[0] != "GracefulRestart" {
				t.Errorf("reset type %v", c.bmc.resets)
			}
		})
	}

	c := &Clients{Machine: newActionEnv(node(StateAvailable), false).m}
	if err := c.ResetHostBMC(ctxBG, ActionRequest{Ref: actionNode}, BMCAccess{}, "ForceRestart"); err == nil ||
		!strings.Contains(err.Error(), "this provider cannot reach BMCs") {
		t.Errorf("no BMC clients: %v", err)
	}
	b := &fakeBMC{down: 1}
	c.ResetBMC, c.CheckBMC = b.ResetBMC, b.CheckBMC
	if err := c.ResetHostBMC(ctxBG, ActionRequest{Ref: actionNode}, BMCAccess{}, "ForceRestart"); err != nil || b.checks != 2 {
		t.Errorf("through the clients: %v, checks %d", err, b.checks)
	}
}

// ManagedOnline: which online a baremetal_host keeps, and OnlineSetting,
// what it records.
func TestManagedOnline(t *testing.T) {
	yes, no := true, false
	for _, c := range []struct {
		setting         string
		st              State
		online, managed bool
	}{
		{"true", StateProvisioned, true, true},
		{"false", StateAvailable, false, true},
		{OnlineSettingUnset, StateAvailable, false, true},
		{OnlineSettingUnset, StateProvisioned, false, false},
		{"", StateAvailable, false, false},
	} {
		on, managed := ManagedOnline(Observation{OnlineSetting: c.setting, State: c.st})
		if on != c.online || managed != c.managed {
			t.Errorf("%q in %s: online %v managed %v", c.setting, c.st, on, managed)
		}
	}
	if OnlineSetting(nil) != OnlineSettingUnset || OnlineSetting(&yes) != "true" || OnlineSetting(&no) != "false" {
		t.Errorf("OnlineSetting")
	}
}
