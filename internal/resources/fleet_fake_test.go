package resources_test

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/acctest"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/ironic/ironictest"
)

// baremetal_runbook and baremetal_inspection_rule against the fake Ironic
// (Ironic 2025.1's API, 1.96): create, read back without a diff, update in
// place, import by identity or id, destroy; and their terraform validate
// errors.

func fake2025(t *testing.T) *ironictest.Server {
	srv := ironictest.New(t)
	srv.MaxMicroversion = ironictest.OCIMaxMicroversion
	return srv
}

func runbookConfig(name, extra string) string {
	return fmt.Sprintf(`
resource "baremetal_runbook" "fw" {
  name = %q
  steps = [
    { interface = "bios", step = "apply_configuration", args = jsonencode({ settings = [{ name = "ProcVirtualization", value = "Enabled" }] }) },
    { interface = "firmware", step = "update", order = 5, args = jsonencode({ settings = [] }) },
  ]
%s
}
`, name, extra)
}

func fakeRunbooks(srv *ironictest.Server, want ...string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		got := srv.Runbooks()
		if len(got) != len(want) {
			return fmt.Errorf("the fake holds %d runbooks (%+v), want %q", len(got), got, want)
		}
		for i, rb := range got {
			if rb.Name != want[i] {
				return fmt.Errorf("runbook %d is %s, want %s", i, rb.Name, want[i])
			}
		}
		return nil
	}
}

func TestRunbook_fake(t *testing.T) {
	srv := fake2025(t)
	applyOnFake(t, fakeRunbooks(srv), []resource.TestStep{
		{Config: onFake(srv, runbookConfig("CUSTOM_FW", "")), Check: resource.ComposeAggregateTestCheckFunc(
			fakeRunbooks(srv, "CUSTOM_FW"),
			resource.TestCheckResourceAttrSet("baremetal_runbook.fw", "id"),
			resource.TestCheckResourceAttr("baremetal_runbook.fw", "public", "false"),
			resource.TestCheckResourceAttr("baremetal_runbook.fw", "steps.0.order", "0"),
			resource.TestCheckResourceAttr("baremetal_runbook.fw", "steps.1.order", "5"),
			func(*terraform.State) error {
				st := srv.Runbooks()[0].Steps
				if st[0]["order"] != float64(0) || st[1]["order"] != float64(5) || st[1]["interface"] != "firmware" {
					return fmt.Errorf("steps sent %v", st)
				}
				return nil
			},
		)},
		// Renamed and extra added in place: the same runbook.
		{Config: onFake(srv, runbookConfig("CUSTOM_FW_V2", `  extra = { team = "infra" }
  owner = "project-a"`)),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("baremetal_runbook.fw", plancheck.ResourceActionUpdate)}},
			Check: resource.ComposeAggregateTestCheckFunc(
				fakeRunbooks(srv, "CUSTOM_FW_V2"),
				resource.TestCheckResourceAttr("baremetal_runbook.fw", "extra.team", "infra"),
				func(*terraform.State) error {
					if o := srv.Runbooks()[0].Owner; o == nil || *o != "project-a" {
						return fmt.Errorf("owner %v", o)
					}
					return nil
				},
			)},
		{ResourceName: "baremetal_runbook.fw", ImportState: true, ImportStateVerify: true, ImportStateIdFunc: func(*terraform.State) (string, error) {
			return "CUSTOM_FW_V2", nil // by name
		}},
	})
}

