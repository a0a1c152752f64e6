package resources_test

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/acctest"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmc/sim"
)

// bigMemRegex matches a physical_mb above 65536 (64 GiB): Ironic 2025.1
// formats the values of eq, lt and gt only in a loop, and then compares
// them as strings, so a numeric threshold is a regular expression.
const bigMemRegex = `^(6553[7-9]|655[4-9][0-9]|65[6-9][0-9]{2}|6[6-9][0-9]{3}|[7-9][0-9]{4}|[1-9][0-9]{5,})$`

// TestAccInspectionRule_classifiesForClaim: a baremetal_inspection_rule
// gives hosts with more than 64 GiB of RAM the trait CUSTOM_BIG_MEM and the
// resource class big-mem. Two simulator hosts, one with 128 GiB and one
// with 32 GiB, are inspected by Ironic's built-in inspection (the
// simulated agent posts their inventories); Ironic applies the rule to the
// big one only, and a baremetal_host_claim that selects on the trait and
// resource class gets it. The rule is scoped to this test's hosts by name,
// as rules apply to every node Ironic inspects. The harness checks that a
// second plan is empty: the hosts leave unset traits and resource class
// to Ironic.
func TestAccInspectionRule_classifiesForClaim(t *testing.T) {
	acctest.PreCheckInspector(t)
	if !acctest.IronicAtLeast(t, "1.96") { // 2023.1: refused at plan
		testRunbookAndRuleRefused(t, "CUSTOM_"+strings.ToUpper(strings.ReplaceAll(acctest.Name("acc-irule"), "-", "_")))
		return
	}
	if !acctest.BuiltinInspection() {
		t.Fatal("the rig's Ironic has API 1.96 but no built-in inspection: start it as scripts/ironic.sh does")
	}
	prefix := acctest.Name("acc-irule")
	srv, _ := acctest.StartAgentSimWith(t, 2, bmcUser, "irule-pass", func(i int, p *sim.Profile) {
		if i == 1 {
			p.RAMGiB = 32
		}
	})
	driver := strings.Replace(acctest.SimAgentHostDriver, `inspect    = "redfish"`, `inspect    = "`+acctest.AgentInspectInterface()+`"`, 1)
	hostHCL := func(res, id string) string {
		return acctest.SimHost{Resource: res, Name: prefix + "-" + res, Address: acctest.SimAddress(srv, id), Username: bmcUser,
			Password: "irule-pass", Driver: driver, Extra: fmt.Sprintf(`  automated_cleaning_mode = "disabled"
  labels                  = { pool = %q }
  depends_on              = [baremetal_inspection_rule.big_mem]`, prefix)}.HCL()
	}
	config := fmt.Sprintf(`
resource "baremetal_inspection_rule" "big_mem" {
  description = "more than 64 GiB of RAM: CUSTOM_BIG_MEM and resource class big-mem"
  priority    = 50
  conditions = [
    { op = "matches", args = jsonencode({ value = "{node.name}", regex = "^%[1]s-.*$" }) },
    { op = "matches", args = jsonencode({ value = "{inventory[memory][physical_mb]}", regex = %[2]q }) },
  ]
  actions = [
    { op = "add-trait", args = jsonencode({ name = "CUSTOM_BIG_MEM" }) },
    { op = "set-attribute", args = jsonencode({ path = "resource_class", value = "big-mem" }) },
  ]
}
`, prefix, bigMemRegex) + hostHCL("big", "sys-0") + hostHCL("small", "sys-1") + fmt.Sprintf(`
resource "baremetal_host_claim" "big" {
  resource_class = "big-mem"
  traits         = ["CUSTOM_BIG_MEM"]
  labels         = { match_labels = { pool = %q } }
  depends_on     = [baremetal_host.big, baremetal_host.small]
}
`, prefix)
	sc := acctest.Ironic(t)
	classified := func(*terraform.State) error {
		for _, h := range []struct {
			name, class string
			big         bool
		}{{prefix + "-big", "big-mem", true}, {prefix + "-small", "baremetal", false}} {
			n, err := acctest.Node(t, h.name)
			if err != nil {
				return err
			}
			inv, err := nodes.GetInventory(context.Background(), sc, n.UUID).Extract()
			if err != nil {
				return fmt.Errorf("inventory of %s: %w", h.name, err)
			}
			t.Logf("%s: inventory memory physical_mb %d (total %d bytes); Ironic: traits %q, resource_class %q",
				h.name, inv.Inventory.Memory.PhysicalMb, inv.Inventory.Memory.Total, n.Traits, n.ResourceClass)
			if slices.Contains(n.Traits, "CUSTOM_BIG_MEM") != h.big || n.ResourceClass != h.class {
				return fmt.Errorf("%s: traits %q, resource_class %q; want CUSTOM_BIG_MEM %t and %q", h.name, n.Traits, n.ResourceClass, h.big, h.class)
			}
		}
		return nil
	}
	claimed := func(s *terraform.State) error {
		a := s.RootModule().Resources["baremetal_host_claim.big"].Primary.Attributes
		t.Logf("baremetal_host_claim.big (resource_class big-mem, traits CUSTOM_BIG_MEM): host_name %s, host_id %s", a["host_name"], a["host_id"])
		if a["host_name"] != prefix+"-big" {
			return fmt.Errorf("claimed %s, want %s-big", a["host_name"], prefix)
		}
		return nil
	}
	acctest.ParallelTest(t, nil, []resource.TestStep{{
		Config: config,
		Check: resource.ComposeAggregateTestCheckFunc(classified, claimed,
			resource.TestCheckNoResourceAttr("baremetal_host.big", "traits.#"),
		),
	}, {
		// A refresh reads the resource class the rule set (the create
		// recorded the planned default); the trait stays Ironic's.
		RefreshState: true,
		Check: resource.ComposeAggregateTestCheckFunc(
			resource.TestCheckResourceAttr("baremetal_host.big", "resource_class", "big-mem"),
			resource.TestCheckResourceAttr("baremetal_host.small", "resource_class", "baremetal"),
			resource.TestCheckNoResourceAttr("baremetal_host.big", "traits.#"),
		),
	}, {
		Config: config, PlanOnly: true, // nothing to change
	}})
}

