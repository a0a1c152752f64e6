package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

type stepCase struct {
	name      string
	host      func() *Host
	script    func(f *fakeProv)
	wantKind  StepKind
	wantState State
	wantErr   ErrorType
	// wantCalls is the comma-separated list of provisioner calls; "-"
	// means none.
	wantCalls string
	check     func(t *testing.T, h *Host, r StepResult, f *fakeProv)
}

func runStepCases(t *testing.T, cases []stepCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv()
			h := tc.host()
			if tc.script != nil {
				tc.script(e.prov)
			}
			r := e.m.Step(context.Background(), h)
			if r.Kind != tc.wantKind {
				t.Errorf("kind = %v, want %v (err %v)", r.Kind, tc.wantKind, r.Err)
			}
			if h.Status.State != tc.wantState {
				t.Errorf("state = %q, want %q", h.Status.State, tc.wantState)
			}
			if r.To != h.Status.State {
				t.Errorf("r.To = %q, want %q", r.To, h.Status.State)
			}
			if h.Status.ErrorType != tc.wantErr {
				t.Errorf("errorType = %q, want %q", h.Status.ErrorType, tc.wantErr)
			}
			calls := e.prov.methods()
			if tc.wantCalls == "-" {
				tc.wantCalls = ""
			}
			if calls != tc.wantCalls {
				t.Errorf("calls = %q, want %q", calls, tc.wantCalls)
			}
			if tc.check != nil {
				tc.check(t, h, r, e.prov)
			}
		})
	}
}

// restarted checks a table case's first call of method: a restart
// (restartOnFailure, or force for power), else the error msg.
func restarted(method, msg string) func(*testing.T, *Host, StepResult, *fakeProv) {
	return func(t *testing.T, _ *Host, _ StepResult, f *fakeProv) {
		if !f.callsTo(method)[0].Restart {
			t.Error(msg)
		}
	}
}

func withHost(st State, mod func(h *Host)) func() *Host {
	return func() *Host {
		h := newHost(st)
		if mod != nil {
			mod(h)
		}
		return h
	}
}

func noBMC(h *Host) { h.Spec.BMC = BMCAccess{} }

func wantCount(n int) func(t *testing.T, h *Host, r StepResult, f *fakeProv) {
	return func(t *testing.T, h *Host, _ StepResult, _ *fakeProv) {
		t.Helper()
		if h.Status.ErrorCount != n {
			t.Errorf("errorCount = %d, want %d", h.Status.ErrorCount, n)
		}
	}
}

