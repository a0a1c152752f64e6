package resources_test

import (
	"context"
	"fmt"
	"regexp"
	"testing"

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

// fakeHost is a fake-hardware host: Ironic runs its whole lifecycle without
// hardware.
func fakeHost(name, extra string) string {
	return fmt.Sprintf(`
resource "baremetal_host" "test" {
  name        = %q
  driver      = "fake-hardware"
  driver_info = { fake_note = "acceptance" }
%s
}
`, name, extra)
}

func TestAccHost_lifecycle(t *testing.T) {
	name := acctest.Name("acc-host")
	acctest.PreCheck(t)
	// Every step changes the host in place: the id stays the same.
	sameHost := statecheck.CompareValue(compare.ValuesSame())
	// A refresh that finds nothing new keeps last_updated (it once came
	// back as Ironic's older updated_at, drift on every host).
	sameStamp := statecheck.CompareValue(compare.ValuesSame())
	const addr = "baremetal_host.test"
	first := fakeHost(name, `  labels = { rack = "r1" }
  driver_secrets = { fake_password = "first" }`)
	acctest.ParallelTest(t, noNodesNamed(t, name), []resource.TestStep{
		{ // registering -> inspecting -> preparing -> available, off.
			Config: first,
			ConfigStateChecks: []statecheck.StateCheck{
				sameStamp.AddStateValue(addr, tfjsonpath.New("last_updated")),
				expectAttr(addr, "provisioning_state", knownvalue.StringExact("available")),
				expectAttr(addr, "ironic_state", knownvalue.StringExact("available")),
				expectAttr(addr, "operational_status", knownvalue.StringExact("OK")),
				expectAttr(addr, "powered_on", knownvalue.Bool(false)),
				expectAttr(addr, "error_count", knownvalue.Int64Exact(0)),
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("labels").AtMapKey("rack"), knownvalue.StringExact("r1")),
				expectAttr(addr, "id", knownvalue.StringRegexp(regexp.MustCompile(`^[0-9a-f-]{36}$`))),
				sameHost.AddStateValue(addr, tfjsonpath.New("id")),
			},
		},
		{ // The same configuration: the apply refreshes and changes nothing.
			Config:            first,
			ConfigPlanChecks:  preApply(untouched(addr)),
			ConfigStateChecks: []statecheck.StateCheck{sameStamp.AddStateValue(addr, tfjsonpath.New("last_updated"))},
		},
		{ // Power on, labels and credentials change in place.
			Config: fakeHost(name, `  online = true
  labels = { rack = "r2" }
  driver_secrets = { fake_password = "second" }`),
			ConfigStateChecks: []statecheck.StateCheck{
				expectAttr(addr, "powered_on", knownvalue.Bool(true)),
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("labels").AtMapKey("rack"), knownvalue.StringExact("r2")),
				expectAttr(addr, "provisioning_state", knownvalue.StringExact("available")),
				sameHost.AddStateValue(addr, tfjsonpath.New("id")),
			},
			// Ironic is the witness of what state cannot show.
			Check: resource.ComposeAggregateTestCheckFunc(
				acctest.NodeCheck(t, name, func(n *nodes.Node) error {
					if n.PowerState != "power on" {
						return fmt.Errorf("Ironic power_state %q, want power on", n.PowerState)
					}
					if n.DriverInfo["fake_password"] == "first" {
						return fmt.Errorf("driver_info was not updated in place")
					}
					return nil
				}),
			),
		},
		{ // And off again.
			Config: fakeHost(name, `  online = false
  labels = { rack = "r2" }
  driver_secrets = { fake_password = "second" }`),
			ConfigStateChecks: []statecheck.StateCheck{
				expectAttr(addr, "powered_on", knownvalue.Bool(false)),
				sameHost.AddStateValue(addr, tfjsonpath.New("id")),
			},
		},
		{ // Import by name.
			ResourceName:            "baremetal_host.test",
			ImportState:             true,
			ImportStateId:           name,
			ImportStateVerify:       true,
			ImportStateVerifyIgnore: importIgnore,
		},
		{ // Import by node UUID.
			ResourceName:            "baremetal_host.test",
			ImportState:             true,
			ImportStateVerify:       true,
			ImportStateVerifyIgnore: importIgnore,
		},
	})
}

