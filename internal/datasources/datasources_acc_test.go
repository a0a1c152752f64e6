package datasources_test

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/acctest"
)

// wrapped matches the phrases in order, whatever line wrapping Terraform
// put into them.
func wrapped(phrases ...string) *regexp.Regexp {
	re := "(?s)"
	for i, p := range phrases {
		if i > 0 {
			re += ".*"
		}
		re += regexp.MustCompile(` +`).ReplaceAllString(regexp.QuoteMeta(p), `\s+`)
	}
	return regexp.MustCompile(re)
}

// TestAccHostDataSources reads two fake hosts through baremetal_hosts
// (filters), baremetal_host (by name) and baremetal_hardware (from node
// properties: fake hosts have no inspection inventory).
func TestAccHostDataSources(t *testing.T) {
	prefix := acctest.Name("tfacc-ds")
	host := func(i int, role string) string { return acctest.PoolHost(i, prefix, prefix, role) }
	config := host(1, "worker") + host(2, "master") + fmt.Sprintf(`
data "baremetal_hosts" "pool" {
  labels     = { match_labels = { pool = %[1]q } }
  depends_on = [baremetal_host.h1, baremetal_host.h2]
}

data "baremetal_hosts" "workers" {
  provisioning_state = "available"
  claimed            = false
  resource_class     = "baremetal"
  labels = {
    match_labels      = { pool = %[1]q }
    match_expressions = [
      { key = "role", operator = "NotIn", values = ["master"] },
      { key = "gpu", operator = "DoesNotExist" },
    ]
  }
  depends_on = [baremetal_host.h1, baremetal_host.h2]
}

data "baremetal_hosts" "big" {
  labels     = { match_labels = { pool = %[1]q } }
  min_cpus   = 4096
  depends_on = [baremetal_host.h1, baremetal_host.h2]
}

data "baremetal_host" "byname" {
  name = baremetal_host.h1.name
}

data "baremetal_hardware" "h1" {
  host_id = baremetal_host.h1.name
}
`, prefix)

	acctest.ParallelTest(t, nil, []resource.TestStep{{
		Config: config,
		Check: resource.ComposeAggregateTestCheckFunc(
			resource.TestCheckResourceAttr("data.baremetal_hosts.pool", "hosts.#", "2"),
			resource.TestCheckResourceAttr("data.baremetal_hosts.pool", "names.0", prefix+"-1"),
			resource.TestCheckResourceAttr("data.baremetal_hosts.pool", "names.1", prefix+"-2"),
			resource.TestCheckResourceAttrPair("data.baremetal_hosts.pool", "ids.0", "baremetal_host.h1", "id"),
			resource.TestCheckResourceAttr("data.baremetal_hosts.pool", "hosts.1.labels.role", "master"),

			resource.TestCheckResourceAttr("data.baremetal_hosts.workers", "names.#", "1"),
			resource.TestCheckResourceAttr("data.baremetal_hosts.workers", "names.0", prefix+"-1"),
			resource.TestCheckResourceAttr("data.baremetal_hosts.workers", "hosts.0.claimed", "false"),
			resource.TestCheckResourceAttr("data.baremetal_hosts.big", "hosts.#", "0"),

			resource.TestCheckResourceAttrPair("data.baremetal_host.byname", "id", "baremetal_host.h1", "id"),
			resource.TestCheckResourceAttr("data.baremetal_host.byname", "provisioning_state", "available"),
			resource.TestCheckResourceAttr("data.baremetal_host.byname", "ironic_state", "available"),
			resource.TestCheckResourceAttr("data.baremetal_host.byname", "labels.pool", prefix),
			resource.TestCheckResourceAttr("data.baremetal_host.byname", "claimed", "false"),
			resource.TestCheckResourceAttr("data.baremetal_host.byname", "maintenance", "false"),

			resource.TestCheckResourceAttr("data.baremetal_hardware.h1", "source", "properties"),
			resource.TestCheckResourceAttrPair("data.baremetal_hardware.h1", "id", "baremetal_host.h1", "id"),
			resource.TestCheckResourceAttr("data.baremetal_hardware.h1", "host_name", prefix+"-1"),
		),
	}})
}

// TestAccNetworkData renders network_data.json from explicit NICs (no host
// needed) and fails on a NIC name the host does not have.
func TestAccNetworkData(t *testing.T) {
	render := func(nic string) string {
		return fmt.Sprintf(`
data "baremetal_network_data" "nd" {
  nics = { eno1 = "52:54:00:aa:bb:01", eno2 = "52:54:00:aa:bb:02" }
  links = {
    ethernets = [
      { id = "eth0", from_host_interface = %q },
      { id = "eth1", from_host_interface = "eno2", mtu = 9000 },
    ]
    bonds = [{ id = "bond0", mode = "active-backup", links = ["eth0", "eth1"], parameters = { miimon = "100" } }]
    vlans = [{ id = "vlan20", vlan_id = 20, vlan_link = "bond0" }]
  }
  networks = {
    ipv4 = [{
      id = "prov", link = "vlan20", address = "10.0.0.5/24", gateway = "10.0.0.1"
      routes = [{ network = "10.1.0.0", prefix = 16, dns = ["10.1.0.53"] }]
    }]
    ipv6_slaac = [{ id = "v6", link = "bond0" }]
  }
  services = { dns = ["8.8.8.8"] }
}
`, nic)
	}
	acctest.ParallelTest(t, nil, []resource.TestStep{
		{
			Config: render("eno1"),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestMatchResourceAttr("data.baremetal_network_data.nd", "json",
					regexp.MustCompile(`"ethernet_mac_address":"52:54:00:aa:bb:01"`)),
				resource.TestMatchResourceAttr("data.baremetal_network_data.nd", "json",
					regexp.MustCompile(`"bond_miimon":100`)),
				resource.TestMatchResourceAttr("data.baremetal_network_data.nd", "json",
					regexp.MustCompile(`"vlan_id":20`)),
				resource.TestMatchResourceAttr("data.baremetal_network_data.nd", "json",
					regexp.MustCompile(`"netmask":"255.255.255.0"`)),
				resource.TestCheckResourceAttr("data.baremetal_network_data.nd", "host_nics.eno2", "52:54:00:aa:bb:02"),
			),
		},
		{
			Config:      render("enp1s0"),
			ExpectError: wrapped(`Unknown host NIC`, `the host has no NIC named "enp1s0"; the host has NICs: eno1, eno2`),
		},
	})
}