func TestStateTable(t *testing.T) {
	transient := errors.New("connection refused")
	runStepCases(t, []stepCase{
		// none (SM hostStateMachine.handleNone)
		{name: "none with BMC -> registering", host: withHost(StateNone, nil),
			wantKind: StepComplete, wantState: StateRegistering, wantCalls: "-"},
		{name: "none without BMC -> unmanaged, discovered", host: withHost(StateNone, noBMC),
			wantKind: StepComplete, wantState: StateUnmanaged, wantCalls: "-",
			check: func(t *testing.T, h *Host, _ StepResult, _ *fakeProv) {
				if h.Status.OperationalStatus != OperationalDiscovered {
					t.Errorf("opStatus = %q", h.Status.OperationalStatus)
				}
			}},
		// unmanaged
		{name: "unmanaged without BMC is steady", host: withHost(StateUnmanaged, noBMC),
			wantKind: StepSteady, wantState: StateUnmanaged, wantCalls: "-",
			check: func(t *testing.T, _ *Host, r StepResult, _ *fakeProv) {
				if r.Requeue != 10*time.Minute {
					t.Errorf("requeue = %v", r.Requeue)
				}
			}},
		{name: "unmanaged with BMC -> registering", host: withHost(StateUnmanaged, func(h *Host) { h.Status.OperationalStatus = OperationalDiscovered }),
			wantKind: StepComplete, wantState: StateRegistering, wantCalls: "-",
			check: func(t *testing.T, h *Host, _ StepResult, _ *fakeProv) {
				if h.Status.OperationalStatus != OperationalOK {
					t.Errorf("opStatus = %q", h.Status.OperationalStatus)
				}
			}},
		// registering (SM hostStateMachine.handleRegistering)
		{name: "registering -> inspecting", host: withHost(StateRegistering, func(h *Host) { h.Status.ErrorCount = 2 }),
			wantKind: StepComplete, wantState: StateInspecting, wantCalls: "Register", check: wantCount(0)},
		{name: "registering externally provisioned -> externally provisioned",
			host:     withHost(StateRegistering, func(h *Host) { h.Spec.ExternallyProvisioned = true }),
			wantKind: StepComplete, wantState: StateExternallyProvisioned, wantCalls: "Register"},
		{name: "registering inspection disabled -> preparing",
			host:     withHost(StateRegistering, func(h *Host) { h.Spec.InspectionDisabled = true }),
			wantKind: StepComplete, wantState: StatePreparing, wantCalls: "Register"},
		{name: "registering failure -> registration error",
			host:     withHost(StateRegistering, nil),
			script:   func(f *fakeProv) { f.on("Register", provReply{res: Result{ErrorMessage: "bad creds"}, id: "node-9"}) },
			wantKind: StepFailed, wantState: StateRegistering, wantErr: RegistrationError, wantCalls: "Register",
			check: func(t *testing.T, h *Host, r StepResult, _ *fakeProv) {
				if h.Status.ErrorCount != 1 || h.Status.ErrorMessage != "bad creds" || h.Status.OperationalStatus != OperationalError {
					t.Errorf("status = %+v", h.Status)
				}
				if r.Requeue < time.Minute || r.Requeue > 2*time.Minute {
					t.Errorf("requeue = %v", r.Requeue)
				}
			}},
		{name: "registering busy continues", host: withHost(StateRegistering, nil),
			script:   func(f *fakeProv) { f.on("Register", busyManage) },
			wantKind: StepContinue, wantState: StateRegistering, wantCalls: "Register",
			check: func(t *testing.T, _ *Host, r StepResult, _ *fakeProv) {
				if r.Requeue != 3*time.Second || r.Result.Verb != "manage" {
					t.Errorf("r = %+v", r)
				}
			}},
		{name: "registering transient error", host: withHost(StateRegistering, nil),
			script:   func(f *fakeProv) { f.on("Register", provReply{err: transient}) },
			wantKind: StepError, wantState: StateRegistering, wantCalls: "Register",
			check: func(t *testing.T, _ *Host, r StepResult, _ *fakeProv) {
				if !errors.Is(r.Err, transient) {
					t.Errorf("err = %v", r.Err)
				}
			}},
		{name: "registering without BMC -> unmanaged, discovered", host: withHost(StateRegistering, noBMC),
			wantKind: StepComplete, wantState: StateUnmanaged, wantCalls: "-",
			check: func(t *testing.T, h *Host, _ StepResult, _ *fakeProv) {
				if h.Status.OperationalStatus != OperationalDiscovered {
					t.Errorf("opStatus = %q", h.Status.OperationalStatus)
				}
			}},
		{name: "registering with new credentials pushes them", host: withHost(StateRegistering, func(h *Host) { h.Status.GoodCredentials = "v0" }),
			wantKind: StepComplete, wantState: StateInspecting, wantCalls: "Register",
			check: func(t *testing.T, h *Host, _ StepResult, f *fakeProv) {
				if c := f.callsTo("Register")[0]; !c.Creds {
					t.Errorf("credentialsChanged = false")
				}
				if h.Status.GoodCredentials != "v1" {
					t.Errorf("goodCredentials = %q", h.Status.GoodCredentials)
				}
			}},
		// inspecting (SM hostStateMachine.handleInspecting)
		{name: "inspecting -> preparing", host: withHost(StateInspecting, nil),
			wantKind: StepComplete, wantState: StatePreparing, wantCalls: "Register,Inspect",
			check: func(t *testing.T, h *Host, _ StepResult, _ *fakeProv) {
				if h.Status.HardwareDetails == nil || h.Status.HardwareDetails.CPUCount != 4 {
					t.Errorf("hardware = %+v", h.Status.HardwareDetails)
				}
			}},
		{name: "inspecting failure -> inspection error", host: withHost(StateInspecting, nil),
			script:   func(f *fakeProv) { f.on("Inspect", failMsg("inspect failed")) },
			wantKind: StepFailed, wantState: StateInspecting, wantErr: InspectionError, wantCalls: "Register,Inspect"},
		{name: "inspecting busy waits 10s by default", host: withHost(StateInspecting, nil),
			script:   func(f *fakeProv) { f.on("Inspect", busy10) },
			wantKind: StepContinue, wantState: StateInspecting, wantCalls: "Register,Inspect",
			check: func(t *testing.T, _ *Host, r StepResult, _ *fakeProv) {
				if r.Requeue != 10*time.Second {
					t.Errorf("requeue = %v", r.Requeue)
				}
			}},
		{name: "inspecting disabled -> preparing without inspecting",
			host:     withHost(StateInspecting, func(h *Host) { h.Spec.InspectionDisabled = true }),
			wantKind: StepComplete, wantState: StatePreparing, wantCalls: "Register"},
		{name: "inspecting on request refreshes and clears the request",
			host:     withHost(StateInspecting, func(h *Host) { h.InspectRequested = true }),
			script:   func(f *fakeProv) { f.on("Inspect", provReply{res: Result{Dirty: true}, started: true}) },
			wantKind: StepContinue, wantState: StateInspecting, wantCalls: "Register,Inspect",
			check: func(t *testing.T, h *Host, _ StepResult, f *fakeProv) {
				if !f.callsTo("Inspect")[0].Refresh || h.InspectRequested {
					t.Errorf("refresh not passed or request not cleared")
				}
			}},
		// preparing (SM hostStateMachine.handlePreparing)
		{name: "preparing -> available", host: withHost(StatePreparing, func(h *Host) { h.Status.ErrorCount = 1 }),
			wantKind: StepComplete, wantState: StateAvailable, wantCalls: "Register,Prepare",
			check: func(t *testing.T, h *Host, _ StepResult, f *fakeProv) {
				if c := f.callsTo("Prepare")[0]; c.Unprepared || c.Restart {
					t.Errorf("prepare call = %+v", c)
				}
				wantCount(0)(t, h, StepResult{}, f)
			}},
		{name: "preparing with new hints starts cleaning and records them",
			host: withHost(StatePreparing, func(h *Host) {
				h.Spec.RootDeviceHints = &RootDeviceHints{DeviceName: "/dev/sdb"}
				h.Spec.FirmwareSettings = map[string]string{"SriovGlobalEnable": "Enabled"}
			}),
			script:   func(f *fakeProv) { f.on("Prepare", provReply{res: Result{Dirty: true, Verb: "clean"}, started: true}) },
			wantKind: StepUpdate, wantState: StatePreparing, wantCalls: "Register,Prepare",
			check: func(t *testing.T, h *Host, _ StepResult, f *fakeProv) {
				if !f.callsTo("Prepare")[0].Unprepared {
					t.Errorf("unprepared = false")
				}
				if h.Status.PreparedRootDeviceHints == nil || h.Status.PreparedRootDeviceHints.DeviceName != "/dev/sdb" ||
					h.Status.AppliedFirmware["SriovGlobalEnable"] != "Enabled" {
					t.Errorf("settings not recorded: %+v", h.Status)
				}
			}},
		{name: "preparing failure -> preparation error, settings forgotten",
			host: withHost(StatePreparing, func(h *Host) {
				h.Spec.RootDeviceHints = &RootDeviceHints{DeviceName: "/dev/sdb"}
				h.Status.PreparedRootDeviceHints = &RootDeviceHints{DeviceName: "/dev/sdb"}
			}),
			script:   func(f *fakeProv) { f.on("Prepare", failMsg("clean failed")) },
			wantKind: StepFailed, wantState: StatePreparing, wantErr: PreparationError, wantCalls: "Register,Prepare",
			check: func(t *testing.T, h *Host, _ StepResult, _ *fakeProv) {
				if h.Status.PreparedRootDeviceHints != nil {
					t.Errorf("hints kept after failure")
				}
			}},
		{name: "preparing retry re-applies and keeps the error until cleaning starts",
			host: withHost(StatePreparing, func(h *Host) {
				h.Status.ErrorType, h.Status.ErrorCount = PreparationError, 1
			}),
			script:   func(f *fakeProv) { f.on("Prepare", provReply{res: Result{Dirty: true, Verb: "manage"}}) },
			wantKind: StepContinue, wantState: StatePreparing, wantErr: PreparationError, wantCalls: "Register,Prepare",
			check: func(t *testing.T, _ *Host, _ StepResult, f *fakeProv) {
				if c := f.callsTo("Prepare")[0]; !c.Unprepared || !c.Restart {
					t.Errorf("prepare call = %+v", c)
				}
			}},
		{name: "preparing transient error", host: withHost(StatePreparing, nil),
			script:   func(f *fakeProv) { f.on("Prepare", provReply{err: transient}) },
			wantKind: StepError, wantState: StatePreparing, wantCalls: "Register,Prepare"},
		// provisioning (SM hostStateMachine.imageProvisioningCancelled)
		{name: "provisioning -> provisioned",
			host: withHost(StateProvisioning, func(h *Host) {
				h.Spec.Image = testImage("http://img/a")
				h.Status.ProvisioningFailCount = 2
				h.Status.LastAttemptedImage = "http://img/a"
			}),
			wantKind: StepComplete, wantState: StateProvisioned, wantCalls: "Register,Provision",
			check: func(t *testing.T, h *Host, _ StepResult, f *fakeProv) {
				if imageURL(h.Status.DeployedImage) != "http://img/a" || h.Status.ProvisioningFailCount != 0 ||
					h.Status.LastAttemptedImage != "http://img/a" {
					t.Errorf("status = %+v", h.Status)
				}
				if h.Status.DeployedImage == h.Spec.Image {
					t.Errorf("deployed image aliases the spec")
				}
				if f.callsTo("Provision")[0].Restart {
					t.Errorf("restartOnFailure on a first attempt")
				}
			}},
		{name: "provisioning failure -> provisioning error",
			host:     withHost(StateProvisioning, func(h *Host) { h.Spec.Image = testImage("http://img/a") }),
			script:   func(f *fakeProv) { f.on("Provision", failMsg("Image provisioning failed")) },
			wantKind: StepFailed, wantState: StateProvisioning, wantErr: ProvisioningError, wantCalls: "Register,Provision",
			check: func(t *testing.T, _ *Host, r StepResult, _ *fakeProv) {
				if r.Result.Verb != "deploy" || r.Result.ProvisionState != "deploy failed" {
					t.Errorf("result = %+v", r.Result)
				}
			}},
		{name: "provisioning with an error -> deprovisioning, fail count up",
			host: withHost(StateProvisioning, func(h *Host) {
				h.Spec.Image = testImage("http://img/a")
				h.Status.ErrorType, h.Status.ErrorCount = ProvisioningError, 1
			}),
			wantKind: StepComplete, wantState: StateDeprovisioning, wantErr: ProvisioningError, wantCalls: "Register",
			check: func(t *testing.T, h *Host, _ StepResult, _ *fakeProv) {
				if h.Status.ProvisioningFailCount != 1 {
					t.Errorf("provisioningFailCount = %d", h.Status.ProvisioningFailCount)
				}
			}},
		{name: "provisioning cancelled -> deprovisioning",
			host:     withHost(StateProvisioning, nil),
			wantKind: StepComplete, wantState: StateDeprovisioning, wantCalls: "Register",
			check: func(t *testing.T, h *Host, _ StepResult, _ *fakeProv) {
				if h.Status.ProvisioningFailCount != 0 {
					t.Errorf("provisioningFailCount = %d", h.Status.ProvisioningFailCount)
				}
			}},
		// provisioned (SM hostStateMachine.handleProvisioned)
		{name: "provisioned steady: adopt and power", host: func() *Host { return provisionedHost("http://img/a") },
			wantKind: StepSteady, wantState: StateProvisioned, wantCalls: "Register,Adopt,PowerOn",
			check: func(t *testing.T, _ *Host, r StepResult, _ *fakeProv) {
				if r.Requeue != time.Minute {
					t.Errorf("requeue = %v", r.Requeue)
				}
			}},
		{name: "provisioned image changed -> deprovisioning",
			host: func() *Host {
				h := provisionedHost("http://img/a")
				h.Spec.Image = testImage("http://img/b")
				return h
			},
			wantKind: StepComplete, wantState: StateDeprovisioning, wantCalls: "Register"},
		{name: "provisioned image removed -> deprovisioning",
			host: func() *Host {
				h := provisionedHost("http://img/a")
				h.Spec.Image = nil
				return h
			},
			wantKind: StepComplete, wantState: StateDeprovisioning, wantCalls: "Register"},
		{name: "provisioned custom deploy changed -> deprovisioning",
			host: func() *Host {
				h := provisionedHost("")
				h.Spec.Image, h.Status.DeployedImage = nil, nil
				h.Spec.CustomDeploy, h.Status.DeployedCustomDeploy = "install_b", "install_a"
				return h
			},
			wantKind: StepComplete, wantState: StateDeprovisioning, wantCalls: "Register"},
		{name: "provisioned custom deploy removed -> deprovisioning",
			host: func() *Host {
				h := provisionedHost("http://img/a")
				h.Status.DeployedCustomDeploy = "install_a"
				return h
			},
			wantKind: StepComplete, wantState: StateDeprovisioning, wantCalls: "Register"},
		{name: "provisioned custom deploy unchanged is steady",
			host: func() *Host {
				h := provisionedHost("http://img/a")
				h.Spec.CustomDeploy, h.Status.DeployedCustomDeploy = "install_a", "install_a"
				return h
			},
			wantKind: StepSteady, wantState: StateProvisioned, wantCalls: "Register,Adopt,PowerOn"},
		{name: "provisioned adopt failure -> provisioned registration error",
			host:     func() *Host { return provisionedHost("http://img/a") },
			script:   func(f *fakeProv) { f.on("Adopt", failMsg("adopt failed")) },
			wantKind: StepFailed, wantState: StateProvisioned, wantErr: ProvisionedRegistrationError, wantCalls: "Register,Adopt"},
		{name: "provisioned power failure -> power management error",
			host:     func() *Host { return provisionedHost("http://img/a") },
			script:   func(f *fakeProv) { f.on("PowerOn", failMsg("power on failed")) },
			wantKind: StepFailed, wantState: StateProvisioned, wantErr: PowerManagementError, wantCalls: "Register,Adopt,PowerOn"},
		{name: "provisioned offline powers off softly",
			host: func() *Host {
				h := provisionedHost("http://img/a")
				h.Spec.Online = false
				return h
			},
			wantKind: StepSteady, wantState: StateProvisioned, wantCalls: "Register,Adopt,PowerOff",
			check: func(t *testing.T, h *Host, _ StepResult, f *fakeProv) {
				if c := f.callsTo("PowerOff")[0]; c.Mode != PowerSoft || c.Restart {
					t.Errorf("power off call = %+v", c)
				}
				if h.Status.PoweredOn {
					t.Errorf("poweredOn = true")
				}
			}},
		{name: "provisioned soft power off failure is clarified",
			host: func() *Host {
				h := provisionedHost("http://img/a")
				h.Spec.Online = false
				return h
			},
			script:   func(f *fakeProv) { f.on("PowerOff", failMsg("timeout")) },
			wantKind: StepFailed, wantState: StateProvisioned, wantErr: PowerManagementError, wantCalls: "Register,Adopt,PowerOff",
			check: func(t *testing.T, h *Host, _ StepResult, _ *fakeProv) {
				if h.Status.ErrorMessage != clarifySoftPoweroffFailure+"timeout" {
					t.Errorf("message = %q", h.Status.ErrorMessage)
				}
			}},
		{name: "provisioned power off after an error is hard and forced",
			host: func() *Host {
				h := provisionedHost("http://img/a")
				h.Spec.Online = false
				h.Status.ErrorType, h.Status.ErrorCount, h.Status.ErrorMessage = PowerManagementError, 1, "x"
				return h
			},
			wantKind: StepSteady, wantState: StateProvisioned, wantCalls: "Register,Adopt,PowerOff",
			check: func(t *testing.T, h *Host, _ StepResult, f *fakeProv) {
				if c := f.callsTo("PowerOff")[0]; c.Mode != PowerHard || !c.Restart {
					t.Errorf("power off call = %+v", c)
				}
				if h.Status.ErrorCount != 0 || h.Status.ErrorMessage != "" || h.Status.OperationalStatus != OperationalOK {
					t.Errorf("error not reset on power success: %+v", h.Status)
				}
			}},
		{name: "provisioned power change in progress",
			host: func() *Host { return provisionedHost("http://img/a") },
			script: func(f *fakeProv) {
				f.on("PowerOn", provReply{res: Result{Dirty: true, RequeueAfter: 3 * time.Second, Verb: "power on"}})
			},
			wantKind: StepContinue, wantState: StateProvisioned, wantCalls: "Register,Adopt,PowerOn"},
		// externally provisioned (SM hostStateMachine.handleExternallyProvisioned)
		{name: "externally provisioned steady",
			host:     withHost(StateExternallyProvisioned, func(h *Host) { h.Spec.ExternallyProvisioned = true }),
			wantKind: StepSteady, wantState: StateExternallyProvisioned, wantCalls: "Register,Adopt,PowerOn",
			check: func(t *testing.T, h *Host, _ StepResult, _ *fakeProv) {
				if !h.Status.PoweredOn {
					t.Errorf("poweredOn = false")
				}
			}},
		{name: "externally provisioned adopt failure",
			host:     withHost(StateExternallyProvisioned, func(h *Host) { h.Spec.ExternallyProvisioned = true }),
			script:   func(f *fakeProv) { f.on("Adopt", failMsg("adopt failed")) },
			wantKind: StepFailed, wantState: StateExternallyProvisioned, wantErr: ProvisionedRegistrationError, wantCalls: "Register,Adopt"},
		{name: "externally provisioned cleared -> provisioned with the spec image",
			host: withHost(StateExternallyProvisioned, func(h *Host) {
				h.Spec.Image = testImage("http://img/a")
				h.Spec.CustomDeploy = "install"
			}),
			wantKind: StepComplete, wantState: StateProvisioned, wantCalls: "Register",
			check: func(t *testing.T, h *Host, _ StepResult, _ *fakeProv) {
				if imageURL(h.Status.DeployedImage) != "http://img/a" || h.Status.DeployedCustomDeploy != "install" {
					t.Errorf("status = %+v", h.Status)
				}
			}},
		// deprovisioning (SM hostStateMachine.handleDeprovisioning)
		{name: "deprovisioning -> available, image and hints cleared",
			host: func() *Host {
				h := provisionedHost("http://img/a")
				h.Status.State = StateDeprovisioning
				h.Status.DeployedCustomDeploy = "x"
				h.Status.PreparedRootDeviceHints = &RootDeviceHints{DeviceName: "/dev/sda"}
				h.Status.AppliedFirmware = map[string]string{"a": "b"}
				h.Status.ErrorCount = 2
				return h
			},
			wantKind: StepComplete, wantState: StateAvailable, wantCalls: "Register,Adopt,Deprovision",
			check: func(t *testing.T, h *Host, _ StepResult, _ *fakeProv) {
				s := h.Status
				if s.DeployedImage != nil || s.DeployedCustomDeploy != "" || s.PreparedRootDeviceHints != nil || s.AppliedFirmware != nil || s.ErrorCount != 0 {
					t.Errorf("status = %+v", s)
				}
			}},
		{name: "deprovisioning without an image skips adopt", host: withHost(StateDeprovisioning, nil),
			wantKind: StepComplete, wantState: StateAvailable, wantCalls: "Register,Deprovision"},
		{name: "deprovisioning failure -> provisioning error", host: withHost(StateDeprovisioning, nil),
			script:   func(f *fakeProv) { f.on("Deprovision", failMsg("Cleaning failed")) },
			wantKind: StepFailed, wantState: StateDeprovisioning, wantErr: ProvisioningError, wantCalls: "Register,Deprovision"},
		{name: "deprovisioning adopt failure -> provisioned registration error",
			host: func() *Host {
				h := provisionedHost("http://img/a")
				h.Status.State = StateDeprovisioning
				return h
			},
			script:   func(f *fakeProv) { f.on("Adopt", failMsg("adopt failed")) },
			wantKind: StepFailed, wantState: StateDeprovisioning, wantErr: ProvisionedRegistrationError, wantCalls: "Register,Adopt"},
		{name: "deprovisioning in progress", host: withHost(StateDeprovisioning, nil),
			script:   func(f *fakeProv) { f.on("Deprovision", busy10) },
			wantKind: StepContinue, wantState: StateDeprovisioning, wantCalls: "Register,Deprovision"},
		{name: "deprovisioning when deleting -> powering off before delete",
			host:     withHost(StateDeprovisioning, func(h *Host) { h.Deleting = true }),
			wantKind: StepComplete, wantState: StatePoweringOffBeforeDelete, wantCalls: "Register,Deprovision"},
		// powering off before delete (CTL BareMetalHostReconciler.actionPowerOffBeforeDeleting)
		{name: "powering off before delete -> deleting",
			host: withHost(StatePoweringOffBeforeDelete, func(h *Host) {
				h.Deleting, h.Status.PoweredOn = true, true
			}),
			wantKind: StepComplete, wantState: StateDeleting, wantCalls: "Register,PowerOff",
			check: func(t *testing.T, h *Host, _ StepResult, f *fakeProv) {
				if c := f.callsTo("PowerOff")[0]; c.Mode != PowerHard {
					t.Errorf("mode = %q", c.Mode)
				}
				if h.Status.PoweredOn {
					t.Errorf("poweredOn = true")
				}
			}},
		{name: "powering off before delete skipped with disablePowerOff",
			host: withHost(StatePoweringOffBeforeDelete, func(h *Host) {
				h.Deleting, h.Spec.DisablePowerOff = true, true
			}),
			wantKind: StepComplete, wantState: StateDeleting, wantCalls: "Register"},
		{name: "powering off before delete failure -> power management error",
			host:     withHost(StatePoweringOffBeforeDelete, func(h *Host) { h.Deleting = true }),
			script:   func(f *fakeProv) { f.on("PowerOff", failMsg("no power")) },
			wantKind: StepFailed, wantState: StatePoweringOffBeforeDelete, wantErr: PowerManagementError, wantCalls: "Register,PowerOff",
			check: func(t *testing.T, h *Host, _ StepResult, _ *fakeProv) {
				if strings.HasPrefix(h.Status.ErrorMessage, clarifySoftPoweroffFailure) {
					t.Errorf("hard power off failure was clarified as soft")
				}
			}},
		// deleting (CTL BareMetalHostReconciler.actionDeleting)
		{name: "deleting -> deleted", host: withHost(StateDeleting, func(h *Host) { h.Deleting = true }),
			wantKind: StepComplete, wantState: StateDeleted, wantCalls: "Delete"},
		{name: "deleting in progress", host: withHost(StateDeleting, func(h *Host) { h.Deleting = true }),
			script:   func(f *fakeProv) { f.on("Delete", busy10) },
			wantKind: StepContinue, wantState: StateDeleting, wantCalls: "Delete"},
		{name: "deleting with an error message retries", host: withHost(StateDeleting, func(h *Host) { h.Deleting = true }),
			script:   func(f *fakeProv) { f.on("Delete", failMsg("node locked")) },
			wantKind: StepError, wantState: StateDeleting, wantCalls: "Delete"},
		{name: "deleting transient error", host: withHost(StateDeleting, func(h *Host) { h.Deleting = true }),
			script:   func(f *fakeProv) { f.on("Delete", provReply{err: transient}) },
			wantKind: StepError, wantState: StateDeleting, wantCalls: "Delete"},
		{name: "deleted is steady", host: withHost(StateDeleted, func(h *Host) { h.Deleting = true }),
			wantKind: StepSteady, wantState: StateDeleted, wantCalls: "-"},
		{name: "unknown state is an error", host: withHost(State("match profile"), nil),
			wantKind: StepError, wantState: State("match profile"), wantCalls: "Register"},
	})
}

