package ironic

import (
	"context"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/ironic/clients"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/ironic/ironictest"
)

// Ironic 29.0.5 makes every PATCHed node its own parent_node, which then
// fails its power-off ("child_node ... is presently locked"). The first
// such PATCH is followed by one that sets has_dedicated_power_supply;
// later PATCHes of other nodes carry it at once, in one request; a node
// that has it is not written again for it.
func TestUpdateUnparentsSelfParentedNodes(t *testing.T) {
	p, srv := onFake(t)
	srv.Lock.Lock()
	srv.SelfParentingPatch = true
	srv.Lock.Unlock()
	a := srv.AddNode(nodes.Node{Name: "a", ProvisionState: "manageable", DriverInfo: map[string]any{}})
	b := srv.AddNode(nodes.Node{Name: "b", ProvisionState: "manageable", DriverInfo: map[string]any{}})
	ctx := context.Background()
	patch := func(id string) *nodes.Node {
		t.Helper()
		n, _ := srv.Node(id)
		op := nodes.UpdateOpts{nodes.UpdateOperation{Op: nodes.AddOp, Path: "/extra/k", Value: "v"}}
		got, _, ok, err := p.update(ctx, fakeSpecHost("h"), &n, "update", op)
		if err != nil || !ok {
			t.Fatalf("update %s: ok %t, %v", id, ok, err)
		}
		return got
	}
	countPatches := func() int {
		c := 0
		for _, r := range srv.Requests() {
			if r.Method == "PATCH" && strings.HasPrefix(r.Path, "/v1/nodes/") {
				c++
			}
		}
		srv.ResetRequests()
		return c
	}
	for _, step := range []struct {
		id      string
		patches int
	}{{a, 2}, {b, 1}, {a, 1}} {
		got := patch(step.id)
		if !ownPowerSupply(got) || got.Extra["k"] != "v" {
			t.Errorf("node %s after update: driver_info %v, extra %v", step.id, got.DriverInfo, got.Extra)
		}
		if v, shown := visibleDriverInfo(got.DriverInfo)["has_dedicated_power_supply"]; shown {
			t.Errorf("node %s: the mark shows in the host's driver_info (%s): an import would plan its removal", step.id, v)
		}
		if n := countPatches(); n != step.patches {
			t.Errorf("node %s: %d PATCHes, want %d", step.id, n, step.patches)
		}
	}
	// A node Ironic does not self-parent is not marked.
	p2, srv2 := onFake(t)
	c := srv2.AddNode(nodes.Node{Name: "c", ProvisionState: "manageable", DriverInfo: map[string]any{}})
	n, _ := srv2.Node(c)
	got, _, _, err := p2.update(ctx, fakeSpecHost("h"), &n, "update", nodes.UpdateOpts{nodes.UpdateOperation{Op: nodes.AddOp, Path: "/extra/k", Value: "v"}})
	if err != nil || ownPowerSupply(got) {
		t.Errorf("plain Ironic: driver_info %v, %v", got.DriverInfo, err)
	}
}

// A node another client's PATCH made its own parent is unparented before
// this provider changes its power: the power request follows the fix.
func TestPowerChangeUnparentsFirst(t *testing.T) {
	p, srv := onFake(t)
	const id = "5e1f5e1f-0000-4000-8000-000000000001"
	srv.AddNode(nodes.Node{UUID: id, Name: "d", ProvisionState: "manageable", PowerState: "power off",
		ParentNode: id, DriverInfo: map[string]any{}})
	n, _ := srv.Node(id)
	if _, err := p.changePower(context.Background(), fakeSpecHost("d"), &n, nodes.PowerOn); err != nil {
		t.Fatalf("power on: %v", err)
	}
	var seq []string
	for _, r := range srv.Requests() {
		if r.Method != "GET" {
			seq = append(seq, r.Method+" "+r.Path)
		}
	}
	if want := "PATCH /v1/nodes/" + id + ",PUT /v1/nodes/" + id + "/states/power"; strings.Join(seq, ",") != want {
		t.Errorf("requests %v, want %s", seq, want)
	}
	if got, _ := srv.Node(id); !ownPowerSupply(&got) {
		t.Errorf("driver_info %v: not unparented", got.DriverInfo)
	}
}

// A client pinned below 1.83 on a server that has parent_node cannot see
// a self-parented node: every PATCH of a node without the mark carries it.
func TestUpdateMarksWhenParentBlind(t *testing.T) {
	srv := ironictest.New(t)
	srv.Lock.Lock()
	srv.MaxMicroversion, srv.SelfParentingPatch = "1.96", true
	srv.Lock.Unlock()
	conn, err := clients.Connect(context.Background(), clients.Config{Endpoint: srv.URL, Microversion: "1.82", MaxRetries: 1})
	if err != nil {
		t.Fatal(err)
	}
	p := NewProvisioner(conn.Client, nil, WithServerMaxMicroversion(conn.MaxMicroversion))
	id := srv.AddNode(nodes.Node{Name: "e", ProvisionState: "manageable", DriverInfo: map[string]any{}})
	n, _ := srv.Node(id)
	srv.ResetRequests()
	got, _, _, err := p.update(context.Background(), fakeSpecHost("e"), &n, "update",
		nodes.UpdateOpts{nodes.UpdateOperation{Op: nodes.AddOp, Path: "/extra/k", Value: "v"}})
	if err != nil || !ownPowerSupply(got) {
		t.Fatalf("pinned 1.82 on a 1.96 server: driver_info %v, %v", got.DriverInfo, err)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests, want the one PATCH", n)
	}
}