// expectAttr checks a top-level attribute of a resource in state.
func expectAttr(addr, attr string, v knownvalue.Check) statecheck.StateCheck {
	return statecheck.ExpectKnownValue(addr, tfjsonpath.New(attr), v)
}

// importIgnore are the attributes Ironic cannot give back on import: the
// driver and its secrets (masked), settings that only act at registration,
// and status stamped by the state machine.
var importIgnore = []string{"driver", "driver_info", "driver_secrets", "timeouts",
	"inspection", "externally_provisioned", "last_updated", "error_count",
	"error_message", "error_type", "operational_status", "ironic_state", "powered_on"}

// saveID records the id of the resource at addr, for sameID in a later
// step.
func saveID(addr string, id *string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		*id = s.RootModule().Resources[addr].Primary.ID
		return nil
	}
}

// sameID checks that a step changed the host in place.
func sameID(id *string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		got := s.RootModule().Resources["baremetal_host.test"].Primary.ID
		if got != *id {
			return fmt.Errorf("host was replaced: id %s, want %s", got, *id)
		}
		return nil
	}
}

// preApply is a step's plan checks: the plan must pass checks before it
// is applied.
func preApply(checks ...plancheck.PlanCheck) resource.ConfigPlanChecks {
	return resource.ConfigPlanChecks{PreApply: checks}
}

// updates expects the plan to update the resource at addr in place.
func updates(addr string) plancheck.PlanCheck {
	return plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)
}

// inPlace is step as an in-place change of baremetal_host.test: its plan
// updates the host (besides step's own plan checks), and after the apply
// the host keeps the id *id and passes checks. Every step that updates
// the host in place is written through here.
func inPlace(step resource.TestStep, id *string, checks ...resource.TestCheckFunc) resource.TestStep {
	step.ConfigPlanChecks.PreApply = append([]plancheck.PlanCheck{updates("baremetal_host.test")}, step.ConfigPlanChecks.PreApply...)
	step.Check = resource.ComposeAggregateTestCheckFunc(append([]resource.TestCheckFunc{sameID(id)}, checks...)...)
	return step
}

// untouched expects the plan to leave the resource at addr alone.
func untouched(addr string) plancheck.PlanCheck {
	return plancheck.ExpectResourceAction(addr, plancheck.ResourceActionNoop)
}

// oneNodeNamed checks that exactly one Ironic node is named name, and
// passes check the id of baremetal_host.test in state.
func oneNodeNamed(t *testing.T, name string, check func(id string) error) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		if err := check(s.RootModule().Resources["baremetal_host.test"].Primary.ID); err != nil {
			return err
		}
		if n := acctest.NodesNamed(t, acctest.Ironic(t), name); len(n) != 1 {
			return fmt.Errorf("want exactly one node named %s, got %d", name, len(n))
		}
		return nil
	}
}

// A host deleted outside Terraform leaves state on refresh, and the next
// apply registers it again.
func TestAccHost_deletedOutside(t *testing.T) {
	name := acctest.Name("acc-gone")
	sc := acctest.Ironic(t)
	mac := acctest.MAC()
	var id string
	acctest.ParallelTest(t, nil, []resource.TestStep{
		{
			Config: fakeHost(name, `  inspection = "disabled"
  boot_mac_address = "`+mac+`"`),
			Check: saveID("baremetal_host.test", &id),
		},
		{
			PreConfig: func() { acctest.DeleteNodeNamed(t, sc, name) },
			Config: fakeHost(name, `  inspection = "disabled"
  boot_mac_address = "`+mac+`"`),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("baremetal_host.test", "provisioning_state", "available"),
				oneNodeNamed(t, name, func(got string) error {
					if got == id {
						return fmt.Errorf("expected a new node after the old one was deleted, got the same id %s", id)
					}
					return nil
				}),
			),
		},
	})
}