// TestAccRunbookAndRule_crud: both resources against the rig's Ironic
// 2025.1: create, read back without a diff, update in place (a runbook's
// name, owner and extra; a rule's priority, then made sensitive), import,
// and a rule made non-sensitive again is replaced.
func TestAccRunbookAndRule_crud(t *testing.T) {
	acctest.PreCheck(t)
	name := "CUSTOM_" + strings.ToUpper(strings.ReplaceAll(acctest.Name("acc-rb"), "-", "_"))
	if !acctest.IronicAtLeast(t, "1.96") {
		testRunbookAndRuleRefused(t, name)
		return
	}
	rule := func(priority int, sensitive bool) string {
		return fmt.Sprintf(`
resource "baremetal_inspection_rule" "r" {
  description = "acceptance"
  priority    = %d
  sensitive   = %t
  conditions  = [{ op = "!is-empty", args = jsonencode(["{item}"]), loop = jsonencode(["{inventory[cpu][architecture]}"]), multiple = "all" }]
  actions     = [{ op = "log", args = jsonencode({ msg = "never: no node is named so", level = "info" }) }, { op = "fail", args = jsonencode(["unreachable"]) }]
}
`, priority, sensitive)
	}
	// The rule never matches a node: its first condition is replaced by
	// one on a name no node has, so tests alongside are not touched.
	rule0 := func(p int, s bool) string {
		return strings.Replace(rule(p, s), `conditions  = [`, `conditions  = [{ op = "matches", args = jsonencode({ value = "{node.name}", regex = "^no-such-node-`+name+`$" }) }, `, 1)
	}
	var ruleID string
	acctest.ParallelTest(t, nil, []resource.TestStep{
		{Config: runbookConfig(name, "") + rule0(10, false), Check: func(s *terraform.State) error {
			ruleID = s.RootModule().Resources["baremetal_inspection_rule.r"].Primary.ID
			return nil
		}},
		{Config: runbookConfig(name+"_V2", `  extra = { team = "infra" }
  owner = "project-a"`) + rule0(20, false), Check: resource.ComposeAggregateTestCheckFunc(
			resource.TestCheckResourceAttr("baremetal_runbook.fw", "name", name+"_V2"),
			resource.TestCheckResourceAttr("baremetal_runbook.fw", "owner", "project-a"),
			resource.TestCheckResourceAttr("baremetal_inspection_rule.r", "priority", "20"),
		)},
		{ResourceName: "baremetal_runbook.fw", ImportState: true, ImportStateVerify: true},
		{ResourceName: "baremetal_inspection_rule.r", ImportState: true, ImportStateVerify: true},
		{Config: runbookConfig(name+"_V2", `  public = true`) + rule0(20, true), Check: resource.ComposeAggregateTestCheckFunc(
			resource.TestCheckResourceAttr("baremetal_runbook.fw", "public", "true"),
			resource.TestCheckNoResourceAttr("baremetal_runbook.fw", "owner"),
			resource.TestCheckResourceAttr("baremetal_inspection_rule.r", "actions.1.op", "fail"),
			resource.TestCheckResourceAttrPtr("baremetal_inspection_rule.r", "id", &ruleID),
		)},
		{Config: runbookConfig(name+"_V2", `  public = true`) + rule0(20, false), Check: func(s *terraform.State) error {
			if id := s.RootModule().Resources["baremetal_inspection_rule.r"].Primary.ID; id == ruleID {
				return fmt.Errorf("the rule made non-sensitive was not replaced")
			}
			return nil
		}},
	})
}

