package lifecycle_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle/lifecycletest"
)

// The detached rule: only the provider's own detach reason makes a host
// detached; maintenance set by someone else does not (as BMO, which clears
// it before acting).
func TestDetachedRule(t *testing.T) {
	for _, c := range []struct {
		name     string
		obs      lifecycle.Observation
		detached bool
	}{
		{"detached", lifecycle.Observation{Exists: true, Name: "h", ID: "n", Maintenance: true, MaintenanceReason: lifecycle.DetachReason}, true},
		{"maintenance by an operator", lifecycle.Observation{Exists: true, Name: "h", ID: "n", Maintenance: true, MaintenanceReason: "replacing a DIMM"}, false},
		{"maintenance without reason", lifecycle.Observation{Exists: true, Name: "h", ID: "n", Maintenance: true}, false},
		{"reason left after maintenance ended", lifecycle.Observation{Exists: true, Name: "h", ID: "n", MaintenanceReason: lifecycle.DetachReason}, false},
		{"no node", lifecycle.Observation{Maintenance: true, MaintenanceReason: lifecycle.DetachReason}, false},
		{"managed", lifecycle.Observation{Exists: true, Name: "h", ID: "n"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := lifecycle.Detached(c.obs); got != c.detached {
				t.Fatalf("Detached = %v, want %v", got, c.detached)
			}
			refused := lifecycle.AsDetached(lifecycle.CheckAttached(c.obs, "deploy on it"))
			forgotten := lifecycle.AsDetached(lifecycle.ForgetDetached(c.obs, "undeploy it"))
			if (refused != nil) != c.detached || (forgotten != nil) != c.detached {
				t.Fatalf("CheckAttached %v, ForgetDetached %v, want errors %v", refused, forgotten, c.detached)
			}
			if !c.detached {
				return
			}
			if refused.Forgotten || !forgotten.Forgotten {
				t.Errorf("Forgotten: refusal %v, destroy %v", refused.Forgotten, forgotten.Forgotten)
			}
			for _, part := range []string{`Host "h" (node n) is detached`, "will not deploy on it", "set detached = false", lifecycle.DetachReason} {
				if !strings.Contains(refused.Error(), part) {
					t.Errorf("refusal %q lacks %q", refused.Error(), part)
				}
			}
			for _, part := range []string{"forgotten without acting", "did not undeploy it", "left the node and the machine as they are"} {
				if !strings.Contains(forgotten.Error(), part) {
					t.Errorf("forget %q lacks %q", forgotten.Error(), part)
				}
			}
		})
	}
}

// Every lifecycle entry point that would act on a host leaves a detached
// one alone: creates and updates are refused, destroys forget, and the
// provisioner is asked nothing but Observe. A host in maintenance set by
// someone else is acted on as usual.
func TestDetachedHostIsLeftAlone(t *testing.T) {
	ctx := context.Background()
	actions := []struct {
		name   string
		ps     string
		forget bool
		run    func(*lifecycle.Clients) error
		acted  string // the Provisioner call that acts, on a host not detached
	}{
		{"deploy", "available", false, func(c *lifecycle.Clients) error {
			_, err := c.Machine.Deploy(ctx, lifecycle.DeployRequest{Ref: "node-1", Spec: deploySpec()})
			return err
		}, "Provision"},
		{"undeploy", "active", true, func(c *lifecycle.Clients) error {
			_, _, err := c.Machine.Undeploy(ctx, lifecycle.HostRef{ID: "node-1"}, "", 0)
			return err
		}, "Deprovision"},
		{"BIOS settings", "available", false, func(c *lifecycle.Clients) error {
			return c.ApplyFirmware(ctx, lifecycle.FirmwareRequest{Ref: "node-1",
				Want: func(*lifecycle.BIOS) (map[string]string, bool) { return map[string]string{"NumLock": "Off"}, true },
				Save: func(lifecycle.Observation, *lifecycle.BIOS, error) {}})
		}, "Prepare"},
		{"BIOS reset on destroy", "available", true, func(c *lifecycle.Clients) error {
			_, err := c.ResetFirmware(ctx, "node-1", nil)
			return err
		}, "Prepare"},
	}
	for _, a := range actions {
		for _, reason := range []string{lifecycle.DetachReason, "replacing a DIMM"} {
			detached := reason == lifecycle.DetachReason
			t.Run(a.name+" maintenance "+reason, func(t *testing.T) {
				n := lifecycletest.New()
				n.PS, n.Maintenance, n.MaintenanceReason = a.ps, true, reason
				n.BIOS = map[string]string{"NumLock": "On"}
				if a.ps == "active" {
					n.Image, n.PoweredOn = img(ubuntu), true
				}
				c := &lifecycle.Clients{Machine: lifecycletest.NewMachine(n),
					Firmware: &lifecycletest.Firmware{Node: n, Offers: lifecycle.FirmwareFeatures{Servicing: true}}}
				err := a.run(c)
				calls := n.Calls()
				d := lifecycle.AsDetached(err)
				var refusal *lifecycle.FirmwareRefusal
				if detached {
					refusedHere := d != nil || (asRefusal(err, &refusal) && strings.Contains(refusal.Summary, "is detached"))
					if !refusedHere {
						t.Fatalf("err %v, want the detached rule", err)
					}
					if d != nil && d.Forgotten != a.forget {
						t.Errorf("Forgotten %v, want %v", d.Forgotten, a.forget)
					}
					if slices.ContainsFunc(calls, func(c string) bool { return c != "Observe" }) {
						t.Errorf("calls %v on a detached host, want only Observe", calls)
					}
					if ps, _, _ := n.State(); ps != a.ps || n.BIOS["NumLock"] != "On" {
						t.Errorf("node %s, BIOS %v: changed", ps, n.BIOS)
					}
					return
				}
				if d != nil {
					t.Fatalf("maintenance %q taken for a detach: %v", reason, err)
				}
				if !slices.Contains(calls, a.acted) {
					t.Errorf("calls %v, want %s: maintenance set by someone else does not stop the provider", calls, a.acted)
				}
			})
		}
	}
}

