package ironic

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"
	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/ports"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

func ptr[T any](v T) *T { return &v }

// portWrites lists the writes of a port sync, with the node and port
// UUIDs cut.
func portWrites(calls []string) []string {
	var out []string
	for _, c := range calls {
		method, path, _ := strings.Cut(c, " ")
		parts := strings.Split(path, "/")
		if len(parts) > 2 {
			parts[2] = "ID"
		}
		out = append(out, method+" "+strings.Join(parts, "/"))
	}
	return out
}

// On the fake Ironic, through the state machine's SyncPorts: on an
// available node a port's connectivity fields change inside a maintenance
// window the provider opens and closes (Ironic refuses them otherwise), a
// configured MAC the node lacks becomes a port with its settings, and an
// inspected NIC without a port becomes one (not PXE-enabled); the read
// gives back what was set; a second sync writes nothing.
func TestFakeSyncPortsAvailable(t *testing.T) {
	p, srv := onFake(t)
	h := fakeSpecHost("ports-1")
	id := nodeIn(srv, h, "available", "")
	srv.AddPort(id, "52:54:00:00:00:01")
	h.Status.HardwareDetails = &lifecycle.HardwareDetails{NICs: []lifecycle.NIC{{Name: "eno3", MAC: "52:54:00:00:00:03"}}}
	want := []lifecycle.Port{
		{MAC: "52:54:00:00:00:01", PXEEnabled: ptr(true), PhysicalNetwork: ptr("provisioning"),
			LocalLinkConnection: &lifecycle.LocalLink{SwitchID: "AA:BB:CC:DD:EE:01", PortID: "Ethernet1/1", SwitchInfo: "tor-1"}},
		{MAC: "52:54:00:00:00:02", PhysicalNetwork: ptr("tenant"),
			LocalLinkConnection: &lifecycle.LocalLink{SwitchID: "aa:bb:cc:dd:ee:02", PortID: "Ethernet1/2"}},
	}
	m := &lifecycle.Machine{Prov: p, Wait: instantWaiter{}, Rand: func() float64 { return 0 }}
	srv.ResetRequests()
	if err := m.SyncPorts(context.Background(), h, want); err != nil {
		t.Fatalf("SyncPorts: %v", err)
	}
	wantWrites := []string{
		"POST /ports", "POST /ports", // 00:02 configured, 00:03 inspected
		"PUT /nodes/ID/maintenance", "PATCH /ports/ID", "DELETE /nodes/ID/maintenance",
	}
	if got := portWrites(srv.Calls()); !slices.Equal(got, wantWrites) {
		t.Errorf("writes %q, want %q", got, wantWrites)
	}
	if n := srv.MustNode(id); n.Maintenance || n.ProvisionState != "available" {
		t.Errorf("node maintenance %v (%q), state %q", n.Maintenance, n.MaintenanceReason, n.ProvisionState)
	}
	got, err := p.Ports(context.Background(), h)
	if err != nil {
		t.Fatal(err)
	}
	byMAC := map[string]lifecycle.Port{}
	for _, pt := range got {
		byMAC[pt.MAC] = pt
	}
	p1, p2, p3 := byMAC["52:54:00:00:00:01"], byMAC["52:54:00:00:00:02"], byMAC["52:54:00:00:00:03"]
	if !*p1.PXEEnabled || *p1.PhysicalNetwork != "provisioning" || p1.LocalLinkConnection == nil ||
		*p1.LocalLinkConnection != (lifecycle.LocalLink{SwitchID: "aa:bb:cc:dd:ee:01", PortID: "Ethernet1/1", SwitchInfo: "tor-1"}) {
		t.Errorf("port 01 %+v %+v", p1, p1.LocalLinkConnection)
	}
	if p2.PXEEnabled == nil || *p2.PXEEnabled || *p2.PhysicalNetwork != "tenant" || p2.LocalLinkConnection.PortID != "Ethernet1/2" {
		t.Errorf("port 02 %+v", p2)
	}
	if p3.PXEEnabled == nil || *p3.PXEEnabled {
		t.Errorf("inspected NIC's port %+v, want one without PXE", p3)
	}
	srv.ResetRequests()
	if err := m.SyncPorts(context.Background(), h, want); err != nil {
		t.Fatalf("second SyncPorts: %v", err)
	}
	if calls := srv.Calls(); len(calls) != 0 {
		t.Errorf("second sync wrote %q", calls)
	}
}

// A manageable node's ports change without maintenance; a detached node's
// ports change inside its detach maintenance, which stays.
func TestFakeSyncPortsNoMaintenanceWindow(t *testing.T) {
	for _, tc := range []struct {
		state    string
		detached bool
	}{{"manageable", false}, {"active", true}} {
		t.Run(tc.state, func(t *testing.T) {
			p, srv := onFake(t)
			h := fakeSpecHost("ports-2")
			id := nodeIn(srv, h, tc.state, "")
			srv.AddPort(id, "52:54:00:00:00:01")
			if tc.detached {
				srv.UpdateNode(id, func(n *nodes.Node) { n.Maintenance, n.MaintenanceReason = true, lifecycle.DetachReason })
			}
			m := &lifecycle.Machine{Prov: p, Wait: instantWaiter{}, Rand: func() float64 { return 0 }}
			srv.ResetRequests()
			err := m.SyncPorts(context.Background(), h, []lifecycle.Port{{MAC: "52:54:00:00:00:01", PhysicalNetwork: ptr("physnet1")}})
			if err != nil {
				t.Fatal(err)
			}
			if got := portWrites(srv.Calls()); !slices.Equal(got, []string{"PATCH /ports/ID"}) {
				t.Errorf("writes %q", got)
			}
			if n := srv.MustNode(id); n.Maintenance != tc.detached {
				t.Errorf("maintenance %v (%q)", n.Maintenance, n.MaintenanceReason)
			}
		})
	}
}

// Ironic refuses a port change outside the open states when the node is
// not in maintenance, as the fake shows; SyncPorts never sends one.
func TestFakePortPatchRefusedOnAvailable(t *testing.T) {
	p, srv := onFake(t)
	h := fakeSpecHost("ports-3")
	id := nodeIn(srv, h, "available", "")
	srv.AddPort(id, "52:54:00:00:00:01")
	pts, _ := p.nodePorts(context.Background(), id)
	_, err := ports.Update(context.Background(), p.sc, pts[0].UUID, ports.UpdateOpts{
		ports.UpdateOperation{Op: ports.ReplaceOp, Path: "/physical_network", Value: "x"},
	}).Extract()
	if err == nil || !strings.Contains(err.Error(), "maintenance mode") {
		t.Errorf("err = %v, want Ironic's refusal", err)
	}
}
