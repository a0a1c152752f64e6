package resources_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/acctest"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmc/sim"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmc/sim/agent"
)

// LLDP-wired ports on the rig: the simulated agent reports the switch port
// its eno1 is cabled to (raw TLVs in its inventory, as IPA with
// ipa-collect-lldp does) when ironic-inspector inspects the host, with no
// LLDP hook enabled in inspector. baremetal_hardware shows the switch's
// chassis id, port id, system name and VLANs; the port that takes its
// local_link_connection from LLDP gets them in Ironic. Then eno1 is
// re-cabled and the host inspected again outside Terraform: Ironic's port
// still names the old switch port, the plan shows the drift, and apply
// moves the port. Setting both local_link_connection and
// local_link_connection_from_lldp fails at plan.
//
// The rig's Ironic (21.4) stores each in-band inspection as a new
// node_inventory row and its inventory API then answers HTTP 500
// "Multiple rows were found"; the test drops the older row after the
// re-inspection (keepNewestInventory), so it needs the rig's database.
func TestAccHostPorts_lldp(t *testing.T) {
	acctest.PreCheckInspector(t)
	acctest.LocalIronic(t, "dropping a stale inventory (keepNewestInventory)")
	srv, profiles := acctest.StartAgentSim(t, 1, bmcUser, "lldp-pass")
	prof := profiles[0]
	eno1, eno2 := prof.NICs[0], prof.NICs[1]
	host := acctest.SimHost{
		Name: acctest.Name("acc-lldp"), Address: acctest.SimAddress(srv, "sys-0"), Username: bmcUser, Password: "lldp-pass",
		Driver: strings.Replace(acctest.SimAgentHostDriver, `inspect    = "redfish"`, `inspect    = "`+acctest.AgentInspectInterface()+`"`, 1),
	}
	if host.Driver == acctest.SimAgentHostDriver {
		t.Fatal("SimAgentHostDriver no longer sets inspect = \"redfish\"")
	}
	name := host.Name
	config := host.WithExtra(fmt.Sprintf(`  automated_cleaning_mode = "disabled"
  ports = [{
    mac                             = %q
    local_link_connection_from_lldp = true
  }]`, eno1.MAC)).HCL() + `
data "baremetal_hardware" "test" {
  host_id    = baremetal_host.test.id
  depends_on = [baremetal_host.test]
}
`
	leaf1 := &agent.SwitchPort{ChassisMAC: "64:64:9B:31:12:00", PortID: "Ethernet1/3", SystemName: "leaf-1",
		PortVLAN: 10, VLANs: []agent.VLAN{{ID: 100, Name: "provisioning"}}}
	leaf2 := &agent.SwitchPort{ChassisMAC: "64:64:9b:31:99:00", PortID: "Ethernet1/7", SystemName: "leaf-2",
		VLANs: []agent.VLAN{{ID: 300, Name: "tenant"}}}
	cable := func(sp *agent.SwitchPort) {
		if err := srv.Agent("sys-0").Cable(eno1.MAC, sp); err != nil {
			t.Fatal(err)
		}
	}
	cable(leaf1)

	const hw = "data.baremetal_hardware.test"
	lldpOf := func(sp *agent.SwitchPort, vlans ...string) resource.TestCheckFunc {
		want := map[string]string{
			"name": "eno1", "mac": eno1.MAC,
			"lldp.switch_chassis_id": strings.ToLower(sp.ChassisMAC), "lldp.switch_port_id": sp.PortID,
			"lldp.switch_system_name": sp.SystemName, "lldp.vlan_ids.#": fmt.Sprint(len(vlans)), "vlan_ids.#": fmt.Sprint(len(vlans)),
		}
		for i, v := range vlans {
			want[fmt.Sprintf("lldp.vlan_ids.%d", i)] = v
			want[fmt.Sprintf("vlan_ids.%d", i)] = v
		}
		return resource.TestCheckTypeSetElemNestedAttrs(hw, "nics.*", want)
	}
	// eno2 is cabled to no LLDP-speaking switch: its lldp is null.
	noLLDPOnEno2 := func(s *terraform.State) error {
		a := s.RootModule().Resources[hw].Primary.Attributes
		for i := 0; a[fmt.Sprintf("nics.%d.mac", i)] != ""; i++ {
			if a[fmt.Sprintf("nics.%d.name", i)] == eno2.Name {
				if v, ok := a[fmt.Sprintf("nics.%d.lldp.switch_chassis_id", i)]; ok {
					return fmt.Errorf("%s (no switch) has lldp.switch_chassis_id %q", eno2.Name, v)
				}
				return nil
			}
		}
		return fmt.Errorf("no NIC %s in %s", eno2.Name, hw)
	}
	// linkInIronic checks Ironic's port of eno1 names sp.
	linkInIronic := func(sp *agent.SwitchPort) resource.TestCheckFunc {
		return func(*terraform.State) error {
			got, err := portDetails(t, name)
			if err != nil {
				return err
			}
			llc := got[strings.ToLower(eno1.MAC)].LocalLinkConnection
			want := map[string]any{"switch_id": strings.ToLower(sp.ChassisMAC), "port_id": sp.PortID, "switch_info": sp.SystemName}
			if fmt.Sprint(llc) != fmt.Sprint(want) {
				return fmt.Errorf("Ironic's port %s: local_link_connection %v, want %v", eno1.MAC, llc, want)
			}
			t.Logf("Ironic's port %s of %s: local_link_connection %v", eno1.MAC, name, llc)
			return nil
		}
	}

	tc := acctest.Case(t, noNodesNamed(t, name), []resource.TestStep{
		{
			Config: strings.Replace(config, "local_link_connection_from_lldp = true",
				"local_link_connection_from_lldp = true\n    local_link_connection = { switch_id = \"aa:bb:cc:dd:ee:ff\", port_id = \"p1\" }", 1),
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(`(?s)Conflicting local_link_connection.*port ` + eno1.MAC + ` sets local_link_connection and\s+local_link_connection_from_lldp = true`),
		},
		{
			Config: config,
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("baremetal_host.test", "provisioning_state", "available"),
				resource.TestCheckResourceAttr(hw, "source", "inventory"),
				lldpOf(leaf1, "100", "10"),
				noLLDPOnEno2,
				linkInIronic(leaf1),
			),
		},
		{ // Re-cabled and inspected again behind Terraform's back.
			PreConfig: func() {
				cable(leaf2)
				reinspect(t, name, srv)
				keepNewestInventory(t, name)
				// Ironic (and inspector without LLDP hooks) left the port alone.
				if err := linkInIronic(leaf1)(nil); err != nil {
					t.Fatalf("after the re-inspection: %v", err)
				}
			},
			Config: config,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction("baremetal_host.test", plancheck.ResourceActionUpdate),
				// The drift: the port read back with Ironic's (old)
				// connection and local_link_connection_from_lldp false.
				portsChange{t: t, addr: "baremetal_host.test", stateHas: []string{
					`"port_id":"` + leaf1.PortID + `"`, `"local_link_connection_from_lldp":false`,
				}},
			}},
			Check: resource.ComposeAggregateTestCheckFunc(
				lldpOf(leaf2, "300"),
				linkInIronic(leaf2),
				resource.TestCheckResourceAttr("baremetal_host.test", "provisioning_state", "available"),
			),
		},
	})
	tc.PreCheck = func() { acctest.PreCheckInspector(t) }
	resource.ParallelTest(t, tc)
}

