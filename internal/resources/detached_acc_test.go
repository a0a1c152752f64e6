package resources_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/acctest"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmc/sim/agent"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// The detached rule on a real Ironic: once its baremetal_host says
// detached = true, no resource acts on a host again. Each test marks
// Ironic's log after the detach and checks that nothing but reads reached
// the node since.

// detachedHost is a fake-hardware host, detached or not.
func detachedHost(name string, detached bool) string {
	return fakeHost(name, fmt.Sprintf("  online = true\n  detached = %t", detached))
}

// detachedNode checks that the node named name is still the node id, in
// provision state ps, powered on, and in maintenance with the detach
// reason.
func detachedNode(t *testing.T, name string, id *string, ps string) resource.TestCheckFunc {
	return acctest.NodeCheck(t, name, func(n *nodes.Node) error {
		if n.UUID != *id || n.ProvisionState != ps || n.PowerState != "power on" {
			return fmt.Errorf("node %s: %s, %q, %q; want %s, %q, power on", n.Name, n.UUID, n.ProvisionState, n.PowerState, *id, ps)
		}
		if !n.Maintenance || n.MaintenanceReason != lifecycle.DetachReason {
			return fmt.Errorf("node %s: maintenance %v (%q), want the detach reason", n.Name, n.Maintenance, n.MaintenanceReason)
		}
		return nil
	})
}

// markLog marks Ironic's log (after the step's apply).
func markLog(t *testing.T, mark **acctest.LogMark) resource.TestCheckFunc {
	return func(*terraform.State) error {
		*mark = acctest.MarkIronicLog(t)
		return nil
	}
}

// noWritesSince checks that Ironic's log shows no request that changes the
// node (by UUID or name) since the mark: no provision state, power,
// maintenance, patch or delete.
func noWritesSince(t *testing.T, mark **acctest.LogMark, id *string, name string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		writes, err := (*mark).WritesTo(*id, name)
		if err != nil {
			return err
		}
		if len(writes) > 0 {
			return fmt.Errorf("requests to detached node %s since the detach: %q", name, writes)
		}
		t.Logf("Ironic's log: no write to node %s (%s) since the detach", name, *id)
		return nil
	}
}

// A deployed host (claimed, then deployed) is detached; a new deployment
// on it is refused at plan; destroying the configuration forgets the
// deployment, the claim and the host: the node stays active, powered on,
// in maintenance with the detach reason, with the same UUID and its
// allocation, and Ironic's log shows no write to it after the detach. A
// second configuration then adopts the host by import (which re-attaches
// it) and destroys it.
func TestAccDetached_deploymentDestroy(t *testing.T) {
	name := acctest.Name("acc-detdep")
	config := func(detached bool, image string) string {
		return detachedHost(name, detached) + `
resource "baremetal_host_claim" "test" {
  candidates = [baremetal_host.test.id]
}
` + deploymentOn("baremetal_host_claim.test.host_id", image, depMD5, "", "  provisioning_retries = 0")
	}
	var id, alloc string
	var mark *acctest.LogMark
	// A failed step leaves a detached node that no destroy deletes.
	t.Cleanup(func() { acctest.DeleteNodeNamed(t, acctest.Ironic(t), name) })
	acctest.ParallelTest(t, noNodesNamed(t, name), []resource.TestStep{
		{ // 1. Deployed.
			Config: config(false, depImageA),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr(dep, "provisioning_state", "provisioned"),
				saveID("baremetal_host.test", &id),
				func(s *terraform.State) error {
					alloc = s.RootModule().Resources["baremetal_host_claim.test"].Primary.Attributes["allocation_id"]
					return nil
				},
			),
		},
		{ // 2. Detached: maintenance with the provider's reason; the deployment is untouched.
			Config:           config(true, depImageA),
			ConfigPlanChecks: preApply(updates("baremetal_host.test"), untouched(dep), untouched("baremetal_host_claim.test")),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("baremetal_host.test", "operational_status", "detached"),
				detachedNode(t, name, &id, "active"),
				markLog(t, &mark),
			),
		},
		{ // A new deployment (another image replaces it) on the detached host: refused at plan.
			Config:      config(true, depImageB),
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(`(?s)Host ` + name + ` is detached.*will\s+not\s+deploy\s+on\s+it.*set\s+detached\s+=\s+false`),
		},
		{ // 3. Destroy: everything is forgotten, the node and the machine stay as they are.
			Config: `locals { detached_deployment_destroyed = true }`,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(dep, plancheck.ResourceActionDestroy),
				plancheck.ExpectResourceAction("baremetal_host_claim.test", plancheck.ResourceActionDestroy),
				plancheck.ExpectResourceAction("baremetal_host.test", plancheck.ResourceActionDestroy),
			}},
			Check: resource.ComposeAggregateTestCheckFunc(
				detachedNode(t, name, &id, "active"),
				acctest.NodeCheck(t, name, func(n *nodes.Node) error {
					if alloc == "" || n.AllocationUUID != alloc {
						return fmt.Errorf("node allocation %v, want %s kept", n.AllocationUUID, alloc)
					}
					return nil
				}),
				noWritesSince(t, &mark, &id, name),
			),
		},
		{ // Adopted by another configuration: re-attached in place; its destroy then deletes it.
			Config:           fmt.Sprintf("import {\n  to = baremetal_host.test\n  id = %q\n}\n", name) + detachedHost(name, false),
			ConfigPlanChecks: preApply(updates("baremetal_host.test")),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttrPtr("baremetal_host.test", "id", &id),
				resource.TestCheckResourceAttr("baremetal_host.test", "operational_status", "OK"),
			),
		},
	})
}

