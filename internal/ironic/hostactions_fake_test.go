package ironic

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/ironic/ironictest"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// The host actions (lifecycle's RebootHost, SetHostPower, BootHostOnce,
// InspectHost, RunHostSteps, ResetHostBMC) against the fake Ironic: what
// they send, what they refuse, and the errors they fail with.

// actionRig is a fake Ironic with one node, a Machine over it and the
// progress lines an action sent.
type actionRig struct {
	t    *testing.T
	srv  *ironictest.Server
	m    *lifecycle.Machine
	id   string
	mu   sync.Mutex
	said []string
}

// newActionRig puts node "act-1" on the fake in provision state ps with
// the power given; edit changes the node further.
func newActionRig(t *testing.T, ps, power string, edit func(n *nodes.Node)) *actionRig {
	t.Helper()
	p, srv := onFake(t)
	id := srv.AddNode(nodesNode("act-1", ps, ""))
	srv.UpdateNode(id, func(n *nodes.Node) {
		n.PowerState = power
		if ps == "active" {
			n.InstanceInfo = map[string]any{"image_source": "http://img/a.qcow2"}
		}
		if edit != nil {
			edit(n)
		}
	})
	srv.ResetRequests()
	r := &actionRig{t: t, srv: srv, id: id,
		m: &lifecycle.Machine{Prov: p, Wait: instantWaiter{}, Rand: func() float64 { return 0 }}}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("calls: %q\nprogress:\n  %s", srv.Calls(), strings.Join(r.lines(), "\n  "))
		}
	})
	return r
}

func (r *actionRig) req() lifecycle.ActionRequest {
	return lifecycle.ActionRequest{Ref: "act-1", Progress: func(s string) {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.said = append(r.said, s)
	}}
}

func (r *actionRig) lines() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.said...)
}

// said fails the test unless some progress line contains each of want.
func (r *actionRig) saidAll(want ...string) {
	r.t.Helper()
	all := strings.Join(r.lines(), "\n")
	for _, w := range want {
		if !strings.Contains(all, w) {
			r.t.Errorf("no progress line says %q", w)
		}
	}
}

// powerTargets are the power states asked of the node, in order.
func (r *actionRig) powerTargets() []string {
	var out []string
	for _, q := range r.srv.Requests() {
		if q.Method == http.MethodPut && strings.HasSuffix(q.Path, "/states/power") {
			out = append(out, between(q.Body, `"target":"`, `"`))
		}
	}
	return out
}

func (r *actionRig) node() nodes.Node { return r.srv.MustNode(r.id) }

// hostError fails the test unless err is a *HostError naming the host,
// the state and the verb, and saying each of want.
func hostError(t *testing.T, err error, state, verb string, want ...string) {
	t.Helper()
	var he *lifecycle.HostError
	if !errors.As(err, &he) {
		t.Fatalf("error %v (%T), want a *lifecycle.HostError", err, err)
	}
	msg := err.Error()
	for _, w := range append([]string{`host "act-1"`, fmt.Sprintf("state %q", state), fmt.Sprintf("verb %q", verb)}, want...) {
		if !strings.Contains(msg, w) {
			t.Errorf("error %q does not say %q", msg, w)
		}
	}
}

func TestFakeActionRebootSoft(t *testing.T) {
	r := newActionRig(t, "active", "power on", nil)
	if err := r.m.RebootHost(context.Background(), r.req(), lifecycle.PowerSoft); err != nil {
		t.Fatal(err)
	}
	if got, want := r.powerTargets(), []string{"soft power off", "power on"}; !slices.Equal(got, want) {
		t.Errorf("power targets %q, want %q", got, want)
	}
	if n := r.node(); n.ProvisionState != "active" || n.PowerState != "power on" {
		t.Errorf("node %q, %q after the reboot", n.ProvisionState, n.PowerState)
	}
	if calls := r.srv.Calls(); slices.ContainsFunc(calls, func(c string) bool { return !strings.HasSuffix(c, "/states/power") }) {
		t.Errorf("a reboot wrote more than power: %q", calls)
	}
	r.saidAll("act-1: soft reboot of the provisioned host requested", "act-1: host powered off for reboot, powering it on", "act-1: rebooted")
}