// TestAvailableChecks covers BMO's ordered checks in available
// (SM hostStateMachine.handleAvailable): each check wins over the ones after it.
func TestAvailableChecks(t *testing.T) {
	all := func(h *Host) {
		h.Spec.ExternallyProvisioned = true
		h.InspectRequested = true
		h.Spec.RootDeviceHints = &RootDeviceHints{DeviceName: "/dev/sdb"}
		h.Spec.Image = testImage("http://img/a")
	}
	runStepCases(t, []stepCase{
		{name: "1 externally provisioned first", host: withHost(StateAvailable, func(h *Host) {
			all(h)
			h.Status.PreparedRootDeviceHints = &RootDeviceHints{DeviceName: "/dev/sda"}
		}),
			wantKind: StepComplete, wantState: StateExternallyProvisioned, wantCalls: "Register",
			check: func(t *testing.T, h *Host, _ StepResult, _ *fakeProv) {
				if h.Status.PreparedRootDeviceHints != nil {
					t.Errorf("provisioning settings not cleared")
				}
			}},
		{name: "2 inspection request", host: withHost(StateAvailable, func(h *Host) {
			all(h)
			h.Spec.ExternallyProvisioned = false
		}),
			wantKind: StepComplete, wantState: StateInspecting, wantCalls: "Register"},
		{name: "3 root device hints changed", host: withHost(StateAvailable, func(h *Host) {
			all(h)
			h.Spec.ExternallyProvisioned, h.InspectRequested = false, false
		}),
			wantKind: StepComplete, wantState: StatePreparing, wantCalls: "Register"},
		{name: "3 firmware settings changed", host: withHost(StateAvailable, func(h *Host) {
			h.Spec.FirmwareSettings = map[string]string{"ProcVirtualization": "Enabled"}
			h.Status.AppliedFirmware = map[string]string{"ProcVirtualization": "Disabled"}
		}),
			wantKind: StepComplete, wantState: StatePreparing, wantCalls: "Register"},
		{name: "3 prepared hints unchanged", host: withHost(StateAvailable, func(h *Host) {
			rot := true
			h.Spec.RootDeviceHints = &RootDeviceHints{DeviceName: "/dev/sdb", Rotational: &rot}
			h.Status.PreparedRootDeviceHints = cloneHints(h.Spec.RootDeviceHints)
		}),
			wantKind: StepSteady, wantState: StateAvailable, wantCalls: "Register,Provide,PowerOn"},
		{name: "4 new image -> provisioning", host: withHost(StateAvailable, func(h *Host) {
			all(h)
			h.Spec.ExternallyProvisioned, h.InspectRequested, h.Spec.RootDeviceHints = false, false, nil
			h.Status.ErrorType, h.Status.ErrorCount = PowerManagementError, 2
		}),
			wantKind: StepComplete, wantState: StateProvisioning, wantCalls: "Register", check: wantCount(0)},
		{name: "4 new custom deploy -> provisioning", host: withHost(StateAvailable, func(h *Host) { h.Spec.CustomDeploy = "install" }),
			wantKind: StepComplete, wantState: StateProvisioning, wantCalls: "Register"},
		{name: "4 image but offline: power management", host: withHost(StateAvailable, func(h *Host) {
			h.Spec.Image = testImage("http://img/a")
			h.Spec.Online = false
		}),
			wantKind: StepSteady, wantState: StateAvailable, wantCalls: "Register,Provide,PowerOff"},
		{name: "5 steady: provide, then power", host: withHost(StateAvailable, nil),
			wantKind: StepSteady, wantState: StateAvailable, wantCalls: "Register,Provide,PowerOn"},
		{name: "5 provide in progress", host: withHost(StateAvailable, nil),
			script: func(f *fakeProv) {
				f.on("Provide", provReply{res: Result{Dirty: true, RequeueAfter: 3 * time.Second, Verb: "provide"}})
			},
			wantKind: StepContinue, wantState: StateAvailable, wantCalls: "Register,Provide"},
		{name: "5 provide failure -> provisioning error", host: withHost(StateAvailable, nil),
			script:   func(f *fakeProv) { f.on("Provide", failMsg("clean failed")) },
			wantKind: StepFailed, wantState: StateAvailable, wantErr: ProvisioningError, wantCalls: "Register,Provide"},
		{name: "no image resets the provisioning fail count", host: withHost(StateAvailable, func(h *Host) {
			h.Status.ProvisioningFailCount, h.Status.LastAttemptedImage = 3, "http://img/a"
		}),
			wantKind: StepSteady, wantState: StateAvailable, wantCalls: "Register,Provide,PowerOn",
			check: func(t *testing.T, h *Host, _ StepResult, _ *fakeProv) {
				if h.Status.ProvisioningFailCount != 0 || h.Status.LastAttemptedImage != "" {
					t.Errorf("status = %+v", h.Status)
				}
			}},
	})
}

