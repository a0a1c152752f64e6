package resources_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/acctest"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmc/sim/agent"
)

// TestAccIPPool_deployNetworkData: a host deployed with network data whose
// address, prefix, gateway and DNS servers come from an IP pool (as
// Metal3DataTemplate's ipAddressFromIPPool, gateway fromIPPool and
// dnsFromIPPool): the simulated agent's config drive holds a
// network_data.json with the claimed address, the pool's netmask, its
// gateway as the default route and its DNS servers. A second network takes
// the same from the claim's attributes. The harness checks that a second
// plan is empty.
func TestAccIPPool_deployNetworkData(t *testing.T) {
	name := acctest.Name("acc-ippool-dep")
	pool := acctest.Name("acc-dep")
	acctest.Ironic(t)
	srv, profiles := acctest.StartAgentSim(t, 1, "admin", "password")
	img := acctest.ImageServer(t)
	address := acctest.SimAddress(srv, "sys-0")
	config := poolHCL(pool, 95, 10, 19) + fmt.Sprintf(`
resource "baremetal_ip_pool" "storage" {
  name        = "%[1]s-st"
  prefix      = 64
  gateway     = "fd00:95::1"
  dns_servers = ["fd00:95::53"]
  ranges      = [{ subnet = "fd00:95::/120" }]
}

`, pool) + agentHostHardware(name, address) + `
resource "baremetal_ip_claim" "ip" {
  pool  = baremetal_ip_pool.pool.name
  owner = baremetal_host.test.name
}

resource "baremetal_ip_claim" "storage" {
  pool  = baremetal_ip_pool.storage.name
  owner = baremetal_host.test.name
}

` + agentNetworkData(`
    # Straight from the pool, as Metal3DataTemplate.
    ipv4 = [{
      id                   = "baremetal"
      link                 = "enp1s0"
      ip_address_from_pool = baremetal_ip_pool.pool.name
      pool_owner           = baremetal_host.test.name
      gateway_from_pool    = baremetal_ip_pool.pool.name
      dns_from_pool        = baremetal_ip_pool.pool.name
    }]
    # From the claim's attributes.
    ipv6 = [{
      id      = "storage"
      link    = "enp1s0"
      address = baremetal_ip_claim.storage.cidr
      gateway = baremetal_ip_claim.storage.gateway
      dns     = baremetal_ip_claim.storage.dns_servers
    }]
`, `  depends_on = [baremetal_ip_claim.ip]
`) + agentDeployment(img.URL, img.SHA256, "sha256", "")
	rec := func() agent.Record { r, _ := srv.AgentRecord("sys-0"); return r }
	acctest.ParallelTest(t, noNodesNamed(t, name), []resource.TestStep{{
		Config: config,
		Check: resource.ComposeAggregateTestCheckFunc(
			resource.TestCheckResourceAttr("baremetal_deployment.test", "provisioning_state", "provisioned"),
			resource.TestCheckResourceAttr("baremetal_ip_claim.ip", "address", "10.95.0.10"),
			resource.TestCheckResourceAttr("baremetal_ip_claim.storage", "address", "fd00:95::2"),
			sameJSON("data.baremetal_network_data.test", "json", func() json.RawMessage { return rec().ConfigDrive.NetworkData }),
			func(*terraform.State) error {
				r := rec()
				if r.ConfigDrive == nil {
					return fmt.Errorf("the agent got no config drive")
				}
				var nd struct {
					Networks []struct {
						ID        string `json:"id"`
						IPAddress string `json:"ip_address"`
						Netmask   string `json:"netmask"`
						Routes    []struct {
							Network string `json:"network"`
							Gateway string `json:"gateway"`
						} `json:"routes"`
						Services []struct {
							Type    string `json:"type"`
							Address string `json:"address"`
						} `json:"services"`
					} `json:"networks"`
				}
				if err := json.Unmarshal(r.ConfigDrive.NetworkData, &nd); err != nil {
					return fmt.Errorf("config drive network_data %s: %w", r.ConfigDrive.NetworkData, err)
				}
				want := []struct{ id, ip, mask, gw, dns string }{
					{"baremetal", "10.95.0.10", "255.255.255.0", "10.95.0.1", "10.95.0.53 10.95.0.54"},
					{"storage", "fd00:95::2", "ffff:ffff:ffff:ffff::", "fd00:95::1", "fd00:95::53"},
				}
				if len(nd.Networks) != len(want) {
					return fmt.Errorf("config drive networks %s", r.ConfigDrive.NetworkData)
				}
				for i, w := range want {
					n := nd.Networks[i]
					var dns []string
					for _, s := range n.Services {
						if s.Type == "dns" {
							dns = append(dns, s.Address)
						}
					}
					gw := ""
					for _, rt := range n.Routes {
						if rt.Network == "0.0.0.0" || rt.Network == "::" {
							gw = rt.Gateway
						}
					}
					if n.ID != w.id || n.IPAddress != w.ip || n.Netmask != w.mask || gw != w.gw || fmt.Sprint(dns) != "["+w.dns+"]" {
						return fmt.Errorf("config drive network %d: %+v (default gateway %q, DNS %v); want %+v", i, n, gw, dns, w)
					}
				}
				t.Logf("the agent of %s received network_data %s", name, r.ConfigDrive.NetworkData)
				return nil
			},
			resource.TestCheckResourceAttr("data.baremetal_network_data.test", "host_nics.eno1", profiles[0].NICs[0].MAC),
		),
	}})
}
