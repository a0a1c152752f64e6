package ironic

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/allocations"
	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// TestClaim claims two available fake-hardware nodes through allocations
// on the real Ironic: in order, atomically under concurrency, idempotently
// by name, and releases them.
func TestClaim(t *testing.T) {
	sc, _ := realIronic(t)
	t.Parallel() // waits on Ironic, not on CPU
	ctx := catCtx(t, 150*time.Second)
	n1 := createCatalogNode(t, ctx, sc, catalogNodeSpec{traits: []string{"CUSTOM_CLAIM"}})
	n2 := createCatalogNode(t, ctx, sc, catalogNodeSpec{traits: []string{"CUSTOM_CLAIM"}})
	catMakeAvailable(t, ctx, sc, n1.UUID, n2.UUID)

	csc, count := catCountingClient(t)
	c := NewCatalog(csc, WithClaimPollInterval(time.Second))
	base := uniqueName(t)
	cands := []string{n1.UUID, n2.UUID}
	req := func(suffix string) lifecycle.ClaimRequest {
		return lifecycle.ClaimRequest{
			Name: base + "-" + suffix, ResourceClass: "baremetal", Traits: []string{"CUSTOM_CLAIM"},
			Candidates: cands, Extra: map[string]string{"claimed-by": "catalog-test"},
		}
	}
	var made []string
	t.Cleanup(func() {
		for _, id := range made {
			_ = allocations.Delete(context.Background(), sc, id).ExtractErr()
		}
	})
	claim := func(r lifecycle.ClaimRequest) (lifecycle.Allocation, error) {
		a, err := c.Claim(ctx, r)
		if a.ID != "" {
			made = append(made, a.ID)
		}
		return a, err
	}
	nodeOf := func(id string) *nodes.Node {
		n, err := nodes.Get(ctx, sc, id).Extract()
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	releaseAll := func() {
		for _, id := range made {
			if err := c.Release(ctx, id); err != nil {
				t.Fatalf("release %s: %v", id, err)
			}
		}
	}

	t.Run("in order", func(t *testing.T) {
		count.reset()
		a1, err := claim(req("a"))
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("first claim: %d requests: %v", count.total(), count.paths())
		if a1.NodeID != n1.UUID || a1.State != "active" || a1.Name != base+"-a" {
			t.Errorf("first claim = %+v, want node %s", a1, n1.UUID)
		}
		count.reset()
		a2, err := claim(req("b"))
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("second claim (first candidate taken): %d requests: %v", count.total(), count.paths())
		if a2.NodeID != n2.UUID {
			t.Errorf("second claim = %+v, want node %s", a2, n2.UUID)
		}
		count.reset()
		_, err = claim(req("c"))
		t.Logf("third claim: %d requests; error: %v", count.total(), err)
		if !errors.Is(err, lifecycle.ErrNoCapacity) || !strings.Contains(err.Error(), "tried 2 candidates") {
			t.Fatalf("third claim err = %v, want ErrNoCapacity after 2 candidates", err)
		}
		// The failed allocation was deleted: its name is free.
		if _, ok, err := c.Allocation(ctx, base+"-c"); ok || err != nil {
			t.Errorf("failed allocation left behind (ok=%v, err=%v)", ok, err)
		}

		// Allocation reads it back; the node carries it.
		got, ok, err := c.Allocation(ctx, a1.ID)
		if err != nil || !ok || got != a1 {
			t.Errorf("Allocation(%s) = %+v, %v, %v; want %+v", a1.ID, got, ok, err, a1)
		}
		if n := nodeOf(n1.UUID); n.AllocationUUID != a1.ID || n.InstanceUUID != a1.ID {
			t.Errorf("node 1 allocation_uuid %q instance_uuid %q, want %s", n.AllocationUUID, n.InstanceUUID, a1.ID)
		}
		host, err := c.Host(ctx, n1.UUID)
		if err != nil || host.AllocationID != a1.ID {
			t.Errorf("Host(n1).AllocationID = %q (%v), want %s", host.AllocationID, err, a1.ID)
		}

		// Idempotent by name: the same claim again returns the same
		// allocation, whatever the candidates now say.
		count.reset()
		again, err := claim(req("a"))
		if err != nil || again != a1 {
			t.Errorf("repeated claim = %+v, %v; want %+v", again, err, a1)
		}
		if count.total() != 1 {
			t.Errorf("repeated claim made %d requests: %v", count.total(), count.paths())
		}

		// Release frees the node; releasing again is fine.
		releaseAll()
		if _, ok, err := c.Allocation(ctx, a1.ID); ok || err != nil {
			t.Errorf("released allocation still there (ok=%v, err=%v)", ok, err)
		}
		if n := nodeOf(n1.UUID); n.AllocationUUID != "" || n.InstanceUUID != "" {
			t.Errorf("after release node 1 allocation_uuid %q instance_uuid %q", n.AllocationUUID, n.InstanceUUID)
		}
		if err := c.Release(ctx, a1.ID); err != nil {
			t.Errorf("second release: %v", err)
		}
		made = nil
	})

	t.Run("concurrent", func(t *testing.T) {
		type result struct {
			a   lifecycle.Allocation
			err error
		}
		results := make([]result, 3)
		var wg sync.WaitGroup
		for i := range results {
			wg.Go(func() {
				a, err := c.Claim(ctx, req(fmt.Sprintf("p%d", i)))
				results[i] = result{a, err}
			})
		}
		wg.Wait()
		got := map[string]bool{}
		failures := 0
		for i, r := range results {
			switch {
			case r.err == nil:
				made = append(made, r.a.ID)
				if got[r.a.NodeID] {
					t.Errorf("claim %d got node %s twice", i, r.a.NodeID)
				}
				got[r.a.NodeID] = true
			case errors.Is(r.err, lifecycle.ErrNoCapacity):
				failures++
			default:
				t.Errorf("claim %d: %v", i, r.err)
			}
		}
		if !got[n1.UUID] || !got[n2.UUID] || failures != 1 {
			t.Errorf("concurrent claims: nodes %v, %d without capacity; want both nodes and 1", got, failures)
		}
		releaseAll()
		made = nil
	})

	t.Run("leftover and mismatch", func(t *testing.T) {
		// A leftover allocation of the same name in error is deleted and
		// the claim proceeds.
		name := base + "-left"
		bad, err := allocations.Create(ctx, sc, allocations.CreateOpts{
			Name: name, ResourceClass: "no-such-class", CandidateNodes: []string{n2.UUID},
		}).Extract()
		if err != nil {
			t.Fatal(err)
		}
		made = append(made, bad.UUID)
		r := req("left")
		r.ResourceClass = "" // the candidate's own is used
		a, err := claim(r)
		if err != nil || a.NodeID != n1.UUID || a.ID == bad.UUID {
			t.Fatalf("claim over a leftover = %+v, %v", a, err)
		}

		// Traits no candidate has: no capacity, reasons from Ironic.
		r = req("trait")
		r.Traits = []string{"CUSTOM_NOT_THERE"}
		r.Candidates = []string{n2.UUID}
		_, err = claim(r)
		if !errors.Is(err, lifecycle.ErrNoCapacity) || !strings.Contains(err.Error(), "tried 1 candidate") {
			t.Errorf("claim with missing trait: %v", err)
		}
		// An unknown candidate is skipped, the next one taken.
		r = req("unknown")
		r.Candidates = []string{uniqueName(t) + "-gone", n2.UUID}
		if a, err := claim(r); err != nil || a.NodeID != n2.UUID {
			t.Errorf("claim past an unknown candidate = %+v, %v", a, err)
		}
		releaseAll()
		made = nil
	})

	t.Run("missing", func(t *testing.T) {
		if _, ok, err := c.Allocation(ctx, base+"-never"); ok || err != nil {
			t.Errorf("Allocation(missing) ok=%v err=%v", ok, err)
		}
		if err := c.Release(ctx, base+"-never"); err != nil {
			t.Errorf("Release(missing) = %v", err)
		}
		if _, err := c.Claim(ctx, lifecycle.ClaimRequest{Name: base + "-none", ResourceClass: "baremetal"}); !errors.Is(err, lifecycle.ErrNoCapacity) {
			t.Errorf("claim without candidates: %v", err)
		}
	})
}