// Firmware settings with reset_on_destroy on a host that is then
// detached: changing them is refused at plan, and destroying the
// configuration runs no factory reset (no manual clean): the node stays
// available, in maintenance, with its BIOS as it was.
func TestAccDetached_firmwareResetOnDestroy(t *testing.T) {
	name := acctest.Name("acc-detfw")
	sc := acctest.Ironic(t)
	config := func(detached bool, value string) string {
		return detachedHost(name, detached) + fmt.Sprintf(`
resource "baremetal_firmware_settings" "test" {
  host_id          = baremetal_host.test.id
  reset_on_destroy = true
  settings = {
    ProcVirtualization = %q
  }
}
`, value)
	}
	var id string
	var mark *acctest.LogMark
	t.Cleanup(func() { acctest.DeleteNodeNamed(t, sc, name) })
	acctest.ParallelTest(t, noNodesNamed(t, name), []resource.TestStep{
		{
			Config: config(false, "Enabled"),
			Check: resource.ComposeAggregateTestCheckFunc(
				biosIs(t, sc, name, map[string]string{"ProcVirtualization": "Enabled"}),
				saveID("baremetal_host.test", &id),
			),
		},
		{
			Config: config(true, "Enabled"),
			Check: resource.ComposeAggregateTestCheckFunc(
				detachedNode(t, name, &id, "available"),
				markLog(t, &mark),
			),
		},
		{ // A change of the settings of a detached host: refused at plan.
			Config:      config(true, "Disabled"),
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(`(?s)Host ` + name + ` is detached.*will\s+not\s+change\s+its\s+BIOS\s+settings`),
		},
		{ // Destroy: no factory reset, nothing written.
			Config: `locals { detached_firmware_destroyed = true }`,
			Check: resource.ComposeAggregateTestCheckFunc(
				detachedNode(t, name, &id, "available"),
				biosIs(t, sc, name, map[string]string{"ProcVirtualization": "Enabled"}),
				noWritesSince(t, &mark, &id, name),
			),
		},
		{ // Adopted again, then destroyed with the test.
			Config: fmt.Sprintf("import {\n  to = baremetal_host.test\n  id = %q\n}\n", name) + detachedHost(name, false),
			Check:  resource.TestCheckResourceAttr("baremetal_host.test", "operational_status", "OK"),
		},
	})
}

