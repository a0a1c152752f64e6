package actions_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/acctest"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmc/sim"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/provider"
)

// Acceptance tests of the actions against the real Ironic and the Redfish
// simulator, with Terraform 1.14 (BAREMETAL_TF114_PATH).

const bmcUser = "admin"

// deployment is a baremetal_deployment of a (fake-deployed) image on
// baremetal_host.test.
const deployment = `
resource "baremetal_deployment" "test" {
  host_id = baremetal_host.test.id
  image = {
    url      = "http://127.0.0.1:8088/images/ubuntu-a.qcow2"
    checksum = "0123456789abcdef0123456789abcdef"
    format   = "qcow2"
  }
}
`

// resetsSince returns the simulator's resets of sys-0 after the first
// from, and how many there are in all.
func resetsSince(t *testing.T, srv *sim.Server, from int) ([]string, int) {
	t.Helper()
	resets, total, err := acctest.SimResetsSince(srv, "sys-0", from)
	if err != nil {
		t.Fatal(err)
	}
	return resets, total
}

// stateResources is the resources of the Terraform state in dir, as JSON,
// and the state's serial.
func stateResources(t *testing.T, dir string) (string, float64) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "terraform.tfstate"))
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Serial    float64         `json:"serial"`
		Resources json.RawMessage `json:"resources"`
	}
	if err := json.Unmarshal(raw, &st); err != nil {
		t.Fatal(err)
	}
	return string(st.Resources), st.Serial
}

// applied writes config to a new directory and applies it with this
// provider served in-process, for the tests that run Terraform's CLI
// (apply -invoke). Their cleanup destroys it, and deletes the node named
// hostName should the destroy leave it.
func applied(t *testing.T, hostName, config string) (cli *acctest.CLI, dir string, sc *gophercloud.ServiceClient) {
	t.Helper()
	ps, err := providerserver.NewProtocol6WithError(provider.New("test")())()
	if err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	cli = acctest.NewCLI(t, dir, acctest.Serve(t, ps))
	sc = acctest.Ironic(t)
	t.Cleanup(func() {
		if out, err := cli.Run("destroy", "-auto-approve", "-no-color"); err != nil {
			t.Errorf("terraform destroy: %v\n%s", err, out)
		}
		acctest.DeleteNodeNamed(t, sc, hostName)
	})
	if out, err := cli.Run("apply", "-auto-approve", "-no-color"); err != nil {
		t.Fatalf("terraform apply: %v\n%s", err, out)
	}
	return cli, dir, sc
}

