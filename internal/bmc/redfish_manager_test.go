package bmc

import (
	"slices"
	"strings"
	"testing"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmc/sim"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmcaddr"
)

// ResetManager resets the manager of the system the address names, with
// the ResetType asked, and leaves the system's power alone; a ResetType
// the manager does not list is the BMC's error; a non-Redfish address is
// refused before anything is sent.
func TestResetManager(t *testing.T) {
	srv := startSim(t, sim.Options{})
	d, err := bmcaddr.Parse("redfish+" + srv.SystemURL("sys-1"))
	if err != nil {
		t.Fatal(err)
	}
	access := d.Access(testUser, testPassword, false)
	for _, rt := range []string{"GracefulRestart", "ForceRestart"} {
		if err := ResetManager(testContext(t), access, rt); err != nil {
			t.Fatalf("%s: %v", rt, err)
		}
	}
	st, err := srv.State("sys-1")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(st.ManagerResets, []string{"GracefulRestart", "ForceRestart"}) || len(st.Resets) != 0 {
		t.Errorf("manager resets %q, system resets %q", st.ManagerResets, st.Resets)
	}
	if other, _ := srv.State("sys-0"); len(other.ManagerResets) != 0 {
		t.Errorf("the other system's BMC was reset: %q", other.ManagerResets)
	}
	err = ResetManager(testContext(t), access, "PowerCycle")
	if err == nil || !strings.Contains(err.Error(), "PowerCycle") {
		t.Errorf("PowerCycle: %v", err)
	}
	ipmi, err := bmcaddr.Parse("ipmi://10.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	if err := ResetManager(testContext(t), ipmi.Access("u", "p", false), "GracefulRestart"); err == nil || !strings.Contains(err.Error(), "not a Redfish BMC") {
		t.Errorf("ipmi: %v", err)
	}
}