func TestProvisioningRetryLimit(t *testing.T) {
	runStepCases(t, []stepCase{
		{name: "refused at the default limit (5)", host: failedOn("http://img/a", 5, 0),
			wantKind: StepFailed, wantState: StateAvailable, wantErr: ProvisioningError, wantCalls: "Register",
			check: func(t *testing.T, h *Host, _ StepResult, _ *fakeProv) {
				if !strings.Contains(h.Status.ErrorMessage, "retry limit (5)") {
					t.Errorf("message = %q", h.Status.ErrorMessage)
				}
			}},
		{name: "allowed under the limit", host: failedOn("http://img/a", 4, 0),
			wantKind: StepComplete, wantState: StateProvisioning, wantCalls: "Register",
			check: func(t *testing.T, h *Host, _ StepResult, _ *fakeProv) {
				if h.Status.ProvisioningFailCount != 4 {
					t.Errorf("count = %d", h.Status.ProvisioningFailCount)
				}
			}},
		{name: "custom limit", host: failedOn("http://img/a", 2, 2),
			wantKind: StepFailed, wantState: StateAvailable, wantErr: ProvisioningError, wantCalls: "Register"},
		{name: "reset when the image changes", host: failedOn("http://img/b", 5, 0),
			wantKind: StepComplete, wantState: StateProvisioning, wantCalls: "Register",
			check: func(t *testing.T, h *Host, _ StepResult, _ *fakeProv) {
				if h.Status.ProvisioningFailCount != 0 {
					t.Errorf("count = %d", h.Status.ProvisioningFailCount)
				}
			}},
	})
}

