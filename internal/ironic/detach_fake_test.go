package ironic

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// On the fake Ironic, through the state machine: detach puts a deployed,
// powered-on node into maintenance with the provider's reason and touches
// nothing else; the read shows it; re-attach ends that maintenance; and
// destroying a detached host leaves the node as it was.
func TestFakeDetachAttachForget(t *testing.T) {
	m, srv, h, id, powerTargets := rebootHost(t)
	h.RebootRequested = false
	ctx := context.Background()

	h.Detached = true
	if err := m.Converge(ctx, h, lifecycle.ConvergeOptions{}); err != nil {
		t.Fatalf("detach: %v", err)
	}
	n := srv.MustNode(id)
	if !n.Maintenance || n.MaintenanceReason != lifecycle.DetachReason {
		t.Fatalf("after detach: maintenance %v reason %q", n.Maintenance, n.MaintenanceReason)
	}
	if h.Status.OperationalStatus != lifecycle.OperationalDetached || h.Status.State != lifecycle.StateProvisioned {
		t.Errorf("host %q/%q, want provisioned and detached", h.Status.State, h.Status.OperationalStatus)
	}
	obs, err := m.Prov.Observe(ctx, h)
	if err != nil || !obs.Maintenance || obs.MaintenanceReason != lifecycle.DetachReason {
		t.Errorf("observation %+v, %v", obs, err)
	}

	// Detached again: nothing is sent.
	srv.ResetRequests()
	if err := m.Converge(ctx, h, lifecycle.ConvergeOptions{}); err != nil {
		t.Fatalf("detach again: %v", err)
	}
	if calls := srv.Calls(); len(calls) != 0 {
		t.Errorf("writes to a detached node: %q", calls)
	}

	// Re-attach.
	h.Detached = false
	if err := m.Converge(ctx, h, lifecycle.ConvergeOptions{}); err != nil {
		t.Fatalf("attach: %v", err)
	}
	if n := srv.MustNode(id); n.Maintenance {
		t.Fatalf("after attach: maintenance %v reason %q", n.Maintenance, n.MaintenanceReason)
	}
	if h.Status.OperationalStatus != lifecycle.OperationalOK {
		t.Errorf("operational status %q after attach", h.Status.OperationalStatus)
	}

	// Detach, then destroy: the host is forgotten, the node stays.
	h.Detached = true
	if err := m.Converge(ctx, h, lifecycle.ConvergeOptions{}); err != nil {
		t.Fatalf("detach: %v", err)
	}
	srv.ResetRequests()
	h.Deleting = true
	if err := m.Converge(ctx, h, lifecycle.ConvergeOptions{}); err != nil {
		t.Fatalf("delete: %v", err)
	}
	if calls := srv.Calls(); len(calls) != 0 {
		t.Errorf("destroying a detached host wrote to Ironic: %q", calls)
	}
	n = srv.MustNode(id)
	if h.Status.State != lifecycle.StateDeleted || n.ProvisionState != "active" || n.PowerState != "power on" || !n.Maintenance {
		t.Errorf("host %q; node %q, %q, maintenance %v", h.Status.State, n.ProvisionState, n.PowerState, n.Maintenance)
	}
	if got := powerTargets(); len(got) != 0 {
		t.Errorf("power changes: %q", got)
	}
}

// Attach leaves a maintenance that someone else started alone.
func TestFakeAttachKeepsOthersMaintenance(t *testing.T) {
	p, srv := onFake(t)
	h := fakeSpecHost("maint-1")
	id := nodeIn(srv, h, "available", "")
	srv.UpdateNode(id, func(n *nodes.Node) { n.Maintenance, n.MaintenanceReason = true, "replacing a DIMM" })
	res, err := p.Attach(context.Background(), h)
	if err != nil || res.Dirty || res.ErrorMessage != "" {
		t.Fatalf("%+v, %v", res, err)
	}
	if n := srv.MustNode(id); !n.Maintenance || n.MaintenanceReason != "replacing a DIMM" {
		t.Errorf("maintenance %v reason %q", n.Maintenance, n.MaintenanceReason)
	}
}

