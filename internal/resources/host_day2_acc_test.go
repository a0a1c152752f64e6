package resources_test

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"
	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/ports"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/acctest"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmc/sim"
)

// simResetsSince checks that the simulator saw exactly want as system id's
// resets after the first *from of them, and the system is on; it then
// moves *from to the end.
func simResetsSince(srv *sim.Server, id string, from *int, want ...string) resource.TestCheckFunc {
	return resource.ComposeAggregateTestCheckFunc(func(*terraform.State) error {
		got, total, err := acctest.SimResetsSince(srv, id, *from)
		if err != nil {
			return err
		}
		if !slices.Equal(got, want) {
			return fmt.Errorf("simulator %s resets since the last step %q, want %q (%d in all)", id, got, want, total)
		}
		*from = total
		return nil
	}, acctest.SimPower(srv, id, sim.PowerOn))
}

// simResetCount records how many resets system id has seen so far.
func simResetCount(srv *sim.Server, id string, n *int) resource.TestCheckFunc {
	return func(*terraform.State) error {
		_, total, err := acctest.SimResetsSince(srv, id, 0)
		*n = total
		return err
	}
}

// deployedHost is the configuration of a test that changes a deployed
// host: host with extra, and a deployment of image A on it (depImage).
func deployedHost(host acctest.SimHost, extra string) string {
	return host.WithExtra(extra).HCL() + depImage(depImageA, "")
}

// deployed checks the first step of such a test: the deployment is
// provisioned, the simulated machine sys-0 is on, and *id is the host's id.
func deployed(srv *sim.Server, id *string) resource.TestCheckFunc {
	return resource.ComposeAggregateTestCheckFunc(
		resource.TestCheckResourceAttr("baremetal_deployment.test", "provisioning_state", "provisioned"),
		acctest.SimPower(srv, "sys-0", sim.PowerOn),
		saveID("baremetal_host.test", id),
	)
}

// reboot_trigger: changing it reboots a deployed host in place, which the
// simulated BMC sees as a graceful shutdown, then power on; the host stays
// provisioned with the same node, and the deployment is untouched.
// Setting it at creation reboots nothing.
func TestAccHostDay2_reboot(t *testing.T) {
	acctest.PreCheck(t)
	srv, _, host := acctest.StartSimHost(t, "acc-reboot", bmcUser, "reboot-pass")
	name := host.Name
	config := func(trigger string) string {
		return deployedHost(host, fmt.Sprintf("  reboot_trigger = %q", trigger))
	}
	var id string
	var resets int
	acctest.ParallelTest(t, noNodesNamed(t, name), []resource.TestStep{
		{
			Config: config("1"),
			Check:  resource.ComposeAggregateTestCheckFunc(deployed(srv, &id), simResetCount(srv, "sys-0", &resets)),
		},
		inPlace(resource.TestStep{
			Config:           config("2"),
			ConfigPlanChecks: preApply(untouched("baremetal_deployment.test")),
		}, &id,
			simResetsSince(srv, "sys-0", &resets, "GracefulShutdown", "On"),
			resource.TestCheckResourceAttr("baremetal_host.test", "provisioning_state", "provisioned"),
			resource.TestCheckResourceAttr("baremetal_host.test", "powered_on", "true"),
			resource.TestCheckResourceAttr("baremetal_host.test", "error_count", "0"),
			resource.TestCheckResourceAttr("baremetal_deployment.test", "provisioning_state", "provisioned"),
		),
		{ // Re-inspection of a deployed host is refused at plan time.
			Config:      strings.Replace(config("2"), "  reboot_trigger", "  inspect_trigger = \"again\"\n  reboot_trigger", 1),
			ExpectError: regexp.MustCompile(`(?s)Re-inspection refused.*host "` + name + `" is "provisioned"`),
		},
	})
}