// failedOn is an available host to deploy image on, whose deployments of
// http://img/a failed count times; limit is its retry limit (0: default).
func failedOn(image string, count, limit int) func() *Host {
	return withHost(StateAvailable, func(h *Host) {
		h.Spec.Image = testImage(image)
		h.Spec.MaxProvisioningRetries = limit
		h.Status.ProvisioningFailCount, h.Status.LastAttemptedImage = count, "http://img/a"
	})
}

// TestDeleteInitiation covers SM hostStateMachine.checkInitiateDelete.
func TestDeleteInitiation(t *testing.T) {
	cases := []stepCase{}
	for _, st := range []State{StateNone, StateUnmanaged, StateRegistering} {
		cases = append(cases, stepCase{name: string(st) + " -> deleting", host: del(st, nil),
			wantKind: StepComplete, wantState: StateDeleting, wantCalls: "-"})
	}
	for _, st := range []State{StateProvisioning, StateProvisioned} {
		cases = append(cases, stepCase{name: string(st) + " -> deprovisioning", host: del(st, nil),
			wantKind: StepComplete, wantState: StateDeprovisioning, wantCalls: "-"})
	}
	for _, st := range []State{StateInspecting, StatePreparing, StateAvailable, StateExternallyProvisioned} {
		cases = append(cases, stepCase{name: string(st) + " -> powering off before delete", host: del(st, nil),
			wantKind: StepComplete, wantState: StatePoweringOffBeforeDelete, wantCalls: "-"})
	}
	cases = append(cases,
		stepCase{name: "deprovisioning continues", host: del(StateDeprovisioning, nil),
			wantKind: StepComplete, wantState: StatePoweringOffBeforeDelete, wantCalls: "Register,Deprovision"},
		stepCase{name: "powering off continues", host: del(StatePoweringOffBeforeDelete, nil),
			wantKind: StepComplete, wantState: StateDeleting, wantCalls: "Register,PowerOff"},
		stepCase{name: "deleting continues", host: del(StateDeleting, nil),
			wantKind: StepComplete, wantState: StateDeleted, wantCalls: "Delete"},
		stepCase{name: "detached host -> deleted, node left alone", host: del(StateProvisioned, func(h *Host) { h.Detached = true }),
			wantKind: StepComplete, wantState: StateDeleted, wantCalls: "-"},
		stepCase{name: "host with detached status -> deleted, node left alone", host: del(StateAvailable, func(h *Host) { h.Status.OperationalStatus = OperationalDetached }),
			wantKind: StepComplete, wantState: StateDeleted, wantCalls: "-"},
		stepCase{name: "not deleting: no initiation", host: withHost(StateRegistering, nil),
			wantKind: StepComplete, wantState: StateInspecting, wantCalls: "Register"},
	)
	runStepCases(t, cases)
}

