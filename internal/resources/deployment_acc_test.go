package resources_test

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"
	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/acctest"
)

const (
	depImageA = "http://127.0.0.1:8088/images/ubuntu-a.qcow2"
	depImageB = "http://127.0.0.1:8088/images/ubuntu-b.qcow2"
	depMD5    = "0123456789abcdef0123456789abcdef"
)

// depConfig is a fake-hardware host and, when deployment is not empty, a
// baremetal_deployment on it.
func depConfig(name, deployment string) string {
	return fmt.Sprintf(`
resource "baremetal_host" "test" {
  name        = %q
  driver      = "fake-hardware"
  driver_info = {}
}
%s`, name, deployment)
}

// depImage is the baremetal_deployment of the fake-hardware tests: the
// image at url with depMD5, user data, meta data, empty network data and
// extra arguments.
func depImage(url, extra string) string {
	return deployment(url, depMD5, "", `  user_data    = "#cloud-config\nhostname: acc\n"
  meta_data    = { role = "worker" }
  network_data = jsonencode({ links = [], networks = [], services = [] })
  provisioning_retries = 0
`+extra)
}

// deployment is a baremetal_deployment "test" on baremetal_host.test of
// the qcow2 image at url with checksum (and checksum_type unless empty),
// with extra arguments: the one deployment block of these tests.
func deployment(url, checksum, checksumType, extra string) string {
	return deploymentOn("baremetal_host.test.id", url, checksum, checksumType, extra)
}

// deploymentOn is deployment on the host hostID (an HCL expression, such
// as a claim's host_id).
func deploymentOn(hostID, url, checksum, checksumType, extra string) string {
	if checksumType != "" {
		checksumType = fmt.Sprintf("\n    checksum_type = %q", checksumType)
	}
	return fmt.Sprintf(`
resource "baremetal_deployment" "test" {
  host_id = %s
  image = {
    url      = %q
    checksum = %q%s
    format   = "qcow2"
  }
%s
}
`, hostID, url, checksum, checksumType, extra)
}

func depProvisionState(want string) func(*nodes.Node) error {
	return func(n *nodes.Node) error {
		if n.ProvisionState != want {
			return fmt.Errorf("node %s is %q (last_error %q), want %q", n.Name, n.ProvisionState, n.LastError, want)
		}
		return nil
	}
}

// dep is the deployment every test configures.
const dep = "baremetal_deployment.test"

// depStateChecks: deployed with image, on the host: id is the host's node
// UUID and provider_id is baremetal://<that UUID>.
func depStateChecks(image string) []statecheck.StateCheck {
	return []statecheck.StateCheck{
		expectAttr(dep, "provisioning_state", knownvalue.StringExact("provisioned")),
		expectAttr(dep, "deployed_image", knownvalue.StringExact(image)),
		statecheck.CompareValuePairs(dep, tfjsonpath.New("id"), "baremetal_host.test", tfjsonpath.New("id"), compare.ValuesSame()),
		expectAttr(dep, "provider_id", knownvalue.StringRegexp(regexp.MustCompile(`^baremetal://[0-9a-f-]{36}$`))),
		statecheck.CompareValuePairs(dep, tfjsonpath.New("host_id"), "baremetal_host.test", tfjsonpath.New("id"), compare.ValuesSame()),
	}
}