// detached: a powered-on host is detached (maintenance with the
// provider's reason, operational status detached), then destroyed, which
// leaves the node in Ironic as it was (same UUID, provision state, power,
// and no power change on the simulated BMC); a second configuration
// imports the node by name and manages it: its apply re-attaches it
// (maintenance off) in place, and the plan after it is empty. A change of
// ports while detached is refused at plan, and the node's port keeps what
// it had.
func TestAccHostDay2_detachDestroyImport(t *testing.T) {
	acctest.PreCheck(t)
	srv, prof, simHost := acctest.StartSimHost(t, "acc-detach", bmcUser, "detach-pass")
	name := simHost.Name
	mac0 := prof.NICs[0].MAC
	portUntouched := func(*terraform.State) error {
		got, err := portDetails(t, name)
		if err != nil {
			return err
		}
		if p := got[mac0]; p.UUID == "" || p.PhysicalNetwork != "" {
			return fmt.Errorf("port %s of the detached host in Ironic: %+v", mac0, p)
		}
		return nil
	}
	host := func(res, extra string) string {
		h := simHost.WithExtra("  online = true\n" + extra)
		h.Resource = res
		return h.HCL()
	}
	var id string
	var resets int
	nodeIs := func(maintenance bool) resource.TestCheckFunc {
		return acctest.NodeCheck(t, name, func(n *nodes.Node) error {
			if n.UUID != id || n.ProvisionState != "available" || n.PowerState != "power on" {
				return fmt.Errorf("node %s: %s, %s; want %s, available, power on", n.Name, n.UUID, n.ProvisionState, id)
			}
			if n.Maintenance != maintenance {
				return fmt.Errorf("node maintenance %v (%q), want %v", n.Maintenance, n.MaintenanceReason, maintenance)
			}
			if maintenance && !strings.Contains(n.MaintenanceReason, "terraform-provider-baremetal") {
				return fmt.Errorf("maintenance reason %q does not name the provider", n.MaintenanceReason)
			}
			return nil
		})
	}
	// No reset since the first step, and still on: the machine was not
	// touched.
	noResetsSince := func() resource.TestCheckFunc { return simResetsSince(srv, "sys-0", &resets) }
	acctest.ParallelTest(t, noNodesNamed(t, name), []resource.TestStep{
		{
			Config: host("test", ""),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("baremetal_host.test", "detached", "false"),
				resource.TestCheckResourceAttr("baremetal_host.test", "operational_status", "OK"),
				saveID("baremetal_host.test", &id),
				simResetCount(srv, "sys-0", &resets),
			),
		},
		inPlace(resource.TestStep{ // Detach in place.
			Config: host("test", "  detached = true"),
		}, &id,
			resource.TestCheckResourceAttr("baremetal_host.test", "detached", "true"),
			resource.TestCheckResourceAttr("baremetal_host.test", "operational_status", "detached"),
			resource.TestCheckResourceAttr("baremetal_host.test", "provisioning_state", "available"),
			nodeIs(true),
			noResetsSince(),
		),
		{ // Its ports do not change while it is detached.
			Config: host("test", fmt.Sprintf("  detached = true\n  ports = [{ mac = %q, physical_network = \"provisioning\" }]", mac0)),
			ExpectError: regexp.MustCompile(`(?s)Host \S+ is detached.*will\s+not\s+change\s+its\s+Ironic\s+ports.*` +
				`re-attach\s+it\s+first`),
		},
		{ // Destroy the detached host: Terraform forgets it, the node stays.
			Config:           `locals { detached_host_destroyed = true }`,
			ConfigPlanChecks: preApply(plancheck.ExpectResourceAction("baremetal_host.test", plancheck.ResourceActionDestroy)),
			Check: resource.ComposeAggregateTestCheckFunc(
				nodeIs(true),
				noResetsSince(),
				portUntouched,
			),
		},
		{ // A second configuration adopts it by import and manages it.
			Config: fmt.Sprintf(`
import {
  to = baremetal_host.adopted
  id = %q
}
`, name) + host("adopted", ""),
			ConfigPlanChecks: preApply(updates("baremetal_host.adopted")),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttrPtr("baremetal_host.adopted", "id", &id),
				resource.TestCheckResourceAttr("baremetal_host.adopted", "detached", "false"),
				resource.TestCheckResourceAttr("baremetal_host.adopted", "operational_status", "OK"),
				resource.TestCheckResourceAttr("baremetal_host.adopted", "provisioning_state", "available"),
				nodeIs(false),
				noResetsSince(),
			),
		},
	})
}