// del is a host in state st that is being deleted, modified by mod.
func del(st State, mod func(h *Host)) func() *Host {
	return withHost(st, func(h *Host) {
		h.Deleting = true
		if mod != nil {
			mod(h)
		}
	})
}

// TestForwardProgress covers the delete rules of SM hostStateMachine.handleDeprovisioning, handlePoweringOffBeforeDelete.
func TestForwardProgress(t *testing.T) {
	errs := func(t ErrorType, n int) func(h *Host) {
		return func(h *Host) { h.Status.ErrorType, h.Status.ErrorCount = t, n }
	}
	notRegistered := provReply{err: fmt.Errorf("node gone: %w", ErrNotRegistered)}
	runStepCases(t, []stepCase{
		{name: "deprovisioning failure 4 -> powering off before delete", host: del(StateDeprovisioning, errs(ProvisioningError, 3)),
			script:   func(f *fakeProv) { f.on("Deprovision", failMsg("Cleaning failed")) },
			wantKind: StepComplete, wantState: StatePoweringOffBeforeDelete, wantErr: ProvisioningError, wantCalls: "Register,Deprovision",
			check: restarted("Deprovision", "deprovision retry without restartOnFailure")},
		{name: "deprovisioning failure 3 retries", host: del(StateDeprovisioning, errs(ProvisioningError, 2)),
			script:   func(f *fakeProv) { f.on("Deprovision", failMsg("Cleaning failed")) },
			wantKind: StepFailed, wantState: StateDeprovisioning, wantErr: ProvisioningError, wantCalls: "Register,Deprovision"},
		{name: "deprovisioning failure when not deleting retries", host: withHost(StateDeprovisioning, errs(ProvisioningError, 7)),
			script:   func(f *fakeProv) { f.on("Deprovision", failMsg("Cleaning failed")) },
			wantKind: StepFailed, wantState: StateDeprovisioning, wantErr: ProvisioningError, wantCalls: "Register,Deprovision"},
		{name: "powering off failure 4 -> deleting", host: del(StatePoweringOffBeforeDelete, errs(PowerManagementError, 3)),
			script:   func(f *fakeProv) { f.on("PowerOff", failMsg("no power")) },
			wantKind: StepComplete, wantState: StateDeleting, wantErr: PowerManagementError, wantCalls: "Register,PowerOff",
			check: restarted("PowerOff", "power off retry without force")},
		{name: "powering off failure 2 retries", host: del(StatePoweringOffBeforeDelete, errs(PowerManagementError, 1)),
			script:   func(f *fakeProv) { f.on("PowerOff", failMsg("no power")) },
			wantKind: StepFailed, wantState: StatePoweringOffBeforeDelete, wantErr: PowerManagementError, wantCalls: "Register,PowerOff"},
		{name: "deprovisioning registration error > 3 -> deleting", host: del(StateDeprovisioning, errs(RegistrationError, 4)),
			wantKind: StepComplete, wantState: StateDeleting, wantErr: RegistrationError, wantCalls: "-"},
		{name: "powering off registration error > 3 -> deleting", host: del(StatePoweringOffBeforeDelete, errs(RegistrationError, 4)),
			wantKind: StepComplete, wantState: StateDeleting, wantErr: RegistrationError, wantCalls: "-"},
		{name: "deprovisioning registration error 3 retries registration", host: del(StateDeprovisioning, errs(RegistrationError, 3)),
			script:   func(f *fakeProv) { f.on("Register", provReply{res: Result{ErrorMessage: "bmc unreachable"}}) },
			wantKind: StepFailed, wantState: StateDeprovisioning, wantErr: RegistrationError, wantCalls: "Register",
			check: func(t *testing.T, h *Host, _ StepResult, f *fakeProv) {
				if !f.callsTo("Register")[0].Restart || h.Status.ErrorCount != 4 {
					t.Errorf("restart=%v count=%d", f.callsTo("Register")[0].Restart, h.Status.ErrorCount)
				}
			}},
		{name: "deprovisioning not registered without credentials -> deleting", host: del(StateDeprovisioning, noBMC),
			script:   func(f *fakeProv) { f.on("Deprovision", notRegistered) },
			wantKind: StepComplete, wantState: StateDeleting, wantCalls: "Deprovision"},
		{name: "deprovisioning not registered with credentials is an error", host: del(StateDeprovisioning, nil),
			script:   func(f *fakeProv) { f.on("Deprovision", notRegistered) },
			wantKind: StepError, wantState: StateDeprovisioning, wantCalls: "Register,Deprovision"},
		{name: "powering off not registered without credentials -> deleting", host: del(StatePoweringOffBeforeDelete, noBMC),
			script:   func(f *fakeProv) { f.on("PowerOff", notRegistered) },
			wantKind: StepComplete, wantState: StateDeleting, wantCalls: "PowerOff"},
		{name: "powering off not registered with credentials is an error", host: del(StatePoweringOffBeforeDelete, nil),
			script:   func(f *fakeProv) { f.on("PowerOff", notRegistered) },
			wantKind: StepError, wantState: StatePoweringOffBeforeDelete, wantCalls: "Register,PowerOff"},
		{name: "no credentials outside deletion is a registration error", host: withHost(StateAvailable, noBMC),
			wantKind: StepFailed, wantState: StateAvailable, wantErr: RegistrationError, wantCalls: "-"},
	})
}