func asRefusal(err error, r **lifecycle.FirmwareRefusal) bool {
	if err == nil {
		return false
	}
	f, ok := err.(*lifecycle.FirmwareRefusal)
	*r = f
	return ok
}

// Firmware updates are refused on a detached host (at plan and at apply,
// which share FirmwareUpdatable), whichever way they would go.
func TestFirmwareUpdatableDetached(t *testing.T) {
	obs := lifecycle.Observation{Exists: true, ID: "n", Name: "h", State: lifecycle.StateAvailable, ProvisionState: "available",
		Maintenance: true, MaintenanceReason: lifecycle.DetachReason}
	for _, components := range []bool{true, false} {
		r := lifecycle.FirmwareUpdatable(obs, lifecycle.FirmwareFeatures{Components: components}, []lifecycle.FirmwareUpdate{{Component: "bios"}}, true, "")
		if len(r) != 1 || r[0].Attribute != "host_id" || !strings.Contains(r[0].Summary, "is detached") {
			t.Errorf("components %v: refusals %+v, want one on host_id saying detached", components, r)
		}
	}
	obs.MaintenanceReason = "replacing a DIMM"
	if r := lifecycle.FirmwareUpdatable(obs, lifecycle.FirmwareFeatures{Components: true}, []lifecycle.FirmwareUpdate{{Component: "bios"}}, true, ""); len(r) != 0 {
		t.Errorf("maintenance by an operator refused: %+v", r)
	}
}

// A claim on a detached host is not released (the allocation goes with the
// node handed on); claims never pick a detached host, and say why.
func TestReleaseClaimAndClaimableDetached(t *testing.T) {
	ctx := context.Background()
	detached := summary("d", "gold", nil)
	detached.Maintenance, detached.MaintenanceReason, detached.AllocationID = true, lifecycle.DetachReason, "alloc-d"
	other := summary("o", "gold", nil)
	other.Maintenance, other.MaintenanceReason, other.AllocationID = true, "replacing a DIMM", "alloc-o"
	cat := lifecycletest.NewCatalog(detached, other)
	cat.Allocations = map[string]lifecycle.Allocation{
		"claim-d": {ID: "alloc-d", Name: "claim-d", NodeID: "uuid-d", State: "active"},
		"claim-o": {ID: "alloc-o", Name: "claim-o", NodeID: "uuid-o", State: "active"},
	}
	err := lifecycle.ReleaseClaim(ctx, cat, "alloc-d", "uuid-d")
	if d := lifecycle.AsDetached(err); d == nil || !d.Forgotten || !strings.Contains(d.Detail(), "delete allocation alloc-d") {
		t.Errorf("release on a detached host: %v, want a forgotten DetachedError", err)
	}
	if err := lifecycle.ReleaseClaim(ctx, cat, "alloc-o", "uuid-o"); err != nil {
		t.Errorf("release on a host in maintenance by an operator: %v", err)
	}
	if !slices.Equal(cat.Released, []string{"alloc-o"}) {
		t.Errorf("released %v, want only alloc-o", cat.Released)
	}
	if err := lifecycle.ReleaseClaim(ctx, cat, "alloc-gone", "uuid-gone"); err != nil {
		t.Errorf("release of a host that is gone: %v", err)
	}
	if reason, _ := lifecycle.Claimable(detached); reason != lifecycle.ReasonDetached {
		t.Errorf("Claimable(detached) = %q", reason)
	}
	if reason, _ := lifecycle.Claimable(other); reason != lifecycle.ReasonMaintenance {
		t.Errorf("Claimable(operator maintenance) = %q", reason)
	}
}
