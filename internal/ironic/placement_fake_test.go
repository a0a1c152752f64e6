package ironic

import (
	"context"
	"net/http"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"
)

// Conductor group and shard are written on create, read back by Observe
// (so drift shows), and put back by the next Register; a conductor group
// that differs only in case (Ironic keeps it in lower case) is no change.
func TestFakePlacementWrittenAndReadBack(t *testing.T) {
	p, srv := onFake(t)
	ctx := context.Background()
	h := fakeSpecHost("h1")
	h.Spec.ConductorGroup, h.Spec.Shard = "Rack1", "shard-a"
	registered(t, p, h)
	n := srv.MustNode("h1")
	if n.ConductorGroup != "Rack1" || n.Shard != "shard-a" {
		t.Fatalf("created with conductor_group %q shard %q", n.ConductorGroup, n.Shard)
	}

	srv.UpdateNode("h1", func(n *nodes.Node) { n.ConductorGroup, n.Shard = "rack1", "shard-b" })
	obs, err := p.Observe(ctx, h)
	if err != nil || obs.ConductorGroup != "rack1" || obs.Shard != "shard-b" {
		t.Fatalf("observed %+v, %v", obs, err)
	}

	srv.ResetRequests()
	registered(t, p, h)
	n = srv.MustNode("h1")
	if n.Shard != "shard-a" || n.ConductorGroup != "rack1" {
		t.Fatalf("after register: conductor_group %q shard %q", n.ConductorGroup, n.Shard)
	}
	if got := srv.Count(http.MethodPatch, ""); got != 1 {
		t.Fatalf("%d PATCHes, want 1 (the shard only): %v", got, srv.Calls())
	}

	// Unset in the spec: removed from the node.
	h.Spec.Shard = ""
	registered(t, p, h)
	if n := srv.MustNode("h1"); n.Shard != "" {
		t.Fatalf("shard %q after unsetting it", n.Shard)
	}
}
