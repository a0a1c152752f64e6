package resources_test

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/acctest"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmc/sim"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmc/sim/agent"
)

// bootHost is a baremetal_host on simulator system sys-0 with the agent
// driver and extra arguments.
func bootHost(name, address, extra string) string { return bootSimHost(name, address, extra).HCL() }

// bootSimHost is bootHost's host, for its BMC() block.
func bootSimHost(name, address, extra string) acctest.SimHost {
	return acctest.SimHost{Name: name, Address: address, Username: "admin", Password: "password",
		Driver: acctest.SimAgentHostDriver, Extra: extra}
}

// staticNetworkData is network_data.json giving the first NIC of the
// simulator profile a static address.
func staticNetworkData(mac string) string {
	return fmt.Sprintf(`
  preprovisioning_network_data = jsonencode({
    links    = [{ id = "enp1s0", type = "phy", ethernet_mac_address = %q }]
    networks = [{ id = "provisioning", type = "ipv4", link = "enp1s0", ip_address = "192.0.2.10", netmask = "255.255.255.0", routes = [{ network = "0.0.0.0", netmask = "0.0.0.0", gateway = "192.0.2.1" }] }]
    services = [{ type = "dns", address = "192.0.2.53" }]
  })`, mac)
}

// On a network without DHCP, a host's agent reaches Ironic only with the
// node's network_data: with preprovisioning_network_data the host is
// cleaned by the agent and becomes available, and the agent configured its
// network from that document.
func TestAccHostBoot_dhcpLessWithNetworkData(t *testing.T) {
	name := acctest.Name("acc-boot-nd")
	sc := acctest.Ironic(t)
	srv, profile := acctest.StartBootAgentSim(t, "x86_64", true)
	states := recordStates(t, sc, name)
	recordedTest(t, name, states, []resource.TestStep{{
		Config: bootHost(name, acctest.SimAddress(srv, "sys-0"), staticNetworkData(profile.NICs[0].MAC)),
		Check: resource.ComposeAggregateTestCheckFunc(
			resource.TestCheckResourceAttr("baremetal_host.test", "provisioning_state", "available"),
			states.passedThrough("clean wait", "available"),
			acctest.NodeCheck(t, name, func(n *nodes.Node) error {
				if links, _ := n.NetworkData["links"].([]any); len(links) != 1 {
					return fmt.Errorf("node network_data %v", n.NetworkData)
				}
				return nil
			}),
			agentRecord(srv, "sys-0", func(r agent.Record) error {
				var nd map[string]any
				if err := json.Unmarshal(r.BootNetworkData, &nd); err != nil || nd["networks"] == nil {
					return fmt.Errorf("the ramdisk booted with network_data %s (%v)", r.BootNetworkData, err)
				}
				if r.BootRefused != "" || r.Lookups == 0 {
					return fmt.Errorf("boot refused %q, %d lookups", r.BootRefused, r.Lookups)
				}
				t.Logf("DHCP-less agent of %s configured %s", name, r.BootNetworkData)
				return nil
			}),
		),
	}})
}

// Without it, the ramdisk has no address: it never looks its node up, and
// Ironic's cleaning times out in clean wait ("Timeout reached while
// cleaning the node", though Ironic 21.4 sometimes reports the failure
// before its last_error).
func TestAccHostBoot_dhcpLessWithoutNetworkData(t *testing.T) {
	name := acctest.Name("acc-boot-nond")
	srv, _ := acctest.StartBootAgentSim(t, "x86_64", true)
	acctest.ParallelTest(t, noNodesNamed(t, name), []resource.TestStep{{
		Config:      bootHost(name, acctest.SimAddress(srv, "sys-0"), ""),
		ExpectError: regexp.MustCompile(`(?s)provision\s+state\s+"clean\s+failed":\s+last_error:\s+Cleaning\s+failed`),
	}})
	r, err := srv.AgentRecord("sys-0")
	if err != nil || r.Boots == 0 || r.Lookups != 0 || r.BootRefused == "" {
		t.Fatalf("agent: %d boots, %d lookups, boot refused %q (%v)", r.Boots, r.Lookups, r.BootRefused, err)
	}
	t.Logf("agent of %s: %s", name, r.BootRefused)
}

