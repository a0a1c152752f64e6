package resources_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/acctest"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/ironic/ironictest"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// TestAccHostCurrentStep_fake: on the in-process fake Ironic,
// baremetal_host's current_step is the step Ironic runs (clean_step while
// the node waits in clean wait), empty once none runs, and
// last_transition is the node's provision_updated_at. Detaching the host
// while it waits aborts the wait, where the plan said it would settle.
func TestAccHostCurrentStep_fake(t *testing.T) {
	srv := ironictest.New(t)
	config := fakeHostConfig(srv, "step-0", "")
	const h = "baremetal_host.h"
	at := time.Date(2026, 12, 2, 17, 30, 5, 0, time.UTC)
	acctest.Test(t, nil, []resource.TestStep{
		{
			Config: config,
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr(h, "provisioning_state", "available"),
				resource.TestCheckResourceAttr(h, "current_step", ""),
				func(s *terraform.State) error {
					n := srv.MustNode("step-0")
					want := n.ProvisionUpdatedAt.UTC().Format(time.RFC3339)
					if got := s.RootModule().Resources[h].Primary.Attributes["last_transition"]; got != want || got == "" {
						return fmt.Errorf("last_transition %q, want the node's provision_updated_at %q", got, want)
					}
					return nil
				},
			),
		},
		{
			// Ironic cleans the node behind Terraform's back: a refresh
			// shows the step it waits in.
			PreConfig: func() {
				srv.UpdateNode("step-0", func(n *nodes.Node) {
					n.ProvisionState, n.TargetProvisionState, n.ProvisionUpdatedAt = "clean wait", "available", at
					n.CleanStep = map[string]any{"interface": "deploy", "step": "erase_devices_metadata", "priority": 99}
				})
			},
			RefreshState: true,
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr(h, "current_step", "deploy.erase_devices_metadata"),
				resource.TestCheckResourceAttr(h, "ironic_state", "clean wait"),
				resource.TestCheckResourceAttr(h, "last_transition", "2026-12-02T17:30:05Z"),
			),
		},
		{
			// Detached while it waits: the plan says the abort leaves the
			// node in clean failed, and the apply does just that.
			Config: fakeHostConfig(srv, "step-0", "  detached    = true\n"),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectKnownValue(h, tfjsonpath.New("ironic_state"), knownvalue.StringExact("clean failed")),
			}},
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr(h, "operational_status", "detached"),
				resource.TestCheckResourceAttr(h, "current_step", ""),
				func(*terraform.State) error {
					if n := srv.MustNode("step-0"); n.ProvisionState != "clean failed" || n.MaintenanceReason != lifecycle.DetachReason {
						return fmt.Errorf("node in %q, maintenance %v (%q); want clean failed and detached", n.ProvisionState, n.Maintenance, n.MaintenanceReason)
					}
					return nil
				},
			),
		},
		{
			// Re-attached: the aborted cleaning runs again.
			Config: config,
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr(h, "operational_status", "OK"),
				resource.TestCheckResourceAttr(h, "ironic_state", "available"),
			),
		},
	})
}

// fakeHostConfig is the provider on the fake Ironic srv and
// baremetal_host "h", a powered-off fake-hardware host named name, with
// extra lines in the resource.
func fakeHostConfig(srv *ironictest.Server, name, extra string) string {
	return fmt.Sprintf(`
provider "baremetal" {
  endpoint = %q
}

resource "baremetal_host" "h" {
  name        = %q
  driver      = "fake-hardware"
  driver_info = {}
  online      = false
%s}
`, srv.URL, name, extra)
}

// TestAccHostForceDelete_fake: on the in-process fake Ironic, destroying a
// host with delete_mode = "force" is refused while its node carries a
// deployment; once that is gone, the destroy of a host stuck in clean
// wait aborts the wait, sets maintenance and deletes the node, with no
// power off and no cleaning.
func TestAccHostForceDelete_fake(t *testing.T) {
	srv := ironictest.New(t)
	config := fakeHostConfig(srv, "force-0", "  delete_mode = \"force\"\n")
	acctest.Test(t, func(*terraform.State) error {
		if _, ok := srv.Node("force-0"); ok {
			return fmt.Errorf("node force-0 still in Ironic")
		}
		var writes []string
		for _, c := range srv.Calls() {
			writes = append(writes, regexp.MustCompile(`/nodes/[^/]+`).ReplaceAllString(c, "/nodes/N"))
		}
		want := "PUT /nodes/N/states/provision,PUT /nodes/N/maintenance,DELETE /nodes/N"
		if got := strings.Join(writes, ","); got != want {
			return fmt.Errorf("writes of the destroy %s, want %s (abort, maintenance, delete)", got, want)
		}
		return nil
	}, []resource.TestStep{
		{Config: config, Check: resource.TestCheckResourceAttr("baremetal_host.h", "delete_mode", "force")},
		{
			// A deployment's image on the node: the force delete is refused.
			PreConfig: func() {
				srv.UpdateNode("force-0", func(n *nodes.Node) {
					n.ProvisionState, n.PowerState = "active", "power on"
					n.InstanceInfo = map[string]any{"image_source": "http://img/os.qcow2"}
				})
			},
			Config:      config,
			Destroy:     true,
			ExpectError: regexp.MustCompile(`(?s)Force delete of host force-0 refused.*still\s+carries\s+a\s+deployment.*image\s+http://img/os.qcow2`),
		},
		{
			// The deployment gone, the host is stuck in clean wait.
			PreConfig: func() {
				srv.UpdateNode("force-0", func(n *nodes.Node) {
					n.ProvisionState, n.TargetProvisionState, n.InstanceInfo = "clean wait", "available", map[string]any{}
				})
			},
			RefreshState: true,
			Check:        resource.TestCheckResourceAttr("baremetal_host.h", "ironic_state", "clean wait"),
		},
		{
			PreConfig: srv.ResetRequests,
			Config:    config,
			Destroy:   true,
		},
	})
}
