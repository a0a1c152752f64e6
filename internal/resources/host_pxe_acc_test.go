package resources_test

// Network boot (PXE -> iPXE -> agent) on the rig: a host with a redfish://
// BMC address gets Ironic's ipxe boot interface; Ironic writes the per-MAC
// iPXE config into its http_root, asks the BMC for a one-time PXE boot and
// powers the host on, and the simulated host chains boot.ipxe and that
// config from the rig's boot HTTP server before its agent starts.

import (
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/acctest"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmc/sim"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmc/sim/agent"
)

// pxeHost is a baremetal_host on simulator system sys-0 registered by its
// redfish:// address alone (the provider picks the redfish driver and the
// ipxe boot interface; the rig enables no redfish RAID), booting from the
// NIC with MAC bootMAC, with the x86_64 deploy kernel and ramdisk of
// acctest.DeployImages at imgs.
func pxeHost(name, address, bootMAC, imgs, extra string) string {
	return acctest.SimHost{
		Name: name, Address: address, Username: "admin", Password: "password",
		Driver: `  interfaces       = { raid = "no-raid" }`,
		Extra: fmt.Sprintf(`  boot_mac_address = %[1]q
  deploy_image = {
    kernel  = "%[2]s/x86_64/vmlinuz"
    ramdisk = "%[2]s/x86_64/initramfs"
  }
%[3]s`, bootMAC, imgs, extra),
	}.HCL()
}

// hexhyp is a MAC as iPXE's ${mac:hexhyp} writes it, the name of Ironic's
// per-MAC iPXE config.
func hexhyp(mac string) string { return strings.ReplaceAll(strings.ToLower(mac), ":", "-") }

// An iPXE host from registration to active: in-band inspection, cleaning
// and the deploy each boot the agent from the network. Ironic wrote
// pxelinux.cfg/<boot MAC> naming the node's deploy kernel and ramdisk
// (its copies under http_url) and its own API as ipa-api-url; the BMC got
// one-time PXE boot requests; the agent booted from that config looked
// the node up, wrote the image, and the instance booted from disk; once
// the host is active Ironic has removed the per-MAC config.
func TestAccHostPXE_ipxeToActive(t *testing.T) {
	testNetbootToActive(t, "acc-pxe", "redfish", "redfish", func(srv *sim.Server) (string, string) {
		return acctest.SimAddress(srv, "sys-0"), ""
	})
}

// The same through IPMI: an ipmi:// host (Ironic's ipmi driver, ipmitool
// power and management) whose BMC is OpenIPMI's ipmi_sim in front of the
// simulated system; Ironic's "chassis bootdev pxe" reaches the system as a
// one-time PXE boot.
func TestAccHostPXE_ipmiToActive(t *testing.T) {
	testNetbootToActive(t, "acc-pxe-ipmi", "ipmi", "ipmitool", func(srv *sim.Server) (string, string) {
		port := acctest.StartIPMISim(t, srv, "sys-0", "admin", "password")
		// (ipmitool's cipher suite discovery times out against ipmi_sim.)
		return fmt.Sprintf("ipmi://127.0.0.1:%d", port), `  driver_info = { ipmi_cipher_suite = "3" }`
	})
}