// Under lifecycle's rule, the provisioner itself refuses to change the
// provision state, the power or the maintenance of a detached node, and
// writes nothing: a path that forgot the rule fails, naming the host,
// instead of undeploying it. Only Attach ends that maintenance.
func TestFakeDetachedNodeRefusesChanges(t *testing.T) {
	m, srv, h, id, powerTargets := rebootHost(t)
	h.RebootRequested = false
	p := m.Prov
	srv.UpdateNode(id, func(n *nodes.Node) { n.Maintenance, n.MaintenanceReason = true, lifecycle.DetachReason })
	srv.ResetRequests()
	ctx := context.Background()
	for name, call := range map[string]func() error{
		"deprovision": func() error { _, err := p.Deprovision(ctx, h, false); return err },
		"power off":   func() error { _, err := p.PowerOff(ctx, h, lifecycle.PowerHard, false); return err },
	} {
		err := call()
		d := lifecycle.AsDetached(err)
		if d == nil || d.ID != id || !strings.Contains(err.Error(), "reboot-1") {
			t.Errorf("%s on a detached node: %v, want a DetachedError naming the host", name, err)
		}
	}
	if calls := srv.Calls(); len(calls) != 0 {
		t.Errorf("writes to a detached node: %q", calls)
	}
	if n := srv.MustNode(id); n.ProvisionState != "active" || !n.Maintenance || len(powerTargets()) != 0 {
		t.Errorf("node %q, maintenance %v, power %q", n.ProvisionState, n.Maintenance, powerTargets())
	}
	if _, err := p.Attach(ctx, h); err != nil {
		t.Fatalf("attach: %v", err)
	}
	if n := srv.MustNode(id); n.Maintenance {
		t.Errorf("attach left maintenance on (%q)", n.MaintenanceReason)
	}
}

// Maintenance set by someone else is not a detach: as BMO does, it is
// cleared before the provision state changes, and the undeploy goes on.
func TestFakeOthersMaintenanceClearedBeforeUndeploy(t *testing.T) {
	m, srv, h, id, _ := rebootHost(t)
	h.RebootRequested = false
	srv.UpdateNode(id, func(n *nodes.Node) { n.Maintenance, n.MaintenanceReason = true, "replacing a DIMM" })
	ctx := context.Background()
	got, found, err := m.Undeploy(ctx, lifecycle.HostRef{ID: id}, "", 0)
	if err != nil || !found || got.Status.State != lifecycle.StateAvailable {
		t.Fatalf("undeploy: %v (found %v, host %+v)", err, found, got)
	}
	if n := srv.MustNode(id); n.Maintenance || n.ProvisionState != "available" {
		t.Errorf("node %q, maintenance %v (%q)", n.ProvisionState, n.Maintenance, n.MaintenanceReason)
	}
}

// On the fake Ironic, through the state machine: detached = true on a host
// whose node waits for its agent aborts the wait where Ironic allows it,
// then detaches, and the host settles where the abort left the node; where
// Ironic cannot abort (wait call-back before API 1.110, service wait
// before 1.87) the detach fails saying so, and nothing is written.
func TestFakeDetachAbortsWait(t *testing.T) {
	for _, tc := range []struct {
		state        lifecycle.State
		ps, target   string
		mv           string
		wantPS       string // where the node settles ("" : refused)
		wantErrWords []string
	}{
		{state: lifecycle.StatePreparing, ps: "clean wait", target: "manageable", wantPS: "clean failed"},
		{state: lifecycle.StateInspecting, ps: "inspect wait", target: "manageable", wantPS: "inspect failed"},
		{state: lifecycle.StateProvisioned, ps: "rescue wait", target: "rescue", wantPS: "rescue failed"},
		{state: lifecycle.StateProvisioned, ps: "service wait", target: "active", mv: "1.87", wantPS: "service failed"},
		{state: lifecycle.StateProvisioned, ps: "service wait", target: "active",
			wantErrWords: []string{`"service wait"`, "API 1.87", "speaks 1.82"}},
		{state: lifecycle.StateProvisioning, ps: "wait call-back", target: "active",
			wantErrWords: []string{"detach error", `"wait call-back"`, "API 1.110", "speaks 1.82", "callback timeout"}},
	} {
		t.Run(tc.ps+" "+tc.mv, func(t *testing.T) {
			sc, srv := fakeClient(t)
			if tc.mv != "" {
				srv.MaxMicroversion = tc.mv
				sc.Microversion = tc.mv
			}
			p := NewProvisioner(sc, nil, WithJitter(0, nil))
			h := fakeSpecHost("abort-1")
			id := nodeIn(srv, h, tc.ps, "")
			srv.UpdateNode(id, func(n *nodes.Node) { n.TargetProvisionState = tc.target })
			h.Status.State, h.Status.GoodCredentials = tc.state, h.Spec.BMC.CredentialsVersion
			h.Detached = true
			m := &lifecycle.Machine{Prov: p, Wait: instantWaiter{}, Rand: func() float64 { return 0 }}
			err := m.Converge(context.Background(), h, lifecycle.ConvergeOptions{})
			n := srv.MustNode(id)
			if tc.wantPS == "" {
				var he *lifecycle.HostError
				if !errors.As(err, &he) {
					t.Fatalf("err = %v, want a HostError", err)
				}
				for _, w := range tc.wantErrWords {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error lacks %q: %v", w, err)
					}
				}
				if calls := srv.Calls(); len(calls) != 0 || n.Maintenance || n.ProvisionState != tc.ps {
					t.Errorf("refused, yet: writes %q, node %q maintenance %v", calls, n.ProvisionState, n.Maintenance)
				}
				return
			}
			if err != nil {
				t.Fatalf("Converge: %v", err)
			}
			if n.ProvisionState != tc.wantPS || !n.Maintenance || n.MaintenanceReason != lifecycle.DetachReason {
				t.Errorf("node %q maintenance %v (%q), want %q and detached", n.ProvisionState, n.Maintenance, n.MaintenanceReason, tc.wantPS)
			}
			want := []string{"PUT /nodes/" + id + "/states/provision", "PUT /nodes/" + id + "/maintenance"}
			if got := srv.Calls(); strings.Join(got, ",") != strings.Join(want, ",") {
				t.Errorf("writes %q, want the abort, then maintenance", got)
			}
			if h.Status.OperationalStatus != lifecycle.OperationalDetached || h.Status.State != tc.state {
				t.Errorf("host %q/%q, want %q and detached", h.Status.State, h.Status.OperationalStatus, tc.state)
			}
			if tc.ps != "clean wait" {
				return
			}
			// Re-attached, the host runs the aborted cleaning again and goes on
			// to available: an abort by request is no failure of the host.
			h.Detached = false
			if err := m.Converge(context.Background(), h, lifecycle.ConvergeOptions{}); err != nil {
				t.Fatalf("re-attach: %v", err)
			}
			if n := srv.MustNode(id); n.Maintenance || n.ProvisionState != "available" || h.Status.ErrorType != lifecycle.NoError {
				t.Errorf("after re-attach: node %q maintenance %v, host error %q", n.ProvisionState, n.Maintenance, h.Status.ErrorType)
			}
		})
	}
}