// TestDetach covers SM hostStateMachine.checkDetachedHost and CTL BareMetalHostReconciler.detachHost.
func TestDetach(t *testing.T) {
	detached := func(st State, force bool) func() *Host {
		return withHost(st, func(h *Host) { h.Detached, h.DetachForce = true, force })
	}
	wantOp := func(op OperationalStatus) func(t *testing.T, h *Host, _ StepResult, _ *fakeProv) {
		return func(t *testing.T, h *Host, _ StepResult, _ *fakeProv) {
			t.Helper()
			if h.Status.OperationalStatus != op {
				t.Errorf("opStatus = %q, want %q", h.Status.OperationalStatus, op)
			}
		}
	}
	cases := []stepCase{}
	for _, st := range []State{StateProvisioned, StateExternallyProvisioned, StateAvailable} {
		cases = append(cases, stepCase{name: "allowed in " + string(st), host: detached(st, false),
			wantKind: StepSteady, wantState: st, wantCalls: "Detach", check: wantOp(OperationalDetached)})
	}
	cases = append(cases,
		stepCase{name: "refused in inspecting", host: detached(StateInspecting, false),
			wantKind: StepComplete, wantState: StatePreparing, wantCalls: "Register,Inspect", check: wantOp(OperationalOK)},
		stepCase{name: "forced in inspecting", host: detached(StateInspecting, true),
			wantKind: StepSteady, wantState: StateInspecting, wantCalls: "Detach", check: wantOp(OperationalDetached)},
		stepCase{name: "detach failure -> detach error", host: detached(StateAvailable, false),
			script:   func(f *fakeProv) { f.on("Detach", failMsg("locked")) },
			wantKind: StepFailed, wantState: StateAvailable, wantErr: DetachError, wantCalls: "Detach"},
		stepCase{name: "detach in progress clears a detach error", host: func() *Host {
			h := detached(StateAvailable, false)()
			h.Status.ErrorType, h.Status.ErrorCount = DetachError, 1
			return h
		},
			script:   func(f *fakeProv) { f.on("Detach", busy10) },
			wantKind: StepUpdate, wantState: StateAvailable, wantCalls: "Detach"},
		stepCase{name: "detach done resets a detach error", host: func() *Host {
			h := detached(StateAvailable, false)()
			h.Status.ErrorType, h.Status.ErrorCount = DetachError, 1
			return h
		},
			wantKind: StepSteady, wantState: StateAvailable, wantCalls: "Detach", check: wantCount(0)},
		stepCase{name: "detach transient error", host: detached(StateAvailable, false),
			script:   func(f *fakeProv) { f.on("Detach", provReply{err: errors.New("boom")}) },
			wantKind: StepError, wantState: StateAvailable, wantCalls: "Detach"},
		stepCase{name: "annotation removed: detached status restored", host: withHost(StateAvailable, func(h *Host) {
			h.Status.OperationalStatus = OperationalDetached
		}),
			wantKind: StepUpdate, wantState: StateAvailable, wantCalls: "Attach", check: wantOp(OperationalOK)},
		stepCase{name: "annotation removed: re-attach in progress stays detached", host: withHost(StateAvailable, func(h *Host) {
			h.Status.OperationalStatus = OperationalDetached
		}),
			script:   func(f *fakeProv) { f.on("Attach", busy10) },
			wantKind: StepContinue, wantState: StateAvailable, wantCalls: "Attach", check: wantOp(OperationalDetached)},
		stepCase{name: "annotation removed: re-attach failure is a detach error", host: withHost(StateAvailable, func(h *Host) {
			h.Status.OperationalStatus = OperationalDetached
		}),
			script:   func(f *fakeProv) { f.on("Attach", failMsg("node locked")) },
			wantKind: StepFailed, wantState: StateAvailable, wantErr: DetachError, wantCalls: "Attach", check: wantOp(OperationalDetached)},
		stepCase{name: "annotation removed: detach error cleared", host: withHost(StateAvailable, func(h *Host) {
			h.Status.OperationalStatus, h.Status.ErrorType, h.Status.ErrorCount = OperationalError, DetachError, 2
		}),
			wantKind: StepUpdate, wantState: StateAvailable, wantCalls: "-", check: wantCount(0)},
		stepCase{name: "annotation removed with another error", host: withHost(StateProvisioned, func(h *Host) {
			h.Status.OperationalStatus, h.Status.ErrorType = OperationalDetached, PowerManagementError
		}),
			wantKind: StepUpdate, wantState: StateProvisioned, wantErr: PowerManagementError, wantCalls: "Attach", check: wantOp(OperationalError)},
	)
	runStepCases(t, cases)
}