// testNetbootToActive deploys a network-booting host whose BMC address
// (and extra host arguments) bmc gives, and checks its node has driver
// and power interface power.
func testNetbootToActive(t *testing.T, prefix, driver, power string, bmc func(*sim.Server) (address, extra string)) {
	acctest.PreCheckNetworkBoot(t)
	acctest.PreCheckInspector(t)
	name := acctest.Name(prefix)
	sc := acctest.Ironic(t)
	srv, profile := acctest.StartNetbootAgentSim(t)
	address, extra := bmc(srv)
	imgs := acctest.DeployImages(t)
	img := acctest.ImageServer(t)
	states := recordStates(t, sc, name)
	mac := profile.NICs[0].MAC
	configURL := acctest.BootURL() + "/pxelinux.cfg/" + hexhyp(mac)
	nodeUUID := func() string {
		n, err := acctest.Node(t, name)
		if err != nil {
			return ""
		}
		return n.UUID
	}
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheckNetworkBoot(t); states.start() },
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             noNodesNamed(t, name),
		Steps: []resource.TestStep{{
			Config: pxeHost(name, address, mac, imgs, extra) + deployment(img.URL, img.SHA256, "sha256", "  provisioning_retries = 0"),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("baremetal_deployment.test", "provisioning_state", "provisioned"),
				states.passedThrough("inspect wait", "clean wait", "available", "wait call-back", "active"),
				acctest.NodeCheck(t, name, func(n *nodes.Node) error {
					if n.Driver != driver || n.PowerInterface != power || n.BootInterface != "ipxe" || n.DeployInterface != "direct" || n.InspectInterface != acctest.AgentInspectInterface() {
						return fmt.Errorf("node driver %s, power %s, boot %s, deploy %s, inspect %s; want %s, %s, ipxe, direct, %s",
							n.Driver, n.PowerInterface, n.BootInterface, n.DeployInterface, n.InspectInterface, driver, power, acctest.AgentInspectInterface())
					}
					return nil
				}),
				func(*terraform.State) error {
					st, err := srv.State("sys-0")
					if err != nil {
						return err
					}
					once := bootOverrideCount(st.BootRequests, sim.BootOverride{Target: "Pxe", Enabled: "Once"})
					// Inspection, cleaning and the deploy each boot the ramdisk.
					if once < 3 || st.NetworkBoots < 3 {
						return fmt.Errorf("the BMC got %d one-time PXE boot requests and booted from the network %d times, want 3 or more (requests %+v)",
							once, st.NetworkBoots, st.BootRequests)
					}
					t.Logf("BMC of %s: %d one-time PXE boot requests, %d network boots, override now %+v", name, once, st.NetworkBoots, st.Boot)
					return nil
				},
				agentRecord(srv, "sys-0", func(r agent.Record) error {
					uuid := nodeUUID()
					var booted []agent.NetworkBoot
					for _, nb := range r.NetworkBoots {
						if nb.Error == "" {
							booted = append(booted, nb)
						}
					}
					if len(booted) < 3 {
						return fmt.Errorf("%d network boots reached the agent, want 3 or more: %+v", len(booted), r.NetworkBoots)
					}
					inspected, withAPI := false, 0
					for _, nb := range booted {
						if nb.ConfigURL != configURL || nb.MAC != strings.ToLower(mac) {
							return fmt.Errorf("network boot chained %s for %s, want %s", nb.ConfigURL, nb.MAC, configURL)
						}
						kernel, ramdisk := acctest.BootURL()+"/"+uuid+"/deploy_kernel", acctest.BootURL()+"/"+uuid+"/deploy_ramdisk"
						if uuid == "" || nb.Kernel != kernel || nb.Ramdisk != ramdisk || !strings.Contains(nb.Config, kernel) || !strings.Contains(nb.Config, ramdisk) {
							return fmt.Errorf("per-MAC config boots %s and %s, want the node's %s and %s:\n%s", nb.Kernel, nb.Ramdisk, kernel, ramdisk, nb.Config)
						}
						// (Ironic's inspection boot gives no ipa-api-url: that
						// ramdisk only posts its inventory.)
						if nb.KernelArch != "x86_64" || nb.Param("BOOTIF") != strings.ToLower(mac) || (nb.APIURL != acctest.Endpoint() && nb.InspectionCallbackURL == "") {
							return fmt.Errorf("kernel %s (%s), ipa-api-url %q, BOOTIF %q; want x86_64, %s, %s",
								nb.Kernel, nb.KernelArch, nb.APIURL, nb.Param("BOOTIF"), acctest.Endpoint(), mac)
						}
						if nb.APIURL == acctest.Endpoint() {
							withAPI++
						}
						// (The rig's Ironic hands out "mdns": it refuses a loopback callback URL.)
						inspected = inspected || nb.InspectionCallbackURL == "mdns" || nb.InspectionCallbackURL == acctest.InspectionURL()
					}
					if withAPI < 2 {
						return fmt.Errorf("%d network boots gave ipa-api-url %s, want cleaning's and the deploy's", withAPI, acctest.Endpoint())
					}
					if !inspected || r.Inspection == nil {
						return fmt.Errorf("no network boot carried ipa-inspection-callback-url (mdns or %s), or the inspection endpoint refused the inventory (%+v)", acctest.InspectionURL(), r.Inspection)
					}
					if r.Lookups == 0 || !slices.Contains(r.CleanSteps, "deploy.erase_devices_metadata") || r.Image == nil || r.Image.Verdict != "match" || r.InstanceBoots == 0 {
						return fmt.Errorf("agent: %d lookups, clean steps %v, image %+v, %d instance boots", r.Lookups, r.CleanSteps, r.Image, r.InstanceBoots)
					}
					last := booted[len(booted)-1]
					t.Logf("host %s chained %s; %d network boots; the last fetched:\n%s", name, last.ConfigURL, len(booted), last.Config)
					return nil
				}),
				func(*terraform.State) error {
					resp, err := http.Get(configURL)
					if err != nil {
						return err
					}
					resp.Body.Close()
					if resp.StatusCode != http.StatusNotFound {
						return fmt.Errorf("GET %s after the deploy: HTTP %d, want 404 (Ironic removes the config once the host boots from disk)", configURL, resp.StatusCode)
					}
					return nil
				},
			),
		}},
	})
}

