package resources_test

import (
	"encoding/json"
	"fmt"
	"regexp"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"
	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/acctest"
)

// TestAccHost_raid: a fake-hardware host with Ironic's fake RAID interface
// gets its target_raid_config from raid, applied while preparing (the fake
// interface builds nothing, so the reported raid_config stays empty); a
// change re-prepares the host in place; bad volumes fail at plan.
func TestAccHost_raid(t *testing.T) {
	name := acctest.Name("tfacc-raid")
	acctest.PreCheck(t)
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
	target := func(want string) resource.TestCheckFunc { return raidTarget(t, name, want) }
	var id string
	acctest.ParallelTest(t, nil, []resource.TestStep{
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
	})
}

// raidTarget checks that Ironic's target_raid_config of the node named
// name is want (JSON).
func raidTarget(t *testing.T, name, want string) resource.TestCheckFunc {
	return acctest.NodeCheck(t, name, func(n *nodes.Node) error {
		raw, _ := json.Marshal(n.TargetRAIDConfig)
		t.Logf("target_raid_config: %s, raid_config: %v, provision_state: %s", raw, n.RAIDConfig, n.ProvisionState)
		if string(raw) != want {
			return fmt.Errorf("target_raid_config %s, want %s", raw, want)
		}
		return nil
	})
}

// TestAccHost_raidLevelNotKnownAtValidate (issue 29): a RAID level from a
// variable is unknown while Terraform validates, and one from another
// resource's attribute is unknown until that resource is applied. Neither
// may be judged then (read as "", every apply failed); each reaches
// Ironic's target_raid_config once known, and a bad level is still
// refused at plan once the variable gives it.
func TestAccHost_raidLevelNotKnownAtValidate(t *testing.T) {
	name := acctest.Name("tfacc-raidvar")
	acctest.PreCheck(t)
	hcl := func(level string) string {
		return `
variable "level" {
  type    = string
  default = "1"
}
resource "terraform_data" "level" {
  input = "5"
}
` + fakeHost(name, `  interfaces = { raid = "fake" }
  raid = {
    hardware_volumes = [{ level = `+level+`, controller = var.level == "1" ? "RAID.Integrated.1-1" : null }]
  }`)
	}
	acctest.ParallelTest(t, noNodesNamed(t, name), []resource.TestStep{
		{
			// The default.
			Config: hcl("var.level"),
			Check: resource.ComposeAggregateTestCheckFunc(
				raidTarget(t, name, `{"logical_disks":[{"controller":"RAID.Integrated.1-1","raid_level":"1","size_gb":"MAX"}]}`),
				resource.TestCheckResourceAttr("baremetal_host.test", "raid.hardware_volumes.0.level", "1"),
				resource.TestCheckResourceAttr("baremetal_host.test", "provisioning_state", "available"),
			),
		},
		{
			// Given as the variable's value.
			Config:          hcl("var.level"),
			ConfigVariables: config.Variables{"level": config.StringVariable("1+0")},
			Check: resource.ComposeAggregateTestCheckFunc(
				raidTarget(t, name, `{"logical_disks":[{"raid_level":"1+0","size_gb":"MAX"}]}`),
				resource.TestCheckResourceAttr("baremetal_host.test", "raid.hardware_volumes.0.level", "1+0"),
			),
		},
		{
			// Known only after terraform_data is applied.
			Config: hcl("terraform_data.level.output"),
			Check: resource.ComposeAggregateTestCheckFunc(
				raidTarget(t, name, `{"logical_disks":[{"controller":"RAID.Integrated.1-1","raid_level":"5","size_gb":"MAX"}]}`),
				resource.TestCheckResourceAttr("baremetal_host.test", "raid.hardware_volumes.0.level", "5"),
			),
		},
		{
			Config:          hcl("var.level"),
			ConfigVariables: config.Variables{"level": config.StringVariable("7")},
			PlanOnly:        true,
			ExpectError:     regexp.MustCompile(`(?s)raid.hardware_volumes\[0\]: level "7" is not one of`),
		},
	})
}
