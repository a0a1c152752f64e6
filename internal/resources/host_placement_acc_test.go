package resources_test

import (
	"fmt"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/acctest"
)

// A shard is written to Ironic, a shard changed behind Terraform's back
// shows in the plan and the apply puts it back in place; the conductor
// group is read back (the rig's one conductor has no group, so the node's
// group cannot be changed on it: TestFakePlacementWrittenAndReadBack and
// TestReadPlacement cover its drift).
func TestAccHost_shardAndConductorGroupReadBack(t *testing.T) {
	name := acctest.Name("acc-shard")
	acctest.PreCheck(t)
	config := fakeHost(name, `  inspection = "disabled"
  shard      = "acc-shard-a"
  boot_mac_address = "`+acctest.MAC()+`"`)
	acctest.ParallelTest(t, noNodesNamed(t, name), []resource.TestStep{
		{
			Config: config,
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("baremetal_host.test", "shard", "acc-shard-a"),
				resource.TestCheckNoResourceAttr("baremetal_host.test", "conductor_group"),
				acctest.NodeCheck(t, name, func(n *nodes.Node) error {
					if n.Shard != "acc-shard-a" {
						return fmt.Errorf("node shard %q, want acc-shard-a", n.Shard)
					}
					return nil
				}),
			),
		},
		{
			PreConfig: func() {
				acctest.UpdateNode(t, name, "change the shard behind Terraform's back",
					nodes.UpdateOperation{Op: nodes.ReplaceOp, Path: "/shard", Value: "moved-away"})
			},
			Config: config,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction("baremetal_host.test", plancheck.ResourceActionUpdate),
				plancheck.ExpectKnownValue("baremetal_host.test", tfjsonpath.New("shard"), knownvalue.StringExact("acc-shard-a")),
			}},
			Check: acctest.NodeCheck(t, name, func(n *nodes.Node) error {
				if n.Shard != "acc-shard-a" {
					return fmt.Errorf("node shard %q after apply, want acc-shard-a back", n.Shard)
				}
				return nil
			}),
		},
	})
}
