package lifecycle_test

import (
	"context"
	"errors"
	"maps"
	"strings"
	"testing"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle/lifecycletest"
)

func TestFirmwareApplicable(t *testing.T) {
	diff := map[string]string{"B": "1", "A": "2"}
	for _, c := range []struct {
		state     lifecycle.State
		servicing bool
		bios      string
		attr      string // "" when allowed
		text      string
	}{
		{lifecycle.StateAvailable, false, "", "", ""},
		{lifecycle.StateProvisioned, true, "", "", ""},
		{lifecycle.StateProvisioned, true, "redfish", "", ""},
		{lifecycle.StateProvisioned, false, "", "settings", "changing [A B] needs Ironic's servicing"},
		// Ironic 2025.1's fake and no-bios interfaces have no service
		// step: servicing would leave the node in "service failed".
		{lifecycle.StateProvisioned, true, "fake", "settings", `its bios_interface "fake" has none`},
		{lifecycle.StateProvisioned, true, "no-bios", "settings", `its bios_interface "no-bios" has none`},
		{lifecycle.StateAvailable, true, "fake", "", ""},
		{lifecycle.StatePreparing, true, "", "host_id", `is "preparing"`},
		{lifecycle.StateInspecting, false, "", "host_id", "applied to available hosts"},
	} {
		obs := lifecycle.Observation{Exists: true, ID: "n", Name: "h", State: c.state, BIOSInterface: c.bios}
		r := lifecycle.FirmwareApplicable(obs, lifecycle.FirmwareFeatures{Servicing: c.servicing, Microversion: "1.82"}, diff)
		switch {
		case c.attr == "" && r != nil:
			t.Errorf("%s (servicing %v): refused: %v", c.state, c.servicing, r)
		case c.attr != "" && (r == nil || r.Attribute != c.attr || !strings.Contains(r.Detail, c.text)):
			t.Errorf("%s (servicing %v): %+v, want %s: %q", c.state, c.servicing, r, c.attr, c.text)
		}
	}
}

func TestManagedSettingsDriftAndSwitches(t *testing.T) {
	b := &lifecycle.BIOS{Driver: "idrac", Settings: map[string]lifecycle.BIOSSetting{
		"NumLock":            {Name: "NumLock", Value: "On", Type: "Enumeration"},
		"Quiet":              {Name: "Quiet", Value: "True", Type: "Boolean"},
		"ProcVirtualization": {Name: "ProcVirtualization", Value: "Enabled"},
	}}
	got := lifecycle.ManagedSettingsDrift(map[string]string{"NumLock": "Off", "Quiet": "true", "Gone": "x"}, b)
	want := map[string]string{"NumLock": "On", "Quiet": "true"}
	if !maps.Equal(got, want) {
		t.Errorf("drift %v, want %v (changed shows Ironic's value, equal keeps the user's spelling, gone is left out)", got, want)
	}
	sw := lifecycle.FirmwareSwitchStates("idrac", b)
	if len(sw) == 0 || sw[0] == nil || !*sw[0] {
		t.Errorf("idrac virtualization switch read back %v", sw)
	}
	for i := 1; i < len(sw); i++ {
		if sw[i] != nil {
			t.Errorf("switch %d read back %v from a BIOS without it", i, *sw[i])
		}
	}
	if lifecycle.FirmwareSwitchStates("fake-hardware", b) != nil {
		t.Error("a driver without switches reads some back")
	}
}

