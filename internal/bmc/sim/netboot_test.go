package sim

import (
	"slices"
	"testing"
)

// A one-time PXE override applies to the next power-on only: the system
// boots from the network once, Enabled goes back to Disabled, and the
// request stays in BootRequests; a continuous one applies to every boot.
func TestBootOverrideOnceIsSpentAtPowerOn(t *testing.T) {
	s := startServer(t, Options{}, 1)
	c := newCaller(t, s.URL())
	const sys0 = "/redfish/v1/Systems/sys-0"
	reset := func(kind string) {
		c.expect(204, "POST", sys0+"/Actions/ComputerSystem.Reset", map[string]string{"ResetType": kind}, nil)
	}
	patch := func(target, enabled string) {
		c.expect(204, "PATCH", sys0, map[string]any{"Boot": map[string]string{"BootSourceOverrideTarget": target, "BootSourceOverrideEnabled": enabled}}, nil)
	}
	patch("Pxe", "Once")
	st, _ := s.State("sys-0")
	if st.NetworkBoots != 0 || st.Boot.Enabled != "Once" {
		t.Fatalf("before power-on: %d network boots, boot %+v", st.NetworkBoots, st.Boot)
	}
	reset("On")
	st, _ = s.State("sys-0")
	if st.NetworkBoots != 1 || st.Boot != (BootOverride{Target: "Pxe", Enabled: "Disabled", Mode: "UEFI"}) {
		t.Fatalf("after the PXE boot: %d network boots, boot %+v", st.NetworkBoots, st.Boot)
	}
	reset("ForceRestart")
	if st, _ = s.State("sys-0"); st.NetworkBoots != 1 {
		t.Errorf("the spent override booted from the network again (%d)", st.NetworkBoots)
	}
	patch("Pxe", "Continuous")
	reset("ForceRestart")
	reset("ForceRestart")
	st, _ = s.State("sys-0")
	if st.NetworkBoots != 3 || st.Boot.Enabled != "Continuous" {
		t.Errorf("continuous: %d network boots, boot %+v", st.NetworkBoots, st.Boot)
	}
	want := []BootOverride{{"Pxe", "Once", "UEFI"}, {"Pxe", "Continuous", "UEFI"}}
	if !slices.Equal(st.BootRequests, want) {
		t.Errorf("boot requests %+v, want %+v", st.BootRequests, want)
	}
}