// TestAccAction_rebootInvoke: `terraform apply
// -invoke=action.baremetal_host_reboot.x` on a provisioned host reboots it
// in place: Terraform prints the action's progress, the simulated BMC sees
// a graceful shutdown and a power on, and the state does not change (the
// next plan is empty).
func TestAccAction_rebootInvoke(t *testing.T) {
	acctest.Terraform114(t)
	srv, _, host := acctest.StartSimHost(t, "acc-act-reboot", bmcUser, "reboot-pass")
	config := host.HCL() + deployment + `
action "baremetal_host_reboot" "x" {
  config {
    host_id = baremetal_host.test.id
  }
}
`
	cli, dir, _ := applied(t, host.Name, config)
	if err := acctest.SimPower(srv, "sys-0", sim.PowerOn)(nil); err != nil {
		t.Fatal(err)
	}
	// The deployment moved the host after its resource was saved: a
	// refresh records that, so that what follows compares like with like.
	if out, err := cli.Run("apply", "-refresh-only", "-auto-approve", "-no-color"); err != nil {
		t.Fatalf("terraform apply -refresh-only: %v\n%s", err, out)
	}
	_, before := resetsSince(t, srv, 0)
	resources, serial := stateResources(t, dir)

	out, err := cli.Run("apply", "-auto-approve", "-no-color", "-invoke=action.baremetal_host_reboot.x")
	t.Logf("terraform apply -invoke=action.baremetal_host_reboot.x:\n%s", out)
	if err != nil {
		t.Fatalf("terraform apply -invoke: %v", err)
	}
	for _, want := range []string{
		host.Name + ": soft reboot of the provisioned host requested",
		host.Name + ": host powered off for reboot, powering it on",
		host.Name + ": rebooted",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("Terraform printed no progress line saying %q", want)
		}
	}
	resets, _ := resetsSince(t, srv, before)
	t.Logf("simulator resets during the action: %q", resets)
	if want := []string{"GracefulShutdown", "On"}; !slices.Equal(resets, want) {
		t.Errorf("simulator resets %q, want %q", resets, want)
	}
	if err := acctest.SimPower(srv, "sys-0", sim.PowerOn)(nil); err != nil {
		t.Error(err)
	}
	after, serialAfter := stateResources(t, dir)
	if after != resources || serialAfter != serial {
		t.Errorf("the action changed the state (serial %v -> %v):\nbefore %s\nafter  %s", serial, serialAfter, resources, after)
	}
	if out, err := cli.Run("plan", "-detailed-exitcode", "-no-color"); err != nil {
		t.Errorf("the plan after the action is not empty: %v\n%s", err, out)
	}

	// A detached host is refused, with the host named, and nothing moves.
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(strings.Replace(config,
		"resource \"baremetal_host\" \"test\" {\n", "resource \"baremetal_host\" \"test\" {\n  detached = true\n", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := cli.Run("apply", "-auto-approve", "-no-color"); err != nil {
		t.Fatalf("detaching: %v\n%s", err, out)
	}
	_, before = resetsSince(t, srv, 0)
	out, err = cli.Run("apply", "-auto-approve", "-no-color", "-invoke=action.baremetal_host_reboot.x")
	t.Logf("on the detached host:\n%s", out)
	if err == nil || !regexp.MustCompile(`Host `+host.Name+` is\s+detached`).MatchString(out) {
		t.Errorf("a reboot of the detached host: %v", err)
	}
	if resets, _ := resetsSince(t, srv, before); len(resets) != 0 {
		t.Errorf("the detached host was reset: %q", resets)
	}
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := cli.Run("apply", "-auto-approve", "-no-color"); err != nil {
		t.Fatalf("re-attaching: %v\n%s", err, out)
	}
}

// TestAccAction_rebootAfterBIOSChange: a baremetal_firmware_settings whose
// lifecycle.action_trigger (after_update) invokes baremetal_host_reboot
// reboots the host after a BIOS change, and only then: creating the
// settings reboots nothing.
func TestAccAction_rebootAfterBIOSChange(t *testing.T) {
	acctest.Terraform114(t)
	srv, _, host := acctest.StartSimHost(t, "acc-act-bios", bmcUser, "bios-pass")
	config := func(bootMode string) string {
		return host.WithExtra("  online = true").HCL() + fmt.Sprintf(`
resource "baremetal_firmware_settings" "test" {
  host_id = baremetal_host.test.id
  settings = {
    ProcVirtualization = "Enabled"
    BootMode           = %q
  }
  lifecycle {
    action_trigger {
      events  = [after_update]
      actions = [action.baremetal_host_reboot.after_bios]
    }
  }
}

action "baremetal_host_reboot" "after_bios" {
  config {
    host_id = baremetal_host.test.id
  }
}
`, bootMode)
	}
	var resets int
	resetsAre := func(check func(got []string) error) resource.TestCheckFunc {
		return func(*terraform.State) error {
			got, n := resetsSince(t, srv, resets)
			t.Logf("simulator resets in this step: %q", got)
			resets = n
			return check(got)
		}
	}
	const fs = "baremetal_firmware_settings.test"
	acctest.Test(t, nil, []resource.TestStep{
		{ // Created: after_update does not fire, no reboot.
			Config: config("Uefi"),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr(fs, "current.BootMode", "Uefi"),
				resource.TestCheckResourceAttr("baremetal_host.test", "provisioning_state", "available"),
				func(*terraform.State) error {
					got, n := resetsSince(t, srv, 0)
					t.Logf("simulator resets creating the host and the settings: %q", got)
					resets = n
					if slices.Contains(got, "GracefulShutdown") {
						return fmt.Errorf("resets %q: creating the settings rebooted the host", got)
					}
					return nil
				},
			),
		},
		{ // Changed: applied by cleaning, then the action reboots the host.
			Config: config("Bios"),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(fs, plancheck.ResourceActionUpdate),
			}},
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr(fs, "current.BootMode", "Bios"),
				resource.TestCheckResourceAttr("baremetal_host.test", "provisioning_state", "available"),
				resetsAre(func(got []string) error {
					// Ironic's cleaning uses hard power actions; only the
					// action's soft reboot shuts down gracefully, last.
					if len(got) < 2 || !slices.Equal(got[len(got)-2:], []string{"GracefulShutdown", "On"}) {
						return fmt.Errorf("resets %q do not end with the action's reboot (GracefulShutdown, On)", got)
					}
					return nil
				}),
				acctest.SimPower(srv, "sys-0", sim.PowerOn),
			),
		},
		{ // Nothing to update: no reboot.
			Config: config("Bios"),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectEmptyPlan(),
			}},
			Check: resetsAre(func(got []string) error {
				if len(got) != 0 {
					return fmt.Errorf("resets %q without a change", got)
				}
				return nil
			}),
		},
	})
}