// inspect_trigger: after a hardware change (the simulated system gets a
// new NIC), changing it inspects the available host again in place
// (Ironic's Redfish inspection): the new MAC becomes an Ironic port of the
// node and shows in the host's inspected data (baremetal_hardware), and
// the host is available again on the same node.
func TestAccHostDay2_reinspect(t *testing.T) {
	acctest.PreCheck(t)
	srv, prof, host := acctest.StartSimHost(t, "acc-reinsp", bmcUser, "reinsp-pass")
	name := host.Name
	newMAC := acctest.MAC()
	hwSource := "properties"
	if acctest.IronicAtLeast(t, "1.87") {
		hwSource = "inventory"
	}
	config := func(trigger string) string {
		return host.WithExtra(fmt.Sprintf("  inspect_trigger = %q", trigger)).HCL() + `
data "baremetal_hardware" "test" {
  host_id    = baremetal_host.test.id
  depends_on = [baremetal_host.test]
}
`
	}
	hasPort := func(mac string, want bool) resource.TestCheckFunc {
		return func(*terraform.State) error {
			macs, err := nodePortMACs(t, name)
			if err != nil {
				return err
			}
			if slices.Contains(macs, mac) != want {
				return fmt.Errorf("ports of %s: %v; want %s there: %v", name, macs, mac, want)
			}
			return nil
		}
	}
	var id string
	acctest.ParallelTest(t, noNodesNamed(t, name), []resource.TestStep{
		{
			Config: config("1"),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("baremetal_host.test", "provisioning_state", "available"),
				hasPort(newMAC, false),
				saveID("baremetal_host.test", &id),
			),
		},
		inPlace(resource.TestStep{
			PreConfig: func() {
				nics := slices.Clone(prof.NICs)
				nics = append(nics, sim.NIC{Name: "ens9", MAC: newMAC, SpeedMbps: 100000, LinkUp: true})
				if err := srv.SetNICs("sys-0", nics); err != nil {
					t.Fatal(err)
				}
			},
			Config: config("2"),
		}, &id,
			resource.TestCheckResourceAttr("baremetal_host.test", "provisioning_state", "available"),
			resource.TestCheckResourceAttr("baremetal_host.test", "ironic_state", "available"),
			hasPort(newMAC, true),
			// Redfish inspection's properties and ports; from Ironic 2024.1
			// (1.87 here) it stores an inventory too, read first.
			resource.TestCheckResourceAttr("data.baremetal_hardware.test", "source", hwSource),
			resource.TestCheckTypeSetElemNestedAttrs("data.baremetal_hardware.test", "nics.*", map[string]string{"mac": newMAC}),
		),
	})
}

// nodePortMACs lists the MACs of the Ironic ports of the node named name
// (lower case, sorted).
func nodePortMACs(t *testing.T, name string) ([]string, error) {
	got, err := portDetails(t, name)
	if err != nil {
		return nil, err
	}
	return slices.Sorted(maps.Keys(got)), nil
}

// portDetails reads the node's ports with every field, as
// GET /v1/ports?node=<name>&detail=true does, keyed by MAC.
func portDetails(t *testing.T, name string) (map[string]ports.Port, error) {
	ctx := context.Background()
	pages, err := ports.ListDetail(acctest.Ironic(t), ports.ListOpts{Node: name}).AllPages(ctx)
	if err != nil {
		return nil, err
	}
	all, err := ports.ExtractPorts(pages)
	if err != nil {
		return nil, err
	}
	out := map[string]ports.Port{}
	for _, p := range all {
		out[strings.ToLower(p.Address)] = p
	}
	return out, nil
}