// An aarch64 host with its per-architecture deploy image: cpu_arch is set
// before inspection, the node's driver_info carries the aarch64 kernel and
// ramdisk, and the agent booted from them deploys the host.
func TestAccHostBoot_aarch64(t *testing.T) {
	testArmDeploy(t, "acc-boot-arm", "its own", func(name, address, imgs string) string {
		return bootHost(name, address, `
  architecture = "aarch64"
  deploy_image = `+armDeployImageHCL(imgs))
	}, func(n *nodes.Node) error {
		// (Ironic 21.4's redfish inspection writes "arm" for ARM-A64.)
		if arch := n.Properties["cpu_arch"]; arch != "aarch64" && arch != "arm" {
			return fmt.Errorf("cpu_arch %v", arch)
		}
		return nil
	})
}

// armDeployImageHCL is the deploy image of an aarch64 host as an HCL
// object: the aarch64 kernel and ramdisk under imgs with a serial console
// (testArmDeploy checks it on the node).
func armDeployImageHCL(imgs string) string {
	return fmt.Sprintf(`{
    kernel        = "%[1]s/aarch64/vmlinuz"
    ramdisk       = "%[1]s/aarch64/initramfs"
    kernel_params = "%%default%% console=ttyAMA0"
  }`, imgs)
}

// testArmDeploy deploys the test image on an aarch64 simulator host, the
// HCL of host (given the host's name, BMC address and the deploy images'
// location), and checks that it is provisioned, that the node's
// driver_info carries armDeployImageHCL's image and passes node, that
// sys-0's agent booted an aarch64 deploy kernel (whose, for the log) and
// wrote the image with a matching checksum, and more.
func testArmDeploy(t *testing.T, prefix, whose string, host func(name, address, imgs string) string,
	node func(*nodes.Node) error, more ...resource.TestCheckFunc) {
	name := acctest.Name(prefix)
	acctest.PreCheck(t)
	srv, _ := acctest.StartBootAgentSim(t, "aarch64", false)
	imgs := acctest.DeployImages(t)
	img := acctest.ImageServer(t)
	checks := append([]resource.TestCheckFunc{
		resource.TestCheckResourceAttr("baremetal_deployment.test", "provisioning_state", "provisioned"),
		acctest.NodeCheck(t, name, func(n *nodes.Node) error {
			if n.DriverInfo["deploy_kernel"] != imgs+"/aarch64/vmlinuz" || n.DriverInfo["deploy_ramdisk"] != imgs+"/aarch64/initramfs" ||
				n.DriverInfo["kernel_append_params"] != "%default% console=ttyAMA0" {
				return fmt.Errorf("driver_info %v", n.DriverInfo)
			}
			return node(n)
		}),
		agentRecord(srv, "sys-0", func(r agent.Record) error {
			if r.DeployKernelArch != "aarch64" || r.BootRefused != "" || r.Image == nil || r.Image.Verdict != "match" {
				return fmt.Errorf("deploy kernel %s (%s), refused %q, image %+v", r.DeployKernel, r.DeployKernelArch, r.BootRefused, r.Image)
			}
			t.Logf("aarch64 agent of %s booted %s %s (%s) and wrote %s", name, whose, r.DeployKernel, r.DeployKernelArch, r.Image.URL)
			return nil
		}),
	}, more...)
	acctest.ParallelTest(t, noNodesNamed(t, name), []resource.TestStep{{
		Config: host(name, acctest.SimAddress(srv, "sys-0"), imgs) + bootDeployment(img, ""),
		Check:  resource.ComposeAggregateTestCheckFunc(checks...),
	}})
}

// A host configured as x86_64 that inspection finds to be aarch64 fails
// with an error naming both.
func TestAccHostBoot_archMismatch(t *testing.T) {
	name := acctest.Name("acc-boot-mis")
	srv, _ := acctest.StartBootAgentSim(t, "aarch64", false)
	acctest.ParallelTest(t, noNodesNamed(t, name), []resource.TestStep{{
		Config:      bootHost(name, acctest.SimAddress(srv, "sys-0"), `  architecture = "x86_64"`),
		ExpectError: regexp.MustCompile(`(?s)architecture\s+mismatch:.*configured\s+as\s+x86_64.*inspection\s+found\s+aarch64`),
	}})
}

