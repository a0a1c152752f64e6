package resources_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/acctest"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmc/sim"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmc/sim/agent"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/provider"
)

// discoveredNodes waits (polling Ironic, two minutes at most) until a node
// named after each serial exists, and returns them by name.
func discoveredNodes(t *testing.T, sc *gophercloud.ServiceClient, serials []string) map[string]nodes.Node {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		found := map[string]nodes.Node{}
		for _, s := range serials {
			n, err := nodes.Get(context.Background(), sc, s).Extract()
			if err == nil && n.ProvisionState == "enroll" && n.Reservation == "" {
				found[s] = *n
			}
		}
		if len(found) == len(serials) {
			return found
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 2 minutes Ironic enrolled %d of the machines %v", len(found), serials)
		}
		time.Sleep(500 * time.Millisecond) // polling Ironic, not synchronising
	}
}

// Racking servers without typing them, end to end on the rig (guide
// racking-servers-without-typing-them): two machines Ironic does not know
// boot the agent, which posts their inventories to
// /v1/continue_inspection without a node; Ironic's auto-discovery enrolls
// them, and the rig's inspection rule names them after their serial
// numbers and records their BMC addresses. terraform query with
// unmanaged = true and -generate-config-out writes their configuration;
// the BMC credentials come from variables through an override file
// (driver_secrets_wo, write-only), not the generated file; the apply
// imports both and writes the credentials; the next plan is empty.
func TestAccDiscovery_rackedServers(t *testing.T) {
	acctest.Terraform114(t)
	if os.Getenv("BAREMETAL_TEST_AUTO_DISCOVERY") != "1" {
		t.Skip("needs a rig with auto-discovery: IRONIC_AUTO_DISCOVERY=1 scripts/ironic.sh start (then `scripts/ironic.sh env` sets BAREMETAL_TEST_AUTO_DISCOVERY=1)")
	}
	sc := acctest.Ironic(t)
	batch := acctest.Name("rack")
	const bmcPassword = "Rack3d-s3cret" // the BMCs' password: the rig's fake-hardware nodes never use it
	srv := sim.New(sim.Options{Agent: &agent.Config{IronicURL: acctest.Endpoint(), InspectIronic: true,
		LookupInterval: time.Second, LookupTimeout: 5 * time.Second, Logf: t.Logf}})
	var serials []string
	for i := range 2 {
		p := sim.DefaultProfile(i)
		p.SerialNumber = fmt.Sprintf("%s-%d", batch, i)
		for j := range p.NICs {
			p.NICs[j].MAC = acctest.MAC()
		}
		if err := srv.AddSystem(sim.SystemConfig{ID: fmt.Sprintf("sys-%d", i), Username: "admin", Password: "password", Profile: p}); err != nil {
			t.Fatal(err)
		}
		serials = append(serials, p.SerialNumber)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	t.Cleanup(func() {
		for _, s := range serials {
			_ = nodes.SetMaintenance(context.Background(), sc, s, nodes.MaintenanceOpts{Reason: "test cleanup"}).ExtractErr()
			if err := nodes.Delete(context.Background(), sc, s).ExtractErr(); err != nil && !gophercloud.ResponseCodeIs(err, 404) {
				t.Errorf("delete node %s: %v", s, err)
			}
		}
	})

	// Racked and powered on: nobody typed a MAC or a BMC address.
	for _, id := range srv.SystemIDs() {
		if err := srv.SetPower(id, "On"); err != nil {
			t.Fatal(err)
		}
	}
	found := discoveredNodes(t, sc, serials)
	for _, id := range srv.SystemIDs() {
		rec, _ := srv.AgentRecord(id)
		if rec.Inspection == nil || rec.NodeUUID != "" {
			t.Fatalf("agent %s: want an inventory accepted without a node, got inspection %+v, node %q (events %v)", id, rec.Inspection, rec.NodeUUID, rec.Events)
		}
		t.Logf("agent %s posted its inventory without a node; Ironic answered HTTP %d %s", id, rec.Inspection.Status, rec.Inspection.Answer)
	}
	for _, s := range serials {
		n := found[s]
		if n.Driver != "fake-hardware" || !strings.HasPrefix(fmt.Sprint(n.DriverInfo["redfish_address"]), "https://") {
			t.Fatalf("discovered node %s: driver %s, driver_info %v", s, n.Driver, n.DriverInfo)
		}
		t.Logf("Ironic enrolled %s: node %s, provision state %s, driver %s, driver_info %v", s, n.UUID, n.ProvisionState, n.Driver, n.DriverInfo)
	}

	dir := t.TempDir()
	write := func(name, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("main.tf", fmt.Sprintf(`provider "baremetal" {
  endpoint = %q
}

variable "bmc_username" {
  type = string
}

variable "bmc_password" {
  type      = string
  sensitive = true
}
`, acctest.Endpoint()))
	write("racked.tfquery.hcl", fmt.Sprintf(`list "baremetal_host" "racked" {
  provider         = baremetal
  include_resource = true
  config {
    unmanaged   = true
    name_prefix = "%s-"
  }
}
`, batch))
	cli := acctest.NewCLI(t, dir, acctest.Serve(t, providerserver.NewProtocol6(provider.New("test")())()))
	cli.UseTerraform(os.Getenv("BAREMETAL_TF114_PATH"))
	cli.Env = append(cli.Env, "TF_VAR_bmc_username=admin", "TF_VAR_bmc_password="+bmcPassword)
	run := func(args ...string) string { t.Helper(); return cli.MustRun(t, args...) }

	t.Logf("terraform query:\n%s", run("query", "-generate-config-out=racked.tf"))
	raw, err := os.ReadFile(filepath.Join(dir, "racked.tf"))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("generated racked.tf:\n%s", raw)
	var override strings.Builder
	var names []string
	for _, b := range generatedBlocks(string(raw)) {
		if b.typ != "baremetal_host" {
			continue
		}
		names = append(names, b.name)
		// Only the credentials are added, and not to the generated file.
		fmt.Fprintf(&override, `resource "baremetal_host" %q {
  driver_secrets_wo = {
    redfish_username = var.bmc_username
    redfish_password = var.bmc_password
  }
  driver_secrets_wo_version = 1
}

`, b.addr)
	}
	slices.Sort(names)
	if !slices.Equal(names, serials) {
		t.Fatalf("generated hosts %v, want the discovered %v:\n%s", names, serials, raw)
	}
	write("credentials_override.tf", override.String())
	t.Logf("credentials_override.tf:\n%s", override.String())

	out := run("plan")
	if w := "Plan: 2 to import, 0 to add, 2 to change, 0 to destroy."; !strings.Contains(out, w) {
		t.Fatalf("the plan is not %q:\n%s", w, out)
	}
	out = run("apply", "-auto-approve")
	if w := "Resources: 2 imported, 0 added, 2 changed, 0 destroyed."; !strings.Contains(out, w) {
		t.Fatalf("the apply is not %q:\n%s", w, out)
	}
	t.Logf("apply: %s", want(out, "Apply complete!"))
	t.Logf("plan after the apply: %s", cli.EmptyPlan(t, "after the apply"))
	for _, s := range serials {
		n, err := nodes.Get(context.Background(), sc, s).Extract()
		if err != nil {
			t.Fatal(err)
		}
		if n.DriverInfo["redfish_username"] != "admin" || n.DriverInfo["redfish_password"] == nil || n.ProvisionState != "enroll" {
			t.Errorf("node %s after the apply: state %s, driver_info %v", s, n.ProvisionState, n.DriverInfo)
		}
	}
	st, err := os.ReadFile(filepath.Join(dir, "terraform.tfstate"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(st), bmcPassword) {
		t.Errorf("the state holds the BMC password")
	}
	for _, s := range serials {
		if !strings.Contains(string(st), fmt.Sprintf("%q", s)) {
			t.Errorf("the state has no host %s", s)
		}
	}
}