// An apply that died after creating the node (no state saved) is re-run:
// the provider finds the node by name and carries on, never duplicating it.
func TestAccHost_resumeAfterInterruptedApply(t *testing.T) {
	name := acctest.Name("acc-resume")
	sc := acctest.Ironic(t)
	var leftover string
	acctest.ParallelTest(t, nil, []resource.TestStep{
		{
			PreConfig: func() {
				// What an interrupted apply leaves: a node in enroll.
				n, err := nodes.Create(context.Background(), sc, nodes.CreateOpts{
					Name: name, Driver: "fake-hardware", ResourceClass: "baremetal",
				}).Extract()
				if err != nil {
					t.Fatalf("create leftover node: %v", err)
				}
				leftover = n.UUID
			},
			Config: fakeHost(name, ""),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("baremetal_host.test", "provisioning_state", "available"),
				oneNodeNamed(t, name, func(got string) error {
					if got != leftover {
						return fmt.Errorf("host id %s, want the leftover node %s", got, leftover)
					}
					return nil
				}),
			),
		},
	})
}

// A failing inspection is reported with the host, its state, the Ironic
// verb and Ironic's last_error; the host stays in state (tainted) and
// destroy still removes it.
func TestAccHost_inspectionFailure(t *testing.T) {
	name := acctest.Name("acc-inspfail")
	acctest.PreCheck(t)
	acctest.ParallelTest(t, noNodesNamed(t, name), []resource.TestStep{
		{
			// Redfish inspection against a BMC that is not there.
			Config: fakeHost(name, `  interfaces = { inspect = "redfish" }
  driver_secrets = {
    redfish_address  = "http://127.0.0.1:9"
    redfish_username = "admin"
    redfish_password = "s3cret-never-printed"
  }`),
			ExpectError: regexp.MustCompile(`(?s)host "` + name + `".*state "inspecting".*inspection error.*Ironic verb "inspect".*last_error`),
		},
		{
			// The failed host was kept in state: the plan replaces it.
			Config:             fakeHost(name, `  interfaces = { inspect = "redfish" }`),
			PlanOnly:           true,
			ExpectNonEmptyPlan: true,
		},
	})
}

// Bad input fails at plan time, naming the attribute.
func TestAccHost_planTimeErrors(t *testing.T) {
	cases := []struct{ config, want string }{
		{`resource "baremetal_host" "x" {
  name = "x"
  bmc = { address = "bogus://10.0.0.1", username = "u", password = "p" }
}`, `(?s)Invalid bmc\.address.*unknown`},
		{`resource "baremetal_host" "x" {
  name = "x"
  driver = "fake-hardware"
  boot_mac_address = "52:54:00"
}`, `(?s)boot_mac_address.*not a MAC address`},
		{`resource "baremetal_host" "x" {
  name = "x"
}`, `(?s)Missing BMC`},
		{`resource "baremetal_host" "x" {
  name = "x"
  driver = "fake-hardware"
  inspection = "disabled"
}`, `(?s)Missing boot_mac_address`},
		{`resource "baremetal_host" "x" {
  name = "x"
  bmc = { address = "libvirt://10.0.0.1", username = "u", password = "p" }
}`, `(?s)needs boot_mac_address`},
		{`resource "baremetal_host" "x" {
  name = "x"
  driver = "fake-hardware"
  boot_mode = "uefi"
}`, `(?s)boot_mode.*value must be one of`},
	}
	for i, c := range cases {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			resource.UnitTest(t, resource.TestCase{
				PreCheck:                 func() { acctest.PreCheck(t) },
				ProtoV6ProviderFactories: acctest.ProviderFactories,
				Steps:                    []resource.TestStep{{Config: c.config, PlanOnly: true, ExpectError: regexp.MustCompile(c.want)}},
			})
		})
	}
}