// TestAccAction_dayTwoVerbs: the other actions, each invoked with
// `terraform apply -invoke` on an available host (online = true) on the
// real Ironic and the simulator: a power cycle (hard off, then on); a
// power off, refused because the host's baremetal_host keeps it on; a
// boot once from PXE (the BMC's one-time boot override, then a reboot);
// a BMC reset (the simulator's manager, not the system, is reset);
// BIOS steps by manual cleaning (Ironic's fake BIOS stores them); a new
// inspection. The host ends available and powered on, and the next plan
// is empty.
func TestAccAction_dayTwoVerbs(t *testing.T) {
	acctest.Terraform114(t)
	srv, _, host := acctest.StartSimHost(t, "acc-act-verbs", bmcUser, "verbs-pass")
	config := host.WithExtra("  online = true").HCL() + fmt.Sprintf(`
variable "bmc_password" {
  type      = string
  sensitive = true
  default   = %q
}

action "baremetal_host_power" "cycle" {
  config {
    host_id = baremetal_host.test.id
    power   = "cycle"
  }
}

action "baremetal_host_power" "off" {
  config {
    host_id = baremetal_host.test.id
    power   = "off"
  }
}

action "baremetal_host_boot_once" "pxe" {
  config {
    host_id = baremetal_host.test.id
    device  = "pxe"
  }
}

action "baremetal_bmc_reset" "bmc" {
  config {
    host_id = baremetal_host.test.id
    bmc = {
      address  = %q
      username = %q
      password = var.bmc_password
    }
  }
}

action "baremetal_host_steps" "bios" {
  config {
    host_id = baremetal_host.test.id
    steps = [{
      interface = "bios"
      step      = "apply_configuration"
      args      = jsonencode({ settings = [{ name = "ProcVirtualization", value = "Disabled" }] })
    }]
  }
}

action "baremetal_host_inspect" "again" {
  config {
    host_id = baremetal_host.test.id
  }
}
`, host.Password, host.Address, host.Username)
	cli, _, sc := applied(t, host.Name, config)
	getNode := func() nodes.Node {
		t.Helper()
		n, err := acctest.Node(t, host.Name)
		if err != nil {
			t.Fatal(err)
		}
		return *n
	}
	if n := getNode(); n.Extra["baremetal_online"] != "true" {
		t.Fatalf("node extra %v: want online = true recorded", n.Extra)
	}
	_, seen := resetsSince(t, srv, 0)
	invoke := func(action string, wantErr bool) string {
		t.Helper()
		out, err := cli.Run("apply", "-auto-approve", "-no-color", "-invoke=action."+action)
		var lines []string
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "Action ") || strings.HasPrefix(l, "│ ") {
				lines = append(lines, l)
			}
		}
		t.Logf("-invoke=action.%s:\n%s", action, strings.Join(lines, "\n"))
		if (err != nil) != wantErr {
			t.Fatalf("-invoke=action.%s: error %v, want an error: %v\n%s", action, err, wantErr, out)
		}
		return out
	}
	resets := func(want ...string) {
		t.Helper()
		got, n := resetsSince(t, srv, seen)
		seen = n
		if !slices.Equal(got, want) {
			t.Errorf("simulator resets %q, want %q", got, want)
		}
	}

	invoke("baremetal_host_power.cycle", false)
	resets("ForceOff", "On")

	out := invoke("baremetal_host_power.off", true)
	if !strings.Contains(strings.Join(strings.Fields(out), " "), "keeps it powered on (online = true)") {
		t.Errorf("the refused power off does not say why:\n%s", out)
	}
	resets()

	invoke("baremetal_host_boot_once.pxe", false)
	resets("GracefulShutdown", "On")
	if st, _ := srv.State("sys-0"); st.Boot.Target != "Pxe" {
		t.Errorf("boot override %+v, want Pxe", st.Boot)
	}

	out = invoke("baremetal_bmc_reset.bmc", false)
	if strings.Contains(out, host.Password) {
		t.Error("Terraform printed the BMC password")
	}
	if st, _ := srv.State("sys-0"); !slices.Equal(st.ManagerResets, []string{"GracefulRestart"}) {
		t.Errorf("manager resets %q", st.ManagerResets)
	}
	resets()

	invoke("baremetal_host_steps.bios", false)
	node := getNode()
	if node.ProvisionState != "available" || node.PowerState != "power on" {
		t.Errorf("after the steps: %s, %s", node.ProvisionState, node.PowerState)
	}
	bios, err := nodes.ListBIOSSettings(context.Background(), sc, node.UUID, nil).Extract()
	if err != nil || len(bios) != 1 || bios[0].Name != "ProcVirtualization" || bios[0].Value != "Disabled" {
		t.Errorf("BIOS after the steps: %+v, %v", bios, err)
	}

	invoke("baremetal_host_inspect.again", false)
	after := getNode()
	if after.ProvisionState != "available" || after.PowerState != "power on" || after.InspectionFinishedAt == nil ||
		(node.InspectionFinishedAt != nil && !after.InspectionFinishedAt.After(*node.InspectionFinishedAt)) {
		t.Errorf("after the inspection: %s, %s, inspected at %v (before %v)", after.ProvisionState, after.PowerState,
			after.InspectionFinishedAt, node.InspectionFinishedAt)
	}
	if out, err := cli.Run("plan", "-detailed-exitcode", "-no-color"); err != nil {
		t.Errorf("the plan after the actions is not empty: %v\n%s", err, out)
	}
}
