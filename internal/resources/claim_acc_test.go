package resources_test

import (
	"context"
	"fmt"
	"regexp"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"
	fwresource "github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/acctest"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/resources"
)

// claimHosts declares three fake hosts in one pool: two workers and one
// master, so names sort as <prefix>-1, -2, -3.
func claimHosts(prefix, pool string) string {
	host := func(i int, role string) string {
		return fmt.Sprintf(`
resource "baremetal_host" "h%[1]d" {
  name        = "%[2]s-%[1]d"
  driver      = "fake-hardware"
  driver_info = {}
  online      = false
  labels = {
    pool = %[3]q
    role = %[4]q
  }
}
`, i, prefix, pool, role)
	}
	return host(1, "worker") + host(2, "worker") + host(3, "master")
}

func claimBlock(name, pool, role string) string {
	expr := ""
	if role != "" {
		expr = fmt.Sprintf(`
    match_expressions = [{ key = "role", operator = "In", values = [%q] }]`, role)
	}
	return fmt.Sprintf(`
resource "baremetal_host_claim" %[1]q {
  labels = {
    match_labels = { pool = %[2]q }%[3]s
  }
  depends_on = [baremetal_host.h1, baremetal_host.h2, baremetal_host.h3]
}
`, name, pool, expr)
}

func TestAccHostClaim(t *testing.T) {
	prefix := acctest.Name("tfacc-claim")
	pool := prefix
	hosts := claimHosts(prefix, pool)
	first := claimBlock("first", pool, "worker")
	pair := claimBlock("second", pool, "") + claimBlock("third", pool, "")
	none := claimBlock("none", pool, "gpu")

	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{
			{
				// Deterministic placement: the first worker by name. The
				// harness then checks that a second plan is empty.
				Config: hosts + first,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("baremetal_host_claim.first", "host_name", prefix+"-1"),
					resource.TestCheckResourceAttrPair("baremetal_host_claim.first", "host_id", "baremetal_host.h1", "id"),
					resource.TestCheckResourceAttrPair("baremetal_host_claim.first", "id", "baremetal_host_claim.first", "allocation_id"),
					resource.TestMatchResourceAttr("baremetal_host_claim.first", "name", regexp.MustCompile(`^tf-claim-[0-9a-f]+$`)),
				),
			},
			{
				ResourceName:      "baremetal_host_claim.first",
				ImportState:       true,
				ImportStateVerify: true,
				// The selector is not stored in Ironic.
				ImportStateVerifyIgnore: []string{"labels", "timeouts"},
			},
			{
				// No host matching: one host of the pool is claimed, the two
				// free ones are not GPU hosts. The error says why, per reason
				// (the counts include the hosts of tests running alongside).
				Config: hosts + first + none,
				ExpectError: wrapped(`No host matches the claim`, `no available host matches the claim: \d+ hosts considered;`,
					`\d+ already claimed;`, `\d+ labels do not match`),
			},
			{
				// The failed claim left nothing behind: "second" and "third",
				// created in one apply, race for the two hosts left and Ironic
				// allocations keep them apart.
				Config: hosts + first + pair,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("baremetal_host_claim.first", "host_name", prefix+"-1"),
					distinctHosts("baremetal_host_claim.first", "baremetal_host_claim.second", "baremetal_host_claim.third"),
				),
			},
			{
				// Destroying the claims releases the hosts; the hosts stay.
				Config: hosts,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("baremetal_host.h1", "provisioning_state", "available"),
					hostsUnclaimed(t, prefix+"-1", prefix+"-2", prefix+"-3"),
				),
			},
		},
	})
}

// wrapped matches the phrases in order, whatever line wrapping Terraform
// put into them.
func wrapped(phrases ...string) *regexp.Regexp {
	re := "(?s)"
	for i, p := range phrases {
		if i > 0 {
			re += ".*"
		}
		re += regexp.MustCompile(` +`).ReplaceAllString(p, `\s+`)
	}
	return regexp.MustCompile(re)
}

// distinctHosts checks that the claims hold different hosts.
func distinctHosts(names ...string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		seen := map[string]string{}
		for _, n := range names {
			rs, ok := s.RootModule().Resources[n]
			if !ok {
				return fmt.Errorf("%s not in state", n)
			}
			id := rs.Primary.Attributes["host_id"]
			if id == "" {
				return fmt.Errorf("%s has no host_id", n)
			}
			if other, dup := seen[id]; dup {
				return fmt.Errorf("%s and %s both hold host %s", other, n, id)
			}
			seen[id] = n
		}
		return nil
	}
}

// hostsUnclaimed checks in Ironic that the nodes exist, are available and
// carry no allocation.
func hostsUnclaimed(t *testing.T, names ...string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		sc := acctest.Ironic(t)
		for _, name := range names {
			found := acctest.NodesNamed(t, sc, name)
			if len(found) != 1 {
				return fmt.Errorf("host %s: %d nodes, want 1 (the host must survive its claim)", name, len(found))
			}
			n, err := nodes.Get(context.Background(), sc, found[0].UUID).Extract()
			if err != nil {
				return err
			}
			if n.AllocationUUID != "" || n.InstanceUUID != "" {
				return fmt.Errorf("host %s still claimed: allocation %q, instance %q", name, n.AllocationUUID, n.InstanceUUID)
			}
			if n.ProvisionState != "available" {
				return fmt.Errorf("host %s is %q, want available", name, n.ProvisionState)
			}
		}
		return nil
	}
}

// TestHostClaimSchema needs no Ironic: the schema is valid and every
// attribute is described.
func TestHostClaimSchema(t *testing.T) {
	ctx := context.Background()
	r := resources.NewHostClaim()
	var resp fwresource.SchemaResponse
	r.Schema(ctx, fwresource.SchemaRequest{}, &resp)
	if resp.Diagnostics.HasError() {
		t.Fatal(resp.Diagnostics)
	}
	if diags := resp.Schema.ValidateImplementation(ctx); diags.HasError() {
		t.Fatal(diags)
	}
	for name, a := range resp.Schema.Attributes {
		if a.GetDescription() == "" && name != "timeouts" {
			t.Errorf("%s has no description", name)
		}
	}
}
