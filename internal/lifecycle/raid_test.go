package lifecycle

import (
	"context"
	"strings"
	"testing"
)

func TestValidateRAID(t *testing.T) {
	no := false
	cases := []struct {
		name  string
		r     *RAIDConfig
		iface string
		want  string // "" means valid
	}{
		{"nil", nil, "no-raid", ""},
		{"hardware", &RAIDConfig{HardwareVolumes: []HardwareRAIDVolume{{Level: "1", SizeGigabytes: 100}, {Level: "5+0", Rotational: &no}}}, "redfish", ""},
		{"empty deletes", &RAIDConfig{}, "redfish", ""},
		{"both", &RAIDConfig{HardwareVolumes: []HardwareRAIDVolume{{Level: "1"}}, SoftwareVolumes: []SoftwareRAIDVolume{{Level: "1"}}}, "", "cannot both be set"},
		{"bad level", &RAIDConfig{HardwareVolumes: []HardwareRAIDVolume{{Level: "1"}, {Level: "7"}}}, "", `raid.hardware_volumes[1]: level "7"`},
		{"negative size", &RAIDConfig{HardwareVolumes: []HardwareRAIDVolume{{Level: "1", SizeGigabytes: -1}}}, "", "raid.hardware_volumes[0]: size_gigabytes -1 must be positive"},
		{"disks need controller", &RAIDConfig{HardwareVolumes: []HardwareRAIDVolume{{Level: "1", PhysicalDisks: []string{"d0"}}}}, "", "physical_disks needs controller"},
		{"negative disks", &RAIDConfig{HardwareVolumes: []HardwareRAIDVolume{{Level: "1", NumberOfPhysicalDisks: -2}}}, "", "number_of_physical_disks -2"},
		{"software", &RAIDConfig{SoftwareVolumes: []SoftwareRAIDVolume{{Level: "1"}, {Level: "0"}}}, "agent", ""},
		{"software first not raid1", &RAIDConfig{SoftwareVolumes: []SoftwareRAIDVolume{{Level: "0"}}}, "agent", "raid.software_volumes[0]: the first software RAID volume must be RAID-1"},
		{"software level", &RAIDConfig{SoftwareVolumes: []SoftwareRAIDVolume{{Level: "1"}, {Level: "5"}}}, "agent", `raid.software_volumes[1]: level "5"`},
		{"software three", &RAIDConfig{SoftwareVolumes: []SoftwareRAIDVolume{{Level: "1"}, {Level: "0"}, {Level: "0"}}}, "agent", "at most 2"},
		{"software on redfish", &RAIDConfig{SoftwareVolumes: []SoftwareRAIDVolume{{Level: "1"}}}, "redfish", `software RAID needs the "agent" raid interface`},
		{"hardware on agent", &RAIDConfig{HardwareVolumes: []HardwareRAIDVolume{{Level: "1"}}}, "agent", "only builds software RAID"},
		{"no-raid", &RAIDConfig{HardwareVolumes: []HardwareRAIDVolume{{Level: "1"}}}, "no-raid", "does not support RAID"},
	}
	for _, c := range cases {
		errs := ValidateRAID(c.r, c.iface)
		switch {
		case c.want == "" && len(errs) != 0:
			t.Errorf("%s: unexpected %v", c.name, errs)
		case c.want != "" && (len(errs) == 0 || !strings.Contains(errs[0].Error(), c.want)):
			t.Errorf("%s: want %q, got %v", c.name, c.want, errs)
		}
	}
}

// A RAID change sends an available host back through preparing; once
// prepared, the same RAID is steady.
func TestRAIDChangeReprepares(t *testing.T) {
	e := newEnv()
	h := newHost(StateAvailable)
	h.Spec.RAID = &RAIDConfig{HardwareVolumes: []HardwareRAIDVolume{{Level: "1"}}}
	if !unprepared(h) {
		t.Fatal("new RAID: not unprepared")
	}
	if err := e.m.Converge(context.Background(), h, ConvergeOptions{Retries: 1}); err != nil {
		t.Fatal(err)
	}
	if len(e.prov.callsTo("Prepare")) != 1 || !RAIDEqual(h.Status.PreparedRAID, h.Spec.RAID) {
		t.Fatalf("prepare calls %d, prepared %+v", len(e.prov.callsTo("Prepare")), h.Status.PreparedRAID)
	}
	if unprepared(h) {
		t.Error("same RAID: still unprepared")
	}
	h.Spec.RAID = &RAIDConfig{HardwareVolumes: []HardwareRAIDVolume{{Level: "5"}}}
	if !unprepared(h) {
		t.Error("changed RAID: not unprepared")
	}
	// A deployment's host (registered elsewhere) never prepares for RAID.
	h.Spec.RegisteredElsewhere = true
	if unprepared(h) {
		t.Error("registered elsewhere: unprepared")
	}
}