func TestInspectionRule_fake(t *testing.T) {
	srv := fake2025(t)
	cfg := func(priority int, sensitive bool) string {
		return onFake(srv, fmt.Sprintf(`
resource "baremetal_inspection_rule" "big" {
  description = "more than 64 GiB of RAM"
  priority    = %d
  sensitive   = %t
  conditions = [{
    op   = "matches"
    args = jsonencode({ value = "{inventory[memory][physical_mb]}", regex = "^(6553[7-9]|655[4-9][0-9]|65[6-9][0-9]{2}|6[6-9][0-9]{3}|[7-9][0-9]{4}|[1-9][0-9]{5,})$" })
  }, {
    op       = "!is-empty"
    args     = jsonencode(["{item}"])
    loop     = jsonencode(["{inventory[cpu][architecture]}"])
  }]
  actions = [
    { op = "add-trait", args = jsonencode({ name = "CUSTOM_BIG_MEM" }) },
    { op = "set-attribute", args = jsonencode({ path = "resource_class", value = "big-mem" }) },
  ]
}
`, priority, sensitive))
	}
	rules := func(n int) resource.TestCheckFunc {
		return func(*terraform.State) error {
			if got := srv.InspectionRules(); len(got) != n {
				return fmt.Errorf("the fake holds %d rules, want %d", len(got), n)
			}
			return nil
		}
	}
	var first string
	applyOnFake(t, rules(0), []resource.TestStep{
		{Config: cfg(10, false), Check: resource.ComposeAggregateTestCheckFunc(rules(1),
			resource.TestCheckResourceAttr("baremetal_inspection_rule.big", "phase", "main"),
			resource.TestCheckNoResourceAttr("baremetal_inspection_rule.big", "conditions.1.multiple"),
			func(s *terraform.State) error {
				first = s.RootModule().Resources["baremetal_inspection_rule.big"].Primary.ID
				r := srv.InspectionRules()[0]
				if r.Priority != 10 || r.Actions[0]["op"] != "add-trait" || r.Conditions[1]["loop"] == nil {
					return fmt.Errorf("rule sent %+v", r)
				}
				return nil
			})},
		{ResourceName: "baremetal_inspection_rule.big", ImportState: true, ImportStateVerify: true},
		// Sensitive: Ironic no longer says the conditions and actions; the
		// state keeps them and the next plan is empty.
		{Config: cfg(20, true), Check: resource.ComposeAggregateTestCheckFunc(rules(1),
			resource.TestCheckResourceAttr("baremetal_inspection_rule.big", "actions.0.op", "add-trait"),
			func(s *terraform.State) error {
				if id := s.RootModule().Resources["baremetal_inspection_rule.big"].Primary.ID; id != first {
					return fmt.Errorf("made sensitive by replacing the rule: %s, was %s", id, first)
				}
				return nil
			})},
		{Config: cfg(20, true), PlanOnly: true},
		// Back to not sensitive: Ironic cannot, so the rule is replaced.
		{Config: cfg(20, false), Check: func(s *terraform.State) error {
			if id := s.RootModule().Resources["baremetal_inspection_rule.big"].Primary.ID; id == first {
				return fmt.Errorf("not replaced: %s", id)
			}
			if r := srv.InspectionRules(); len(r) != 1 || r[0].Sensitive {
				return fmt.Errorf("rules %+v", r)
			}
			return nil
		}},
	})
}

// Both need Ironic 2025.1's API: refused at plan on 21.4's 1.82, naming
// the microversion.
func TestFleetNeedsIronic2025_fake(t *testing.T) {
	srv := ironictest.New(t)
	planOnFake(t, srv, runbookConfig("CUSTOM_FW", ""), `baremetal_runbook needs Ironic API microversion 1.92 or later`)
	planOnFake(t, srv, `
resource "baremetal_inspection_rule" "r" {
  actions = [{ op = "log", args = jsonencode({ msg = "inspected" }) }]
}
`, `baremetal_inspection_rule needs Ironic API microversion 1.96 or later`)
}

// The terraform validate errors of a bad rule operator, a bad rule action
// and a runbook with a bad step (no Ironic is asked).
func TestFleetValidateErrors(t *testing.T) {
	skipWithoutTerraform(t)
	cases := []struct{ name, config, want string }{
		{"bad operator", `
resource "baremetal_inspection_rule" "r" {
  conditions = [{ op = "greater-than", args = jsonencode(["{inventory[memory][physical_mb]}", 65536]) }]
  actions    = [{ op = "add-trait", args = jsonencode({ name = "CUSTOM_BIG_MEM" }) }]
}
`, `(?s)Invalid conditions\[0\]\.op.*"greater-than" is not an inspection rule operator of\s+Ironic 2025.1`},
		{"bad action", `
resource "baremetal_inspection_rule" "r" {
  actions = [{ op = "set-traits", args = jsonencode({ name = "CUSTOM_BIG_MEM" }) }]
}
`, `(?s)Invalid actions\[0\]\.op.*"set-traits" is not an inspection rule action of\s+Ironic 2025.1`},
		{"bad runbook step", `
resource "baremetal_runbook" "r" {
  name  = "CUSTOM_FW"
  steps = [{ interface = "bios", step = "Apply-Configuration" }]
}
`, `(?s)Invalid steps\[0\]\.step.*"Apply-Configuration" is not an Ironic step name`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resource.UnitTest(t, resource.TestCase{ProtoV6ProviderFactories: acctest.ProviderFactories, Steps: []resource.TestStep{{
				Config: tc.config, PlanOnly: true, ExpectError: regexp.MustCompile(tc.want),
			}}})
		})
	}
}