func TestAccDeployment_lifecycle(t *testing.T) {
	name := acctest.Name("acc-dep")
	acctest.PreCheck(t)
	acctest.ParallelTest(t, nil, []resource.TestStep{
		{ // provisioning -> provisioned; the harness checks that a second plan is empty.
			Config: depConfig(name, depImage(depImageA, "")),
			ConfigStateChecks: append(depStateChecks(depImageA),
				expectAttr(dep, "host_name", knownvalue.StringExact(name)),
				statecheck.ExpectKnownValue(dep, tfjsonpath.New("image").AtMapKey("checksum_type"), knownvalue.StringExact("auto")),
				expectAttr(dep, "provisioning_retries", knownvalue.Int64Exact(0)),
			),
			Check: resource.ComposeAggregateTestCheckFunc(
				acctest.NodeCheck(t, name, func(n *nodes.Node) error {
					if err := depProvisionState("active")(n); err != nil {
						return err
					}
					if n.InstanceInfo["image_source"] != depImageA || n.InstanceInfo["image_checksum"] != depMD5 {
						return fmt.Errorf("instance_info %v", n.InstanceInfo)
					}
					if n.PowerState != "power on" {
						return fmt.Errorf("power_state %q, want power on", n.PowerState)
					}
					return nil
				}),
			),
		},
		{ // Nothing changes on a re-plan.
			Config: depConfig(name, depImage(depImageA, "")),
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
			},
		},
		{ // Import by host: the image comes back from instance_info;
			// the config drive data is not shown by Ironic, and the retry
			// count is Terraform's own.
			ResourceName:            "baremetal_deployment.test",
			ImportState:             true,
			ImportStateVerify:       true,
			ImportStateVerifyIgnore: []string{"user_data", "meta_data", "network_data", "timeouts", "provisioning_retries"},
		},
		{ // A new image replaces the deployment on the same host.
			Config: depConfig(name, depImage(depImageB, "")),
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("baremetal_deployment.test", plancheck.ResourceActionDestroyBeforeCreate),
					plancheck.ExpectResourceAction("baremetal_host.test", plancheck.ResourceActionNoop),
				},
			},
			ConfigStateChecks: depStateChecks(depImageB),
			Check: resource.ComposeAggregateTestCheckFunc(
				acctest.NodeCheck(t, name, func(n *nodes.Node) error {
					if err := depProvisionState("active")(n); err != nil {
						return err
					}
					if n.InstanceInfo["image_source"] != depImageB {
						return fmt.Errorf("image_source %v, want %s", n.InstanceInfo["image_source"], depImageB)
					}
					return nil
				}),
			),
		},
		{ // Destroying the deployment deprovisions the host, which stays.
			// (baremetal_host's attributes were refreshed before the
			// destroy: Ironic is the witness.)
			Config: depConfig(name, ""),
			Check: resource.ComposeAggregateTestCheckFunc(
				acctest.NodeCheck(t, name, func(n *nodes.Node) error {
					if err := depProvisionState("available")(n); err != nil {
						return err
					}
					if n.PowerState != "power off" {
						return fmt.Errorf("power_state %q, want power off", n.PowerState)
					}
					if _, has := n.InstanceInfo["image_source"]; has {
						return fmt.Errorf("instance_info still names an image: %v", n.InstanceInfo)
					}
					return nil
				}),
			),
		},
	})
}

// TestAccDeployment_failure: a live ISO needs a boot interface with the
// ramdisk_boot capability, which fake-hardware's fake boot lacks, so
// Ironic's validate rejects the deploy. The error names the host, the
// state, the verb and Ironic's reason; the host is deprovisioned, kept and
// can be deployed again.
func TestAccDeployment_failure(t *testing.T) {
	name := acctest.Name("acc-depfail")
	acctest.PreCheck(t)
	liveISO := `
resource "baremetal_deployment" "test" {
  host_id = baremetal_host.test.id
  image = {
    url    = "http://127.0.0.1:8088/images/live.iso"
    format = "live-iso"
  }
  provisioning_retries = 0
}
`
	acctest.ParallelTest(t, nil, []resource.TestStep{
		{ // The host alone first, so that the failure step only deploys.
			Config: depConfig(name, ""),
		},
		{
			Config: depConfig(name, liveISO),
			ExpectError: regexp.MustCompile(`(?s)Deploying image http://127.0.0.1:8088/images/live.iso on host ` +
				regexp.QuoteMeta(name) + `.*host "` + regexp.QuoteMeta(name) + `".*provisioning.*"validate".*ramdisk_boot`),
		},
		{ // The host survived, deprovisioned, and the failed deployment
			// is gone from state (Read drops it: nothing is deployed).
			Config: depConfig(name, ""),
			Check: resource.ComposeAggregateTestCheckFunc(
				func(s *terraform.State) error {
					if _, has := s.RootModule().Resources["baremetal_deployment.test"]; has {
						return fmt.Errorf("the failed deployment is still in state")
					}
					return nil
				},
				acctest.NodeCheck(t, name, depProvisionState("available")),
			),
		},
		{ // And it deploys fine afterwards.
			Config: depConfig(name, depImage(depImageA, "")),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("baremetal_deployment.test", "provisioning_state", "provisioned"),
				acctest.NodeCheck(t, name, depProvisionState("active")),
			),
		},
	})
}

