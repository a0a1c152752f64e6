package actions_test

import (
	"strings"
	"testing"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/acctest"
)

// TestAccAgent_stepsActionNamesTheStep: on the rig, a manual clean step
// that the simulated agent runs (deploy.erase_devices_metadata, in clean
// wait) is named in baremetal_host_steps' progress, as Terraform prints
// it.
func TestAccAgent_stepsActionNamesTheStep(t *testing.T) {
	acctest.Terraform114(t)
	srv, _ := acctest.StartAgentSim(t, 1, bmcUser, "password")
	host := acctest.SimHost{Name: acctest.Name("acc-act-agent"), Address: acctest.SimAddress(srv, "sys-0"),
		Username: bmcUser, Password: "password", Driver: acctest.SimAgentHostDriver}
	config := host.HCL() + `
action "baremetal_host_steps" "erase" {
  config {
    host_id = baremetal_host.test.id
    steps   = [{ interface = "deploy", step = "erase_devices_metadata" }]
  }
}
`
	cli, _, _ := applied(t, host.Name, config)
	out, err := cli.Run("apply", "-auto-approve", "-no-color", "-invoke=action.baremetal_host_steps.erase")
	var progress []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "Action ") {
			progress = append(progress, l)
		}
	}
	t.Logf("-invoke=action.baremetal_host_steps.erase:\n%s", strings.Join(progress, "\n"))
	if err != nil {
		t.Fatalf("the steps failed: %v\n%s", err, out)
	}
	if !strings.Contains(out, "step deploy.erase_devices_metadata for ") {
		t.Errorf("no progress line names the step deploy.erase_devices_metadata:\n%s", out)
	}
}
