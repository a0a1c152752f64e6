package resources_test

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/acctest"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmc/sim/agent"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/ironic/clients"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// ironicPortGroup is a port group as the test reads it from Ironic, with
// its members' MACs.
type ironicPortGroup struct {
	UUID       string         `json:"uuid"`
	Name       string         `json:"name"`
	Address    string         `json:"address"`
	Mode       string         `json:"mode"`
	Properties map[string]any `json:"properties"`
	Members    []string       `json:"-"`
}

// nodePortGroups reads node name's port groups and their members from
// Ironic.
func nodePortGroups(t *testing.T, sc *gophercloud.ServiceClient, name string) ([]ironicPortGroup, error) {
	n, err := acctest.Node(t, name)
	if err != nil {
		return nil, err
	}
	var pgs struct {
		PortGroups []ironicPortGroup `json:"portgroups"`
	}
	if _, err := sc.Get(context.Background(), sc.ServiceURL("portgroups", "detail")+"?node="+url.QueryEscape(n.UUID), &pgs, nil); err != nil {
		return nil, err
	}
	var pts struct {
		Ports []struct {
			Address       string `json:"address"`
			PortGroupUUID string `json:"portgroup_uuid"`
		} `json:"ports"`
	}
	if _, err := sc.Get(context.Background(), sc.ServiceURL("ports", "detail")+"?node="+url.QueryEscape(n.UUID), &pts, nil); err != nil {
		return nil, err
	}
	for i := range pgs.PortGroups {
		for _, p := range pts.Ports {
			if p.PortGroupUUID == pgs.PortGroups[i].UUID {
				pgs.PortGroups[i].Members = append(pgs.PortGroups[i].Members, p.Address)
			}
		}
		slices.Sort(pgs.PortGroups[i].Members)
	}
	return pgs.PortGroups, nil
}

// portGroupsCheck checks node name's port groups in Ironic.
func portGroupsCheck(t *testing.T, sc *gophercloud.ServiceClient, name string, check func([]ironicPortGroup) error) resource.TestCheckFunc {
	return func(*terraform.State) error {
		pgs, err := nodePortGroups(t, sc, name)
		if err != nil {
			return err
		}
		if err := check(pgs); err != nil {
			return fmt.Errorf("port groups of %s in Ironic %+v: %w", name, pgs, err)
		}
		return nil
	}
}

// bondedHostHCL is the agent host with ports eno1 and eno2 bonded as bond0
// (mode and members given), powered on whether deployed or not.
//
// has_dedicated_power_supply works around Ironic 29.0.5 (2025.1): its node
// PATCH sets every node's parent_node to the node itself, and powering on
// a child node without a dedicated power supply first locks its parent, so
// the agent deploy's final power on fails with ParentNodeLocked.
func bondedHostHCL(name, address, mac1, mac2, mode, members string) string {
	return bootSimHost(name, address, fmt.Sprintf(`
  online      = true
  driver_info = { has_dedicated_power_supply = "true" }
  ports = [{ mac = %q }, { mac = %q }]
  port_groups = [{
    name       = "bond0"
    address    = %q
    mode       = %q
    properties = { miimon = "100", xmit_hash_policy = "layer3+4" }
    ports      = %s
  }]
`, mac1, mac2, mac1, mode, members)).HCL()
}

// bondNetworkData renders bond0 over eno1 and eno2 (802.3ad, layer3+4,
// miimon 100) with VLAN 42 on it carrying a static address. The NICs are
// named here: Ironic 2025.1's out-of-band (Redfish) inspection of the
// simulator host stores an inventory without NIC names.
func bondNetworkData(mac1, mac2 string) string {
	return `
data "baremetal_network_data" "test" {
  host_id = baremetal_host.test.id
  nics    = { eno1 = "` + mac1 + `", eno2 = "` + mac2 + `" }
  links = {
    ethernets = [
      { id = "eno1", from_host_interface = "eno1" },
      { id = "eno2", from_host_interface = "eno2" },
    ]
    bonds = [{
      id                  = "bond0"
      from_host_interface = "eno1"
      mode                = "802.3ad"
      xmit_hash_policy    = "layer3+4"
      miimon              = 100
      links               = ["eno1", "eno2"]
    }]
    vlans = [{ id = "bond0.42", vlan_id = 42, vlan_link = "bond0" }]
  }
  networks = {
    ipv4 = [{ id = "storage", link = "bond0.42", address = "192.0.2.10", prefix = 24, gateway = "192.0.2.1" }]
  }
}
`
}