// A host that already runs an OS is adopted: it ends "externally
// provisioned" (Ironic active) without inspection or cleaning, and destroy
// removes it through the delete rules.
func TestAccHost_externallyProvisioned(t *testing.T) {
	name := acctest.Name("acc-adopt")
	acctest.PreCheck(t)
	acctest.ParallelTest(t, noNodesNamed(t, name), []resource.TestStep{{
		Config: fakeHost(name, `  externally_provisioned = true
  online                 = true`),
		Check: resource.ComposeAggregateTestCheckFunc(
			resource.TestCheckResourceAttr("baremetal_host.test", "provisioning_state", "externally provisioned"),
			resource.TestCheckResourceAttr("baremetal_host.test", "ironic_state", "active"),
			resource.TestCheckResourceAttr("baremetal_host.test", "powered_on", "true"),
			acctest.NodeCheck(t, name, func(n *nodes.Node) error {
				if n.InspectionFinishedAt != nil {
					return fmt.Errorf("an adopted host was inspected")
				}
				return nil
			}),
		),
	}})
}

// A boot mode changed behind Terraform's back shows in the plan, and the
// apply puts it back in place.
func TestAccHost_bootModeDrift(t *testing.T) {
	name := acctest.Name("acc-drift")
	acctest.PreCheck(t)
	config := fakeHost(name, `  inspection = "disabled"
  boot_mac_address = "`+acctest.MAC()+`"`)
	acctest.ParallelTest(t, nil, []resource.TestStep{
		{Config: config, Check: resource.TestCheckResourceAttr("baremetal_host.test", "boot_mode", "UEFI")},
		{
			PreConfig: func() {
				acctest.UpdateNode(t, name, "change the boot mode behind Terraform's back",
					nodes.UpdateOperation{Op: nodes.ReplaceOp, Path: "/properties/capabilities", Value: "boot_mode:bios"})
			},
			Config:             config,
			PlanOnly:           true,
			ExpectNonEmptyPlan: true,
		},
		{
			Config: config,
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("baremetal_host.test", "boot_mode", "UEFI"),
				acctest.NodeCheck(t, name, func(n *nodes.Node) error {
					if c := n.Properties["capabilities"]; c != "boot_mode:uefi" {
						return fmt.Errorf("capabilities %v, want boot_mode:uefi back", c)
					}
					return nil
				}),
			),
		},
	})
}

// Adopting a host with an import block keeps its node: driver, interfaces
// and the BMC address cannot be read back from Ironic, and setting them in
// the configuration updates the imported host in place instead of deleting
// and re-registering it.
func TestAccHost_importAdoptsInPlace(t *testing.T) {
	name := acctest.Name("acc-adopt-imp")
	acctest.PreCheck(t)
	var id string
	body := `  driver      = "fake-hardware"
  driver_info = { fake_note = "acceptance" }
  interfaces  = { deploy = "fake", boot = "fake" }
  inspection  = "disabled"
  boot_mac_address = "` + acctest.MAC() + `"`
	acctest.ParallelTest(t, noNodesNamed(t, name), []resource.TestStep{
		{
			Config: fmt.Sprintf("resource \"baremetal_host\" \"orig\" {\n  name = %q\n%s\n}\n", name, body),
			Check:  saveID("baremetal_host.orig", &id),
		},
		inPlace(resource.TestStep{ // Forget it without deleting it, and import it under a new address.
			Config: fmt.Sprintf(`
removed {
  from = baremetal_host.orig
  lifecycle {
    destroy = false
  }
}
import {
  to = baremetal_host.test
  id = %q
}
resource "baremetal_host" "test" {
  name = %q
%s
}
`, name, name, body),
		}, &id,
			resource.TestCheckResourceAttr("baremetal_host.test", "driver", "fake-hardware"),
			resource.TestCheckResourceAttr("baremetal_host.test", "provisioning_state", "available"),
		),
	})
}
