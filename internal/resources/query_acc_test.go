package resources_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/querycheck"
	"github.com/hashicorp/terraform-plugin-testing/querycheck/queryfilter"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/acctest"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/provider"
)

// The list resource tests (terraform query, Terraform 1.14+; they run with
// acctest.Terraform114, so not in parallel).

// TestAccQuery_hosts lists nodes made outside Terraform with the host list
// resource: filters, identities, the resources with include_resource, and
// limit.
func TestAccQuery_hosts(t *testing.T) {
	acctest.Terraform114(t)
	sc := acctest.Ironic(t)
	batch := acctest.Name("acc-q")
	class := "q-" + strings.TrimPrefix(batch, "acc-q-")
	ids := make([]string, 4)
	for i := range ids {
		rack := "r1"
		if i == 3 {
			rack = "r2"
		}
		ids[i] = apiNode(t, sc, fmt.Sprintf("%s-%d", batch, i), class, map[string]string{"rack": rack})
	}
	byID := func(i int) queryfilter.QueryFilter {
		return queryfilter.ByResourceIdentity(map[string]knownvalue.Check{"id": knownvalue.StringExact(ids[i])})
	}
	acctest.Test(t, nil, []resource.TestStep{
		{Config: `provider "baremetal" {}`},
		{
			Query: true,
			Config: fmt.Sprintf(`
list "baremetal_host" "rack1" {
  provider         = baremetal
  include_resource = true
  config {
    resource_class = %[1]q
    labels         = { rack = "r1" }
  }
}

list "baremetal_host" "all" {
  provider = baremetal
  config {
    resource_class = %[1]q
    name_regex     = "^%[2]s-[0-9]$"
    unmanaged      = true
  }
}

list "baremetal_host" "two" {
  provider = baremetal
  limit    = 2
  config {
    resource_class = %[1]q
  }
}

list "baremetal_host" "none" {
  provider = baremetal
  config {
    resource_class  = %[1]q
    provision_state = "active"
  }
}
`, class, batch),
			QueryResultChecks: []querycheck.QueryResultCheck{
				querycheck.ExpectLength("baremetal_host.rack1", 3),
				querycheck.ExpectLength("baremetal_host.all", 4),
				querycheck.ExpectLength("baremetal_host.two", 2),
				querycheck.ExpectLength("baremetal_host.none", 0),
				querycheck.ExpectIdentity("baremetal_host.rack1", map[string]knownvalue.Check{"id": knownvalue.StringExact(ids[0])}),
				querycheck.ExpectNoIdentity("baremetal_host.rack1", map[string]knownvalue.Check{"id": knownvalue.StringExact(ids[3])}),
				querycheck.ExpectResourceDisplayName("baremetal_host.rack1", byID(1), knownvalue.StringExact(batch+"-1")),
				querycheck.ExpectResourceKnownValues("baremetal_host.rack1", byID(2), []querycheck.KnownValueCheck{
					{Path: tfjsonpath.New("name"), KnownValue: knownvalue.StringExact(batch + "-2")},
					{Path: tfjsonpath.New("driver"), KnownValue: knownvalue.StringExact("fake-hardware")},
					{Path: tfjsonpath.New("resource_class"), KnownValue: knownvalue.StringExact(class)},
					{Path: tfjsonpath.New("labels").AtMapKey("rack"), KnownValue: knownvalue.StringExact("r1")},
					{Path: tfjsonpath.New("provisioning_state"), KnownValue: knownvalue.StringExact("registering")},
					{Path: tfjsonpath.New("inspection"), KnownValue: knownvalue.StringExact("enabled")},
				}),
			},
		},
	})
}