// TestAccIdentity_runbookAndRule: a runbook's and a rule's identity is
// their UUID (their id), and `import { identity = ... }` of either plans
// no change (Terraform 1.14).
func TestAccIdentity_runbookAndRule(t *testing.T) {
	acctest.Terraform114(t)
	name := "CUSTOM_" + strings.ToUpper(strings.ReplaceAll(acctest.Name("acc-ident-rb"), "-", "_"))
	if !acctest.IronicAtLeast(t, "1.96") {
		testRunbookAndRuleRefused(t, name)
		return
	}
	cfg := runbookConfig(name, "") + `
resource "baremetal_inspection_rule" "r" {
  conditions = [{ op = "matches", args = jsonencode({ value = "{node.name}", regex = "^no-such-node-` + name + `$" }) }]
  actions    = [{ op = "log", args = jsonencode({ msg = "unreachable" }) }]
}
`
	identity := func(addr string) []statecheck.StateCheck {
		return []statecheck.StateCheck{statecheck.ExpectIdentityValueMatchesState(addr, tfjsonpath.New("id"))}
	}
	acctest.Test(t, nil, []resource.TestStep{
		{Config: cfg, ConfigStateChecks: append(identity("baremetal_runbook.fw"), identity("baremetal_inspection_rule.r")...)},
		{ResourceName: "baremetal_runbook.fw", ImportState: true, ImportStateKind: resource.ImportBlockWithResourceIdentity, Config: cfg},
		{ResourceName: "baremetal_inspection_rule.r", ImportState: true, ImportStateKind: resource.ImportBlockWithResourceIdentity, Config: cfg},
	})
}

// testRunbookAndRuleRefused: on an Ironic older than 2025.1 (2023.1 is
// 1.82) a runbook and an inspection rule are refused at plan, each naming
// the microversion it needs and the server's. Not parallel: some callers
// set their Terraform with t.Setenv.
func testRunbookAndRuleRefused(t *testing.T, name string) {
	rule := `
resource "baremetal_inspection_rule" "r" {
  conditions = [{ op = "matches", args = jsonencode({ value = "{node.name}", regex = "^no-such-node$" }) }]
  actions    = [{ op = "log", args = jsonencode({ msg = "unreachable" }) }]
}
`
	max := regexp.QuoteMeta(acctest.MaxMicroversion(t))
	acctest.Test(t, nil, []resource.TestStep{{
		Config:      runbookConfig(name, ""),
		PlanOnly:    true,
		ExpectError: regexp.MustCompile(`(?s)Runbooks\s+not\s+supported\s+by\s+this\s+Ironic.*baremetal_runbook\s+needs\s+Ironic\s+API\s+microversion\s+1.92\s+or\s+later,\s+but\s+this\s+Ironic's\s+maximum\s+API\s+microversion\s+is\s+` + max),
	}, {
		Config:      rule,
		PlanOnly:    true,
		ExpectError: regexp.MustCompile(`(?s)Inspection\s+rules\s+not\s+supported\s+by\s+this\s+Ironic.*baremetal_inspection_rule\s+needs\s+Ironic\s+API\s+microversion\s+1.96\s+or\s+later,\s+but\s+this\s+Ironic's\s+maximum\s+API\s+microversion\s+is\s+` + max),
	}})
}