// ports: per-MAC pxe_enabled, physical_network and local_link_connection
// reach Ironic's ports (the host is available, so the provider opens a
// maintenance window for the change and closes it); a change made in
// Ironic behind Terraform's back shows in the plan, and the next apply
// puts it back. Bad MACs and switch ids fail at plan, naming the value.
func TestAccHostDay2_ports(t *testing.T) {
	acctest.PreCheck(t)
	_, prof, host := acctest.StartSimHost(t, "acc-ports", bmcUser, "ports-pass")
	name := host.Name
	nics := prof.NICs
	mac0, mac1 := nics[0].MAC, nics[1].MAC
	portsHCL := func(mac0, switchID string) string {
		return fmt.Sprintf(`  ports = [
    {
      mac              = %q
      pxe_enabled      = true
      physical_network = "provisioning"
      local_link_connection = {
        switch_id   = %q
        port_id     = "Ethernet1/7"
        switch_info = "tor-r1"
      }
    },
    {
      mac         = %q
      pxe_enabled = false
    },
  ]`, mac0, switchID, strings.ToUpper(mac1))
	}
	config := host.WithExtra(portsHCL(mac0, "AA:BB:CC:00:11:22")).HCL()
	inIronic := func(portID string) resource.TestCheckFunc {
		return func(*terraform.State) error {
			got, err := portDetails(t, name)
			if err != nil {
				return err
			}
			p0, p1 := got[mac0], got[mac1]
			llc := p0.LocalLinkConnection
			if !p0.PXEEnabled || p0.PhysicalNetwork != "provisioning" || llc["switch_id"] != "aa:bb:cc:00:11:22" ||
				llc["port_id"] != portID || llc["switch_info"] != "tor-r1" {
				return fmt.Errorf("port %s in Ironic: pxe %v physnet %q llc %v", mac0, p0.PXEEnabled, p0.PhysicalNetwork, llc)
			}
			if p1.UUID == "" || p1.PXEEnabled {
				return fmt.Errorf("port %s in Ironic: %+v", mac1, p1)
			}
			n, err := acctest.Node(t, name)
			if err != nil {
				return err
			}
			if n.Maintenance {
				return fmt.Errorf("node left in maintenance (%q)", n.MaintenanceReason)
			}
			t.Logf("Ironic ports of %s: %s pxe=%v physical_network=%q local_link_connection=%v", name, mac0, p0.PXEEnabled, p0.PhysicalNetwork, llc)
			return nil
		}
	}
	acctest.ParallelTest(t, noNodesNamed(t, name), []resource.TestStep{
		{
			Config:      host.WithExtra(portsHCL(mac0, "switch-1")).HCL(),
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(`(?s)ports.*"switch-1" is not a switch id`),
		},
		{
			Config:      host.WithExtra(portsHCL("52:54:00:zz:00:01", "AA:BB:CC:00:11:22")).HCL(),
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(`"52:54:00:zz:00:01" is not a MAC address`),
		},
		{
			Config: config,
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("baremetal_host.test", "provisioning_state", "available"),
				resource.TestCheckResourceAttr("baremetal_host.test", "ports.#", "2"),
				inIronic("Ethernet1/7"),
			),
		},
		{ // Someone re-cables the port in Ironic: the plan shows it.
			PreConfig: func() {
				ctx := context.Background()
				sc := acctest.Ironic(t)
				got, err := portDetails(t, name)
				if err != nil {
					t.Fatal(err)
				}
				if err := nodes.SetMaintenance(ctx, sc, name, nodes.MaintenanceOpts{Reason: "out of band"}).ExtractErr(); err != nil {
					t.Fatal(err)
				}
				_, err = ports.Update(ctx, sc, got[mac0].UUID, ports.UpdateOpts{ports.UpdateOperation{
					Op: ports.ReplaceOp, Path: "/local_link_connection/port_id", Value: "Ethernet9/9",
				}}).Extract()
				if err != nil {
					t.Fatal(err)
				}
				if err := nodes.UnsetMaintenance(ctx, sc, name).ExtractErr(); err != nil {
					t.Fatal(err)
				}
			},
			Config:             config,
			PlanOnly:           true,
			ExpectNonEmptyPlan: true,
		},
		{ // And the next apply puts it back.
			Config:           config,
			ConfigPlanChecks: preApply(updates("baremetal_host.test")),
			Check:            inIronic("Ethernet1/7"),
		},
	})
}
