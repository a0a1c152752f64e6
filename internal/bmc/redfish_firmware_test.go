package bmc

import (
	"strings"
	"testing"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmc/sim"
)

// Every item of each vendor's inventory belongs to its only system (its
// drives relate to Chassis/<id>/Drives/... or, on iLO, to the drives of a
// storage enclosure the system's chassis contains, NICs to the chassis'
// network adapters, power supplies to its power subsystem), and bios and
// bmc are the images the BMC runs: on iLO all 23 items, the two enclosure
// drives' included.
func TestFirmwareOfEachDialect(t *testing.T) {
	for _, tc := range []struct {
		dialect   string
		bios, bmc string
	}{
		{sim.DialectILO, "2", "1"},
		{sim.DialectIDRAC, "Installed-159-1.8.2", "Installed-25227-6.10.30.00__iDRAC.Embedded.1-1"},
		{sim.DialectSupermicro, "BIOS", "BMC"},
	} {
		c := connect(t, startDialect(t, tc.dialect))
		p, _ := sim.ProfileFor(tc.dialect, 0)
		items, err := c.Firmware("sys-0")
		if err != nil {
			t.Fatal(err)
		}
		if len(items) != len(p.Firmware) {
			t.Errorf("%q: %d components of %d inventory items", tc.dialect, len(items), len(p.Firmware))
		}
		for comp, want := range map[string]string{"bios": tc.bios, "bmc": tc.bmc} {
			if got, err := ResolveFirmwareComponent(items, comp); err != nil || got.ID != want {
				t.Errorf("%q: %s = %q, %v; want %q", tc.dialect, comp, got.ID, err, want)
			}
		}
	}

	c := connect(t, startDialect(t, sim.DialectILO))
	items, _ := c.Firmware("")
	drives := 0
	for _, it := range items {
		if it.Name == "Drive" {
			drives++
			if len(it.RelatedTo) != 1 || !strings.HasPrefix(it.RelatedTo[0], "/redfish/v1/chassis/sys-0-de00a000/drives/") {
				t.Errorf("drive item = %+v", it)
			}
		}
	}
	if drives != 2 {
		t.Errorf("%d drive items in %+v", drives, items)
	}
}

func TestResolveActiveImage(t *testing.T) {
	lenovo := []FirmwareComponent{
		{ID: "BMC-Primary", Name: "XClarity Controller", Updateable: true},
		{ID: "BMC-Backup", Name: "XClarity Controller", Updateable: true},
		{ID: "UEFI", Name: "UEFI", Updateable: true},
		{ID: "LXPM", Name: "LXPM Diagnostic Software", Updateable: true},
	}
	dell := []FirmwareComponent{
		{ID: "Installed-159-1.8.2", Name: "BIOS", Updateable: true},
		{ID: "Previous-159-1.6.5", Name: "BIOS", Updateable: true},
		{ID: "Available-159-1.9.0", Name: "BIOS", Updateable: true},
		{ID: "Installed-30374-4301A42__Diagnostics.Embedded.1-1", Name: "Dell 64 Bit uEFI Diagnostics", Updateable: true},
	}
	standby := []FirmwareComponent{
		{ID: "bios-a", Name: "BIOS", Updateable: true, State: "Enabled"},
		{ID: "bios-b", Name: "BIOS", Updateable: true, State: "StandbySpare"},
	}
	for _, tc := range []struct {
		items      []FirmwareComponent
		comp, want string
	}{
		{lenovo, "bmc", "BMC-Primary"},
		{lenovo, "bios", "UEFI"},
		{dell, "bios", "Installed-159-1.8.2"},
		{standby, "bios", "bios-a"},
	} {
		if got, err := ResolveFirmwareComponent(tc.items, tc.comp); err != nil || got.ID != tc.want {
			t.Errorf("%s in %v = %q, %v; want %q", tc.comp, tc.items, got.ID, err, tc.want)
		}
	}

	// Two images that both run are truly ambiguous: the error names them.
	two := []FirmwareComponent{{ID: "1", Name: "System ROM", Updateable: true}, {ID: "2", Name: "System ROM", Updateable: true}, {ID: "3", Name: "iLO 5"}}
	_, err := ResolveFirmwareComponent(two, "bios")
	if err == nil || !strings.Contains(err.Error(), "matches 2 items of the BMC's firmware inventory (1 (System ROM), 2 (System ROM))") {
		t.Errorf("err = %v", err)
	}
}
