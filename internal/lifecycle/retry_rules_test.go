package lifecycle

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestFailedStateRetryRules pins what the passes after a failure do, for
// every failed state BMO retries (docs: /work/shared/spec/bmo-behaviour.md
// §1 "Errors and backoff", §2 Provision, Inspect, Prepare, Deprovision,
// Register; handlers.go, step.go):
//
//   - deploy failed: the host is undeployed first (provisioning ->
//     deprovisioning, Deprovision restarted), then the same image is
//     deployed again as a first attempt; a failed deploy is never
//     re-issued in place.
//   - inspect failed: Inspect is restarted in place.
//   - clean failed while preparing: Prepare is restarted and re-applies
//     the settings, even when nothing else changed.
//   - clean failed while deprovisioning: Deprovision is restarted.
//   - registration error: Register is restarted (with new credentials,
//     pushing them); while deleting, more than 3 of them give up
//     registering and delete.
//
// Each row runs passes of Step over the scripted provisioner and compares
// the trace of every pass: the provisioner calls, with the flags the
// rules set in brackets, then "> " and the state the pass left. A rule
// inverted in the code changes its row's trace.
func TestFailedStateRetryRules(t *testing.T) {
	withImage := func(h *Host) { h.Spec.Image = testImage("http://img/a") }
	rows := []struct {
		name   string
		host   func() *Host
		script func(f *fakeProv)
		// trace is one line per pass (see traceCall).
		trace []string
		check func(t *testing.T, h *Host)
	}{
		{
			name:   "deploy failed: undeploy first, then the same image as a first attempt",
			host:   withHost(StateProvisioning, withImage),
			script: func(f *fakeProv) { f.on("Provision", failMsg("Image provisioning failed")) },
			trace: []string{
				"Register, Provision > provisioning (provisioning error)",
				"Register > deprovisioning (provisioning error)",
				"Register, Deprovision[restart] > available",
				"Register > provisioning",
				"Register, Provision > provisioned",
			},
			check: func(t *testing.T, h *Host) {
				if imageURL(h.Status.DeployedImage) != "http://img/a" || h.Status.ProvisioningFailCount != 0 {
					t.Errorf("deployed %q, fail count %d; want the same image, count reset", imageURL(h.Status.DeployedImage), h.Status.ProvisioningFailCount)
				}
			},
		},
		{
			name:   "deploy failed: each failure counts once towards the retry limit",
			host:   withHost(StateProvisioning, func(h *Host) { withImage(h); h.Spec.MaxProvisioningRetries = 1 }),
			script: func(f *fakeProv) { f.always("Provision", failMsg("Image provisioning failed")) },
			trace: []string{
				"Register, Provision > provisioning (provisioning error)",
				"Register > deprovisioning (provisioning error)",
				"Register, Deprovision[restart] > available",
				"Register > available (provisioning error)",
			},
			check: func(t *testing.T, h *Host) {
				if h.Status.ProvisioningFailCount != 1 || !strings.Contains(h.Status.ErrorMessage, "retry limit (1)") {
					t.Errorf("fail count %d, error %q; want 1 and the retry limit", h.Status.ProvisioningFailCount, h.Status.ErrorMessage)
				}
			},
		},
		{
			name:   "inspect failed: inspect again in place",
			host:   withHost(StateInspecting, nil),
			script: func(f *fakeProv) { f.on("Inspect", failMsg("inspection failed")) },
			trace: []string{
				"Register, Inspect > inspecting (inspection error)",
				"Register, Inspect[restart] > preparing",
			},
		},
		{
			name: "inspect after another action's error: a first attempt",
			host: withHost(StateInspecting, func(h *Host) { h.Status.ErrorType, h.Status.ErrorCount = PowerManagementError, 1 }),
			trace: []string{
				"Register, Inspect > preparing",
			},
		},
		{
			name: "clean failed while preparing: clean again, re-applying the settings, error kept until it starts",
			host: withHost(StatePreparing, func(h *Host) { h.Spec.RootDeviceHints = &RootDeviceHints{DeviceName: "/dev/sdb"} }),
			script: func(f *fakeProv) {
				f.on("Prepare", failMsg("clean failed"), provReply{res: Result{Dirty: true}}, provReply{res: Result{Dirty: true}, started: true})
			},
			trace: []string{
				"Register, Prepare[unprepared] > preparing (preparation error)",
				"Register, Prepare[unprepared restart] > preparing (preparation error)",
				"Register, Prepare[unprepared restart] > preparing",
				"Register, Prepare > available",
			},
		},
		{
			name: "clean failed while preparing, nothing else to prepare: the settings are still re-applied",
			host: withHost(StatePreparing, func(h *Host) { h.Status.ErrorType, h.Status.ErrorCount = PreparationError, 1 }),
			trace: []string{
				"Register, Prepare[unprepared restart] > available",
			},
		},
		{
			name:   "clean failed while deprovisioning: deprovision again",
			host:   withHost(StateDeprovisioning, nil),
			script: func(f *fakeProv) { f.on("Deprovision", failMsg("Cleaning failed")) },
			trace: []string{
				"Register, Deprovision > deprovisioning (provisioning error)",
				"Register, Deprovision[restart] > available",
			},
		},
		{
			name:   "registration error: register again",
			host:   withHost(StateRegistering, nil),
			script: func(f *fakeProv) { f.on("Register", provReply{res: Result{ErrorMessage: "manage failed"}}) },
			trace: []string{
				"Register > registering (registration error)",
				"Register[restart] > inspecting",
			},
		},
		{
			name:   "registration error on a deployed host: register again, then the steady state",
			host:   func() *Host { return provisionedHost("http://img/a") },
			script: func(f *fakeProv) { f.on("Register", provReply{res: Result{ErrorMessage: "bmc unreachable"}}) },
			trace: []string{
				"Register > provisioned (registration error)",
				"Register[restart], Adopt, PowerOn > provisioned",
			},
		},
		{
			name:   "registration error, then new credentials: pushed on the retry",
			host:   withHost(StateRegistering, nil),
			script: func(f *fakeProv) { f.on("Register", provReply{res: Result{ErrorMessage: "401"}}) },
			trace: []string{
				"Register > registering (registration error)",
				"new credentials",
				"Register[creds restart] > inspecting",
			},
		},
		{
			name: "registration error while deleting: retried up to 3 times, then given up",
			host: withHost(StateDeprovisioning, func(h *Host) {
				h.Deleting = true
				h.Status.ErrorType, h.Status.ErrorCount = RegistrationError, 3
			}),
			script: func(f *fakeProv) { f.always("Register", provReply{res: Result{ErrorMessage: "bmc unreachable"}}) },
			trace: []string{
				"Register[restart] > deprovisioning (registration error)",
				"- > deleting (registration error)",
			},
		},
		{
			name: "no BMC credentials: a registration error without a call",
			host: withHost(StateAvailable, noBMC),
			trace: []string{
				"- > available (registration error)",
				"- > available (registration error)",
			},
		},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			e := newEnv()
			h := row.host()
			if row.script != nil {
				row.script(e.prov)
			}
			var got []string
			for _, want := range row.trace {
				if want == "new credentials" {
					h.Spec.BMC.CredentialsVersion = "v2"
					got = append(got, want)
					continue
				}
				before := len(e.prov.calls)
				e.m.Step(context.Background(), h)
				got = append(got, passTrace(e.prov.calls[before:], h))
			}
			if strings.Join(got, "\n") != strings.Join(row.trace, "\n") {
				t.Errorf("passes:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(row.trace, "\n  "))
			}
			if row.check != nil {
				row.check(t, h)
			}
		})
	}
}

// passTrace is one pass: its calls ("-" for none), then "> " and the
// state it left the host in, with the error type if any.
func passTrace(calls []provCall, h *Host) string {
	names := make([]string, len(calls))
	for i, c := range calls {
		names[i] = traceCall(c)
	}
	s := strings.Join(names, ", ")
	if s == "" {
		s = "-"
	}
	s += " > " + string(h.Status.State)
	if h.Status.ErrorType != NoError {
		s += fmt.Sprintf(" (%s)", h.Status.ErrorType)
	}
	return s
}

// traceCall is a provisioner call with the flags the retry rules set:
// restart (restartOnFailure), creds (Register pushes credentials),
// unprepared (Prepare re-applies the settings).
func traceCall(c provCall) string {
	var flags []string
	if c.Creds {
		flags = append(flags, "creds")
	}
	if c.Unprepared {
		flags = append(flags, "unprepared")
	}
	if c.Restart {
		flags = append(flags, "restart")
	}
	if len(flags) == 0 {
		return c.Method
	}
	return c.Method + "[" + strings.Join(flags, " ") + "]"
}
