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
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/acctest/secretscan"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmc/sim/agent"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/ociregistry"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/validators"
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

// testOCIDeploys: on Ironic 2025.1 and later the same deployment reaches
// active through a real pull. The host's deploy interface is direct, with
// the simulated agent; Ironic's conductor resolves the oci:// tag with the
// node's pull secret (OciImageService.identify_specific_image: a token from
// the registry's realm, the artifact index, the manifest) and hands the
// agent the blob's https URL, its sha256 and the bearer token as
// image_request_authorization; the agent downloads the blob with it and
// checks the sum. The test asserts the states Ironic logged, the
// registry's access log of the agent's authenticated blob pull (the
// account behind the pull secret, the repository, the digest), the agent's
// record, and that neither the password nor the pull secret is in Ironic's
// log or the Terraform state, deployed and destroyed (with the figures of
// what was scanned).
func testOCIDeploys(t *testing.T) {
	reg := acctest.OCIRegistry(t)
	if !reg.TLS {
		t.Fatal("the rig gives no TLS certificate for OCI registries (BAREMETAL_TEST_OCI_TLS_CERT in scripts/ironic.sh env), " +
			"and Ironic 2025.1 reaches registries only over https: restart the rig with this tree's scripts/ironic.sh")
	}
	r := startAgentRig(t, "acc-oci", func(c *agent.Config) { c.HTTPClient = reg.HTTPClient() })
	name, srv, states := r.name, r.srv, r.states
	// The host alone, not inspected. Ironic 29.0.5 (2025.1) checks an
	// agent deploy's image size against properties.memory_mb when the node
	// has one (agent.py check_image_size, after the OCI resolution): it
	// looks the image_source up again through a new OCI client, without
	// the pull secret, and refuses a tag ("The requested image ... was not
	// specific"; a digest URL would meet the registry's 401 instead). An
	// inspected node has memory_mb, so on this Ironic a private OCI image
	// deploys only to a node without it: inspection disabled here.
	hostHCL := bootSimHost(name, acctest.SimAddress(srv, "sys-0"), `  inspection       = "disabled"
  boot_mac_address = "`+r.profile.NICs[0].MAC+`"`).HCL()
	pullSecret := reg.User + ":" + reg.Password
	regHost := strings.Split(reg.URL, "/")[2] // oci://HOST/demo/disk:latest
	auth, err := validators.PullSecretForIronic(regHost, pullSecret)
	if err != nil {
		t.Fatal(err)
	}
	secrets := map[string]string{"registry password": reg.Password, "pull secret (user:password)": pullSecret, "pull secret as sent to Ironic (Docker config auth)": auth}
	digest := reg.Pushed.BlobDigest
	blobURL := "https://" + regHost + "/v2/demo/disk/blobs/" + digest
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
  user_data            = "#cloud-config\nhostname: ${baremetal_host.test.name}\n"
  provisioning_retries = 0
}
`, pullSecret, reg.URL)
	var mark *acctest.LogMark
	tc := acctest.Case(t, noNodesNamed(t, name), []resource.TestStep{
		{Config: hostHCL},
		{
			PreConfig: func() { mark = acctest.MarkIronicLog(t) },
			Config:    hostHCL + deployment,
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("baremetal_deployment.test", "provisioning_state", "provisioned"),
				states.passedThrough("deploying", "wait call-back", "active"),
				acctest.NodeCheck(t, name, func(n *nodes.Node) error {
					if n.DeployInterface != "direct" || n.ProvisionState != "active" || n.InstanceInfo["image_source"] != reg.URL {
						return fmt.Errorf("node %s: deploy_interface %s, %s, instance_info %v; want direct, active with image_source %s",
							name, n.DeployInterface, n.ProvisionState, n.InstanceInfo, reg.URL)
					}
					if s, _ := n.InstanceInfo["image_pull_secret"].(string); s == "" || strings.Contains(s, reg.Password) || s == auth {
						return fmt.Errorf("node %s: instance_info.image_pull_secret %q, want it set and masked", name, s)
					}
					// What Ironic's conductor resolved from the registry (it
					// masks image_url, the blob URL it gave the agent).
					manifest := "oci://" + regHost + "/demo/disk@" + reg.Pushed.ManifestDigest
					if n.InstanceInfo["oci_image_manifest_url"] != manifest || n.InstanceInfo["image_disk_format"] != "qcow2" ||
						n.InstanceInfo["image_checksum"] != strings.TrimPrefix(digest, "sha256:") {
						return fmt.Errorf("node %s: instance_info oci_image_manifest_url %v, image_disk_format %v, image_checksum %v; want %s, qcow2, %s",
							name, n.InstanceInfo["oci_image_manifest_url"], n.InstanceInfo["image_disk_format"], n.InstanceInfo["image_checksum"], manifest, digest)
					}
					t.Logf("Ironic resolved %s to %s (blob %s, qcow2)", reg.URL, manifest, digest)
					return nil
				}),
				agentRecord(srv, "sys-0", func(a agent.Record) error {
					im := a.Image
					if im == nil || im.URL != blobURL || im.Verdict != "match" || im.Algorithm != "sha256" ||
						"sha256:"+im.Actual != digest || im.AuthScheme != "Bearer" {
						return fmt.Errorf("agent image record %+v, want %s downloaded with a bearer token, sha256 %s matching", im, blobURL, digest)
					}
					t.Logf("agent of %s downloaded %s (%d bytes, %s, Authorization: %s <token>), %s checksum %s", name, im.URL, im.Bytes, im.DiskFormat, im.AuthScheme, im.Algorithm, im.Verdict)
					return nil
				}),
				func(*terraform.State) error {
					var blob *ociregistry.Pull
					for _, p := range reg.Registry.Pulls() {
						t.Logf("registry log: %s", p)
						if p.Kind == "blob" && p.Reference == digest && p.Status == 200 {
							blob = &p
						}
					}
					if blob == nil || blob.User != reg.User || blob.Via != "pull secret" || blob.Repository != "demo/disk" {
						return fmt.Errorf("the registry logged no authenticated pull of blob %s by %s with the pull secret: %v", digest, reg.User, reg.Registry.Pulls())
					}
					return nil
				},
				leakCheck(t, "deployed", secrets, &mark),
			),
		},
		{ // Destroyed: the host is available again; the secret is nowhere.
			Config: hostHCL,
			Check: resource.ComposeAggregateTestCheckFunc(
				acctest.NodeCheck(t, name, depProvisionState("available")),
				leakCheck(t, "destroyed", secrets, &mark),
			),
		},
	})
	tc.TerraformVersionChecks = needsWriteOnly
	tc.PreCheck = func() { acctest.PreCheck(t); states.start() }
	resource.ParallelTest(t, tc)
}

// leakCheck looks for secrets in Ironic's log since *mark and in the
// Terraform state, and logs how much of each it scanned.
func leakCheck(t *testing.T, when string, secrets map[string]string, mark **acctest.LogMark) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		log, err := (*mark).Text()
		if err != nil {
			return err
		}
		secretscan.Captured(t, "Ironic's log", log, "moved to provision state")
		var state strings.Builder
		attrs := 0
		for _, m := range s.Modules {
			for addr, r := range m.Resources {
				if r.Primary == nil {
					continue
				}
				for k, v := range r.Primary.Attributes {
					attrs++
					fmt.Fprintf(&state, "%s.%s = %s\n", addr, k, v)
				}
			}
		}
		if err := secretscan.Err(secrets, map[string]string{"Ironic's log": log, "Terraform state": state.String()}); err != nil {
			return err
		}
		t.Logf("leak check (%s): %d secrets (password, user:password, Docker config auth) found in neither Ironic's log since the deployment began (%d bytes, %d lines) nor the Terraform state (%d attributes, %d bytes)",
			when, len(secrets), len(log), strings.Count(log, "\n"), attrs, state.Len())
		return nil
	}
}
