package lifecycle_test

import (
	"context"
	"errors"
	"testing"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle/lifecycletest"
)

// Sync is the status an update or delete of a host starts from: what
// Ironic shows, keeping what a deployment owns.
func TestSync(t *testing.T) {
	for _, c := range []struct {
		name      string
		ps        string
		image     *lifecycle.Image
		on        bool
		gone      bool
		wantState lifecycle.State
		keepImage bool
	}{
		{name: "available", ps: "available", wantState: lifecycle.StateAvailable},
		{name: "deployed keeps image and power", ps: "active", image: img(ubuntu), on: true, wantState: lifecycle.StateProvisioned, keepImage: true},
		{name: "deploying keeps image", ps: "wait call-back", image: img(ubuntu), wantState: lifecycle.StateProvisioning, keepImage: true},
		{name: "image left in instance_info of an available node is not a deployment", ps: "available", image: img(ubuntu), wantState: lifecycle.StateAvailable},
		{name: "gone", ps: "available", gone: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			n := lifecycletest.New()
			n.PS, n.Image, n.PoweredOn, n.Gone = c.ps, c.image, c.on, c.gone
			h := &lifecycle.Host{Spec: lifecycle.HostSpec{Name: "host-a", Online: false}, Status: lifecycle.HostStatus{ID: "node-1", State: lifecycle.StateRegistering}}
			err := lifecycletest.NewMachine(n).Sync(context.Background(), h)
			if c.gone {
				var he *lifecycle.HostError
				if !errors.As(err, &he) || !errors.Is(err, lifecycle.ErrNotRegistered) || he.Host != "host-a" {
					t.Fatalf("err %v, want a HostError wrapping ErrNotRegistered", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if h.Status.State != c.wantState || h.Status.PoweredOn != c.on {
				t.Errorf("status %+v", h.Status)
			}
			if kept := h.Spec.Image != nil && h.Status.DeployedImage != nil && h.Spec.Online; kept != c.keepImage {
				t.Errorf("deployment kept %v, want %v: spec image %v online %v", kept, c.keepImage, h.Spec.Image, h.Spec.Online)
			}
		})
	}
}

func TestObserveAndImportHost(t *testing.T) {
	n := lifecycletest.New()
	n.PS = "active"
	m := lifecycletest.NewMachine(n)
	h := &lifecycle.Host{Spec: lifecycle.HostSpec{Name: "host-a"}, Status: lifecycle.HostStatus{State: lifecycle.StateAvailable}}
	obs, exists, err := m.ObserveHost(context.Background(), h)
	if err != nil || !exists || h.Status.ID != "node-1" || h.Status.State != lifecycle.StateProvisioned || obs.ProvisionState != "active" {
		t.Errorf("ObserveHost: %+v %v %v; host %+v", obs, exists, err, h.Status)
	}
	if obs, err := m.ImportHost(context.Background(), "host-a"); err != nil || obs.ID != "node-1" {
		t.Errorf("ImportHost by name: %+v %v", obs, err)
	}
	n.Gone = true
	if _, exists, err := m.ObserveHost(context.Background(), h); exists || err != nil {
		t.Errorf("a deleted node: exists %v err %v", exists, err)
	}
	if _, err := m.ImportHost(context.Background(), "host-a"); err == nil {
		t.Error("imported a node that is not there")
	}
	n.ObserveErr = errors.New("503")
	if _, _, err := m.ObserveHost(context.Background(), h); err == nil {
		t.Error("a failed read observed")
	}
}
