package resources_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/acctest"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmc/sim"
)

// firmwareUpdateHosts is one simulator host per system, h0..h{n-1}.
func firmwareUpdateHosts(prefix string, srv *sim.Server, n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(firmwareUpdateHost(i, prefix, srv).HCL())
	}
	return b.String()
}

// firmwareUpdateHost is host h{i} on simulator system sys-{i}.
func firmwareUpdateHost(i int, prefix string, srv *sim.Server) acctest.SimHost {
	return acctest.SimHost{Resource: fmt.Sprintf("h%d", i), Name: fmt.Sprintf("%s-%d", prefix, i),
		Address: acctest.SimAddress(srv, fmt.Sprintf("sys-%d", i)), Username: "admin", Password: "password"}
}

func firmwareUpdateResource(i int, srv *sim.Server, updates string) string {
	return fmt.Sprintf(`
resource "baremetal_firmware_update" "u%[1]d" {
  host_id = baremetal_host.h%[1]d.id
  method  = "redfish"
%[2]s  updates = [%[3]s]
}
`, i, firmwareUpdateHost(i, "", srv).BMC(), updates)
}

// notInMaintenance checks that Ironic has the node out of maintenance.
func notInMaintenance(t *testing.T, sc *gophercloud.ServiceClient, name string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		n := acctest.NodesNamed(t, sc, name)
		if len(n) != 1 {
			return fmt.Errorf("node %s: %d nodes", name, len(n))
		}
		if n[0].Maintenance {
			return fmt.Errorf("node %s is still in maintenance: %q", name, n[0].MaintenanceReason)
		}
		return nil
	}
}

