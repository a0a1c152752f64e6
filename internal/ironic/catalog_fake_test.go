package ironic

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/ironic/ironictest"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

func catalogOnFake(t *testing.T) (*Catalog, *ironictest.Server) {
	t.Helper()
	p, srv := onFake(t)
	return NewCatalog(p.sc, WithClaimPollInterval(time.Millisecond), WithAllocationTimeout(time.Second), WithListPageLimit(50)), srv
}

func TestFakeCatalogHosts(t *testing.T) {
	c, srv := catalogOnFake(t)
	a := srv.AddNode(nodes.Node{Name: "a", ProvisionState: "available", ResourceClass: "gpu", Traits: []string{"CUSTOM_GPU"},
		Properties: map[string]any{"cpus": 8, "memory_mb": 16384, "local_gb": 100, "cpu_arch": "x86_64"},
		Extra:      map[string]any{"labels": map[string]any{"zone": "z1"}}})
	srv.AddPort(a, "52:54:00:00:00:0a")
	srv.AddNode(nodes.Node{Name: "b", ProvisionState: "active", ResourceClass: "baremetal"})

	hosts, err := c.Hosts(context.Background())
	if err != nil || len(hosts) != 2 {
		t.Fatalf("%d hosts, %v", len(hosts), err)
	}
	var ha lifecycle.HostSummary
	for _, h := range hosts {
		if h.Name == "a" {
			ha = h
		}
	}
	if ha.ID != a || ha.Labels["zone"] != "z1" || ha.ResourceClass != "gpu" || ha.Hardware == nil || ha.Hardware.CPUCount != 8 ||
		ha.Hardware.RAMMebibytes != 16384 || len(ha.Hardware.NICs) != 1 {
		t.Fatalf("host a: %+v hardware %+v", ha, ha.Hardware)
	}
	one, err := c.Host(context.Background(), "a")
	if err != nil || one.ID != a || len(one.Hardware.NICs) != 1 {
		t.Fatalf("Host(a): %+v, %v", one, err)
	}
	if _, err := c.Host(context.Background(), "nope"); !errors.Is(err, lifecycle.ErrNotRegistered) {
		t.Fatalf("Host(nope): %v, want ErrNotRegistered", err)
	}
}

func TestFakeClaim(t *testing.T) {
	c, srv := catalogOnFake(t)
	ctx := context.Background()
	busy := srv.AddNode(nodes.Node{Name: "busy", ProvisionState: "available", ResourceClass: "baremetal", InstanceUUID: "someone"})
	free := srv.AddNode(nodes.Node{Name: "free", ProvisionState: "available", ResourceClass: "baremetal"})

	a, err := c.Claim(ctx, lifecycle.ClaimRequest{Name: "claim-1", ResourceClass: "baremetal", Candidates: []string{busy, free},
		Extra: map[string]string{"owner": "test"}})
	if err != nil || a.State != "active" || a.NodeID != free {
		t.Fatalf("claim: %+v, %v; want the free node", a, err)
	}
	// The busy candidate's failed allocation was deleted again.
	if all := srv.Allocations(); len(all) != 1 || all[0].Name != "claim-1" {
		t.Fatalf("allocations %+v", all)
	}
	// Idempotent by name: the same allocation comes back.
	again, err := c.Claim(ctx, lifecycle.ClaimRequest{Name: "claim-1", ResourceClass: "baremetal", Candidates: []string{busy, free}})
	if err != nil || again.ID != a.ID {
		t.Fatalf("second claim: %+v, %v; want %s", again, err, a.ID)
	}
	got, ok, err := c.Allocation(ctx, "claim-1")
	if err != nil || !ok || got.NodeID != free {
		t.Fatalf("Allocation: %+v %v %v", got, ok, err)
	}
	// Nothing left: no capacity, with each candidate's reason.
	_, err = c.Claim(ctx, lifecycle.ClaimRequest{Name: "claim-2", Candidates: []string{free, "missing"}})
	if !errors.Is(err, lifecycle.ErrNoCapacity) || !strings.Contains(err.Error(), "missing: no such node") {
		t.Fatalf("claim-2: %v", err)
	}
	if _, err := c.Claim(ctx, lifecycle.ClaimRequest{Name: "claim-3"}); !errors.Is(err, lifecycle.ErrNoCapacity) {
		t.Fatalf("no candidates: %v", err)
	}

	if err := c.Release(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	if n := srv.MustNode(free); n.InstanceUUID != "" || n.AllocationUUID != "" {
		t.Fatalf("released node still claimed: %+v", n)
	}
	if err := c.Release(ctx, a.ID); err != nil {
		t.Fatalf("releasing twice: %v", err)
	}
	if _, ok, err := c.Allocation(ctx, a.ID); ok || err != nil {
		t.Fatalf("released allocation still there: %v %v", ok, err)
	}
	srv.AddFault(ironictest.Fault{Method: http.MethodDelete, Status: http.StatusInternalServerError, Message: "boom"})
	if err := c.Release(ctx, "x"); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("a failing delete: %v", err)
	}
}

