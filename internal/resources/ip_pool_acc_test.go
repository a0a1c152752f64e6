package resources_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/acctest"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/ironic"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// ipStore is a direct view of the rig's IP pools, behind Terraform's back.
func ipStore(t *testing.T) *ironic.IPPoolStore {
	t.Helper()
	return ironic.NewIPPoolStore(acctest.Ironic(t))
}

// poolHCL is a pool named name with one range start-end in 10.<net>.0.0/24.
func poolHCL(name string, net int, start, end int) string {
	return fmt.Sprintf(`
resource "baremetal_ip_pool" "pool" {
  name        = %[1]q
  prefix      = 24
  gateway     = "10.%[2]d.0.1"
  dns_servers = ["10.%[2]d.0.53", "10.%[2]d.0.54"]
  ranges      = [{ start = "10.%[2]d.0.%[3]d", end = "10.%[2]d.0.%[4]d" }]
}
`, name, net, start, end)
}

// poolRecords checks what Ironic holds for pool: owner -> address.
func poolRecords(t *testing.T, pool string, want map[string]string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		recs, err := ipStore(t).Addresses(context.Background(), pool)
		if err != nil {
			return err
		}
		got := map[string]string{}
		for _, r := range recs {
			if prev, dup := got[r.Owner]; dup {
				return fmt.Errorf("owner %s holds %s and %s", r.Owner, prev, r.Address)
			}
			got[r.Owner] = r.Address
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			return fmt.Errorf("Ironic records %v, want %v", got, want)
		}
		return nil
	}
}

// noPoolLeft checks after destroy that Ironic holds nothing of pool.
func noPoolLeft(t *testing.T, pool string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		s := ipStore(t)
		recs, err := s.Addresses(context.Background(), pool)
		if err != nil {
			return err
		}
		if len(recs) > 0 {
			return fmt.Errorf("addresses left after destroy: %+v", recs)
		}
		if _, ok, err := s.Pool(context.Background(), pool); ok || err != nil {
			return fmt.Errorf("pool %s left after destroy (%v)", pool, err)
		}
		return nil
	}
}

