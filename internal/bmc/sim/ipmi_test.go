package sim

import (
	"slices"
	"testing"
)

// ipmi_sim's chassis_control calls, through the admin API: power on and
// off are resets, a boot device is a one-time override, get reports both.
func TestIPMIChassis(t *testing.T) {
	s := startServer(t, Options{}, 1)
	admin := newCaller(t, s.URL())
	admin.noAuth = true
	call := func(args string) (int, string) {
		t.Helper()
		return admin.raw("POST", "/sim/systems/sys-0/ipmi-chassis", args)
	}
	if code, out := call("get power boot"); code != 200 || out != "power:0\nboot:default\n" {
		t.Fatalf("get: %d %q", code, out)
	}
	if code, out := call("set boot pxe"); code != 200 || out != "" {
		t.Fatalf("set boot: %d %q", code, out)
	}
	if _, out := call("get boot"); out != "boot:pxe\n" {
		t.Errorf("get boot after set: %q", out)
	}
	call("set power 1")
	st, _ := s.State("sys-0")
	if st.PowerState != PowerOn || st.NetworkBoots != 1 || st.Boot.Enabled != "Disabled" || !slices.Equal(st.Resets, []string{"On"}) {
		t.Errorf("after power on: power %s, %d network boots, boot %+v, resets %v", st.PowerState, st.NetworkBoots, st.Boot, st.Resets)
	}
	if _, out := call("get power boot"); out != "power:1\nboot:default\n" {
		t.Errorf("get after the PXE boot: %q", out)
	}
	call("set power 0")
	if code, _ := call("set boot floppy"); code != 400 {
		t.Errorf("unknown boot device: HTTP %d", code)
	}
	st, _ = s.State("sys-0")
	if st.PowerState != PowerOff || !slices.Equal(st.BootRequests, []BootOverride{{"Pxe", "Once", "UEFI"}}) {
		t.Errorf("power %s, boot requests %+v", st.PowerState, st.BootRequests)
	}
}
