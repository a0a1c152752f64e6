package ironic

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/ironic/ironictest"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// cleanStepsRun lists the manual clean steps sent for node id, as
// "interface.step".
func cleanStepsRun(srv *ironictest.Server, id string) []string {
	var out []string
	for _, steps := range srv.Steps(id) {
		for _, st := range steps {
			out = append(out, fmt.Sprint(st["interface"], ".", st["step"]))
		}
	}
	return out
}

// express and full: the host records its mode in the node's extra; a
// deployment's undeploy (which knows no mode) erases after the automated
// cleaning with one manual clean of the mode's erase step, and the delete
// that follows does not erase again. metadata and disabled erase nothing.
func TestFakeDeprovisionErases(t *testing.T) {
	for _, tc := range []struct {
		mode, want string
	}{
		{lifecycle.CleaningFull, "deploy.erase_devices"},
		{lifecycle.CleaningExpress, "deploy.erase_devices_express"},
		{lifecycle.CleaningMetadata, ""},
		{lifecycle.CleaningDisabled, ""},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			ctx := context.Background()
			p, srv, h, id := registeredCleaning(t, tc.mode)
			n := srv.MustNode(id)
			if got, _ := n.Extra[extraCleaningMode].(string); (tc.want != "") != (got == tc.mode) {
				t.Fatalf("extra %v after register, mode %s", n.Extra, tc.mode)
			}
			srv.UpdateNode(id, func(n *nodes.Node) { n.ProvisionState = "active" })

			// The deployment's undeploy: no mode in the spec.
			dep := &lifecycle.Host{Spec: lifecycle.HostSpec{Name: "h1", RegisteredElsewhere: true}, Status: lifecycle.HostStatus{ID: id}}
			if res := until(t, "deprovision", func() (lifecycle.Result, error) { return p.Deprovision(ctx, dep, false) }); res.ErrorMessage != "" {
				t.Fatalf("deprovision: %+v", res)
			}
			n = srv.MustNode(id)
			if n.ProvisionState != "available" {
				t.Fatalf("deprovision left the node %q", n.ProvisionState)
			}
			got := cleanStepsRun(srv, id)
			if tc.want == "" {
				if len(got) != 0 {
					t.Fatalf("mode %s ran clean steps %v", tc.mode, got)
				}
			} else if !slices.Equal(got, []string{tc.want}) || n.Extra[extraErase] != eraseDone {
				t.Fatalf("clean steps %v (want [%s]), extra %v", got, tc.want, n.Extra)
			}
			srv.ResetRequests()
			if res := until(t, "delete", func() (lifecycle.Result, error) { return p.Delete(ctx, h) }); res.ErrorMessage != "" || srv.NodeCount() != 0 {
				t.Fatalf("delete: %+v", res)
			}
			if tc.want != "" && srv.Count("PUT", "/states/provision") != 0 {
				t.Errorf("delete after an erasing deprovision changed states again: %q", srv.Calls())
			}
		})
	}
}

// Deleting an available host with full erases its disks first; changing
// the mode back to metadata removes it from the node's extra.
func TestFakeDeleteErases(t *testing.T) {
	ctx := context.Background()
	p, srv, h, id := registeredCleaning(t, lifecycle.CleaningMetadata)
	h.Spec.AutomatedCleaningMode = lifecycle.CleaningFull
	registered(t, p, h)
	if m := srv.MustNode(id).Extra[extraCleaningMode]; m != lifecycle.CleaningFull {
		t.Fatalf("extra %s = %v after the update", extraCleaningMode, m)
	}
	srv.UpdateNode(id, func(n *nodes.Node) { n.ProvisionState = "available" })
	var steps []string
	if res := until(t, "delete", func() (lifecycle.Result, error) {
		if n, ok := srv.Node(id); ok {
			steps = cleanStepsRun(srv, n.UUID)
		}
		return p.Delete(ctx, h)
	}); res.ErrorMessage != "" || srv.NodeCount() != 0 {
		t.Fatalf("delete: %+v", res)
	}
	if !slices.Equal(steps, []string{"deploy.erase_devices"}) {
		t.Fatalf("clean steps before delete %v", steps)
	}
}

func TestCleaningModePatch(t *testing.T) {
	h := fakeSpecHost("h1")
	n := nodesNode("h1", "manageable", "")
	n.Extra = map[string]any{extraCleaningMode: "full"}
	h.Spec.AutomatedCleaningMode = lifecycle.CleaningMetadata
	if p := cleaningModePatch(h, &n); len(p) != 1 {
		t.Errorf("metadata over full: %v", p)
	}
	h.Spec.AutomatedCleaningMode = lifecycle.CleaningFull
	if p := cleaningModePatch(h, &n); len(p) != 0 {
		t.Errorf("full over full: %v", p)
	}
	h.Spec.AutomatedCleaningMode = lifecycle.CleaningExpress
	if p := cleaningModePatch(h, &n); len(p) != 1 {
		t.Errorf("express over full: %v", p)
	}
}

// registeredCleaning is host h1 with automated cleaning mode, registered
// on a new fake Ironic as node id.
func registeredCleaning(t *testing.T, mode string) (p *Provisioner, srv *ironictest.Server, h *lifecycle.Host, id string) {
	t.Helper()
	p, srv = onFake(t)
	h = fakeSpecHost("h1")
	h.Spec.AutomatedCleaningMode = mode
	registered(t, p, h)
	return p, srv, h, h.Status.ID
}
