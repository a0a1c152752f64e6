package resources_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/acctest"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmc/sim"
)

// simResetsSince checks that the simulator saw exactly want as system id's
// resets after the first *from of them, and the system is on; it then
// moves *from to the end.
func simResetsSince(srv *bmcSim, id string, from *int, want ...string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		st, err := srv.State(id)
		if err != nil {
			return err
		}
		if *from > len(st.Resets) {
			return fmt.Errorf("simulator %s has %d resets, fewer than the %d seen before", id, len(st.Resets), *from)
		}
		got := st.Resets[*from:]
		if !slices.Equal(got, want) {
			return fmt.Errorf("simulator %s resets since the last step %q, want %q (all: %q)", id, got, want, st.Resets)
		}
		if st.PowerState != sim.PowerOn {
			return fmt.Errorf("simulator %s is %s after the reboot", id, st.PowerState)
		}
		*from = len(st.Resets)
		return nil
	}
}

// simResetCount records how many resets system id has seen so far.
func simResetCount(srv *bmcSim, id string, n *int) resource.TestCheckFunc {
	return func(*terraform.State) error {
		st, err := srv.State(id)
		if err != nil {
			return err
		}
		*n = len(st.Resets)
		return nil
	}
}

// reboot_trigger: changing it reboots a deployed host in place, which the
// simulated BMC sees as a graceful shutdown, then power on; the host stays
// provisioned with the same node, and the deployment is untouched.
// Setting it at creation reboots nothing.
func TestAccHostDay2_reboot(t *testing.T) {
	acctest.PreCheck(t)
	name := acctest.Name("acc-reboot")
	srv := startSim(t, 1, bmcUser, "reboot-pass")
	addr := bmcAddress(srv, "sys-0")
	config := func(trigger string) string {
		return bmcHost(name, addr, bmcUser, "reboot-pass", "", fmt.Sprintf("  reboot_trigger = %q", trigger)) +
			depImage(depImageA, "")
	}
	var id string
	var resets int
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             noNodesNamed(t, name),
		Steps: []resource.TestStep{
			{
				Config: config("1"),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("baremetal_deployment.test", "provisioning_state", "provisioned"),
					simPower(srv, "sys-0", sim.PowerOn),
					simResetCount(srv, "sys-0", &resets),
					func(s *terraform.State) error {
						id = s.RootModule().Resources["baremetal_host.test"].Primary.ID
						return nil
					},
				),
			},
			{
				Config: config("2"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("baremetal_host.test", plancheck.ResourceActionUpdate),
					plancheck.ExpectResourceAction("baremetal_deployment.test", plancheck.ResourceActionNoop),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					simResetsSince(srv, "sys-0", &resets, "GracefulShutdown", "On"),
					sameID(&id),
					resource.TestCheckResourceAttr("baremetal_host.test", "provisioning_state", "provisioned"),
					resource.TestCheckResourceAttr("baremetal_host.test", "powered_on", "true"),
					resource.TestCheckResourceAttr("baremetal_host.test", "error_count", "0"),
					resource.TestCheckResourceAttr("baremetal_deployment.test", "provisioning_state", "provisioned"),
				),
			},
		},
	})
}
