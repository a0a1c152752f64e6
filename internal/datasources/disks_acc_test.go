package datasources_test

import (
	"fmt"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/acctest"
)

// min_disk_gigabytes compares with the largest disk of the inspection
// inventory: the host's local_gb says 100 GiB (its root disk), its
// inventory holds a 3726 GiB data disk, so a 3000 GiB minimum takes it and
// a 4000 GiB one does not.
func TestAccHosts_minDiskFromInventory(t *testing.T) {
	name := acctest.Name("tfacc-disks")
	acctest.PreCheck(t)
	host := fmt.Sprintf(`
resource "baremetal_host" "h" {
  name        = %[1]q
  driver      = "fake-hardware"
  driver_info = {}
  labels      = { pool = %[1]q }
}
`, name)
	lists := host + fmt.Sprintf(`
data "baremetal_hosts" "big" {
  labels             = { match_labels = { pool = %[1]q } }
  min_disk_gigabytes = 3000
  depends_on         = [baremetal_host.h]
}

data "baremetal_hosts" "too_big" {
  labels             = { match_labels = { pool = %[1]q } }
  min_disk_gigabytes = 4000
  depends_on         = [baremetal_host.h]
}
`, name)
	localIronic(t)
	acctest.ParallelTest(t, nil, []resource.TestStep{
		{Config: host},
		{
			PreConfig: func() {
				acctest.UpdateNode(t, name, "set local_gb",
					nodes.UpdateOperation{Op: nodes.AddOp, Path: "/properties/local_gb", Value: 100})
				seedInventory(t, name)
			},
			Config: lists,
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("data.baremetal_hosts.big", "names.#", "1"),
				resource.TestCheckResourceAttr("data.baremetal_hosts.big", "names.0", name),
				resource.TestCheckResourceAttr("data.baremetal_hosts.big", "hosts.0.hardware.disk_gigabytes", "3726"),
				resource.TestCheckResourceAttr("data.baremetal_hosts.too_big", "names.#", "0"),
			),
		},
	})
}
