package resources_test

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/acctest"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmc/sim"
)

// bmcProfile is what the acceptance tests need to know of one vendor
// profile of the simulator.
type bmcProfile struct {
	dialect string
	// ok is a setting at its current value (nothing to apply).
	ok string
	// registryOnly is a setting the registry describes but the system's
	// Bios lacks.
	registryOnly string
	// locked is a setting the registry's dependencies make read-only on
	// the current values, and controller the setting that locks it.
	locked, controller string
	// bios and backup are the inventory ids of the ROM image the BMC runs
	// and of the one it keeps ("" when it keeps none).
	bios, backup string
	// refusal is the error of an update the BMC refuses: MessageId and text.
	refusal string
}

var bmcProfiles = []bmcProfile{
	{
		dialect: sim.DialectILO, ok: `BootMode = "Uefi"`, registryOnly: `ProcAmdIoVt = "Disabled"`,
		locked: `PowerRegulator = "OsControl"`, controller: "WorkloadProfile", bios: "2", backup: "7",
		refusal: "iLO.2.14.UpdateServiceBusy: The firmware update service cannot take the request now: another firmware update is in progress.",
	},
	{
		dialect: sim.DialectIDRAC, ok: `NumLock = "On"`, registryOnly: `NvmeMode = "Raid"`,
		locked: `ProcPwrPerf = "MaxPerf"`, controller: "SysProfile", bios: "Installed-159-1.8.2", backup: "Previous-159-1.6.5",
		refusal: "Base.1.12.ResourceInUse: The change to the requested resource failed because the resource is in use or in transition.",
	},
	{
		dialect: sim.DialectSupermicro, ok: `HyperThreading = "Enable"`, registryOnly: `VMDSupport = "Enable"`,
		locked: `CStateControl = "Legacy"`, controller: "PowerTechnology", bios: "BIOS",
		refusal: "SMC.1.0.OemLicenseNotPassed: The request needs a license the BMC does not have: SFT-OOB-LIC.",
	},
}

// spacedText matches text however Terraform wraps it: any space may be a
// newline.
func spacedText(text string) string {
	return strings.Join(strings.Fields(regexp.QuoteMeta(text)), `\s+`)
}

// profileHost is baremetal_host "h" on system sys-0 of srv, with Ironic's
// fake BIOS interface (acctest.SimHostDriver): the firmware settings'
// schema comes from the BMC. The firmware resources on it repeat its BMC().
func profileHost(name string, srv *sim.Server) acctest.SimHost {
	return acctest.SimHost{Resource: "h", Name: name, Address: acctest.SimAddress(srv, "sys-0"), Username: "admin", Password: "password"}
}

// TestAccFirmwareSettings_bmcProfiles: on each vendor profile (iLO-, iDRAC-
// and Supermicro-like), whose BIOS registry describes more attributes than
// the system's Bios has, a setting of the registry the Bios lacks is
// refused at plan, and so is a setting the registry's dependencies lock,
// naming the setting that locks it; a setting at its current value plans
// with schema_source "redfish".
func TestAccFirmwareSettings_bmcProfiles(t *testing.T) {
	for _, p := range bmcProfiles {
		t.Run(p.dialect, func(t *testing.T) {
			name := acctest.Name("tfacc-prof-fs")
			srv, _ := acctest.StartSimDialect(t, p.dialect, 1, "admin", "password")
			host := profileHost(name, srv)
			config := func(setting string) string {
				return host.HCL() + `
resource "baremetal_firmware_settings" "fw" {
  host_id  = baremetal_host.h.id
  settings = { ` + setting + ` }
` + host.BMC() + `}
`
			}
			lockedName, _, _ := strings.Cut(p.locked, " ")
			onlyName, _, _ := strings.Cut(p.registryOnly, " ")
			acctest.ParallelTest(t, nil, []resource.TestStep{
				{
					Config: config(p.ok),
					Check: resource.ComposeAggregateTestCheckFunc(
						resource.TestCheckResourceAttr("baremetal_firmware_settings.fw", "schema_source", "redfish"),
						resource.TestCheckNoResourceAttr("baremetal_firmware_settings.fw", "current."+onlyName),
					),
				},
				{
					Config: config(p.registryOnly), PlanOnly: true,
					ExpectError: regexp.MustCompile(`(?s)` + onlyName + `.*` + spacedText("the host has no such BIOS setting")),
				},
				{
					Config: config(p.locked), PlanOnly: true,
					ExpectError: regexp.MustCompile(`(?s)` + lockedName + `.*` + spacedText("the setting is read-only while "+p.controller) +
						`.*` + spacedText("change "+p.controller+" in these settings, or first")),
				},
				{Config: config(p.ok)},
			})
		})
	}
}