// A bonded host on the rig's Ironic: its two NICs' ports join the Ironic
// port group bond0 (802.3ad, miimon and xmit_hash_policy as properties),
// and the deployment's config drive carries network_data.json with the
// bond over both NICs and a VLAN on it, which the simulated agent resolves
// to the machine's NICs by MAC (it fails the deploy otherwise). Then, with
// the deployment gone, the bond changes in place on the available host
// (mode, one member leaves: Ironic takes the membership change only in
// maintenance, which the provider opens and closes), an import reads the
// bond and its members back, and removing port_groups deletes the bond.
func TestAccHostPortGroups_bondDeployed(t *testing.T) {
	r := startAgentRig(t, "acc-bond")
	name, srv, states, sc := r.name, r.srv, r.states, r.sc
	mac1, mac2 := strings.ToLower(r.profile.NICs[0].MAC), strings.ToLower(r.profile.NICs[1].MAC)
	address := acctest.SimAddress(srv, "sys-0")
	img := acctest.ImageServer(t)
	both := fmt.Sprintf("[%q, %q]", mac1, mac2)
	sorted := []string{mac1, mac2}
	slices.Sort(sorted)
	bonded := bondedHostHCL(name, address, mac1, mac2, "802.3ad", both)
	recordedTest(t, name, states, []resource.TestStep{
		{
			Config: bonded + bondNetworkData(mac1, mac2) + deployment(img.URL, img.SHA256, "sha256", `  network_data         = data.baremetal_network_data.test.json
  provisioning_retries = 0
`),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("baremetal_deployment.test", "provisioning_state", "provisioned"),
				resource.TestCheckResourceAttr("baremetal_host.test", "port_groups.#", "1"),
				portGroupsCheck(t, sc, name, func(pgs []ironicPortGroup) error {
					if len(pgs) != 1 || pgs[0].Name != name+".bond0" || pgs[0].Mode != "802.3ad" || pgs[0].Address != mac1 ||
						pgs[0].Properties["miimon"] != "100" || !slices.Equal(pgs[0].Members, sorted) {
						return fmt.Errorf("want %s.bond0, 802.3ad, address %s, members %s and %s", name, mac1, mac1, mac2)
					}
					return nil
				}),
				acctest.NodeCheck(t, name, func(n *nodes.Node) error {
					if n.Maintenance || n.ProvisionState != "active" {
						return fmt.Errorf("node maintenance %v (%q), state %s", n.Maintenance, n.MaintenanceReason, n.ProvisionState)
					}
					return nil
				}),
				agentRecord(srv, "sys-0", func(rec agent.Record) error {
					cd := rec.ConfigDrive
					if cd == nil || cd.Error != "" || len(cd.Bonds) != 1 {
						return fmt.Errorf("config drive %+v", cd)
					}
					b := cd.Bonds[0]
					if b.ID != "bond0" || b.Mode != "802.3ad" || b.XmitHashPolicy != "layer3+4" || b.Miimon != float64(100) ||
						!slices.Equal(b.MemberMACs, []string{mac1, mac2}) || !slices.Equal(b.VLANs, []string{"bond0.42"}) {
						return fmt.Errorf("bond as the agent built it %+v", b)
					}
					t.Logf("network_data.json the agent of %s received in its config drive:\n%s\nbond as the agent resolved it: %+v",
						name, cd.NetworkData, b)
					return nil
				}),
			),
		},
		{
			Config: bondedHostHCL(name, address, mac1, mac2, "active-backup", fmt.Sprintf("[%q]", mac1)),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("baremetal_host.test", "provisioning_state", "available"),
				portGroupsCheck(t, sc, name, func(pgs []ironicPortGroup) error {
					if len(pgs) != 1 || pgs[0].Mode != "active-backup" || !slices.Equal(pgs[0].Members, []string{mac1}) {
						return fmt.Errorf("want active-backup with member %s only", mac1)
					}
					return nil
				}),
				acctest.NodeCheck(t, name, func(n *nodes.Node) error {
					if n.Maintenance || n.ProvisionState != "available" {
						return fmt.Errorf("node maintenance %v (%q), state %s", n.Maintenance, n.MaintenanceReason, n.ProvisionState)
					}
					return nil
				}),
			),
		},
		{
			ResourceName:  "baremetal_host.test",
			ImportState:   true,
			ImportStateId: name,
			ImportStateCheck: func(is []*terraform.InstanceState) error {
				if len(is) != 1 {
					return fmt.Errorf("imported %d instances", len(is))
				}
				a := is[0].Attributes
				if a["port_groups.#"] != "1" || a["port_groups.0.name"] != "bond0" || a["port_groups.0.mode"] != "active-backup" ||
					a["port_groups.0.address"] != mac1 || a["port_groups.0.ports.#"] != "1" || a["port_groups.0.ports.0"] != mac1 ||
					a["port_groups.0.properties.miimon"] != "100" || a["ports.#"] != "1" || a["ports.0.mac"] != mac1 {
					return fmt.Errorf("imported port groups and ports: %v", a)
				}
				return nil
			},
		},
		{
			Config: bootSimHost(name, address, fmt.Sprintf("  online = true\n  driver_info = { has_dedicated_power_supply = \"true\" }\n  ports = [{ mac = %q }, { mac = %q }]\n", mac1, mac2)).HCL(),
			Check: portGroupsCheck(t, sc, name, func(pgs []ironicPortGroup) error {
				if len(pgs) != 0 {
					return fmt.Errorf("want none left")
				}
				return nil
			}),
		},
	})
}

