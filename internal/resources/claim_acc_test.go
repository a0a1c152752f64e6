package resources_test

import (
	"context"
	"fmt"
	"regexp"
	"testing"

	fwresource "github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/acctest"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/resources"
)

// claimHosts declares three fake hosts in one pool: two workers and one
// master, so names sort as <prefix>-1, -2, -3.
func claimHosts(prefix, pool string) string {
	host := func(i int, role string) string { return acctest.PoolHost(i, prefix, pool, role) }
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

	acctest.ParallelTest(t, nil, []resource.TestStep{
		{
			// Deterministic placement: the first worker by name. The
			// harness then checks that a second plan is empty.
			Config: hosts + first,
			ConfigStateChecks: []statecheck.StateCheck{
				expectAttr("baremetal_host_claim.first", "host_name", knownvalue.StringExact(prefix+"-1")),
				statecheck.CompareValuePairs("baremetal_host_claim.first", tfjsonpath.New("host_id"),
					"baremetal_host.h1", tfjsonpath.New("id"), compare.ValuesSame()),
				statecheck.CompareValuePairs("baremetal_host_claim.first", tfjsonpath.New("id"),
					"baremetal_host_claim.first", tfjsonpath.New("allocation_id"), compare.ValuesSame()),
				expectAttr("baremetal_host_claim.first", "name", knownvalue.StringRegexp(regexp.MustCompile(`^tf-claim-[0-9a-f]+$`))),
			},
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
			ConfigStateChecks: []statecheck.StateCheck{
				expectAttr("baremetal_host_claim.first", "host_name", knownvalue.StringExact(prefix+"-1")),
				differentHosts("baremetal_host_claim.first", "baremetal_host_claim.second"),
				differentHosts("baremetal_host_claim.first", "baremetal_host_claim.third"),
				differentHosts("baremetal_host_claim.second", "baremetal_host_claim.third"),
			},
		},
		{
			// Destroying the claims releases the hosts; the hosts stay.
			Config: hosts,
			ConfigStateChecks: []statecheck.StateCheck{
				expectAttr("baremetal_host.h1", "provisioning_state", knownvalue.StringExact("available")),
			},
			Check: resource.ComposeAggregateTestCheckFunc(
				hostsUnclaimed(t, prefix+"-1", prefix+"-2", prefix+"-3"),
			),
		},
	})
}

// differentHosts checks that two claims hold different hosts.
func differentHosts(a, b string) statecheck.StateCheck {
	return statecheck.CompareValuePairs(a, tfjsonpath.New("host_id"), b, tfjsonpath.New("host_id"), compare.ValuesDiffer())
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

// hostsUnclaimed checks in Ironic that the nodes exist, are available and
// carry no allocation.
func hostsUnclaimed(t *testing.T, names ...string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		for _, name := range names {
			n, err := acctest.Node(t, name)
			if err != nil {
				return fmt.Errorf("host %s: %w (the host must survive its claim)", name, err)
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
