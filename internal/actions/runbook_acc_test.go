package actions_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/acctest"
)

// TestAccAction_runbookServicing: a baremetal_runbook created by
// Terraform runs on a provisioned simulator host through Ironic's
// servicing (provision target service with the runbook): the host carries
// the runbook's name as a trait, the BIOS setting of the runbook's step
// lands, the host stays provisioned, and Ironic's log shows the states it
// went through. Ironic below API 1.108 (2025.1) refuses every runbook
// through servicing (it passes the runbook's disable_ramdisk to the
// service verb): there the action is refused at plan, saying so,
// and the runbook runs on an available host with the trait through manual
// cleaning instead. The same runbook on a host without the trait is
// refused at plan, naming the trait to add, and nothing is sent to Ironic.
func TestAccAction_runbookServicing(t *testing.T) {
	acctest.Terraform114(t)
	if !acctest.IronicAtLeast(t, "1.92") { // 2023.1: a runbook is refused at plan (not parallel: t.Setenv above)
		acctest.Test(t, nil, []resource.TestStep{{
			Config: `
resource "baremetal_runbook" "fw" {
  name  = "CUSTOM_ACC_OLD_IRONIC"
  steps = [{ interface = "bios", step = "apply_configuration", args = jsonencode({ settings = [] }), order = 1 }]
}
`,
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(`(?s)Runbooks\s+not\s+supported\s+by\s+this\s+Ironic.*1\.92\s+or\s+later`),
		}})
		return
	}
	_, _, host := acctest.StartSimHost(t, "acc-act-rb", bmcUser, "rb-pass")
	trait := "CUSTOM_" + strings.ToUpper(regexp.MustCompile(`[^a-zA-Z0-9]`).ReplaceAllString(host.Name, "_"))
	plain, cleanHost := host.Name+"-plain", host.Name+"-clean"
	servicing := acctest.IronicAtLeast(t, "1.108")
	provisioned := host.WithExtra(fmt.Sprintf("  online = true\n  traits = [%q]", trait)).HCL()
	if servicing {
		// Ironic 39 (the rig's newest, API 1.115) fails to validate the
		// redfish power interface of a fake-hardware node (NoSuchOptError:
		// it looks the hardware type up as a configuration group), so the
		// host serviced there has fake interfaces only.
		provisioned = fmt.Sprintf(`
resource "baremetal_host" "test" {
  name        = %q
  driver      = "fake-hardware"
  driver_info = {}
  online      = true
  traits      = [%q]
}
`, host.Name, trait)
	}
	config := provisioned + deployment + fmt.Sprintf(`
resource "baremetal_host" "plain" {
  name        = %[2]q
  driver      = "fake-hardware"
  driver_info = {}
}

resource "baremetal_host" "clean" {
  name        = %[3]q
  driver      = "fake-hardware"
  driver_info = {}
  traits      = [%[1]q]
}

resource "baremetal_runbook" "fw" {
  name = %[1]q
  steps = [{
    interface = "bios"
    step      = "apply_configuration"
    args      = jsonencode({ settings = [{ name = "ProcVirtualization", value = "Disabled" }] })
  }]
}

action "baremetal_host_steps" "runbook" {
  config {
    host_id = baremetal_deployment.test.host_id
    runbook = baremetal_runbook.fw.name
  }
}

action "baremetal_host_steps" "clean" {
  config {
    host_id = baremetal_host.clean.id
    runbook = baremetal_runbook.fw.name
  }
}

action "baremetal_host_steps" "denied" {
  config {
    host_id = baremetal_host.plain.id
    runbook = baremetal_runbook.fw.name
  }
}
`, trait, plain, cleanHost)
	cli, _, sc := applied(t, host.Name, config)
	t.Cleanup(func() { acctest.DeleteNodeNamed(t, sc, plain); acctest.DeleteNodeNamed(t, sc, cleanHost) })

	node, err := acctest.Node(t, host.Name)
	if err != nil {
		t.Fatal(err)
	}
	if node.ProvisionState != "active" {
		t.Fatalf("host %s is %q before the runbook, want active", host.Name, node.ProvisionState)
	}
	runbook := func(action, hostName string, wantErr bool) (string, []string) {
		t.Helper()
		n, err := acctest.Node(t, hostName)
		if err != nil {
			t.Fatal(err)
		}
		mark := acctest.MarkIronicLog(t)
		out, err := cli.Run("apply", "-auto-approve", "-no-color", "-invoke=action.baremetal_host_steps."+action)
		if (err != nil) != wantErr {
			t.Fatalf("-invoke=action.baremetal_host_steps.%s: error %v, want one: %t\n%s", action, err, wantErr, out)
		}
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "Action ") {
				t.Log(l)
			}
		}
		text, err := mark.Text()
		if err != nil {
			t.Fatal(err)
		}
		var states []string
		for _, l := range strings.Split(text, "\n") {
			if strings.Contains(l, n.UUID) && strings.Contains(l, "provision state") {
				if i := strings.Index(l, "Node "); i >= 0 {
					l = l[i:]
				}
				states = append(states, l)
			}
		}
		reqs, _ := mark.WritesTo(n.UUID)
		t.Logf("Ironic's provision states of %s (%s) during the runbook:\n  %s\nwrites to the node: %q", hostName, n.UUID,
			strings.Join(states, "\n  "), reqs)
		return out, states
	}
	biosOf := func(hostName string) string {
		t.Helper()
		n, err := acctest.Node(t, hostName)
		if err != nil {
			t.Fatal(err)
		}
		bios, err := nodes.ListBIOSSettings(context.Background(), sc, n.UUID, nil).Extract()
		var got []string
		for _, b := range bios {
			got = append(got, b.Name+"="+b.Value)
		}
		t.Logf("%s: %s, BIOS %v (%v)", hostName, n.ProvisionState, got, err)
		return n.ProvisionState + " " + strings.Join(got, ",")
	}

	out, states := runbook("runbook", host.Name, !servicing)
	if servicing {
		if joined := strings.Join(states, "\n"); !strings.Contains(joined, `"servicing"`) {
			t.Errorf("Ironic's log shows no servicing of the host:\n%s", joined)
		}
		if got := biosOf(host.Name); !strings.HasPrefix(got, "active ") || !strings.Contains(got, "ProcVirtualization=Disabled") {
			t.Errorf("after the runbook: %s", got)
		}
	} else {
		if i := strings.Index(out, "Error:"); i >= 0 {
			t.Logf("-invoke=action.baremetal_host_steps.runbook below API %s:\n%s", "1.108", out[i:])
		}
		flat := strings.Join(strings.Fields(out), " ")
		if !strings.Contains(flat, "cannot run runbook "+trait+" through servicing") || len(states) != 0 {
			t.Errorf("below 1.108 the runbook through servicing was not refused before Ironic (states %q):\n%s", states, out)
		}
		if got := biosOf(host.Name); !strings.HasPrefix(got, "active") {
			t.Errorf("after the refused runbook: %s", got)
		}
	}
	// Through manual cleaning on an available host with the trait.
	_, states = runbook("clean", cleanHost, false)
	if joined := strings.Join(states, "\n"); !strings.Contains(joined, `"cleaning"`) {
		t.Errorf("Ironic's log shows no cleaning of %s:\n%s", cleanHost, joined)
	}
	if got := biosOf(cleanHost); !strings.HasPrefix(got, "available ") || !strings.Contains(got, "ProcVirtualization=Disabled") {
		t.Errorf("after the runbook: %s", got)
	}

	// A host without the trait: refused at plan, naming the trait.
	plainNode, err := acctest.Node(t, plain)
	if err != nil {
		t.Fatal(err)
	}
	mark := acctest.MarkIronicLog(t)
	out, err = cli.Run("plan", "-no-color", "-invoke=action.baremetal_host_steps.denied")
	if err == nil {
		t.Fatalf("the plan of a runbook on a host without its trait passed:\n%s", out)
	}
	refusal := out
	if i := strings.Index(out, "Error:"); i >= 0 {
		refusal = out[i:]
	}
	t.Logf("plan -invoke=action.baremetal_host_steps.denied:\n%s", refusal)
	flat := strings.Join(strings.Fields(out), " ")
	if !strings.Contains(flat, "lacks the trait "+trait) || !strings.Contains(flat, fmt.Sprintf("Add %q to the traits of its baremetal_host", trait)) {
		t.Errorf("the refusal does not name the trait %s:\n%s", trait, out)
	}
	if w, _ := mark.WritesTo(plainNode.UUID); len(w) != 0 {
		t.Errorf("the refused plan wrote to the node: %q", w)
	}
}
