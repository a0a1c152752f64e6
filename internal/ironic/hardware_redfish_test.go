package ironic

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmc/sim"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

func deref(p *int) int {
	if p == nil {
		return -1
	}
	return *p
}

// Vendors name NICs badly: iLO leaves Name empty, iDRAC gives every NIC
// the same one. The name is then the interface's Id with its MAC; a speed
// the BMC does not know is nil, not 0, and so is a drive's missing vendor
// left empty.
func TestHardwareRedfishVendorNICNames(t *testing.T) {
	const user, pass = "admin", "s3cret-Passw0rd"
	for _, d := range []string{sim.DialectILO, sim.DialectIDRAC, sim.DialectSupermicro} {
		bmcSrv, err := sim.Start(sim.Options{Dialect: d}, 1, user, pass)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = bmcSrv.Close() })
		prof, _ := sim.ProfileFor(d, 0)
		access := &lifecycle.BMCAccess{
			Address: "redfish+" + bmcSrv.SystemURL("sys-0"), Driver: "redfish",
			DriverInfo: map[string]any{"redfish_username": user, "redfish_password": pass},
		}
		c := NewCatalog(newCatFakeIronic(t, "").start("1.82"))
		hd, err := c.Hardware(catCtx(t, 30*time.Second), catNodeUUID, access)
		if err != nil {
			t.Fatal(err)
		}
		if len(hd.NICs) != len(prof.NICs) || len(hd.Storage) != len(prof.Disks) {
			t.Fatalf("%q: nics %+v, storage %+v", d, hd.NICs, hd.Storage)
		}
		byMAC := map[string]sim.NIC{}
		for _, w := range prof.NICs {
			byMAC[w.MAC] = w
		}
		for i, n := range hd.NICs {
			w := byMAC[n.MAC]
			name := fmt.Sprintf("%s (%s)", w.Name, w.MAC)
			if d == sim.DialectSupermicro {
				name = w.Name // its NICs are named by their Id
			}
			speed := -1
			if w.SpeedMbps > 0 {
				speed = w.SpeedMbps / 1000
			}
			if n.Name != name || deref(n.SpeedGbps) != speed {
				t.Errorf("%q: nic %d = %q %d Gbps, want %q %d", d, i, n.Name, deref(n.SpeedGbps), name, speed)
			}
		}
		for i, s := range hd.Storage {
			if s.Vendor != prof.Disks[i].Vendor {
				t.Errorf("%q: disk %d vendor %q", d, i, s.Vendor)
			}
		}
		if hd.Firmware.BIOSVersion == "" || strings.Contains(hd.Firmware.BIOSVersion, "Redundant") {
			t.Errorf("%q: BIOS version %q", d, hd.Firmware.BIOSVersion)
		}
	}
}

// What baremetal_firmware lists from an iLO-like BMC (no firmware API
// below 1.86): all 23 FirmwareInventory items, the two SSDs' firmware
// among them, though their RelatedItem is a drive of the storage enclosure
// Chassis/<id>-DE00A000, which the system reaches only through its Storage
// and its chassis' containment.
func TestCatalogFirmwareILOEnclosureDrives(t *testing.T) {
	const user, pass = "admin", "s3cret-Passw0rd"
	bmcSrv, err := sim.Start(sim.Options{Dialect: sim.DialectILO}, 1, user, pass)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = bmcSrv.Close() })
	access := &lifecycle.BMCAccess{
		Address: "redfish+" + bmcSrv.SystemURL("sys-0"), Driver: "redfish",
		DriverInfo: map[string]any{"redfish_username": user, "redfish_password": pass},
	}
	inv, err := NewCatalog(newCatFakeIronic(t, "").start("1.82")).Firmware(catCtx(t, 30*time.Second), catNodeUUID, access)
	if err != nil {
		t.Fatal(err)
	}
	var drives, lines []string
	for _, c := range inv.Components {
		lines = append(lines, fmt.Sprintf("%s %q %s %v", c.ID, c.Name, c.Version, c.RelatedTo))
		if c.Name == "Drive" && len(c.RelatedTo) == 1 && strings.HasPrefix(c.RelatedTo[0], "/redfish/v1/chassis/sys-0-de00a000/drives/") {
			drives = append(drives, c.ID)
		}
	}
	t.Logf("%d components from %s:\n%s", len(inv.Components), inv.Source, strings.Join(lines, "\n"))
	if inv.Source != lifecycle.FirmwareSourceRedfish || len(inv.Components) != 23 || strings.Join(drives, ",") != "21,22" {
		t.Errorf("source %s, %d components, enclosure drives %v; want redfish, 23, [21 22]", inv.Source, len(inv.Components), drives)
	}
}