// TestRestartOnFailure: the action restarts only after an error of its
// own type, and the error count grows until a success resets it.
func TestRestartOnFailure(t *testing.T) {
	e := newEnv()
	h := newHost(StateInspecting)
	e.prov.on("Inspect", failMsg("inspect failed"), failMsg("inspect failed"), provReply{res: Result{Dirty: true}, started: true})
	ctx := context.Background()

	for i, want := range []struct {
		kind    StepKind
		count   int
		restart bool
	}{{StepFailed, 1, false}, {StepFailed, 2, true}, {StepUpdate, 2, true}, {StepComplete, 0, false}} {
		r := e.m.Step(ctx, h)
		if r.Kind != want.kind || h.Status.ErrorCount != want.count {
			t.Fatalf("pass %d: kind %v count %d, want %v %d", i, r.Kind, h.Status.ErrorCount, want.kind, want.count)
		}
		calls := e.prov.callsTo("Inspect")
		if got := calls[len(calls)-1].Restart; got != want.restart {
			t.Errorf("pass %d: restartOnFailure = %v, want %v", i, got, want.restart)
		}
	}
	if h.Status.State != StatePreparing || h.Status.ErrorType != NoError {
		t.Errorf("status = %+v", h.Status)
	}

	// Another action's error does not restart this one.
	h2 := newHost(StateInspecting)
	h2.Status.ErrorType, h2.Status.ErrorCount = PowerManagementError, 1
	e.m.Step(ctx, h2)
	calls := e.prov.callsTo("Inspect")
	if calls[len(calls)-1].Restart {
		t.Errorf("restartOnFailure after a power error")
	}
	// Register restarts only after a registration error.
	for _, c := range e.prov.callsTo("Register") {
		if c.Restart {
			t.Errorf("register restarted without a registration error")
		}
	}
}

// TestRegistrationIDSavedOnError: the node id is kept even when Register
// fails or is transient.
func TestRegistrationIDSavedOnError(t *testing.T) {
	for _, r := range []provReply{
		{res: Result{ErrorMessage: "manage failed"}, id: "node-42"},
		{err: errors.New("timeout"), id: "node-42"},
		{res: Result{Dirty: true}, id: "node-42"},
	} {
		e := newEnv()
		h := newHost(StateRegistering)
		h.Status.ID = ""
		e.prov.on("Register", r)
		res := e.m.Step(context.Background(), h)
		if h.Status.ID != "node-42" || !res.Changed {
			t.Errorf("%+v: id = %q, changed = %v", r, h.Status.ID, res.Changed)
		}
	}
	// A new id while preparing forgets what was prepared (CTL BareMetalHostReconciler.registerHost).
	e := newEnv()
	h := newHost(StatePreparing)
	h.Status.PreparedRootDeviceHints = &RootDeviceHints{DeviceName: "/dev/sda"}
	h.Spec.RootDeviceHints = &RootDeviceHints{DeviceName: "/dev/sda"}
	e.prov.on("Register", provReply{id: "node-2"}).on("Prepare", provReply{res: Result{Dirty: true}})
	e.m.Step(context.Background(), h)
	if c := e.prov.callsTo("Prepare")[0]; !c.Unprepared {
		t.Errorf("re-registered host not prepared again")
	}
}

func TestStatusStamps(t *testing.T) {
	e := newEnv()
	h := newHost(StateRegistering)
	r := e.m.Step(context.Background(), h)
	if !r.Changed || !h.Status.LastUpdated.Equal(testEpoch) {
		t.Errorf("lastUpdated = %v, changed = %v", h.Status.LastUpdated, r.Changed)
	}
	if got := h.Status.OperationHistory[StateInspecting]; !got.Equal(testEpoch) {
		t.Errorf("operation history = %v", h.Status.OperationHistory)
	}
	if e.log.count("host state") != 1 {
		t.Errorf("transition not logged: %v", e.log.lines)
	}

	// A pass that changes nothing does not stamp.
	e.clock.advance(time.Hour)
	h = provisionedHost("http://img/a")
	r = e.m.Step(context.Background(), h)
	if r.Changed || !h.Status.LastUpdated.IsZero() {
		t.Errorf("steady pass changed the status: %+v", h.Status)
	}
}

func TestBackoff(t *testing.T) {
	for _, tc := range []struct {
		n        int
		min, max time.Duration
	}{
		{1, time.Minute, 2 * time.Minute},
		{2, 2 * time.Minute, 4 * time.Minute},
		{9, 256 * time.Minute, 512 * time.Minute},
		{50, 256 * time.Minute, 512 * time.Minute},
	} {
		for _, r := range []float64{0, 0.5, 0.999999} {
			m := &Machine{Rand: func() float64 { return r }}
			if d := m.Backoff(tc.n); d < tc.min || d > tc.max {
				t.Errorf("Backoff(%d) with rand %v = %v, want [%v, %v]", tc.n, r, d, tc.min, tc.max)
			}
		}
	}
	// The unit scales it; the default jitter source stays in bounds.
	m := &Machine{BackoffUnit: time.Second}
	for range 100 {
		if d := m.Backoff(1); d < time.Second || d > 2*time.Second {
			t.Fatalf("Backoff(1) = %v", d)
		}
	}
	if d := (&Machine{Rand: func() float64 { return 0 }}).transientBackoff(20); d != 30*time.Second {
		t.Errorf("transient backoff cap = %v", d)
	}
}

func TestStepKindString(t *testing.T) {
	if StepSteady.String() != "steady" || StepKind(99).String() != "StepKind(99)" {
		t.Errorf("names: %v %v", StepSteady, StepKind(99))
	}
}

func TestHelpers(t *testing.T) {
	tr, fa := true, false
	for _, tc := range []struct {
		a, b *RootDeviceHints
		eq   bool
	}{
		{nil, nil, true},
		{nil, &RootDeviceHints{}, true},
		{&RootDeviceHints{DeviceName: "a"}, nil, false},
		{&RootDeviceHints{Rotational: &tr}, &RootDeviceHints{Rotational: &tr}, true},
		{&RootDeviceHints{Rotational: &tr}, &RootDeviceHints{Rotational: &fa}, false},
		{&RootDeviceHints{Rotational: &tr}, &RootDeviceHints{DeviceName: "a"}, false},
		{&RootDeviceHints{Model: "x"}, &RootDeviceHints{Model: "y"}, false},
	} {
		if got := hintsEqual(tc.a, tc.b); got != tc.eq {
			t.Errorf("hintsEqual(%+v, %+v) = %v", tc.a, tc.b, got)
		}
	}
	c := cloneHints(&RootDeviceHints{Rotational: &tr})
	*c.Rotational = false
	if !tr {
		t.Errorf("cloneHints aliases Rotational")
	}
	h := newHost(StateAvailable)
	h.Spec.CustomDeploy = "install"
	if attemptKey(h) != "custom-deploy:install" {
		t.Errorf("attemptKey = %q", attemptKey(h))
	}
	h.Spec.CustomDeploy = ""
	if attemptKey(h) != "" {
		t.Errorf("attemptKey = %q", attemptKey(h))
	}
}