// On the fake Ironic, through the state machine: a force delete
// (delete_mode = "force") neither powers off nor deprovisions; it aborts
// the wait the node is in where Ironic allows it, puts the node in
// maintenance and deletes it; where Ironic cannot abort (wait call-back
// before API 1.110), or the node is detached, it deletes it as it is.
func TestFakeForceDelete(t *testing.T) {
	for _, tc := range []struct {
		name      string
		state     lifecycle.State
		ps, tgt   string
		detached  bool
		wantCalls []string // after /nodes/<id>
	}{
		{"clean wait", lifecycle.StatePreparing, "clean wait", "manageable", false, []string{"PUT states/provision", "PUT maintenance", "DELETE "}},
		{"inspect wait", lifecycle.StateInspecting, "inspect wait", "manageable", false, []string{"PUT states/provision", "PUT maintenance", "DELETE "}},
		{"wait call-back", lifecycle.StateProvisioning, "wait call-back", "active", false, []string{"PUT maintenance", "DELETE "}},
		{"active", lifecycle.StateProvisioned, "active", "", false, []string{"PUT maintenance", "DELETE "}},
		{"detached clean wait", lifecycle.StatePreparing, "clean wait", "manageable", true, []string{"DELETE "}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, srv := onFake(t)
			h := fakeSpecHost("force-1")
			id := nodeIn(srv, h, tc.ps, "")
			srv.UpdateNode(id, func(n *nodes.Node) {
				n.TargetProvisionState, n.PowerState = tc.tgt, "power on"
				if tc.detached {
					n.Maintenance, n.MaintenanceReason = true, lifecycle.DetachReason
				}
			})
			h.Status.State, h.Status.GoodCredentials = tc.state, h.Spec.BMC.CredentialsVersion
			h.Deleting, h.ForceDelete = true, true
			m := &lifecycle.Machine{Prov: p, Wait: instantWaiter{}, Rand: func() float64 { return 0 }}
			if err := m.Converge(context.Background(), h, lifecycle.ConvergeOptions{}); err != nil {
				t.Fatalf("Converge: %v", err)
			}
			var got []string
			for _, c := range srv.Calls() {
				method, path, _ := strings.Cut(c, " ")
				got = append(got, method+" "+strings.TrimPrefix(strings.TrimPrefix(path, "/nodes/"+id), "/"))
			}
			if strings.Join(got, ",") != strings.Join(tc.wantCalls, ",") {
				t.Errorf("writes %q, want %q", got, tc.wantCalls)
			}
			if _, ok := srv.Node(id); ok || h.Status.State != lifecycle.StateDeleted {
				t.Errorf("node still there (%v) or host %q", ok, h.Status.State)
			}
		})
	}
}