// depUndeployOutside undeploys the node behind Terraform's back and waits
// until it is available again.
func depUndeployOutside(t *testing.T, sc *gophercloud.ServiceClient, name string) {
	t.Helper()
	ctx := context.Background()
	n, err := acctest.Node(t, name)
	if err != nil {
		t.Fatal(err)
	}
	if err := nodes.ChangeProvisionState(ctx, sc, n.UUID, nodes.ProvisionStateOpts{Target: nodes.TargetDeleted}).ExtractErr(); err != nil {
		t.Fatalf("undeploy %s: %v", name, err)
	}
	deadline := time.Now().Add(3 * time.Minute)
	for time.Now().Before(deadline) {
		n, err = nodes.Get(ctx, sc, n.UUID).Extract()
		if err != nil {
			t.Fatal(err)
		}
		switch n.ProvisionState {
		case "available":
			return
		case "clean failed", "error":
			t.Fatalf("undeploy of %s ended in %q: %s", name, n.ProvisionState, n.LastError)
		}
		time.Sleep(2 * time.Second)
	}
	t.Fatalf("node %s still %q after 3 minutes", name, n.ProvisionState)
}

// TestAccDeployment_drift: a host undeployed outside Terraform plans a new
// deployment, and the apply deploys it again.
func TestAccDeployment_drift(t *testing.T) {
	name := acctest.Name("acc-depdrift")
	sc := acctest.Ironic(t)
	acctest.ParallelTest(t, nil, []resource.TestStep{
		{
			Config: depConfig(name, depImage(depImageA, "")),
			Check:  resource.TestCheckResourceAttr("baremetal_deployment.test", "provisioning_state", "provisioned"),
		},
		{
			PreConfig: func() { depUndeployOutside(t, sc, name) },
			Config:    depConfig(name, depImage(depImageA, "")),
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("baremetal_deployment.test", plancheck.ResourceActionCreate),
				},
			},
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("baremetal_deployment.test", "provisioning_state", "provisioned"),
				acctest.NodeCheck(t, name, depProvisionState("active")),
			),
		},
	})
}

// TestAccDeployment_planTimeErrors: the checksum rules, the URL scheme and
// network_data fail at plan time, at the attribute.
func TestAccDeployment_planTimeErrors(t *testing.T) {
	name := acctest.Name("acc-depplan")
	dep := func(image, extra string) string {
		return depConfig(name, fmt.Sprintf(`
resource "baremetal_deployment" "test" {
  host_id = baremetal_host.test.id
%s
%s
}
`, image, extra))
	}
	cases := []struct {
		config string
		want   string
	}{
		{dep(`  image = { url = "http://h/i.qcow2" }`, ""), `Missing image checksum`},
		{dep(`  image = {
    url      = "oci://quay.io/org/os:1"
    checksum = "`+strings.Repeat("a", 64)+`"
  }`, ""), `Checksum not allowed for OCI images`},
		{dep(`  image = {
    url           = "http://h/i.qcow2"
    checksum      = "`+depMD5+`"
    checksum_type = "sha256"
  }`, ""), `Checksum does not match its type`},
		{dep(`  image = {
    url      = "ftp://h/i.qcow2"
    checksum = "`+depMD5+`"
  }`, ""), `Unsupported image URL`},
		{dep(`  image = {
    url      = "http://h/i.qcow2"
    checksum = "`+depMD5+`"
  }`, `  network_data = "[1, 2]"`), `(?s)network_data.*JSON object`},
		{dep("", `  user_data = "x"`), `(?s)At least one of these attributes must be configured`},
	}
	steps := make([]resource.TestStep, 0, len(cases))
	for _, c := range cases {
		steps = append(steps, resource.TestStep{Config: c.config, PlanOnly: true, ExpectError: regexp.MustCompile(c.want)})
	}
	acctest.ParallelTest(t, nil, steps)
}

