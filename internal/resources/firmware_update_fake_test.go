package resources_test

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/acctest"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/ironic/ironictest"
)

// TestAccFirmwareUpdate_ironicFirmwareAPI: against an Ironic with the
// firmware API (the in-process fake at API 1.87; Debian's Ironic 21.4 stops
// at 1.82), baremetal_firmware_update runs Ironic's firmware.update step in
// a manual clean of the available host (manage, clean, provide), never
// touches maintenance, and reports the versions Ironic's firmware API
// lists before and after; the baremetal_firmware data source agrees.
// Component names Ironic does not take are refused at plan.
func TestAccFirmwareUpdate_ironicFirmwareAPI(t *testing.T) {
	srv := ironictest.New(t)
	srv.MaxMicroversion = "1.87"
	id := srv.AddNode(nodes.Node{Name: "fw-ironic-0", Driver: "fake-hardware", ProvisionState: "available", PowerState: "power off"})
	srv.SetFirmware(id, []nodes.FirmwareComponent{
		{Component: "bios", InitialVersion: "1.0", CurrentVersion: "1.2.0"},
		{Component: "bmc", InitialVersion: "5.0", CurrentVersion: "5.10"},
	})
	provider := fmt.Sprintf(`
provider "baremetal" {
  endpoint = %q
}
`, srv.URL)
	config := provider + `
resource "baremetal_firmware_update" "u" {
  host_id = "fw-ironic-0"
  updates = [
    { component = "bios", url = "http://images.invalid/bios-1.3.0.bin" },
    { component = "bmc", url = "http://images.invalid/bmc-5.11.bin" },
  ]
}

data "baremetal_firmware" "after" {
  host_id = baremetal_firmware_update.u.id
}
`
	const u = "baremetal_firmware_update.u"
	acctest.Test(t, nil, []resource.TestStep{
		{
			Config: provider + `
resource "baremetal_firmware_update" "u" {
  host_id = "fw-ironic-0"
  updates = [{ component = "redfish:Installed-1", url = "http://images.invalid/x-1.0.bin" }]
}
`,
			ExpectError: regexp.MustCompile(`(?s)Component not known to Ironic.*bios, bmc and nic:<id>, not\s+"redfish:Installed-1".*` +
				`Set\s+method\s+=\s+"redfish"`),
		},
		{
			// The BMC path asked for: it needs the BMC's credentials.
			Config: provider + `
resource "baremetal_firmware_update" "u" {
  host_id = "fw-ironic-0"
  method  = "redfish"
  updates = [{ component = "redfish:Installed-1", url = "http://images.invalid/x-1.0.bin" }]
}
`,
			ExpectError: regexp.MustCompile(`(?s)BMC credentials needed.*With\s+method\s+=\s+"redfish"`),
		},
		{
			Config: provider + `
resource "baremetal_firmware_update" "u" {
  host_id = "fw-ironic-0"
  method  = "bmc"
  updates = [{ component = "bios", url = "http://images.invalid/x-1.0.bin" }]
}
`,
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(`(?s)method.*value must be one of.*"ironic".*"redfish".*got:\s+"bmc"`),
		},
		{
			Config: config,
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr(u, "id", id),
				resource.TestCheckResourceAttr(u, "method", "ironic"),
				resource.TestCheckResourceAttr(u, "results.0.previous_version", "1.2.0"),
				resource.TestCheckResourceAttr(u, "results.0.version", "1.3.0"),
				resource.TestCheckResourceAttr(u, "versions.bmc", "5.11"),
				resource.TestCheckResourceAttr("data.baremetal_firmware.after", "source", "ironic"),
				resource.TestCheckResourceAttr("data.baremetal_firmware.after", "bios_version", "1.3.0"),
				func(*terraform.State) error {
					var verbs []string
					for _, steps := range srv.Steps(id) {
						raw, _ := json.Marshal(steps)
						verbs = append(verbs, string(raw))
					}
					want := `[{"args":{"settings":[{"component":"bios","url":"http://images.invalid/bios-1.3.0.bin"},` +
						`{"component":"bmc","url":"http://images.invalid/bmc-5.11.bin"}]},"interface":"firmware","step":"update"}]`
					if len(verbs) != 1 || verbs[0] != want {
						return fmt.Errorf("steps sent %v\nwant [%s]", verbs, want)
					}
					var calls []string
					for _, c := range srv.Calls() {
						if strings.Contains(c, "maintenance") || strings.Contains(c, "states/provision") {
							calls = append(calls, c)
						}
					}
					if len(calls) != 3 {
						return fmt.Errorf("calls %v, want manage, clean and provide and no maintenance", calls)
					}
					if n := srv.MustNode(id); n.ProvisionState != "available" || n.Maintenance {
						return fmt.Errorf("node %q, maintenance %v", n.ProvisionState, n.Maintenance)
					}
					return nil
				},
			),
		},
	})
}