func TestFakeActionRebootHardAndLocked(t *testing.T) {
	r := newActionRig(t, "available", "power on", nil)
	// Busy for longer than the transport retries: the action waits.
	r.srv.NodeLocked(http.MethodPut, "/states/power", 6)
	if err := r.m.RebootHost(context.Background(), r.req(), lifecycle.PowerHard); err != nil {
		t.Fatal(err)
	}
	targets := slices.Compact(r.powerTargets())
	if want := []string{"power off", "power on"}; !slices.Equal(targets, want) {
		t.Errorf("power targets %q, want %q", targets, want)
	}
	if n := r.node(); n.ProvisionState != "available" || n.PowerState != "power on" {
		t.Errorf("node %q, %q", n.ProvisionState, n.PowerState)
	}
	if n := r.srv.Count(http.MethodPut, "/states/power"); n < 7 {
		t.Errorf("%d power requests, want the 409s answered and retried", n)
	}
}

// A host whose power off is disabled is rebooted with Ironic's reboot
// verb, once, and never goes off.
func TestFakeActionRebootDisablePowerOff(t *testing.T) {
	r := newActionRig(t, "active", "power on", func(n *nodes.Node) { n.DisablePowerOff = true })
	if err := r.m.RebootHost(context.Background(), r.req(), lifecycle.PowerSoft); err != nil {
		t.Fatal(err)
	}
	if got, want := r.powerTargets(), []string{"soft rebooting"}; !slices.Equal(got, want) {
		t.Errorf("power targets %q, want %q", got, want)
	}
	r.saidAll("power off disabled", "rebooted in place")
}

// failEveryWait makes every power action end with last_error, as a BMC
// that refuses them does.
type failEveryWait struct {
	srv *ironictest.Server
	id  string
}

func (f failEveryWait) Wait(ctx context.Context, _ string, _ time.Duration) error {
	f.srv.FailNext(f.id, "Failed to set node power state: Redfish exception: the BMC is on fire")
	return ctx.Err()
}

// A reboot whose power offs all fail (soft, then hard, then hard again)
// fails naming the host, its state, the verb and Ironic's last_error.
func TestFakeActionRebootFailsWithLastError(t *testing.T) {
	r := newActionRig(t, "active", "power on", nil)
	r.m.Wait = failEveryWait{r.srv, r.id}
	r.srv.FailNext(r.id, "Failed to set node power state: Redfish exception: the BMC is on fire")
	err := r.m.RebootHost(context.Background(), r.req(), lifecycle.PowerSoft)
	hostError(t, err, "provisioned", "power off", "power management error", "last_error: reboot: Failed to set node power state: Redfish exception: the BMC is on fire")
	r.saidAll("soft power off for reboot failed, continuing with hard power off")
}

func TestFakeActionRebootRefusals(t *testing.T) {
	for name, tc := range map[string]struct {
		ps, power string
		edit      func(n *nodes.Node)
		state     string
		want      string
	}{
		"off":       {"active", "power off", nil, "provisioned", "powered off, there is nothing to reboot"},
		"deploying": {"deploying", "power on", func(n *nodes.Node) { n.TargetProvisionState = "active" }, "provisioning", `moving the node to "active"`},
		"enroll":    {"enroll", "power off", nil, "registering", "need an available, manageable or provisioned host"},
	} {
		t.Run(name, func(t *testing.T) {
			r := newActionRig(t, tc.ps, tc.power, tc.edit)
			r.srv.UpdateNode(r.id, func(n *nodes.Node) { n.LastError = "an old failure" })
			err := r.m.RebootHost(context.Background(), r.req(), lifecycle.PowerSoft)
			hostError(t, err, tc.state, "reboot", tc.want, "last_error: an old failure")
			if calls := r.srv.Calls(); len(calls) != 0 {
				t.Errorf("a refused reboot wrote %q", calls)
			}
		})
	}
}

