package resources_test

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/acctest"
)

// TestAccHost_raid: a fake-hardware host with Ironic's fake RAID interface
// gets its target_raid_config from raid, applied while preparing (the fake
// interface builds nothing, so the reported raid_config stays empty); a
// change re-prepares the host in place; bad volumes fail at plan.
func TestAccHost_raid(t *testing.T) {
	name := acctest.Name("tfacc-raid")
	sc := acctest.Ironic(t)
	raid := func(volumes string) string {
		return fakeHost(name, `  interfaces = { raid = "fake" }
  raid = {
`+volumes+`
  }`)
	}
	mirror := `    hardware_volumes = [{
      size_gigabytes = 100
      level          = "1"
      name           = "root"
      controller     = "RAID.Integrated.1-1"
      physical_disks = ["Disk.Bay.0", "Disk.Bay.1"]
    }]`
	raid5 := `    hardware_volumes = [{
      level                    = "5"
      rotational               = false
      number_of_physical_disks = 3
    }]`
	target := func(want string) resource.TestCheckFunc {
		return func(*terraform.State) error {
			found := acctest.NodesNamed(t, sc, name)
			if len(found) != 1 {
				return fmt.Errorf("%d nodes named %s", len(found), name)
			}
			n, err := nodes.Get(context.Background(), sc, found[0].UUID).Extract()
			if err != nil {
				return err
			}
			raw, _ := json.Marshal(n.TargetRAIDConfig)
			t.Logf("target_raid_config: %s, raid_config: %v, provision_state: %s", raw, n.RAIDConfig, n.ProvisionState)
			if string(raw) != want {
				return fmt.Errorf("target_raid_config %s, want %s", raw, want)
			}
			return nil
		}
	}
	var id string
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: raid(mirror),
				Check: resource.ComposeAggregateTestCheckFunc(
					target(`{"logical_disks":[{"controller":"RAID.Integrated.1-1","physical_disks":["Disk.Bay.0","Disk.Bay.1"],"raid_level":"1","size_gb":100,"volume_name":"root"}]}`),
					resource.TestCheckResourceAttr("baremetal_host.test", "provisioning_state", "available"),
					resource.TestCheckResourceAttr("baremetal_host.test", "raid_config", ""),
					saveID("baremetal_host.test", &id),
				),
			},
			{Config: raid(mirror), PlanOnly: true},
			{
				Config: raid(raid5),
				Check: resource.ComposeAggregateTestCheckFunc(
					target(`{"logical_disks":[{"disk_type":"ssd","number_of_physical_disks":3,"raid_level":"5","size_gb":"MAX"}]}`),
					resource.TestCheckResourceAttrPtr("baremetal_host.test", "id", &id),
					resource.TestCheckResourceAttr("baremetal_host.test", "provisioning_state", "available"),
				),
			},
			{
				Config:      raid(`    hardware_volumes = [{ level = "7" }]`),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)raid.hardware_volumes\[0\]: level "7" is not one of`),
			},
			{
				Config:      raid(`    software_volumes = [{ level = "1" }]`),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)software RAID needs the "agent" raid\s+interface`),
			},
			{Config: raid(raid5), PlanOnly: true},
		},
	})
}
