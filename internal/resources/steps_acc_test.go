package resources_test

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/acctest"
)

// On the rig, a deployment through the simulated agent: a wrong checksum
// fails the deploy, and the error ends with the node's Ironic history
// (the agent's failure among its events); the right one deploys, the
// waits naming the deploy steps (the provider's INFO log: step=
// deploy.write_image, ...), and the host shows no step once provisioned.
// The host has its own power supply: Ironic 2025.1 (29.0.5) makes every
// PATCHed node its own child and fails the deploy's power off otherwise.
func TestAccAgent_deployHistoryAndSteps(t *testing.T) {
	r := startAgentRig(t, "acc-agent-hist")
	img := acctest.ImageServer(t)
	host := bootSimHost(r.name, acctest.SimAddress(r.srv, "sys-0"), `  driver_info = { has_dedicated_power_supply = "true" }`).HCL()
	const noRetry = "  provisioning_retries = 0\n"
	acctest.ParallelTest(t, noNodesNamed(t, r.name), []resource.TestStep{
		{
			Config:      host + deployment(img.URL, "0000000000000000000000000000000000000000000000000000000000000000", "sha256", noRetry),
			ExpectError: regexp.MustCompile(`(?s)provisioning error.*Last [1-5] events of the node's Ironic history:.*ERROR`),
		},
		{
			Config: host + deployment(img.URL, img.SHA256, "sha256", noRetry),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("baremetal_deployment.test", "provisioning_state", "provisioned"),
				resource.TestCheckResourceAttr("baremetal_host.test", "current_step", ""),
			),
		},
	})
}
