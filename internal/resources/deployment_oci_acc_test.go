package resources_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/acctest"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/acctest/secretscan"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// TestAccDeployment_ociOnOldIronic: on an Ironic older than 2025.1 (2023.1:
// 21.4, API 1.82, which predates Ironic's OCI image service) a deployment
// of the demo image from the authenticating registry, with its pull
// secret, is refused at plan: the error names image.url, the oci://
// scheme, Ironic's maximum microversion and the release needed. Nothing is
// written to the node, and the pull secret is neither in Ironic's log nor
// in the state. On 2025.1 and later (1.96) see testOCIDeploys.
func TestAccDeployment_ociOnOldIronic(t *testing.T) {
	acctest.PreCheck(t)
	if acctest.IronicAtLeast(t, lifecycle.OCIMinMicroversion) {
		testOCIDeploys(t)
		return
	}
	name := acctest.Name("acc-oci")
	reg := acctest.OCIRegistry(t)
	pullSecret := reg.User + ":" + reg.Password
	deployment := fmt.Sprintf(`
variable "pull_secret" {
  type      = string
  sensitive = true
  default   = %q
}

resource "baremetal_deployment" "test" {
  host_id = baremetal_host.test.id
  image = {
    url                    = %q
    pull_secret_wo         = var.pull_secret
    pull_secret_wo_version = "1"
  }
  provisioning_retries = 0
}
`, pullSecret, reg.URL)
	var mark *acctest.LogMark
	resource.ParallelTest(t, resource.TestCase{
		TerraformVersionChecks:   needsWriteOnly,
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{
			{Config: depConfig(name, "")},
			{
				PreConfig: func() { mark = acctest.MarkIronicLog(t) },
				Config:    depConfig(name, deployment),
				ExpectError: regexp.MustCompile(`(?s)Ironic too old for oci:// images.*image.url\s+"` + regexp.QuoteMeta(reg.URL) +
					`"\s+uses\s+the\s+oci://\s+scheme,\s+which\s+needs\s+Ironic\s+2025.1\s+\(29.0,\s+API\s+microversion\s+1.96\)\s+or\s+later.*` +
					`this\s+Ironic's\s+maximum\s+API\s+microversion\s+is\s+` + regexp.QuoteMeta(acctest.MaxMicroversion(t))),
			},
			{ // Nothing was written to the node; the secret is nowhere.
				Config: depConfig(name, ""),
				Check: resource.ComposeAggregateTestCheckFunc(
					stateHasNo(reg.Password),
					func(*terraform.State) error {
						n, err := acctest.Node(t, name)
						if err != nil {
							return err
						}
						if n.ProvisionState != "available" || n.InstanceInfo["image_source"] != nil || n.InstanceInfo["image_pull_secret"] != nil {
							return fmt.Errorf("node %s: %s, instance_info %v: the refused deployment touched it", name, n.ProvisionState, n.InstanceInfo)
						}
						writes, err := mark.WritesTo(n.UUID, name)
						if err != nil {
							return err
						}
						if len(writes) != 0 {
							return fmt.Errorf("the refused deployment wrote to the node: %v", writes)
						}
						log, err := mark.Text()
						if err != nil {
							return err
						}
						return secretscan.Err(map[string]string{"registry password": reg.Password},
							map[string]string{"Ironic's log": log})
					},
				),
			},
		},
	})
}

// testOCIDeploys: on Ironic 2025.1 and later the same deployment is
// accepted: the node deploys (fake deploy) with the oci:// image_source
// and the pull secret Ironic masks; destroying it returns the host to
// available, and the pull secret is neither in Ironic's log nor in the
// state.
func testOCIDeploys(t *testing.T) {
	name := acctest.Name("acc-oci")
	reg := acctest.OCIRegistry(t)
	pullSecret := reg.User + ":" + reg.Password
	deployment := fmt.Sprintf(`
variable "pull_secret" {
  type      = string
  sensitive = true
  default   = %q
}

resource "baremetal_deployment" "test" {
  host_id = baremetal_host.test.id
  image = {
    url                    = %q
    pull_secret_wo         = var.pull_secret
    pull_secret_wo_version = "1"
  }
  provisioning_retries = 0
}
`, pullSecret, reg.URL)
	var mark *acctest.LogMark
	resource.ParallelTest(t, resource.TestCase{
		TerraformVersionChecks:   needsWriteOnly,
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{
			{Config: depConfig(name, "")},
			{
				PreConfig: func() { mark = acctest.MarkIronicLog(t) },
				Config:    depConfig(name, deployment),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("baremetal_deployment.test", "provisioning_state", "provisioned"),
					stateHasNo(reg.Password),
					func(*terraform.State) error {
						n, err := acctest.Node(t, name)
						if err != nil {
							return err
						}
						if n.ProvisionState != "active" || n.InstanceInfo["image_source"] != reg.URL {
							return fmt.Errorf("node %s: %s, instance_info %v; want active with image_source %s", name, n.ProvisionState, n.InstanceInfo, reg.URL)
						}
						if s, _ := n.InstanceInfo["image_pull_secret"].(string); s == "" || strings.Contains(s, reg.Password) {
							return fmt.Errorf("node %s: instance_info.image_pull_secret %q, want it set and masked", name, s)
						}
						return nil
					},
				),
			},
			{ // Destroyed: the host is available again; the secret is nowhere.
				Config: depConfig(name, ""),
				Check: resource.ComposeAggregateTestCheckFunc(
					stateHasNo(reg.Password),
					func(*terraform.State) error {
						n, err := acctest.Node(t, name)
						if err != nil {
							return err
						}
						if n.ProvisionState != "available" {
							return fmt.Errorf("node %s: %s after the deployment's destroy, want available", name, n.ProvisionState)
						}
						log, err := mark.Text()
						if err != nil {
							return err
						}
						return secretscan.Err(map[string]string{"registry password": reg.Password},
							map[string]string{"Ironic's log": log})
					},
				),
			},
		},
	})
}