func TestFakeBIOS(t *testing.T) {
	c, srv := catalogOnFake(t)
	id := srv.AddNode(nodes.Node{Name: "a", Driver: "redfish", ProvisionState: "manageable"})
	srv.SetBIOS(id, []nodes.BIOSSetting{
		{Name: "ProcTurboMode", Value: "Enabled"},
		{Name: "AdminPassword", Value: "x"},
	})
	b, err := c.BIOS(context.Background(), "a", nil)
	if err != nil || b.Driver != "redfish" || b.Settings["ProcTurboMode"].Value != "Enabled" || len(b.Settings) != 1 ||
		b.SchemaSource != lifecycle.SchemaSourceNone {
		t.Fatalf("%+v, %v; want ProcTurboMode only (passwords dropped), no schema on 1.82 without detail", b, err)
	}
	if _, err := c.BIOS(context.Background(), "nope", nil); !errors.Is(err, lifecycle.ErrNotRegistered) {
		t.Fatalf("missing node: %v", err)
	}
}

// Without an inventory (fake and redfish inspection store none) the
// details come from the node's properties and ports.
func TestFakeInspectFromProperties(t *testing.T) {
	p, srv := onFake(t)
	h := fakeSpecHost("h1")
	id := nodeIn(srv, h, "manageable", "")
	now := time.Now()
	srv.UpdateNode(id, func(n *nodes.Node) {
		n.InspectionFinishedAt = &now
		n.Properties = map[string]any{"cpus": "4", "memory_mb": 8192.0, "local_gb": 50, "cpu_arch": "aarch64"}
	})
	srv.AddPort(id, "52:54:00:00:00:0b")
	res, _, d, err := p.Inspect(context.Background(), h, false, false)
	if err != nil || res.Dirty || d == nil || d.CPUCount != 4 || d.RAMMebibytes != 8192 || d.CPUArch != "aarch64" || len(d.NICs) != 1 {
		t.Fatalf("%+v, %+v, %v", res, d, err)
	}
}

// Ironic picks the node after the allocation is created; Claim waits for it.
func TestFakeClaimWaitsWhileAllocating(t *testing.T) {
	c, srv := catalogOnFake(t)
	srv.AllocatingReads = 2
	id := srv.AddNode(nodes.Node{Name: "a", ProvisionState: "available", ResourceClass: "baremetal"})
	a, err := c.Claim(context.Background(), lifecycle.ClaimRequest{Name: "c", ResourceClass: "baremetal", Candidates: []string{id}})
	if err != nil || a.State != "active" || a.NodeID != id {
		t.Fatalf("%+v, %v", a, err)
	}
	if n := srv.Count(http.MethodGet, "/allocations/"+a.ID); n < 2 {
		t.Fatalf("%d reads of the allocation, want it polled while allocating", n)
	}
}

// A provisioner made WithoutInspectionDetails (the provider's) finishes an
// inspection without reading the inventory, the node's properties or its
// ports: one request fewer per host in an apply.
func TestFakeInspectWithoutDetails(t *testing.T) {
	p, srv := onFake(t, WithoutInspectionDetails())
	h := fakeSpecHost("h1")
	id := nodeIn(srv, h, "manageable", "")
	now := time.Now()
	srv.UpdateNode(id, func(n *nodes.Node) { n.InspectionFinishedAt = &now })
	srv.SetInventory(id, map[string]any{"inventory": map[string]any{"cpu": map[string]any{"count": 8}}})
	srv.ResetRequests()
	res, _, d, err := p.Inspect(context.Background(), h, false, false)
	if err != nil || res.Dirty || res.ErrorMessage != "" || d != nil {
		t.Fatalf("%+v, %+v, %v", res, d, err)
	}
	if n := srv.Count(http.MethodGet, "/inventory") + srv.Count(http.MethodGet, "/ports"); n != 0 {
		t.Errorf("%d inventory or port reads, want none", n)
	}
}
