package ironic

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/ironic/ironictest"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// rebootHost is a deployed, powered-on host on the fake Ironic with a
// reboot requested.
func rebootHost(t *testing.T) (*lifecycle.Machine, *ironictest.Server, *lifecycle.Host, string, func() []string) {
	p, srv := onFake(t)
	h := fakeSpecHost("reboot-1")
	img := &lifecycle.Image{URL: "http://img/a.qcow2", Checksum: "abc", Format: "qcow2"}
	h.Spec.Online, h.Spec.Image = true, img
	id := nodeIn(srv, h, "active", "")
	srv.UpdateNode(id, func(n *nodes.Node) {
		n.PowerState = "power on"
		n.InstanceInfo = map[string]any{"image_source": img.URL}
	})
	h.Status.State, h.Status.PoweredOn, h.Status.DeployedImage = lifecycle.StateProvisioned, true, img
	h.Status.GoodCredentials = h.Spec.BMC.CredentialsVersion
	h.RebootRequested = true
	srv.ResetRequests()
	targets := func() []string {
		var out []string
		for _, r := range srv.Requests() {
			if strings.HasSuffix(r.Path, "/states/power") {
				out = append(out, between(r.Body, `"target":"`, `"`))
			}
		}
		return out
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("requests: %q", srv.Calls())
		}
	})
	m := &lifecycle.Machine{Prov: p, Wait: instantWaiter{}, Rand: func() float64 { return 0 }}
	return m, srv, h, id, targets
}

// On the fake Ironic, through the state machine: a reboot of a deployed
// host is a soft power off, then power on; the host stays provisioned.
func TestFakeRebootSoft(t *testing.T) {
	m, _, h, _, targets := rebootHost(t)
	if err := m.Converge(context.Background(), h, lifecycle.ConvergeOptions{}); err != nil {
		t.Fatalf("Converge: %v", err)
	}
	if got, want := targets(), []string{"soft power off", "power on"}; !slices.Equal(got, want) {
		t.Errorf("power targets %q, want %q", got, want)
	}
	if h.Status.State != lifecycle.StateProvisioned || !h.Status.PoweredOn || h.RebootRequested {
		t.Errorf("state %q, powered on %v, reboot still requested %v", h.Status.State, h.Status.PoweredOn, h.RebootRequested)
	}
}

// When Ironic's soft power off fails (its timeout passed with the host
// still on: Ironic sets last_error and leaves the power on), the reboot
// goes on with a hard power off, then power on, in the same apply and
// without an error on the host.
func TestFakeRebootSoftTimesOutThenHard(t *testing.T) {
	m, srv, h, id, targets := rebootHost(t)
	srv.FailNext(id, "Failed to set node power state to power off: timed out after 180 seconds")
	if err := m.Converge(context.Background(), h, lifecycle.ConvergeOptions{}); err != nil {
		t.Fatalf("Converge: %v", err)
	}
	if got, want := targets(), []string{"soft power off", "power off", "power on"}; !slices.Equal(got, want) {
		t.Errorf("power targets %q, want %q", got, want)
	}
	n := srv.MustNode(id)
	if n.PowerState != "power on" || n.LastError != "" || h.Status.ErrorType != lifecycle.NoError {
		t.Errorf("node power %q last_error %q, host error %q", n.PowerState, n.LastError, h.Status.ErrorType)
	}
}