// Every action refuses a detached host, writing nothing.
func TestFakeActionsRefuseDetached(t *testing.T) {
	r := newActionRig(t, "active", "power on", func(n *nodes.Node) {
		n.Maintenance, n.MaintenanceReason = true, lifecycle.DetachReason
	})
	ctx := context.Background()
	steps := []lifecycle.ManualStep{{Interface: "bios", Step: "factory_reset"}}
	for name, run := range map[string]func() error{
		"reboot":    func() error { return r.m.RebootHost(ctx, r.req(), lifecycle.PowerSoft) },
		"power":     func() error { return r.m.SetHostPower(ctx, r.req(), lifecycle.PowerOpCycle, lifecycle.PowerHard) },
		"boot once": func() error { return r.m.BootHostOnce(ctx, r.req(), "pxe", lifecycle.PowerSoft) },
		"inspect":   func() error { return r.m.InspectHost(ctx, r.req()) },
		"steps":     func() error { return r.m.RunHostSteps(ctx, r.req(), steps) },
		"bmc reset": func() error {
			return r.m.ResetHostBMC(ctx, r.req(), &fakeBMC{}, lifecycle.BMCAccess{}, "GracefulRestart")
		},
	} {
		err := run()
		if d := lifecycle.AsDetached(err); d == nil || d.Host != "act-1" {
			t.Errorf("%s: %v, want a *DetachedError", name, err)
		}
	}
	if calls := r.srv.Calls(); len(calls) != 0 {
		t.Errorf("actions on a detached host wrote %q", calls)
	}
}

func TestFakeActionPower(t *testing.T) {
	ctx := context.Background()
	t.Run("off soft then on", func(t *testing.T) {
		r := newActionRig(t, "available", "power on", nil)
		if err := r.m.SetHostPower(ctx, r.req(), lifecycle.PowerOpOff, lifecycle.PowerSoft); err != nil {
			t.Fatal(err)
		}
		if err := r.m.SetHostPower(ctx, r.req(), lifecycle.PowerOpOn, lifecycle.PowerSoft); err != nil {
			t.Fatal(err)
		}
		if got, want := r.powerTargets(), []string{"soft power off", "power on"}; !slices.Equal(got, want) {
			t.Errorf("power targets %q, want %q", got, want)
		}
		r.saidAll("act-1: soft power off requested", "act-1: powered off", "act-1: power on requested", "act-1: powered on")
	})
	t.Run("off hard", func(t *testing.T) {
		r := newActionRig(t, "active", "power on", nil)
		if err := r.m.SetHostPower(ctx, r.req(), lifecycle.PowerOpOff, lifecycle.PowerHard); err != nil {
			t.Fatal(err)
		}
		if got, want := r.powerTargets(), []string{"power off"}; !slices.Equal(got, want) {
			t.Errorf("power targets %q, want %q", got, want)
		}
	})
	t.Run("cycle", func(t *testing.T) {
		r := newActionRig(t, "active", "power on", nil)
		if err := r.m.SetHostPower(ctx, r.req(), lifecycle.PowerOpCycle, lifecycle.PowerHard); err != nil {
			t.Fatal(err)
		}
		if got, want := r.powerTargets(), []string{"power off", "power on"}; !slices.Equal(got, want) {
			t.Errorf("power targets %q, want %q", got, want)
		}
	})
	t.Run("cycle of an off host powers it on", func(t *testing.T) {
		r := newActionRig(t, "available", "power off", nil)
		if err := r.m.SetHostPower(ctx, r.req(), lifecycle.PowerOpCycle, lifecycle.PowerHard); err != nil {
			t.Fatal(err)
		}
		if got, want := r.powerTargets(), []string{"power on"}; !slices.Equal(got, want) {
			t.Errorf("power targets %q, want %q", got, want)
		}
	})
	t.Run("power on fails with last_error", func(t *testing.T) {
		r := newActionRig(t, "available", "power off", nil)
		r.m.Wait = failEveryWait{r.srv, r.id}
		err := r.m.SetHostPower(ctx, r.req(), lifecycle.PowerOpOn, lifecycle.PowerSoft)
		hostError(t, err, "available", "power on", "power management error", "last_error: PowerOn operation failed: Failed to set node power state: Redfish exception: the BMC is on fire")
		r.saidAll("act-1: power management error: PowerOn operation failed")
	})
}