// Without its deploy_image, an aarch64 host boots the conductor's x86_64
// ramdisk, which does not start: cleaning times out.
func TestAccHostBoot_aarch64WithoutDeployImage(t *testing.T) {
	name := acctest.Name("acc-boot-armx")
	srv, _ := acctest.StartBootAgentSim(t, "aarch64", false)
	acctest.ParallelTest(t, noNodesNamed(t, name), []resource.TestStep{{
		Config:      bootHost(name, acctest.SimAddress(srv, "sys-0"), `  architecture = "aarch64"`),
		ExpectError: regexp.MustCompile(`(?s)provision\s+state\s+"clean\s+failed":\s+last_error:\s+Cleaning\s+failed`),
	}})
	r, err := srv.AgentRecord("sys-0")
	if err != nil || r.Lookups != 0 || r.DeployKernelArch != "x86_64" || r.BootRefused == "" {
		t.Fatalf("agent: %d lookups, deploy kernel arch %q, boot refused %q (%v)", r.Lookups, r.DeployKernelArch, r.BootRefused, err)
	}
	t.Logf("agent of %s: %s", name, r.BootRefused)
}

// bootDeployment is a baremetal_deployment of the test image on the host,
// with extra arguments.
func bootDeployment(img acctest.Image, extra string) string {
	return deployment(img.URL, img.SHA256, "sha256", "  provisioning_retries = 0\n"+extra)
}

// configDriveAddress checks that the agent's config drive held network
// data whose first network has the address ip on the NIC with mac.
func configDriveAddress(srv *sim.Server, mac, ip string) resource.TestCheckFunc {
	return agentRecord(srv, "sys-0", func(r agent.Record) error {
		if r.ConfigDrive == nil {
			return fmt.Errorf("no config drive")
		}
		var nd struct {
			Links []struct {
				MAC string `json:"ethernet_mac_address"`
			} `json:"links"`
			Networks []struct {
				IP string `json:"ip_address"`
			} `json:"networks"`
		}
		if err := json.Unmarshal(r.ConfigDrive.NetworkData, &nd); err != nil || len(nd.Links) != 1 || len(nd.Networks) != 1 ||
			nd.Links[0].MAC != mac || nd.Networks[0].IP != ip {
			return fmt.Errorf("config drive network_data %s (%v), want %s on %s", r.ConfigDrive.NetworkData, err, ip, mac)
		}
		return nil
	})
}

// A deployment without network_data gets the host's preprovisioning
// network data in its config drive (BMO: the preprovisioning network data
// is the host's network data when networkData is not set); one with its
// own network_data gets its own.
func TestAccHostBoot_deploymentDefaultsToPreprovisioningNetworkData(t *testing.T) {
	name := acctest.Name("acc-boot-dnd")
	srv, profile := acctest.StartBootAgentSim(t, "x86_64", true)
	img := acctest.ImageServer(t)
	mac := profile.NICs[0].MAC
	host := bootHost(name, acctest.SimAddress(srv, "sys-0"), staticNetworkData(mac))
	own := fmt.Sprintf(`  network_data = jsonencode({
    links    = [{ id = "enp1s0", type = "phy", ethernet_mac_address = %q }]
    networks = [{ id = "tenant", type = "ipv4", link = "enp1s0", ip_address = "198.51.100.20", netmask = "255.255.255.0" }]
    services = []
  })`, mac)
	acctest.ParallelTest(t, noNodesNamed(t, name), []resource.TestStep{
		{
			Config: host + bootDeployment(img, ""),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("baremetal_deployment.test", "provisioning_state", "provisioned"),
				resource.TestCheckNoResourceAttr("baremetal_deployment.test", "network_data"),
				configDriveAddress(srv, mac, "192.0.2.10"),
			),
		},
		{
			Config: host + bootDeployment(img, own),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("baremetal_deployment.test", "provisioning_state", "provisioned"),
				configDriveAddress(srv, mac, "198.51.100.20"),
				agentRecord(srv, "sys-0", func(r agent.Record) error {
					t.Logf("the agent of %s received network_data %s", name, r.ConfigDrive.NetworkData)
					return nil
				}),
			),
		},
	})
}

// The provider's deploy_images give an aarch64 host without a deploy_image
// of its own the aarch64 ramdisk (without them it times out in cleaning,
// TestAccHostBoot_aarch64WithoutDeployImage): the node's driver_info
// carries the default, the agent boots it and deploys the host, and the
// host's own deploy_image stays unset in state (no diff).
func TestAccHostBoot_aarch64ProviderDeployImages(t *testing.T) {
	testArmDeploy(t, "acc-boot-armd", "the provider's default", func(name, address, imgs string) string {
		return fmt.Sprintf(`
provider "baremetal" {
  deploy_images = {
    aarch64 = %s
    x86_64 = {
      iso = "%s/x86_64/ipa.iso"
    }
  }
}
`, armDeployImageHCL(imgs), imgs) + bootHost(name, address, `  architecture = "aarch64"`)
	}, func(n *nodes.Node) error {
		if n.DriverInfo["deploy_iso"] != nil {
			return fmt.Errorf("driver_info %v", n.DriverInfo)
		}
		return nil
	}, resource.TestCheckNoResourceAttr("baremetal_host.test", "deploy_image"))
}

