package resources_test

import (
	"encoding/json"
	"fmt"
	"regexp"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/acctest"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmc/sim/agent"
)

// bootHost is a baremetal_host on simulator system sys-0 with the agent
// driver and extra arguments.
func bootHost(name, address, extra string) string {
	return fmt.Sprintf(`
resource "baremetal_host" "test" {
  name = %[1]q
  bmc = {
    address  = %[2]q
    username = "admin"
    password = "password"
  }
`+acctest.SimAgentHostDriver+`
%[3]s
}
`, name, address, extra)
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
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t); states.start() },
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             noNodesNamed(t, name),
		Steps: []resource.TestStep{{
			Config: bootHost(name, "redfish+"+srv.SystemURL("sys-0"), staticNetworkData(profile.NICs[0].MAC)),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("baremetal_host.test", "provisioning_state", "available"),
				states.passedThrough("clean wait", "available"),
				depNodeCheck(t, sc, name, func(n *nodes.Node) error {
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
		}},
	})
}

// Without it, the ramdisk has no address: it never looks its node up, and
// Ironic's cleaning times out in clean wait ("Timeout reached while
// cleaning the node", though Ironic 21.4 sometimes reports the failure
// before its last_error).
func TestAccHostBoot_dhcpLessWithoutNetworkData(t *testing.T) {
	name := acctest.Name("acc-boot-nond")
	srv, _ := acctest.StartBootAgentSim(t, "x86_64", true)
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             noNodesNamed(t, name),
		Steps: []resource.TestStep{{
			Config:      bootHost(name, "redfish+"+srv.SystemURL("sys-0"), ""),
			ExpectError: regexp.MustCompile(`(?s)provision\s+state\s+"clean\s+failed":\s+last_error:\s+Cleaning\s+failed`),
		}},
	})
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
	name := acctest.Name("acc-boot-arm")
	sc := acctest.Ironic(t)
	srv, _ := acctest.StartBootAgentSim(t, "aarch64", false)
	imgs := acctest.DeployImages(t)
	img := acctest.ImageServer(t)
	host := bootHost(name, "redfish+"+srv.SystemURL("sys-0"), fmt.Sprintf(`
  architecture = "aarch64"
  deploy_image = {
    kernel        = "%[1]s/aarch64/vmlinuz"
    ramdisk       = "%[1]s/aarch64/initramfs"
    kernel_params = "%%default%% console=ttyAMA0"
  }`, imgs))
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             noNodesNamed(t, name),
		Steps: []resource.TestStep{{
			Config: host + fmt.Sprintf(`
resource "baremetal_deployment" "test" {
  host_id = baremetal_host.test.id
  image = {
    url           = %q
    checksum      = %q
    checksum_type = "sha256"
    format        = "qcow2"
  }
  provisioning_retries = 0
}
`, img.URL, img.SHA256),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("baremetal_deployment.test", "provisioning_state", "provisioned"),
				depNodeCheck(t, sc, name, func(n *nodes.Node) error {
					// (Ironic 21.4's redfish inspection writes "arm" for ARM-A64.)
					if arch := n.Properties["cpu_arch"]; (arch != "aarch64" && arch != "arm") || n.DriverInfo["deploy_kernel"] != imgs+"/aarch64/vmlinuz" ||
						n.DriverInfo["deploy_ramdisk"] != imgs+"/aarch64/initramfs" || n.DriverInfo["kernel_append_params"] != "%default% console=ttyAMA0" {
						return fmt.Errorf("cpu_arch %v, driver_info %v", n.Properties["cpu_arch"], n.DriverInfo)
					}
					return nil
				}),
				agentRecord(srv, "sys-0", func(r agent.Record) error {
					if r.DeployKernelArch != "aarch64" || r.BootRefused != "" || r.Image == nil || r.Image.Verdict != "match" {
						return fmt.Errorf("deploy kernel %s (%s), refused %q, image %+v", r.DeployKernel, r.DeployKernelArch, r.BootRefused, r.Image)
					}
					t.Logf("aarch64 agent of %s booted %s (%s) and wrote %s", name, r.DeployKernel, r.DeployKernelArch, r.Image.URL)
					return nil
				}),
			),
		}},
	})
}

// A host configured as x86_64 that inspection finds to be aarch64 fails
// with an error naming both.
func TestAccHostBoot_archMismatch(t *testing.T) {
	name := acctest.Name("acc-boot-mis")
	srv, _ := acctest.StartBootAgentSim(t, "aarch64", false)
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             noNodesNamed(t, name),
		Steps: []resource.TestStep{{
			Config:      bootHost(name, "redfish+"+srv.SystemURL("sys-0"), `  architecture = "x86_64"`),
			ExpectError: regexp.MustCompile(`(?s)architecture\s+mismatch:.*configured\s+as\s+x86_64.*inspection\s+found\s+aarch64`),
		}},
	})
}

// Without its deploy_image, an aarch64 host boots the conductor's x86_64
// ramdisk, which does not start: cleaning times out.
func TestAccHostBoot_aarch64WithoutDeployImage(t *testing.T) {
	name := acctest.Name("acc-boot-armx")
	srv, _ := acctest.StartBootAgentSim(t, "aarch64", false)
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             noNodesNamed(t, name),
		Steps: []resource.TestStep{{
			Config:      bootHost(name, "redfish+"+srv.SystemURL("sys-0"), `  architecture = "aarch64"`),
			ExpectError: regexp.MustCompile(`(?s)provision\s+state\s+"clean\s+failed":\s+last_error:\s+Cleaning\s+failed`),
		}},
	})
	r, err := srv.AgentRecord("sys-0")
	if err != nil || r.Lookups != 0 || r.DeployKernelArch != "x86_64" || r.BootRefused == "" {
		t.Fatalf("agent: %d lookups, deploy kernel arch %q, boot refused %q (%v)", r.Lookups, r.DeployKernelArch, r.BootRefused, err)
	}
	t.Logf("agent of %s: %s", name, r.BootRefused)
}