// The power action refuses what would contradict the online a
// baremetal_host keeps (recorded on the node), and powering off a host
// whose power off is disabled.
func TestFakeActionPowerRefusals(t *testing.T) {
	extra := func(setting string) func(n *nodes.Node) {
		return func(n *nodes.Node) { n.Extra = map[string]any{lifecycle.OnlineSettingKey: setting} }
	}
	for name, tc := range map[string]struct {
		ps, power string
		edit      func(n *nodes.Node)
		op        lifecycle.PowerOp
		state     string
		want      string // "" allowed
	}{
		"off, kept on":               {"active", "power on", extra("true"), lifecycle.PowerOpOff, "provisioned", "keeps it powered on (online = true)"},
		"on, kept off":               {"available", "power off", extra("false"), lifecycle.PowerOpOn, "available", "keeps it powered off (online = false)"},
		"cycle, kept off by default": {"available", "power off", extra(lifecycle.OnlineSettingUnset), lifecycle.PowerOpCycle, "available", "keeps it powered off"},
		"off, power off disabled":    {"active", "power on", func(n *nodes.Node) { n.DisablePowerOff = true }, lifecycle.PowerOpOff, "provisioned", "disable_power_off"},
		"off, deployed online unset": {"active", "power on", extra(lifecycle.OnlineSettingUnset), lifecycle.PowerOpOff, "", ""},
		"on, no baremetal_host":      {"available", "power off", nil, lifecycle.PowerOpOn, "", ""},
	} {
		t.Run(name, func(t *testing.T) {
			r := newActionRig(t, tc.ps, tc.power, tc.edit)
			err := r.m.SetHostPower(context.Background(), r.req(), tc.op, lifecycle.PowerSoft)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			hostError(t, err, tc.state, "power "+string(tc.op), tc.want)
			if calls := r.srv.Calls(); len(calls) != 0 {
				t.Errorf("a refused power action wrote %q", calls)
			}
		})
	}
}

func TestFakeActionBootOnce(t *testing.T) {
	r := newActionRig(t, "active", "power on", nil)
	r.srv.NodeLocked(http.MethodPut, "/management/boot_device", 6)
	if err := r.m.BootHostOnce(context.Background(), r.req(), "cd", lifecycle.PowerSoft); err != nil {
		t.Fatal(err)
	}
	if got := r.srv.BootDevices(r.id); len(got) != 1 || got[0] != (ironictest.BootDevice{Device: "cdrom"}) {
		t.Errorf("boot devices %+v, want cdrom once", got)
	}
	if got, want := r.powerTargets(), []string{"soft power off", "power on"}; !slices.Equal(got, want) {
		t.Errorf("power targets %q, want %q", got, want)
	}
	r.saidAll("setting the next boot device to cdrom (once)", "soft reboot to boot from cd", "booting from cd")

	// Off, kept off by its baremetal_host: refused before anything is set.
	r = newActionRig(t, "available", "power off", func(n *nodes.Node) {
		n.Extra = map[string]any{lifecycle.OnlineSettingKey: "false"}
	})
	err := r.m.BootHostOnce(context.Background(), r.req(), "pxe", lifecycle.PowerSoft)
	hostError(t, err, "available", "boot once from pxe", "keeps it off")
	if len(r.srv.Calls()) != 0 {
		t.Errorf("wrote %q", r.srv.Calls())
	}

	// Off and not kept: set, then powered on.
	r = newActionRig(t, "available", "power off", nil)
	if err := r.m.BootHostOnce(context.Background(), r.req(), "pxe", lifecycle.PowerHard); err != nil {
		t.Fatal(err)
	}
	if got, want := r.powerTargets(), []string{"power on"}; !slices.Equal(got, want) {
		t.Errorf("power targets %q, want %q", got, want)
	}
}

