package ironic

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/noauth"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// Within one reconcile pass the node is read once, until something is
// written; outside a pass every read goes to Ironic.
func TestNodeReadOncePerPass(t *testing.T) {
	var gets atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gets.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"uuid": "node-1", "name": "host-1", "provision_state": "available"})
	}))
	defer srv.Close()
	sc, err := noauth.NewBareMetalNoAuth(noauth.EndpointOpts{IronicEndpoint: srv.URL + "/v1"})
	if err != nil {
		t.Fatal(err)
	}
	p := NewProvisioner(sc, nil)
	h := &lifecycle.Host{Spec: lifecycle.HostSpec{Name: "host-1"}, Status: lifecycle.HostStatus{ID: "node-1"}}

	ctx := lifecycle.WithPass(context.Background())
	for range 3 {
		if _, err := p.current(ctx, h); err != nil {
			t.Fatal(err)
		}
	}
	if n := gets.Load(); n != 1 {
		t.Fatalf("%d GETs in one pass, want 1", n)
	}
	// Looking the node up by name hits the same read.
	if _, err := p.getNode(ctx, h, "host-1"); err != nil || gets.Load() != 1 {
		t.Fatalf("lookup by name: %v, %d GETs", err, gets.Load())
	}
	lifecycle.Memo(ctx).Clear() // what the transport does on a write (see TestFakeMemoClearedByEveryWrite)
	if _, err := p.current(ctx, h); err != nil || gets.Load() != 2 {
		t.Fatalf("after a write: %v, %d GETs, want a fresh read (2)", err, gets.Load())
	}
	// Outside a pass (Terraform's Read, import) nothing is remembered.
	for range 2 {
		if _, err := p.current(context.Background(), h); err != nil {
			t.Fatal(err)
		}
	}
	if n := gets.Load(); n != 4 {
		t.Fatalf("%d GETs, want 4", n)
	}
}