// depConfigDriveMAC checks that Ironic was given a config drive and, when
// Ironic shows it, that its network_data has one link with the MAC mac.
// Without Swift, Ironic keeps a JSON config drive as is in
// instance_info.configdrive, but its API masks it ("******") unless the
// show_instance_secrets policy allows: Ironic 21.4's default ("!") never
// does, so on the test rig only its presence is seen.
func depConfigDriveMAC(mac string) func(*nodes.Node) error {
	return func(n *nodes.Node) error {
		cd, ok := n.InstanceInfo["configdrive"]
		if !ok {
			return fmt.Errorf("node %s: no configdrive in instance_info %v", n.Name, n.InstanceInfo)
		}
		if s, masked := cd.(string); masked && s == "******" {
			return nil // present, but Ironic does not show it
		}
		b, err := json.Marshal(cd)
		if err != nil {
			return err
		}
		var drive struct {
			NetworkData struct {
				Links []struct {
					ID  string `json:"id"`
					MAC string `json:"ethernet_mac_address"`
				} `json:"links"`
				Networks []struct {
					IPAddress string `json:"ip_address"`
				} `json:"networks"`
			} `json:"network_data"`
			UserData string `json:"user_data"`
		}
		if err := json.Unmarshal(b, &drive); err != nil {
			return fmt.Errorf("node %s: configdrive %s: %w", n.Name, b, err)
		}
		nd := drive.NetworkData
		if len(nd.Links) != 1 || nd.Links[0].ID != "enp1s0" || !strings.EqualFold(nd.Links[0].MAC, mac) {
			return fmt.Errorf("node %s: configdrive network_data links %+v, want enp1s0 with MAC %s", n.Name, nd.Links, mac)
		}
		if len(nd.Networks) != 1 || nd.Networks[0].IPAddress != "192.0.2.10" {
			return fmt.Errorf("node %s: configdrive network_data networks %+v", n.Name, nd.Networks)
		}
		if !strings.Contains(drive.UserData, "hostname: ") {
			return fmt.Errorf("node %s: configdrive user_data %q", n.Name, drive.UserData)
		}
		return nil
	}
}

// TestAccDeployment_claimedWithNetworkData is examples/demo for one host:
// a host on a simulated Redfish BMC, claimed by label, its NICs read from
// the BMC, network_data rendered from them, and an image deployed with
// that network data, which reaches Ironic's config drive. The harness
// checks that a second plan is empty. Destroying all but the host
// deprovisions and releases it: available, unclaimed, kept.
func TestAccDeployment_claimedWithNetworkData(t *testing.T) {
	acctest.PreCheck(t)
	_, prof, simHost := acctest.StartSimHost(t, "acc-depnd", "admin", "password")
	name := simHost.Name
	simHost.Extra = fmt.Sprintf("  labels = { pool = %q }", name)
	host := simHost.HCL()
	deployed := host + fmt.Sprintf(`
resource "baremetal_host_claim" "test" {
  labels     = { match_labels = { pool = %[1]q } }
  min_cpus   = 8
  depends_on = [baremetal_host.test]
}

data "baremetal_hardware" "test" {
  host_id = baremetal_host_claim.test.host_id
%[2]s}
`, name, simHost.BMC()) + provisioningNetworkData("baremetal_host_claim.test.host_id") +
		deploymentOn("baremetal_host_claim.test.host_id", depImageA, depMD5, "", `  user_data            = "#cloud-config\nhostname: ${baremetal_host_claim.test.host_name}\n"
  network_data         = data.baremetal_network_data.test.json
  provisioning_retries = 0`)
	eno1 := prof.NICs[0].MAC
	acctest.ParallelTest(t, nil, []resource.TestStep{
		{
			Config: deployed,
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttrPair("baremetal_host_claim.test", "host_id", "baremetal_host.test", "id"),
				resource.TestCheckResourceAttr("baremetal_host_claim.test", "host_name", name),
				resource.TestCheckResourceAttr("data.baremetal_hardware.test", "source", "redfish"),
				resource.TestCheckResourceAttr("data.baremetal_network_data.test", "host_nics.eno1", eno1),
				resource.TestMatchResourceAttr("data.baremetal_network_data.test", "json",
					regexp.MustCompile(`"ethernet_mac_address":"`+regexp.QuoteMeta(eno1)+`"`)),
				resource.TestCheckResourceAttr("baremetal_deployment.test", "provisioning_state", "provisioned"),
				resource.TestCheckResourceAttrPair("baremetal_deployment.test", "network_data", "data.baremetal_network_data.test", "json"),
				resource.TestCheckResourceAttr("baremetal_deployment.test", "host_name", name),
				acctest.NodeCheck(t, name, func(n *nodes.Node) error {
					if err := depProvisionState("active")(n); err != nil {
						return err
					}
					if n.AllocationUUID == "" {
						return fmt.Errorf("node %s carries no allocation", name)
					}
					return depConfigDriveMAC(eno1)(n)
				}),
			),
		},
		{
			// (baremetal_host's attributes were refreshed before the
			// destroy: Ironic is the witness.)
			Config: host,
			Check:  hostsUnclaimed(t, name),
		},
	})
}