// A host whose agent stopped heartbeating sits in clean wait: detached =
// true aborts that wait at once (Ironic's abort, not its callback
// timeout), leaves the node in clean failed and in the detach
// maintenance; re-attached with a healthy agent, the next apply converges
// the host to available. Stuck again, it is destroyed with delete_mode =
// "force".
func TestAccAgent_detachAbortsCleanWait(t *testing.T) {
	r := startAgentRig(t, "acc-agent-abort")
	name, srv, sc := r.name, r.srv, r.sc
	// The host alone: the detach needs no hardware or network data (on
	// Ironic 2025.1 the simulated agent's inspection is not stored, so the
	// NIC names network data needs are not known).
	bare := bootSimHost(name, acctest.SimAddress(srv, "sys-0"), "").HCL()
	host := func(detached bool) string {
		return strings.Replace(bare, `resource "baremetal_host" "test" {`,
			fmt.Sprintf("resource \"baremetal_host\" \"test\" {\n  detached = %t", detached), 1)
	}
	acctest.ParallelTest(t, noNodesNamed(t, name), []resource.TestStep{
		{Config: host(false), Check: acctest.NodeCheck(t, name, depProvisionState("available"))},
		{
			// The agent stops heartbeating, and a manual clean behind
			// Terraform's back leaves the node waiting for it.
			PreConfig: func() {
				srv.Agent("sys-0").SetFaults(agent.Faults{HeartbeatStopped: true})
				toCleanWait(t, sc, name)
			},
			Config: host(true),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("baremetal_host.test", "operational_status", "detached"),
				acctest.NodeCheck(t, name, func(n *nodes.Node) error {
					t.Logf("after the detach: node %s in %q, maintenance %v (%s), last_error %q", name, n.ProvisionState, n.Maintenance, n.MaintenanceReason, n.LastError)
					if n.ProvisionState != "clean failed" || !n.Maintenance || n.MaintenanceReason != lifecycle.DetachReason {
						return fmt.Errorf("node in %q, maintenance %v (%q); want clean failed and detached", n.ProvisionState, n.Maintenance, n.MaintenanceReason)
					}
					if strings.Contains(n.LastError, "Timeout reached") {
						return fmt.Errorf("the wait ended by Ironic's timeout, not by the abort: %s", n.LastError)
					}
					return nil
				}),
			),
		},
		{
			PreConfig: func() { srv.Agent("sys-0").SetFaults(agent.Faults{}) },
			Config:    forced(host(false)),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("baremetal_host.test", "operational_status", "OK"),
				resource.TestCheckResourceAttr("baremetal_host.test", "provisioning_state", "available"),
				acctest.NodeCheck(t, name, func(n *nodes.Node) error {
					if n.ProvisionState != "available" || n.Maintenance {
						return fmt.Errorf("node in %q, maintenance %v; want available", n.ProvisionState, n.Maintenance)
					}
					return nil
				}),
			),
		},
		{
			// Stuck in clean wait again, the host is destroyed with
			// delete_mode = "force": the wait is aborted and the node
			// deleted (noNodesNamed checks it is gone).
			PreConfig: func() {
				srv.Agent("sys-0").SetFaults(agent.Faults{HeartbeatStopped: true})
				toCleanWait(t, sc, name)
			},
			Config:  forced(host(false)),
			Destroy: true,
		},
	})
}

// forced is a host's HCL with delete_mode = "force".
func forced(hcl string) string {
	return strings.Replace(hcl, `resource "baremetal_host" "test" {`, "resource \"baremetal_host\" \"test\" {\n  delete_mode = \"force\"", 1)
}

// toCleanWait moves the available node named name through manage into a
// manual clean and returns once it waits in clean wait for its agent.
func toCleanWait(t *testing.T, sc *gophercloud.ServiceClient, name string) {
	t.Helper()
	ctx := context.Background()
	steps := []nodes.CleanStep{{Interface: nodes.InterfaceDeploy, Step: "erase_devices_metadata"}}
	for _, move := range []struct {
		opts nodes.ProvisionStateOpts
		want string
	}{
		{nodes.ProvisionStateOpts{Target: nodes.TargetManage}, "manageable"},
		{nodes.ProvisionStateOpts{Target: nodes.TargetClean, CleanSteps: steps}, "clean wait"},
	} {
		if err := nodes.ChangeProvisionState(ctx, sc, name, move.opts).ExtractErr(); err != nil {
			t.Fatalf("%s node %s: %v", move.opts.Target, name, err)
		}
		for deadline := time.Now().Add(2 * time.Minute); ; {
			n, err := nodes.Get(ctx, sc, name).Extract()
			if err != nil {
				t.Fatalf("get node %s: %v", name, err)
			}
			if n.ProvisionState == move.want && (move.want == "clean wait" || n.TargetProvisionState == "") {
				break
			}
			if strings.HasSuffix(n.ProvisionState, "failed") || time.Now().After(deadline) {
				t.Fatalf("%s node %s: in %q: %s", move.opts.Target, name, n.ProvisionState, n.LastError)
			}
			time.Sleep(500 * time.Millisecond) // polling Ironic, an external process
		}
	}
}