// portsChange logs the ports a plan changes (before -> after), and fails
// unless they change and their prior state (as JSON) holds stateHas.
type portsChange struct {
	t        *testing.T
	addr     string
	stateHas []string
}

func (c portsChange) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	for _, rc := range req.Plan.ResourceChanges {
		if rc.Address != c.addr {
			continue
		}
		before, _ := json.Marshal(rc.Change.Before.(map[string]any)["ports"])
		after, _ := json.Marshal(rc.Change.After.(map[string]any)["ports"])
		if string(before) == string(after) {
			resp.Error = fmt.Errorf("%s: the plan leaves ports as they are: %s", c.addr, before)
			return
		}
		c.t.Logf("plan for %s:\n  ports (state) = %s\n  ports (plan)  = %s", c.addr, before, after)
		for _, want := range c.stateHas {
			if !strings.Contains(string(before), want) {
				resp.Error = fmt.Errorf("%s: ports in state %s lack %s", c.addr, before, want)
			}
		}
		return
	}
	resp.Error = fmt.Errorf("no change for %s in the plan", c.addr)
}

// reinspect inspects the available node named name again through Ironic's
// API, as an operator would (manage, inspect, provide), and waits for each
// step to end. An inspection counts only when the agent's inventory reached
// ironic-inspector before Ironic called it finished: under load the rig's
// Ironic 21.4 with inspector 11.1 once ended an in-band inspection first
// (keeping the last inventory) and inspector then refused the late post;
// the host is then inspected again, at most three times.
func reinspect(t *testing.T, name string, srv *sim.Server) {
	t.Helper()
	ctx := context.Background()
	sc := acctest.Ironic(t)
	posts := func() (int, *agent.InspectionRecord) {
		r, err := srv.AgentRecord("sys-0")
		if err != nil {
			t.Fatalf("agent record: %v", err)
		}
		n := 0
		for _, e := range r.Events {
			if strings.Contains(e, "posted the inventory") {
				n++
			}
		}
		return n, r.Inspection
	}
	// move changes the node's provision state and waits until it is in
	// want with no target; it reports whether the agent had posted more
	// than before when that was seen.
	move := func(target nodes.TargetProvisionState, want string, before int) bool {
		if err := nodes.ChangeProvisionState(ctx, sc, name, nodes.ProvisionStateOpts{Target: target}).ExtractErr(); err != nil {
			t.Fatalf("%s node %s: %v", target, name, err)
		}
		deadline := time.Now().Add(5 * time.Minute)
		for {
			posted, _ := posts()
			n, err := nodes.Get(ctx, sc, name).Extract()
			if err != nil {
				t.Fatalf("get node %s: %v", name, err)
			}
			if n.ProvisionState == want && n.TargetProvisionState == "" {
				return posted > before
			}
			if strings.HasSuffix(n.ProvisionState, "failed") || time.Now().After(deadline) {
				t.Fatalf("%s node %s: in %q: %s", target, name, n.ProvisionState, n.LastError)
			}
			time.Sleep(time.Second) // polling Ironic, an external process
		}
	}
	move(nodes.TargetManage, "manageable", 0)
	for attempt := 1; ; attempt++ {
		before, _ := posts()
		if move(nodes.TargetInspect, "manageable", before) {
			// inspector answers 200, Ironic's built-in inspection 202.
			if _, rec := posts(); rec != nil && (rec.Status == 200 || rec.Status == 202) {
				break
			}
		}
		// Let a post still in flight be answered before inspecting again.
		for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(time.Second) {
			if n, _ := posts(); n > before {
				break
			}
		}
		_, rec := posts()
		if attempt == 3 {
			t.Fatalf("node %s: three inspections ended without the agent's inventory (last post: %+v)", name, rec)
		}
		t.Logf("inspection %d of %s ended before Ironic took the agent's inventory (post: %+v); inspecting again", attempt, name, rec)
	}
	move(nodes.TargetProvide, "available", 0)
}

// keepNewestInventory deletes all but the newest stored inspection of the
// node named name from the rig's database (scripts/ironic.sh sql): Ironic
// 21.4 adds a node_inventory row per in-band inspection and its inventory
// API then fails with "Multiple rows were found when exactly one was
// required", where one row per node is what it reads.
func keepNewestInventory(t *testing.T, name string) {
	t.Helper()
	n, err := acctest.Node(t, name)
	if err != nil {
		t.Fatalf("get node %s: %v", name, err)
	}
	if !regexp.MustCompile(`^[0-9a-f-]{36}$`).MatchString(n.UUID) {
		t.Fatalf("node %s: UUID %q", name, n.UUID)
	}
	node := "(SELECT id FROM nodes WHERE uuid = '" + n.UUID + "')"
	stmt := "DELETE FROM node_inventory WHERE node_id = " + node +
		" AND id < (SELECT newest FROM (SELECT MAX(id) AS newest FROM node_inventory WHERE node_id = " + node + ") AS t)"
	script, err := filepath.Abs(filepath.Join("..", "..", "scripts", "ironic.sh"))
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(script, "sql", stmt).CombinedOutput(); err != nil {
		t.Fatalf("drop the older inventories of %s: %v\n%s", name, err, out)
	}
}