// TestAccQuery_adoptFleet is the adoption of a fleet made outside
// Terraform: 30 nodes created through Ironic's API, 20 of them labelled
// for this batch; `terraform query -generate-config-out=hosts.tf` finds
// the 20 and writes their resource and import blocks; `terraform apply`
// imports them; the next plan is empty. The query's node list is a
// handful of requests to Ironic (its log says), and no node is read on
// its own.
func TestAccQuery_adoptFleet(t *testing.T) {
	acctest.Terraform114(t)
	sc := acctest.Ironic(t)
	batch := acctest.Name("adopt")
	// The batch's own resource class tells the query's requests apart in
	// the rig's log, which other tests write to at the same time.
	class := "fleet-" + strings.TrimPrefix(batch, "adopt-")
	uuids := map[string]bool{}
	for i := range 30 {
		fleet := batch
		if i%3 == 2 {
			fleet = "other-" + batch
		}
		uuids[apiNode(t, sc, fmt.Sprintf("%s-%02d", batch, i), class, map[string]string{"fleet": fleet})] = true
	}
	dir := t.TempDir()
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("main.tf", `provider "baremetal" {}`+"\n")
	write("fleet.tfquery.hcl", fmt.Sprintf(`
list "baremetal_host" "fleet" {
  provider = baremetal
  config {
    resource_class = %q
    labels         = { fleet = %q }
  }
}
`, class, batch))
	// Terraform (1.14, from acctest.Terraform114) against this process's
	// provider.
	cli := acctest.NewCLI(t, dir, acctest.Serve(t, providerserver.NewProtocol6(provider.New("test")())()))
	run := func(args ...string) string { t.Helper(); return cli.MustRun(t, args...) }

	mark := acctest.MarkIronicLog(t)
	out := run("query", "-generate-config-out=hosts.tf")
	t.Logf("terraform query -generate-config-out=hosts.tf:\n%s", out)
	requests, err := mark.Requests()
	if err != nil {
		t.Fatal(err)
	}
	var lists, perNode []string
	for _, r := range requests {
		if strings.Contains(r, "resource_class="+class) {
			lists = append(lists, r)
		}
		for id := range uuids {
			if strings.Contains(r, id) {
				perNode = append(perNode, r)
			}
		}
	}
	t.Logf("Ironic requests of the query (node list pages): %d\n%s", len(lists), strings.Join(lists, "\n"))
	t.Logf("Ironic requests of the whole rig meanwhile (other tests included): %d", len(requests))
	if len(lists) < 1 || len(lists) > 3 {
		t.Errorf("the query made %d node list requests, want 1 to 3", len(lists))
	}
	if len(perNode) > 0 {
		t.Errorf("the query read nodes one by one:\n%s", strings.Join(perNode, "\n"))
	}

	raw, err := os.ReadFile(filepath.Join(dir, "hosts.tf"))
	if err != nil {
		t.Fatal(err)
	}
	hosts := string(raw)
	t.Logf("hosts.tf (first blocks):\n%s", firstBlocks(hosts, 4))
	if got := strings.Count(hosts, `resource "baremetal_host"`); got != 20 {
		t.Fatalf("hosts.tf has %d baremetal_host resources, want 20", got)
	}
	if got := strings.Count(hosts, "identity = {"); got != 20 {
		t.Fatalf("hosts.tf has %d import blocks by identity, want 20", got)
	}
	if strings.Contains(hosts, "other-"+batch) {
		t.Fatal("hosts.tf has hosts of the other label")
	}
	for _, want := range []string{`driver_secrets\s+= null # sensitive`, `driver\s+= "fake-hardware"`, `resource_class\s+= "` + class + `"`} {
		if !regexp.MustCompile(want).MatchString(hosts) {
			t.Errorf("hosts.tf lacks %s", want)
		}
	}

	out = run("apply", "-auto-approve")
	if !regexp.MustCompile(`Apply complete! Resources: 20 imported, 0 added, 0 changed, 0 destroyed`).MatchString(out) {
		t.Fatalf("apply did not import the 20 hosts alone:\n%s", out)
	}
	t.Logf("terraform apply: %s", lastLine(out))
	t.Logf("terraform plan -detailed-exitcode: exit 0, %s", cli.EmptyPlan(t, "after the import"))
	state := run("state", "list")
	if got := strings.Count(state, "baremetal_host."); got != 20 {
		t.Fatalf("%d hosts in state, want 20:\n%s", got, state)
	}
	// The nodes stay in Ironic (apiNode deletes them): the configuration
	// is forgotten, not destroyed.
	run(append([]string{"state", "rm"}, strings.Fields(state)...)...)
}

// firstBlocks returns the text of s up to its n-th empty line.
func firstBlocks(s string, n int) string {
	parts := strings.SplitN(s, "\n\n", n+1)
	if len(parts) > n {
		parts = parts[:n]
	}
	return strings.Join(parts, "\n\n")
}

// lastLine returns the last non-empty line of s.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// TestAccQuery_examplesValidate validates the list-resource examples
// (examples/list-resources/*/*.tfquery.hcl) with Terraform 1.14:
// `terraform validate -query` against this build of the provider. An older
// Terraform ignores these files; scripts/lint.sh validates the example
// directories with it.
func TestAccQuery_examplesValidate(t *testing.T) {
	acctest.Terraform114(t)
	files, err := filepath.Glob("../../examples/list-resources/*/*.tfquery.hcl")
	if err != nil || len(files) == 0 {
		t.Fatalf("no list-resource examples (%v)", err)
	}
	reattach := acctest.Serve(t, providerserver.NewProtocol6(provider.New("test")())())
	for _, f := range files {
		dir := t.TempDir()
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for name, content := range map[string]string{"main.tf": `provider "baremetal" {}` + "\n", filepath.Base(f): string(src)} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		cli := acctest.NewCLI(t, dir, reattach)
		if out, err := cli.Run("validate", "-query", "-no-color"); err != nil {
			t.Errorf("%s: terraform validate -query: %v\n%s", f, err, out)
		}
	}
}