// architecture, deploy_image and preprovisioning_network_data are read
// back from the node: changed behind Terraform's back, the plan shows the
// change (an update), and the apply sets them again.
func TestAccHostBoot_drift(t *testing.T) {
	name := acctest.Name("acc-boot-drift")
	acctest.PreCheck(t)
	srv, profile := acctest.StartBootAgentSim(t, "x86_64", false)
	imgs := acctest.DeployImages(t)
	kernel := imgs + "/x86_64/vmlinuz"
	config := bootHost(name, acctest.SimAddress(srv, "sys-0"), fmt.Sprintf(`
  architecture            = "x86_64"
  automated_cleaning_mode = "disabled"
  deploy_image = {
    kernel  = %q
    ramdisk = "%s/x86_64/initramfs"
  }
%s`, kernel, imgs, staticNetworkData(profile.NICs[0].MAC)))
	restored := acctest.NodeCheck(t, name, func(n *nodes.Node) error {
		ips, _ := n.NetworkData["networks"].([]any)
		var first map[string]any
		if len(ips) > 0 {
			first, _ = ips[0].(map[string]any)
		}
		if n.Properties["cpu_arch"] != "x86_64" || n.DriverInfo["deploy_kernel"] != kernel || first["ip_address"] != "192.0.2.10" {
			return fmt.Errorf("cpu_arch %v, driver_info %v, network_data %v", n.Properties["cpu_arch"], n.DriverInfo, n.NetworkData)
		}
		return nil
	})
	acctest.ParallelTest(t, noNodesNamed(t, name), []resource.TestStep{
		{
			Config: config,
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("baremetal_host.test", "provisioning_state", "available"),
				restored,
			),
		},
		{
			// Out of band: another architecture, kernel and address.
			PreConfig: func() {
				n, err := acctest.Node(t, name)
				if err != nil {
					t.Fatal(err)
				}
				nd := n.NetworkData
				nd["networks"].([]any)[0].(map[string]any)["ip_address"] = "192.0.2.99"
				acctest.UpdateNode(t, n.UUID, "change the node behind Terraform's back",
					nodes.UpdateOperation{Op: nodes.AddOp, Path: "/properties/cpu_arch", Value: "aarch64"},
					nodes.UpdateOperation{Op: nodes.AddOp, Path: "/driver_info/deploy_kernel", Value: imgs + "/aarch64/vmlinuz"},
					nodes.UpdateOperation{Op: nodes.AddOp, Path: "/network_data", Value: nd})
			},
			RefreshState:       true,
			ExpectNonEmptyPlan: true,
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("baremetal_host.test", "architecture", "aarch64"),
				resource.TestCheckResourceAttr("baremetal_host.test", "deploy_image.kernel", imgs+"/aarch64/vmlinuz"),
				resource.TestMatchResourceAttr("baremetal_host.test", "preprovisioning_network_data", regexp.MustCompile(`192\.0\.2\.99`)),
			),
		},
		{
			Config: config,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction("baremetal_host.test", plancheck.ResourceActionUpdate),
				plancheck.ExpectKnownValue("baremetal_host.test", tfjsonpath.New("architecture"), knownvalue.StringExact("x86_64")),
				plancheck.ExpectKnownValue("baremetal_host.test", tfjsonpath.New("deploy_image").AtMapKey("kernel"), knownvalue.StringExact(kernel)),
			}},
			Check: restored,
		},
		{
			// An import reads the deploy image and the network data the
			// node has (not into driver_info too), not the architecture
			// inspection wrote.
			ResourceName: "baremetal_host.test",
			ImportState:  true,
			ImportStateCheck: func(is []*terraform.InstanceState) error {
				a := is[0].Attributes
				if a["deploy_image.kernel"] != kernel || a["driver_info.deploy_kernel"] != "" || a["architecture"] != "" ||
					!strings.Contains(a["preprovisioning_network_data"], `"ip_address":"192.0.2.10"`) {
					return fmt.Errorf("imported deploy_image.kernel %q, driver_info.deploy_kernel %q, architecture %q, preprovisioning_network_data %q",
						a["deploy_image.kernel"], a["driver_info.deploy_kernel"], a["architecture"], a["preprovisioning_network_data"])
				}
				return nil
			},
		},
	})
}