// TestAccFirmwareUpdate_redfish: baremetal_firmware_update with method =
// "redfish" (the default where Ironic has no firmware API, as 21.4 at API
// 1.82; asked for on 2025.1) goes through the simulator's UpdateService
// with the node in maintenance for the duration:
//   - success (sys-0, BIOS, image checksum checked first, staged by the BMC
//     until the host boots: the provider powers it on, then off again): the
//     version in the baremetal_firmware data source changed, the node is
//     out of maintenance;
//   - slow task (sys-2, BMC, four polls): the task's percent is logged as it
//     moves;
//   - failure (sys-1): the apply fails with the BMC's task message naming
//     the host and component, and the node is out of maintenance.
//
// It is not parallel: it reads the provider's INFO log, which
// terraform-plugin-testing configures from the environment.
func TestAccFirmwareUpdate_redfish(t *testing.T) {
	logDir := t.TempDir()
	t.Setenv("TF_LOG", "INFO")
	t.Setenv("TF_LOG_PATH_MASK", filepath.Join(logDir, "%s.log"))
	prefix := acctest.Name("tfacc-fwupd")
	sc := acctest.Ironic(t)
	srv, _ := acctest.StartSim(t, 3, "admin", "password")
	const failure = "Image signature verification failed (simulated BMC)"
	if err := srv.SetFaults("sys-1", sim.Faults{UpdateFailure: failure}); err != nil {
		t.Fatal(err)
	}
	// sys-0's BMC stages the BIOS image for the next boot, as real BMCs
	// do: the provider boots the (powered off) host and powers it off again.
	if err := srv.SetFaults("sys-0", sim.Faults{UpdateAtBoot: true}); err != nil {
		t.Fatal(err)
	}
	if err := srv.SetFaults("sys-2", sim.Faults{UpdateTaskPolls: 4}); err != nil {
		t.Fatal(err)
	}
	image := []byte("simulated BIOS image 3.1.4")
	sum := sha256.Sum256(image)
	images := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(image) }))
	t.Cleanup(images.Close)

	base := firmwareUpdateHosts(prefix, srv, 3) +
		firmwareUpdateResource(0, srv, fmt.Sprintf(`{ component = "bios", url = %q, checksum = "sha256:%s" }`,
			images.URL+"/bios-3.1.4.bin", hex.EncodeToString(sum[:]))) +
		// The host's own bmc block, unknown until the host exists.
		`
resource "baremetal_firmware_update" "u2" {
  host_id = baremetal_host.h2.id
  method  = "redfish"
  bmc     = baremetal_host.h2.bmc
  updates = [{ component = "bmc", url = "http://images.invalid/bmc-9.8.7.bin" }]
}
` + `
data "baremetal_firmware" "after" {
  host_id    = baremetal_firmware_update.u0.id
  bmc        = baremetal_firmware_update.u0.bmc
}
`
	failing := base + firmwareUpdateResource(1, srv, `{ component = "redfish:sys-1-NIC.1", url = "http://images.invalid/nic-22.0.1.bin" }`)
	acctest.Test(t, nil, []resource.TestStep{
		{
			Config: base,
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("baremetal_firmware_update.u0", "method", "redfish"),
				resource.TestCheckResourceAttr("baremetal_firmware_update.u0", "results.0.target", "sys-0-BIOS"),
				resource.TestCheckResourceAttr("baremetal_firmware_update.u0", "results.0.previous_version", sim.DefaultProfile(0).BIOSVersion),
				resource.TestCheckResourceAttr("baremetal_firmware_update.u0", "results.0.version", "3.1.4"),
				resource.TestCheckResourceAttr("baremetal_firmware_update.u0", "versions.bios", "3.1.4"),
				resource.TestCheckResourceAttr("baremetal_firmware_update.u2", "versions.bmc", "9.8.7"),
				resource.TestCheckResourceAttr("data.baremetal_firmware.after", "bios_version", "3.1.4"),
				resource.TestCheckTypeSetElemNestedAttrs("data.baremetal_firmware.after", "components.*", map[string]string{
					"id": "sys-0-BIOS", "version": "3.1.4",
				}),
				notInMaintenance(t, sc, prefix+"-0"),
				acctest.SimPower(srv, "sys-0", sim.PowerOff),
				func(*terraform.State) error {
					st, err := srv.State("sys-0")
					if err != nil {
						return err
					}
					if len(st.Resets) < 2 || !slices.Equal(st.Resets[len(st.Resets)-2:], []string{"On", "ForceOff"}) {
						return fmt.Errorf("sys-0 after the staged update: resets %v; want booted then off", st.Resets)
					}
					return nil
				},
				notInMaintenance(t, sc, prefix+"-2"),
				func(*terraform.State) error {
					return progressLogged(logDir, t.Name(), "sys-2-BMC", []string{"25", "50", "75"})
				},
			),
		},
		{
			Config: failing,
			// Terraform wraps the message: any space may be a newline.
			ExpectError: regexp.MustCompile(`(?s)` + prefix + `-1.*component\s+redfish:sys-1-NIC.1.*` +
				strings.Join(strings.Fields(regexp.QuoteMeta(failure)), `\s+`)),
		},
		{
			Config: base,
			Check:  notInMaintenance(t, sc, prefix+"-1"),
		},
	})
	if st, _ := srv.State("sys-1"); st.Firmware["NIC.1"] != "21.5.9" {
		t.Errorf("the failed update changed sys-1's NIC firmware: %v", st.Firmware)
	}
}

// progressLogged checks that the provider's log has a progress line of the
// target's update task at each percent.
func progressLogged(dir, test, target string, percents []string) error {
	raw, err := os.ReadFile(filepath.Join(dir, strings.ReplaceAll(test, "/", "__")+".log"))
	if err != nil {
		return fmt.Errorf("provider log: %w", err)
	}
	var lines []string
	for _, l := range strings.Split(string(raw), "\n") {
		if strings.Contains(l, "firmware update progress") && strings.Contains(l, target) {
			lines = append(lines, l)
		}
	}
	for _, p := range percents {
		found := false
		for _, l := range lines {
			if strings.Contains(l, "percent="+p) || strings.Contains(l, `"percent":`+p) {
				found = true
			}
		}
		if !found {
			return fmt.Errorf("no progress line of %s at %s%% in the provider log; progress lines:\n%s", target, p, strings.Join(lines, "\n"))
		}
	}
	return nil
}