// TestAccFirmwareUpdate_bmcProfiles: on each vendor profile, an update
// through the BMC (method = "redfish", the only way on Ironic before 1.86) of
// "bios" goes to the ROM image the BMC runs (iLO's "System ROM", not its
// "Redundant System ROM"; iDRAC's Installed-, not Previous-), staged for
// the next boot: the provider boots the host, the host powers itself off
// once the image is applied, and the provider's power-off is then a reset
// to the state the system is in, which iLO refuses with 400
// InvalidOperationForSystemState and iDRAC with 409 PSU501, and which
// passes. An update the BMC refuses fails with the MessageId and its text
// (iLO's only from the registry the BMC serves).
func TestAccFirmwareUpdate_bmcProfiles(t *testing.T) {
	for _, p := range bmcProfiles {
		t.Run(p.dialect, func(t *testing.T) {
			name := acctest.Name("tfacc-prof-fu")
			sc := acctest.Ironic(t)
			srv, profiles := acctest.StartSimDialect(t, p.dialect, 1, "admin", "password")
			var before, backup string
			for _, fw := range profiles[0].Firmware {
				switch fw.ID {
				case p.bios:
					before = fw.Version
				case p.backup:
					backup = fw.Version
				}
			}
			faults := sim.Faults{UpdateAtBoot: true, PowerOffAfterUpdate: true}
			if err := srv.SetFaults("sys-0", faults); err != nil {
				t.Fatal(err)
			}
			host := profileHost(name, srv)
			update := func(version string) string {
				return host.HCL() + `
resource "baremetal_firmware_update" "u" {
  host_id = baremetal_host.h.id
  method  = "redfish"
` + host.BMC() + `  updates = [{ component = "bios", url = "http://images.invalid/rom-` + version + `.bin" }]
}
`
			}
			acctest.ParallelTest(t, nil, []resource.TestStep{
				{
					Config: update("9.9.9"),
					Check: resource.ComposeAggregateTestCheckFunc(
						resource.TestCheckResourceAttr("baremetal_firmware_update.u", "method", "redfish"),
						resource.TestCheckResourceAttr("baremetal_firmware_update.u", "results.0.target", p.bios),
						resource.TestCheckResourceAttr("baremetal_firmware_update.u", "results.0.previous_version", before),
						resource.TestCheckResourceAttr("baremetal_firmware_update.u", "results.0.version", "9.9.9"),
						notInMaintenance(t, sc, name),
						func(*terraform.State) error {
							st, err := srv.State("sys-0")
							if err != nil {
								return err
							}
							if st.Firmware[p.bios] != "9.9.9" || (p.backup != "" && st.Firmware[p.backup] != backup) {
								return fmt.Errorf("firmware after the update: %v", st.Firmware)
							}
							// Booted for the staged image, then powered off by
							// the provider while already off.
							if n := len(st.Resets); n < 2 || !slices.Equal(st.Resets[n-2:], []string{"On", "ForceOff"}) || st.PowerState != sim.PowerOff {
								return fmt.Errorf("resets %v, power %s; want On then ForceOff, off", st.Resets, st.PowerState)
							}
							// iLO (400) and iDRAC (409) refused that ForceOff.
							if refuses := p.dialect != sim.DialectSupermicro; refuses != slices.Equal(st.RefusedResets, []string{"ForceOff"}) {
								return fmt.Errorf("refused resets %v", st.RefusedResets)
							}
							return nil
						},
					),
				},
				{
					PreConfig: func() {
						faults.RefuseUpdates = true
						if err := srv.SetFaults("sys-0", faults); err != nil {
							t.Fatal(err)
						}
					},
					Config:      update("9.9.10"),
					ExpectError: regexp.MustCompile(`(?s)` + spacedText(p.refusal)),
				},
				{
					PreConfig: func() { _ = srv.ClearFaults("sys-0") },
					Config:    host.HCL(),
					Check:     notInMaintenance(t, sc, name),
				},
			})
		})
	}
}
