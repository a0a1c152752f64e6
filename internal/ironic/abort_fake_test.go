package ironic

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

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
		})
	}
}