// TestAccIPPool_exhausted: a pool of 5, 5 claims (one after the other, so
// the order is known), then a 6th fails naming the pool, its size and the
// owners. Then: a change that would strand two of the addresses is
// refused at plan, naming their owners; imports of pool and claim; an
// address removed out of band shows as a claim to create, which gets the
// same address back; widening the range lets the 6th claim through.
func TestAccIPPool_exhausted(t *testing.T) {
	pool := acctest.Name("acc-pool")
	owners := []string{"owner-a", "owner-b", "owner-c", "owner-d", "owner-e"}
	claims := func(n int) string {
		var b strings.Builder
		for i := range n {
			dep := ""
			if i > 0 {
				dep = fmt.Sprintf("\n  depends_on = [baremetal_ip_claim.c%d]", i-1)
			}
			owner := fmt.Sprintf("owner-%c", 'a'+i)
			fmt.Fprintf(&b, `
resource "baremetal_ip_claim" "c%d" {
  pool  = baremetal_ip_pool.pool.name
  owner = %q%s
}
`, i, owner, dep)
		}
		return b.String()
	}
	five := poolHCL(pool, 91, 10, 14) + claims(5)
	want := map[string]string{}
	var checks []statecheck.StateCheck
	for i, o := range owners {
		want[o] = fmt.Sprintf("10.91.0.%d", 10+i)
		addr := fmt.Sprintf("baremetal_ip_claim.c%d", i)
		checks = append(checks,
			expectAttr(addr, "address", knownvalue.StringExact(want[o])),
			expectAttr(addr, "cidr", knownvalue.StringExact(want[o]+"/24")),
		)
	}
	checks = append(checks,
		expectAttr("baremetal_ip_claim.c0", "prefix", knownvalue.Int64Exact(24)),
		expectAttr("baremetal_ip_claim.c0", "gateway", knownvalue.StringExact("10.91.0.1")),
		expectAttr("baremetal_ip_claim.c0", "dns_servers", knownvalue.ListExact([]knownvalue.Check{
			knownvalue.StringExact("10.91.0.53"), knownvalue.StringExact("10.91.0.54")})),
		expectAttr("baremetal_ip_pool.pool", "size", knownvalue.StringExact("5")),
	)
	var removedID string
	acctest.ParallelTest(t, noPoolLeft(t, pool), []resource.TestStep{
		{
			Config:            five,
			ConfigStateChecks: checks,
			Check:             poolRecords(t, pool, want),
		},
		{
			Config:      five + claims(6)[len(claims(5)):],
			ExpectError: regexp.MustCompile(`(?s)IP pool ` + pool + ` is exhausted.*no address left for owner\s+"owner-f".*its\s+ranges\s+hold\s+5\s+addresses,\s+and\s+5\s+are\s+held\s+by:\s+10\.91\.0\.10\s+\(owner-a\),\s+10\.91\.0\.11\s+\(owner-b\),\s+10\.91\.0\.12\s+\(owner-c\),\s+10\.91\.0\.13\s+\(owner-d\),\s+10\.91\.0\.14\s+\(owner-e\)`),
		},
		{
			// The failed claim recorded nothing.
			Config: five,
			Check:  poolRecords(t, pool, want),
		},
		{
			// Shrinking the range under two held addresses: refused at plan.
			Config:      poolHCL(pool, 91, 10, 12) + claims(5),
			PlanOnly:    true,
			ExpectError: wrapped(`Change would strand an allocated address`, `address 10.91.0.13, held by owner "owner-d"`),
		},
		{
			ResourceName:      "baremetal_ip_pool.pool",
			ImportState:       true,
			ImportStateId:     pool,
			ImportStateVerify: true,
		},
		{
			ResourceName:      "baremetal_ip_claim.c2",
			ImportState:       true,
			ImportStateId:     pool + "/owner-c",
			ImportStateVerify: true,
		},
		{
			// owner-c's address released out of band: the plan shows
			// the claim to create, and nothing else.
			PreConfig: func() {
				c, ok, err := lifecycle.FindIPClaim(context.Background(), ipStore(t), pool, "owner-c")
				if err != nil || !ok {
					t.Fatalf("owner-c's claim: %v %v", ok, err)
				}
				removedID = c.ID
				if err := ipStore(t).DeleteAddress(context.Background(), c.ID); err != nil {
					t.Fatal(err)
				}
			},
			Config: five,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction("baremetal_ip_claim.c2", plancheck.ResourceActionCreate),
				plancheck.ExpectResourceAction("baremetal_ip_claim.c1", plancheck.ResourceActionNoop),
				plancheck.ExpectResourceAction("baremetal_ip_claim.c3", plancheck.ResourceActionNoop),
			}},
			// Re-claimed: the lowest free address is its own again.
			ConfigStateChecks: []statecheck.StateCheck{expectAttr("baremetal_ip_claim.c2", "address", knownvalue.StringExact("10.91.0.12"))},
			Check: resource.ComposeAggregateTestCheckFunc(poolRecords(t, pool, want), func(s *terraform.State) error {
				if id := s.RootModule().Resources["baremetal_ip_claim.c2"].Primary.ID; id == removedID {
					return fmt.Errorf("claim c2 kept the removed record %s", id)
				}
				return nil
			}),
		},
		{
			// Widening the range updates the pool in place; the 6th
			// claim then gets the new address, nobody else moves.
			Config:           poolHCL(pool, 91, 10, 15) + claims(6),
			ConfigPlanChecks: preApply(updates("baremetal_ip_pool.pool"), untouched("baremetal_ip_claim.c0")),
			ConfigStateChecks: []statecheck.StateCheck{
				expectAttr("baremetal_ip_claim.c5", "address", knownvalue.StringExact("10.91.0.15")),
				expectAttr("baremetal_ip_pool.pool", "size", knownvalue.StringExact("6")),
			},
			Check: poolRecords(t, pool, func() map[string]string {
				m := map[string]string{"owner-f": "10.91.0.15"}
				for k, v := range want {
					m[k] = v
				}
				return m
			}()),
		},
	})
}
