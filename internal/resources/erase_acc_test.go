package resources_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/acctest"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmc/sim/agent"
)

// automated_cleaning_mode = "full": after a deployment's destroy (its
// automated cleaning wipes metadata only, as the rig's conductor, like
// Metal3's, runs erase_devices_metadata alone), a manual clean runs
// erase_devices, and the agent records it on every disk of the host.
func TestAccAgent_fullErasure(t *testing.T) {
	r := startAgentRig(t, "acc-agent-erase")
	name, srv, states := r.name, r.srv, r.states
	img := acctest.ImageServer(t)
	host := strings.Replace(r.host, "  name = ", "  automated_cleaning_mode = \"full\"\n  name = ", 1)
	disks := len(r.profile.Disks)
	recordedTest(t, name, states, []resource.TestStep{
		{
			Config: host + agentDeployment(img.URL, img.SHA256, "sha256", ""),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("baremetal_host.test", "automated_cleaning_mode", "full"),
				resource.TestCheckResourceAttr("baremetal_deployment.test", "provisioning_state", "provisioned"),
				agentRecord(srv, "sys-0", func(r agent.Record) error {
					if got := r.ErasedWith("erase_devices"); len(got) != 0 {
						return fmt.Errorf("erase_devices ran before any deprovision, on %v", got)
					}
					return nil
				}),
			),
		},
		{
			Config: host,
			Check: resource.ComposeAggregateTestCheckFunc(
				acctest.NodeCheck(t, name, func(n *nodes.Node) error {
					if n.ProvisionState != "available" || n.Extra["erase"] != "done" || n.Extra["automated_cleaning_mode"] != "full" {
						return fmt.Errorf("node %s, extra %v", n.ProvisionState, n.Extra)
					}
					return nil
				}),
				states.passedThrough("active", "manageable", "available"),
				agentRecord(srv, "sys-0", func(r agent.Record) error {
					full, meta := r.ErasedWith("erase_devices"), r.ErasedWith("erase_devices_metadata")
					slices.Sort(full)
					slices.Sort(meta)
					if len(full) != disks || !slices.Equal(full, meta) {
						return fmt.Errorf("erase_devices ran on %v, want every disk (%d: %v)", full, disks, meta)
					}
					if !slices.Contains(r.CleanSteps, "deploy.erase_devices") {
						return fmt.Errorf("clean steps %v", r.CleanSteps)
					}
					t.Logf("agent of %s erased: %+v", name, r.Erasures)
					return nil
				}),
			),
		},
	})
}
