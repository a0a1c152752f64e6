package resources_test

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/acctest"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmc/sim"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// On the rig's Ironic, a host on the simulator: with node health (API
// 1.109+) baremetal_host.health is Ironic's; without (2025.1 is 1.96) it
// is null, and the baremetal_host data source reads the BMC's
// HealthRollup with health_from_bmc: OK, then Critical once the
// simulator's drive fails.
func TestAccHostHealthFromBMC(t *testing.T) {
	srv, _, host := acctest.StartSimHost(t, "acc-health", "admin", "password")
	config := host.HCL() + `
data "baremetal_host" "test" {
  name            = baremetal_host.test.name
  health_from_bmc = true
` + host.BMC() + `}
`
	ironicHealth := acctest.IronicHas(t, lifecycle.FeatureHealth)
	logHealth := func(s *terraform.State) error {
		ds := s.RootModule().Resources["data.baremetal_host.test"].Primary.Attributes
		res := s.RootModule().Resources["baremetal_host.test"].Primary.Attributes
		t.Logf("host %s: baremetal_host.health %q (Ironic has node health: %t); data.baremetal_host health %q from %q",
			host.Name, res["health"], ironicHealth, ds["health"], ds["health_source"])
		return nil
	}
	ironicCheck := resource.TestCheckNoResourceAttr("baremetal_host.test", "health")
	if ironicHealth {
		ironicCheck = resource.TestCheckResourceAttrSet("baremetal_host.test", "health")
	}
	acctest.ParallelTest(t, noNodesNamed(t, host.Name), []resource.TestStep{
		{
			Config: config,
			Check: resource.ComposeAggregateTestCheckFunc(
				ironicCheck,
				resource.TestCheckResourceAttr("data.baremetal_host.test", "health", "OK"),
				resource.TestCheckResourceAttr("data.baremetal_host.test", "health_source", "bmc"),
				logHealth,
			),
		},
		{
			PreConfig: func() {
				if err := srv.SetFaults("sys-0", sim.Faults{DriveHealth: map[string]string{"Disk.1": "Critical"}}); err != nil {
					t.Fatal(err)
				}
			},
			Config: config,
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("data.baremetal_host.test", "health", "Critical"),
				resource.TestCheckResourceAttr("data.baremetal_host.test", "health_source", "bmc"),
				logHealth,
			),
		},
	})
}