// A port group's physical_network on the rig's Ironic: refused at plan,
// naming API 1.102, on one older than that (2025.1 offers 1.96); on one
// that has it (2025.2 and later: IRONIC_RELEASE=newest) it is written to
// Ironic's port group and reads back with no drift.
func TestAccHostPortGroups_physicalNetwork(t *testing.T) {
	acctest.PreCheck(t)
	conn, err := clients.Connect(context.Background(), clients.Config{Endpoint: acctest.Endpoint()})
	if err != nil {
		t.Fatal(err)
	}
	name := acctest.Name("acc-bond-physnet")
	mac0, mac1 := acctest.MAC(), acctest.MAC()
	// fake-hardware all through: no BMC, so that it runs on every release
	// the rig has.
	config := fmt.Sprintf(`
resource "baremetal_host" "test" {
  name   = %[3]q
  driver = "fake-hardware"
  ports = [
    { mac = %[1]q, physical_network = "physnet1" },
    { mac = %[2]q, physical_network = "physnet1" },
  ]
  port_groups = [{
    name             = "bond0"
    mode             = "active-backup"
    physical_network = "physnet1"
    ports            = [%[1]q, %[2]q]
  }]
}
`, mac0, mac1, name)
	if !lifecycle.FeaturePortGroupPhysnet.In(conn.MaxMicroversion) {
		acctest.ParallelTest(t, nil, []resource.TestStep{{
			Config: config, PlanOnly: true,
			ExpectError: regexp.MustCompile(`(?s)Ironic too old for a port group's physical_network.*port group "bond0":\s+port_groups.physical_network\s+needs\s+Ironic\s+API\s+microversion\s+1.102\s+or\s+later,\s+but\s+this\s+Ironic's\s+maximum\s+API\s+microversion\s+is\s+` + regexp.QuoteMeta(conn.MaxMicroversion)),
		}})
		return
	}
	acctest.ParallelTest(t, noNodesNamed(t, name), []resource.TestStep{{
		Config: config,
		Check: func(*terraform.State) error {
			n, err := acctest.Node(t, name)
			if err != nil {
				return err
			}
			var pgs struct {
				PortGroups []struct {
					Name            string  `json:"name"`
					PhysicalNetwork *string `json:"physical_network"`
				} `json:"portgroups"`
			}
			sc := conn.WithMicroversion(lifecycle.FeaturePortGroupPhysnet.Microversion())
			if _, err := sc.Get(context.Background(), sc.ServiceURL("portgroups", "detail")+"?node="+n.UUID, &pgs, nil); err != nil {
				return err
			}
			if len(pgs.PortGroups) != 1 || pgs.PortGroups[0].PhysicalNetwork == nil || *pgs.PortGroups[0].PhysicalNetwork != "physnet1" {
				return fmt.Errorf("port groups in Ironic %+v, want bond0 on physnet1", pgs.PortGroups)
			}
			t.Logf("Ironic %s: port group %s on physical network %s", conn.MaxMicroversion, pgs.PortGroups[0].Name, *pgs.PortGroups[0].PhysicalNetwork)
			return nil
		},
	}})
}