func TestApplyFirmware(t *testing.T) {
	schema := map[string]lifecycle.BIOSSetting{"NumLock": {Type: "Enumeration", AllowableValues: []string{"On", "Off"}}}
	for _, c := range []struct {
		name      string
		node      func(*lifecycletest.Node)
		servicing bool
		want      map[string]string
		refusal   string // summary
		failed    string
		calls     string // a Provisioner call that must happen ("" none of Prepare/Service)
		saved     bool
		bios      string // NumLock afterwards
	}{
		{name: "available: manual cleaning", want: map[string]string{"NumLock": "Off"}, calls: "Prepare", saved: true, bios: "Off"},
		{name: "already as wanted: nothing applied", want: map[string]string{"NumLock": "On"}, saved: true, bios: "On"},
		{name: "provisioned with servicing", node: func(n *lifecycletest.Node) { n.PS = "active" }, servicing: true,
			want: map[string]string{"NumLock": "Off"}, calls: "Service", saved: true, bios: "Off"},
		{name: "provisioned without servicing", node: func(n *lifecycletest.Node) { n.PS = "active" },
			want: map[string]string{"NumLock": "Off"}, refusal: "Firmware settings cannot change on a provisioned host", bios: "On"},
		{name: "busy host", node: func(n *lifecycletest.Node) { n.PS = "clean wait" }, want: map[string]string{"NumLock": "Off"},
			refusal: "Host cannot take firmware settings now", bios: "On"},
		{name: "no such host", node: func(n *lifecycletest.Node) { n.Gone = true }, want: map[string]string{"NumLock": "Off"}, refusal: "Host not found", bios: "On"},
		{name: "cleaning fails: saved anyway", node: func(n *lifecycletest.Node) { n.FailPrepare = "BIOS says no" },
			want: map[string]string{"NumLock": "Off"}, failed: "BIOS says no", calls: "Prepare", saved: true, bios: "On"},
		{name: "invalid settings: nothing done", want: nil, bios: "On"},
	} {
		t.Run(c.name, func(t *testing.T) {
			n := lifecycletest.New()
			n.BIOS = map[string]string{"NumLock": "On"}
			if c.node != nil {
				c.node(n)
			}
			clients := &lifecycle.Clients{Machine: lifecycletest.NewMachine(n),
				Firmware: &lifecycletest.Firmware{Node: n, Schema: schema, Offers: lifecycle.FirmwareFeatures{Servicing: c.servicing}}}
			saved := false
			err := clients.ApplyFirmware(context.Background(), lifecycle.FirmwareRequest{
				Ref: "host-a",
				Want: func(b *lifecycle.BIOS) (map[string]string, bool) {
					if b.SchemaSource != lifecycle.SchemaSourceIronic || b.Settings["NumLock"].Type != "Enumeration" {
						t.Errorf("Want got %+v", b)
					}
					return c.want, c.want != nil
				},
				Save: func(obs lifecycle.Observation, b *lifecycle.BIOS, readErr error) {
					saved = true
					if obs.ID != "node-1" || readErr != nil || b == nil {
						t.Errorf("saved %+v %v %v", obs, b, readErr)
					}
				},
			})
			var refusal *lifecycle.FirmwareRefusal
			var herr *lifecycle.HostError
			switch {
			case c.refusal != "":
				if !errors.As(err, &refusal) || refusal.Summary != c.refusal {
					t.Fatalf("err %v, want refusal %q", err, c.refusal)
				}
			case c.failed != "":
				if !errors.As(err, &herr) || !strings.Contains(err.Error(), c.failed) {
					t.Fatalf("err %v, want a HostError with %q", err, c.failed)
				}
			case err != nil:
				t.Fatal(err)
			}
			if saved != c.saved {
				t.Errorf("saved %v, want %v", saved, c.saved)
			}
			calls := strings.Join(n.Calls(), ",")
			if c.calls != "" && !strings.Contains(calls, c.calls) {
				t.Errorf("calls %s, want %s", calls, c.calls)
			}
			if c.calls == "" && (strings.Contains(calls, "Prepare") || strings.Contains(calls, "Service")) {
				t.Errorf("calls %s: applied when it should not", calls)
			}
			if n.BIOS["NumLock"] != c.bios {
				t.Errorf("NumLock %q, want %q", n.BIOS["NumLock"], c.bios)
			}
		})
	}
}

func TestResetAndRefreshFirmware(t *testing.T) {
	for _, c := range []struct {
		name      string
		ps        string
		gone      bool
		bios      string
		servicing bool
		refusal   string
		reset     bool
	}{
		{name: "available", ps: "available", reset: true},
		{name: "provisioned with servicing", ps: "active", servicing: true, reset: true},
		{name: "provisioned without servicing", ps: "active", refusal: "Cannot reset the BIOS of a provisioned host"},
		{name: "provisioned, bios interface without service steps", ps: "active", bios: "fake", servicing: true, refusal: "Cannot reset the BIOS of a provisioned host"},
		{name: "busy", ps: "deploying", refusal: "Cannot reset the BIOS of host host-a"},
		{name: "gone", ps: "available", gone: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			n := lifecycletest.New()
			n.PS, n.Gone, n.BIOS, n.BIOSInterface = c.ps, c.gone, map[string]string{"NumLock": "Off"}, c.bios
			clients := &lifecycle.Clients{Machine: lifecycletest.NewMachine(n),
				Firmware: &lifecycletest.Firmware{Node: n, Offers: lifecycle.FirmwareFeatures{Servicing: c.servicing}}}
			_, err := clients.ResetFirmware(context.Background(), "node-1", nil)
			var refusal *lifecycle.FirmwareRefusal
			if c.refusal != "" {
				if !errors.As(err, &refusal) || refusal.Summary != c.refusal {
					t.Fatalf("err %v, want %q", err, c.refusal)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if reset := len(n.BIOS) == 0; reset != c.reset {
				t.Errorf("BIOS %v: reset %v, want %v", n.BIOS, reset, c.reset)
			}
			_, gone, err := clients.RefreshFirmware(context.Background(), "node-1", nil)
			if err != nil || gone != c.gone {
				t.Errorf("RefreshFirmware: gone %v err %v, want gone %v", gone, err, c.gone)
			}
			b, err := clients.PlanFirmware(context.Background(), "node-1", nil)
			if err != nil || (b == nil) != c.gone {
				t.Errorf("PlanFirmware: %v %v (a host created in this apply gives no BIOS and no error)", b, err)
			}
		})
	}
}
