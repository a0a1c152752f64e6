package resources_test

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/acctest"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmc/sim"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// online on a deployed host powers the running machine off and on in
// place, as the simulated BMC sees; the deployment is untouched, and
// leaving online unset again keeps the power as it is.
func TestAccHostPower_deployedOnline(t *testing.T) {
	acctest.PreCheck(t)
	srv, _, host := acctest.StartSimHost(t, "acc-online", bmcUser, "online-pass")
	name := host.Name
	config := func(extra string) string { return deployedHost(host, extra) }
	var id string
	acctest.ParallelTest(t, noNodesNamed(t, name), []resource.TestStep{
		{
			Config: config(""),
			Check:  deployed(srv, &id),
		},
		inPlace(resource.TestStep{
			Config:           config("  online = false"),
			ConfigPlanChecks: preApply(untouched("baremetal_deployment.test")),
		}, &id,
			acctest.SimPower(srv, "sys-0", sim.PowerOff),
			resource.TestCheckResourceAttr("baremetal_host.test", "provisioning_state", "provisioned"),
			resource.TestCheckResourceAttr("baremetal_host.test", "powered_on", "false"),
			resource.TestCheckResourceAttr("baremetal_deployment.test", "provisioning_state", "provisioned"),
		),
		{
			Config: config("  online = true"),
			Check: resource.ComposeAggregateTestCheckFunc(
				sameID(&id),
				acctest.SimPower(srv, "sys-0", sim.PowerOn),
				resource.TestCheckResourceAttr("baremetal_host.test", "powered_on", "true"),
				resource.TestCheckResourceAttr("baremetal_deployment.test", "provisioning_state", "provisioned"),
			),
		},
		{ // Unset again: nothing to do, the host stays on.
			Config:           config(""),
			ConfigPlanChecks: preApply(plancheck.ExpectEmptyPlan()),
			Check:            acctest.SimPower(srv, "sys-0", sim.PowerOn),
		},
	})
}

// disable_power_off: online = false is refused at terraform validate; on
// an Ironic older than API 1.95 (21.4 speaks 1.82) it is refused at plan
// naming what is missing, before any node is created; on a newer one (the
// 2025.1 rig) it is written, then cleared in place.
func TestAccHostPower_disablePowerOff(t *testing.T) {
	acctest.PreCheck(t)
	name := acctest.Name("acc-nopoweroff")
	steps := []resource.TestStep{{
		Config:      fakeHost(name, "  disable_power_off = true\n  online = false"),
		PlanOnly:    true,
		ExpectError: regexp.MustCompile(`(?s)Power off disabled.*online = false: disable_power_off = true`),
	}}
	nodeSays := func(want bool) resource.TestCheckFunc {
		return acctest.NodeCheck(t, name, func(n *nodes.Node) error {
			if n.DisablePowerOff != want {
				return fmt.Errorf("node disable_power_off = %t, want %t", n.DisablePowerOff, want)
			}
			return nil
		})
	}
	if acctest.IronicHas(t, lifecycle.FeatureDisablePowerOff) {
		steps = append(steps,
			resource.TestStep{Config: fakeHost(name, "  disable_power_off = true\n  online = true"), Check: nodeSays(true)},
			resource.TestStep{Config: fakeHost(name, "  disable_power_off = false\n  online = true"), Check: nodeSays(false)})
	} else {
		steps = append(steps, resource.TestStep{
			Config:      fakeHost(name, "  disable_power_off = true\n  online = true"),
			ExpectError: regexp.MustCompile(`(?s)Ironic too old for disable_power_off.*disable_power_off\s+needs\s+Ironic\s+API\s+microversion\s+1.95\s+or\s+later,\s+but\s+this\s+Ironic's\s+maximum\s+API\s+microversion\s+is`),
		})
	}
	acctest.ParallelTest(t, noNodesNamed(t, name), steps)
}