func TestFakeActionInspect(t *testing.T) {
	r := newActionRig(t, "available", "power off", nil)
	// The capacity gate is full: the inspection waits for the slot.
	r.m.Gate = lifecycle.NewGate(1)
	r.m.Gate.TryAcquire("someone-else")
	done := make(chan error, 1)
	go func() { done <- r.m.InspectHost(context.Background(), r.req()) }()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(strings.Join(r.lines(), "\n"), "waiting for a provisioning slot") {
		if time.Now().After(deadline) {
			t.Fatal("the inspection did not wait for the capacity gate")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if r.srv.Count(http.MethodPut, "/states/provision") != 0 {
		t.Fatalf("inspection started without a slot: %q", r.srv.Calls())
	}
	r.m.Gate.Release("someone-else")
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	n := r.node()
	if n.ProvisionState != "available" || n.InspectionFinishedAt == nil {
		t.Errorf("node %q, inspected at %v", n.ProvisionState, n.InspectionFinishedAt)
	}
	var verbs []string
	for _, q := range r.srv.Requests() {
		if strings.HasSuffix(q.Path, "/states/provision") {
			verbs = append(verbs, between(q.Body, `"target":"`, `"`))
		}
	}
	if want := []string{"manage", "inspect", "provide"}; !slices.Equal(verbs, want) {
		t.Errorf("verbs %q, want %q", verbs, want)
	}
	r.saidAll("inspection requested", "available -> inspecting", "inspecting -> preparing", "act-1: inspected, available")
	if r.m.Gate.Busy() != 0 {
		t.Errorf("the inspection left %d slots taken", r.m.Gate.Busy())
	}
}

func TestFakeActionInspectFailsAndRefuses(t *testing.T) {
	// A manageable host is inspected from where it is; a failed
	// inspection names Ironic's last_error.
	r := newActionRig(t, "manageable", "power off", nil)
	r.srv.FailNext(r.id, "inspection timed out")
	err := r.m.InspectHost(context.Background(), r.req())
	hostError(t, err, "inspecting", "inspect", "inspection error", "last_error: inspection timed out")

	r = newActionRig(t, "active", "power on", nil)
	err = r.m.InspectHost(context.Background(), r.req())
	hostError(t, err, "provisioned", "inspect", "needs an available or manageable host")
	if len(r.srv.Calls()) != 0 {
		t.Errorf("wrote %q", r.srv.Calls())
	}
}

func TestFakeActionCleanSteps(t *testing.T) {
	steps := []lifecycle.ManualStep{
		{Interface: "raid", Step: "delete_configuration"},
		{Interface: "deploy", Step: "erase_devices_metadata", Args: map[string]any{"force": true}},
	}
	r := newActionRig(t, "available", "power off", nil)
	if err := r.m.RunHostSteps(context.Background(), r.req(), steps); err != nil {
		t.Fatal(err)
	}
	got := r.srv.Steps(r.id)
	if len(got) != 1 || len(got[0]) != 2 || got[0][0]["step"] != "delete_configuration" || got[0][1]["interface"] != "deploy" {
		t.Fatalf("steps run %v", got)
	}
	if n := r.node(); n.ProvisionState != "available" {
		t.Errorf("node %q after the steps", n.ProvisionState)
	}
	r.saidAll("manual cleaning of the available host with raid.delete_configuration, deploy.erase_devices_metadata", "steps done, the host is available")

	// A failed cleaning names last_error.
	r = newActionRig(t, "manageable", "power off", nil)
	r.srv.FailNext(r.id, "disk 3 would not erase")
	err := r.m.RunHostSteps(context.Background(), r.req(), steps)
	hostError(t, err, "preparing", "clean", "preparation error", "last_error: disk 3 would not erase")

	// Bad steps are refused before anything is read.
	err = r.m.RunHostSteps(context.Background(), r.req(), []lifecycle.ManualStep{{Interface: "BIOS", Step: "x"}})
	if err == nil || !strings.Contains(err.Error(), `interface "BIOS"`) {
		t.Errorf("bad steps: %v", err)
	}
}

func TestFakeActionServiceSteps(t *testing.T) {
	steps := []lifecycle.ManualStep{{Interface: "bios", Step: "apply_configuration", Args: map[string]any{"settings": []any{}}}}
	// Ironic 1.82: no servicing.
	r := newActionRig(t, "active", "power on", nil)
	err := r.m.RunHostSteps(context.Background(), r.req(), steps)
	hostError(t, err, "provisioned", "service", "servicing")
	if r.srv.Count(http.MethodPut, "/states/provision") != 0 {
		t.Errorf("wrote %q", r.srv.Calls())
	}

	p, srv := onFakeAt(t, "1.87")
	id := srv.AddNode(nodesNode("act-1", "active", ""))
	srv.UpdateNode(id, func(n *nodes.Node) { n.PowerState = "power on" })
	m := &lifecycle.Machine{Prov: p, Wait: instantWaiter{}, Rand: func() float64 { return 0 }}
	if err := m.RunHostSteps(context.Background(), lifecycle.ActionRequest{Ref: "act-1"}, steps); err != nil {
		t.Fatal(err)
	}
	if got := srv.Steps(id); len(got) != 1 || got[0][0]["step"] != "apply_configuration" {
		t.Errorf("service steps %v", got)
	}
	if n := srv.MustNode(id); n.ProvisionState != "active" {
		t.Errorf("node %q after servicing", n.ProvisionState)
	}
	// A failed servicing names last_error.
	srv.FailNext(id, "BIOS refused the settings")
	err = m.RunHostSteps(context.Background(), lifecycle.ActionRequest{Ref: "act-1"}, steps)
	var he *lifecycle.HostError
	if !errors.As(err, &he) || he.Verb != "service" || !strings.Contains(err.Error(), "last_error: BIOS refused the settings") {
		t.Errorf("failed servicing: %v", err)
	}
}

// onFakeAt is onFake with the fake (and the client) at microversion mv.
func onFakeAt(t *testing.T, mv string) (*Provisioner, *ironictest.Server) {
	t.Helper()
	srv := ironictest.New(t)
	srv.MaxMicroversion = mv
	p := NewProvisioner(fwClient(t, srv, mv), nil, WithJitter(0, nil))
	return p, srv
}

// fakeBMC is a BMC that comes back after down checks.
type fakeBMC struct {
	resets []string
	down   int
	err    error
}

func (b *fakeBMC) ResetBMC(_ context.Context, _ lifecycle.BMCAccess, resetType string) error {
	b.resets = append(b.resets, resetType)
	return b.err
}

func (b *fakeBMC) CheckBMC(context.Context, lifecycle.BMCAccess) error {
	if b.down > 0 {
		b.down--
		return errors.New("connection refused")
	}
	return nil
}

func TestFakeActionBMCReset(t *testing.T) {
	r := newActionRig(t, "active", "power on", nil)
	bmc := &fakeBMC{down: 2}
	if err := r.m.ResetHostBMC(context.Background(), r.req(), bmc, lifecycle.BMCAccess{}, "GracefulRestart"); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(bmc.resets, []string{"GracefulRestart"}) {
		t.Errorf("resets %q", bmc.resets)
	}
	r.saidAll("GracefulRestart of its BMC requested", "waiting for the BMC to come back", "the BMC answers again")

	bmc = &fakeBMC{err: errors.New("Manager.Reset: HTTP 400: ResetType ForceRestart is not allowed")}
	err := r.m.ResetHostBMC(context.Background(), r.req(), bmc, lifecycle.BMCAccess{}, "ForceRestart")
	hostError(t, err, "provisioned", "BMC reset", "ForceRestart is not allowed")

	r = newActionRig(t, "cleaning", "power on", func(n *nodes.Node) { n.TargetProvisionState = "available" })
	err = r.m.ResetHostBMC(context.Background(), r.req(), &fakeBMC{}, lifecycle.BMCAccess{}, "GracefulRestart")
	hostError(t, err, "available", "BMC reset", `moving the node to "available"`)
}