// Ironic 2024.1+'s redfish inspection stores an inventory whose NICs have
// no names; with the BMC given, they take the names the BMC gives them
// (by MAC), so that network data can refer to them. Without it they stay
// unnamed.
func TestHardwareInventoryNICNamesFromBMC(t *testing.T) {
	const user, pass = "admin", "s3cret-Passw0rd"
	bmcSrv, err := sim.Start(sim.Options{}, 1, user, pass)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = bmcSrv.Close() })
	prof := sim.DefaultProfile(0)
	var ifaces []string
	for _, nic := range prof.NICs {
		ifaces = append(ifaces, fmt.Sprintf(`{"name": "", "mac_address": %q}`, strings.ToUpper(nic.MAC)))
	}
	inv := `{"inventory": {"interfaces": [` + strings.Join(ifaces, ",") + `], "memory": {"physical_mb": 1024}}, "plugin_data": {}}`
	access := &lifecycle.BMCAccess{
		Address: "redfish+" + bmcSrv.SystemURL("sys-0"), Driver: "redfish",
		DriverInfo: map[string]any{"redfish_username": user, "redfish_password": pass},
	}
	for _, tc := range []struct {
		access *lifecycle.BMCAccess
		named  bool
	}{{nil, false}, {access, true}} {
		c := NewCatalog(newCatFakeIronic(t, inv).start("1.82"))
		hd, err := c.Hardware(catCtx(t, 30*time.Second), catNodeUUID, tc.access)
		if err != nil {
			t.Fatal(err)
		}
		if hd.Source != HardwareSourceInventory || len(hd.NICs) != len(prof.NICs) {
			t.Fatalf("source %s, nics %+v", hd.Source, hd.NICs)
		}
		for i, nic := range hd.NICs {
			if want := map[bool]string{true: prof.NICs[i].Name, false: ""}[tc.named]; nic.Name != want {
				t.Errorf("bmc given %t: nic %s named %q, want %q", tc.named, nic.MAC, nic.Name, want)
			}
		}
	}
}

// With BMC credentials, an inventory from out-of-band inspection (Ironic
// 2024.1+'s redfish inspection stores one) gives way to the BMC read
// directly; an agent's inventory stays the source.
func TestHardwareSourceByInspection(t *testing.T) {
	const user, pass = "admin", "s3cret-Passw0rd"
	bmcSrv, err := sim.Start(sim.Options{}, 1, user, pass)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = bmcSrv.Close() })
	access := &lifecycle.BMCAccess{
		Address: "redfish+" + bmcSrv.SystemURL("sys-0"), Driver: "redfish",
		DriverInfo: map[string]any{"redfish_username": user, "redfish_password": pass},
	}
	for _, tc := range []struct {
		inspect string
		access  *lifecycle.BMCAccess
		want    string
	}{
		{"redfish", access, HardwareSourceRedfish},
		{"redfish", nil, HardwareSourceInventory},
		{"agent", access, HardwareSourceInventory},
		{"idrac-redfish", access, HardwareSourceRedfish},
		// An inventory stored on a fake or no-inspect node was put
		// there on purpose: it stays the source.
		{"fake", access, HardwareSourceInventory},
		{"no-inspect", access, HardwareSourceInventory},
	} {
		f := newCatFakeIronic(t, catIPAInventory)
		f.node["inspect_interface"] = tc.inspect
		hd, err := NewCatalog(f.start("1.82")).Hardware(catCtx(t, 30*time.Second), catNodeUUID, tc.access)
		if err != nil {
			t.Fatal(err)
		}
		if hd.Source != tc.want {
			t.Errorf("inspect_interface %s, bmc given %t: source %s, want %s", tc.inspect, tc.access != nil, hd.Source, tc.want)
		}
	}
}
