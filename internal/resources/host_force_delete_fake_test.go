package resources_test

import (
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

// TestAccHostForceDelete_fake: on the in-process fake Ironic, destroying a
// host with delete_mode = "force" is refused while its node carries a
// deployment; once that is gone, the destroy of a host stuck in clean
// wait aborts the wait, sets maintenance and deletes the node, with no
// power off and no cleaning.
func TestAccHostForceDelete_fake(t *testing.T) {
	srv := ironictest.New(t)
	config := fmt.Sprintf(`
provider "baremetal" {
  endpoint = %q
}
`, srv.URL) + `
resource "baremetal_host" "h" {
  name        = "force-0"
  driver      = "fake-hardware"
  driver_info = {}
  online      = false
  delete_mode = "force"
}
`
	acctest.Test(t, func(*terraform.State) error {
		if _, ok := srv.Node("force-0"); ok {
			return fmt.Errorf("node force-0 still in Ironic")
		}
		var writes []string
		for _, c := range srv.Calls() {
			writes = append(writes, regexp.MustCompile(`/nodes/[^/]+`).ReplaceAllString(c, "/nodes/N"))
		}
		want := "PUT /nodes/N/states/provision,PUT /nodes/N/maintenance,DELETE /nodes/N"
		if got := strings.Join(writes, ","); got != want {
			return fmt.Errorf("writes of the destroy %s, want %s (abort, maintenance, delete)", got, want)
		}
		return nil
	}, []resource.TestStep{
		{Config: config, Check: resource.TestCheckResourceAttr("baremetal_host.h", "delete_mode", "force")},
		{
			// A deployment's image on the node: the force delete is refused.
			PreConfig: func() {
				srv.UpdateNode("force-0", func(n *nodes.Node) {
					n.ProvisionState, n.PowerState = "active", "power on"
					n.InstanceInfo = map[string]any{"image_source": "http://img/os.qcow2"}
				})
			},
			Config:      config,
			Destroy:     true,
			ExpectError: regexp.MustCompile(`(?s)Force delete of host force-0 refused.*still\s+carries\s+a\s+deployment.*image\s+http://img/os.qcow2`),
		},
		{
			// The deployment gone, the host is stuck in clean wait.
			PreConfig: func() {
				srv.UpdateNode("force-0", func(n *nodes.Node) {
					n.ProvisionState, n.TargetProvisionState, n.InstanceInfo = "clean wait", "available", map[string]any{}
				})
			},
			RefreshState: true,
			Check:        resource.TestCheckResourceAttr("baremetal_host.h", "ironic_state", "clean wait"),
		},
		{
			PreConfig: srv.ResetRequests,
			Config:    config,
			Destroy:   true,
		},
	})
}
