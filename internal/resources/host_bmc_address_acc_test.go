package resources_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/acctest"
)

// untaint does what `terraform untaint` does to the state files of the
// test's working directories (under TF_ACC_TEMP_DIR dir): it drops the
// tainted status of every resource instance.
func untaint(t *testing.T, dir string) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*", "terraform.tfstate"))
	more, _ := filepath.Glob(filepath.Join(dir, "*", "*", "terraform.tfstate"))
	files = append(files, more...)
	if len(files) == 0 {
		t.Fatalf("no terraform.tfstate under %s", dir)
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var st map[string]any
		if err := json.Unmarshal(raw, &st); err != nil {
			t.Fatal(err)
		}
		res, _ := st["resources"].([]any)
		for _, r := range res {
			insts, _ := r.(map[string]any)["instances"].([]any)
			for _, i := range insts {
				delete(i.(map[string]any), "status")
			}
		}
		if serial, ok := st["serial"].(float64); ok {
			st["serial"] = serial + 1
		}
		out, err := json.MarshalIndent(st, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, out, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// A host whose first BMC address is wrong fails registration (Ironic's
// verification cannot find the system); after `terraform untaint`, fixing
// the address is an update in place: the same node gets the new
// driver_info, registers and reaches available.
func TestAccHostBMC_addressFixedAfterRegistrationError(t *testing.T) {
	acctest.PreCheck(t)
	tmp := t.TempDir()
	t.Setenv("TF_ACC_TEMP_DIR", tmp)
	name := acctest.Name("acc-bmc-fix")
	srv, _ := acctest.StartSim(t, 1, bmcUser, "fix-pass")
	wrong := acctest.SimHost{Name: name, Address: "redfish+" + srv.Endpoint("sys-0") + "/redfish/v1/Systems/no-such-system",
		Username: bmcUser, Password: "fix-pass", BMCExtra: "    check_credentials = false"}
	right := wrong
	right.Address = acctest.SimAddress(srv, "sys-0")
	var id string
	acctest.Test(t, noNodesNamed(t, name), []resource.TestStep{
		{
			Config:      wrong.HCL(),
			ExpectError: regexp.MustCompile(`(?s)state "registering", registration error`),
		},
		{
			PreConfig: func() {
				found := acctest.NodesNamed(t, acctest.Ironic(t), name)
				if len(found) != 1 || found[0].ProvisionState != "enroll" {
					t.Fatalf("after the failed registration: %+v, want one node in enroll", found)
				}
				id = found[0].UUID
				untaint(t, tmp)
			},
			Config:           right.HCL(),
			ConfigPlanChecks: preApply(updates("baremetal_host.test")),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("baremetal_host.test", "provisioning_state", "available"),
				resource.TestCheckResourceAttr("baremetal_host.test", "error_type", ""),
				acctest.NodeCheck(t, name, func(n *nodes.Node) error {
					if n.UUID != id {
						return fmt.Errorf("node %s, want the first one, %s", n.UUID, id)
					}
					if got := n.DriverInfo["redfish_system_id"]; got != "/redfish/v1/Systems/sys-0" {
						return fmt.Errorf("driver_info.redfish_system_id = %v", got)
					}
					return nil
				}),
			),
		},
		{
			// Registered now: another address is another machine.
			Config:             wrong.HCL(),
			PlanOnly:           true,
			ExpectNonEmptyPlan: true,
			ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction("baremetal_host.test", plancheck.ResourceActionReplace),
			}},
		},
	})
}