// A host whose boot MAC is not one of its NICs (miscabled, or a typo)
// finds no iPXE config for any NIC: its agent never starts, and Ironic's
// cleaning times out in clean wait.
func TestAccHostPXE_noConfigForTheNIC(t *testing.T) {
	acctest.PreCheckNetworkBoot(t)
	name := acctest.Name("acc-pxe-nocfg")
	srv, profile := acctest.StartNetbootAgentSim(t)
	imgs := acctest.DeployImages(t)
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheckNetworkBoot(t) },
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             noNodesNamed(t, name),
		Steps: []resource.TestStep{{
			Config:      pxeHost(name, acctest.SimAddress(srv, "sys-0"), acctest.MAC(), imgs, `  inspection = "disabled"`),
			ExpectError: regexp.MustCompile(`(?s)provision\s+state\s+"clean\s+failed":\s+last_error:\s+Cleaning\s+failed`),
		}},
	})
	r, err := srv.AgentRecord("sys-0")
	if err != nil || len(r.NetworkBoots) == 0 || r.Lookups != 0 {
		t.Fatalf("agent: %d network boots, %d lookups (%v)", len(r.NetworkBoots), r.Lookups, err)
	}
	nb := r.NetworkBoots[len(r.NetworkBoots)-1]
	for _, nic := range profile.NICs {
		if !slices.Contains(nb.Tried, acctest.BootURL()+"/pxelinux.cfg/"+hexhyp(nic.MAC)) {
			t.Errorf("iPXE did not try %s's config (tried %v)", nic.MAC, nb.Tried)
		}
	}
	if !strings.Contains(nb.Error, "no configuration found") {
		t.Errorf("network boot error %q, want no configuration found", nb.Error)
	}
	t.Logf("host %s: %s", name, r.BootRefused)
}

// bootOverrideCount counts the requests for want's target and enabled.
func bootOverrideCount(reqs []sim.BootOverride, want sim.BootOverride) int {
	n := 0
	for _, r := range reqs {
		if r.Target == want.Target && r.Enabled == want.Enabled {
			n++
		}
	}
	return n
}