// A host whose deployment is stuck in wait call-back (its agent stopped
// heartbeating after Ironic booted it) is destroyed with delete_mode =
// "force": Ironic before API 1.110 cannot abort that wait, so the node is
// put in maintenance and deleted as it is (noNodesNamed checks it is
// gone). The deploy is started behind Terraform's back, as by a
// deployment whose apply was given up. driver_info has_dedicated_power_supply
// keeps Ironic 2025.1 (29.0.5), which makes every PATCHed node its own
// child, from failing the deploy's power off on the node's own lock.
func TestAccAgent_forceDeleteDeployWait(t *testing.T) {
	r := startAgentRig(t, "acc-agent-fdw")
	name, srv, sc := r.name, r.srv, r.sc
	img := acctest.ImageServer(t)
	host := forced(bootSimHost(name, acctest.SimAddress(srv, "sys-0"), `  driver_info = { has_dedicated_power_supply = "true" }`).HCL())
	acctest.ParallelTest(t, noNodesNamed(t, name), []resource.TestStep{
		{Config: host, Check: acctest.NodeCheck(t, name, depProvisionState("available"))},
		{
			PreConfig: func() {
				srv.Agent("sys-0").SetFaults(agent.Faults{HeartbeatStopped: true})
				toDeployWait(t, sc, name, img.URL, img.SHA256)
			},
			RefreshState: true,
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("baremetal_host.test", "ironic_state", "wait call-back"),
				func(s *terraform.State) error {
					a := s.RootModule().Resources["baremetal_host.test"].Primary.Attributes
					t.Logf("stuck: ironic_state %q, current_step %q, last_transition %s", a["ironic_state"], a["current_step"], a["last_transition"])
					return nil
				},
			),
		},
		{Config: host, Destroy: true},
	})
}

// toDeployWait deploys the available node named name from the image at
// url (its sha256 sum) through Ironic's API and returns once the node
// waits in wait call-back for its agent.
func toDeployWait(t *testing.T, sc *gophercloud.ServiceClient, name, url, sum string) {
	t.Helper()
	ctx := context.Background()
	patch := nodes.UpdateOpts{nodes.UpdateOperation{Op: nodes.AddOp, Path: "/instance_info", Value: map[string]any{
		"image_source": url, "image_os_hash_algo": "sha256", "image_os_hash_value": sum, "image_disk_format": "qcow2",
	}}}
	if _, err := nodes.Update(ctx, sc, name, patch).Extract(); err != nil {
		t.Fatalf("set the image of node %s: %v", name, err)
	}
	if err := nodes.ChangeProvisionState(ctx, sc, name, nodes.ProvisionStateOpts{Target: nodes.TargetActive}).ExtractErr(); err != nil {
		t.Fatalf("deploy node %s: %v", name, err)
	}
	for deadline := time.Now().Add(2 * time.Minute); ; {
		n, err := nodes.Get(ctx, sc, name).Extract()
		if err != nil {
			t.Fatalf("get node %s: %v", name, err)
		}
		if n.ProvisionState == "wait call-back" {
			t.Logf("node %s waits in wait call-back, deploy step %v", name, n.DeployStep)
			return
		}
		if strings.HasSuffix(n.ProvisionState, "failed") || time.Now().After(deadline) {
			t.Fatalf("deploy node %s: in %q: %s", name, n.ProvisionState, n.LastError)
		}
		time.Sleep(500 * time.Millisecond) // polling Ironic, an external process
	}
}
