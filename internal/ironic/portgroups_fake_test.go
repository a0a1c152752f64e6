package ironic

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// members maps each port's MAC to its port group's Ironic name ("" for
// none).
func members(t *testing.T, p *Provisioner, h *lifecycle.Host) map[string]string {
	t.Helper()
	gs, err := p.PortGroups(context.Background(), h)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, g := range gs {
		for _, mac := range g.Ports {
			out[mac] = g.Name
		}
	}
	return out
}

// On the fake Ironic, through the state machine: a bond on an available
// node is created with its mode, properties and address, its member ports
// join it inside a maintenance window the provider opens and closes, and it
// reads back under its own name; a second sync writes nothing. A change of
// mode and members patches the port group and moves the port out; removing
// the bond takes its ports out, then deletes it.
func TestFakeSyncPortGroups(t *testing.T) {
	p, srv := onFake(t)
	h := fakeSpecHost("pg-1")
	id := nodeIn(srv, h, "available", "")
	for _, mac := range []string{"52:54:00:00:00:01", "52:54:00:00:00:02", "52:54:00:00:00:03"} {
		srv.AddPort(id, mac)
	}
	m := &lifecycle.Machine{Prov: p, Wait: instantWaiter{}, Rand: func() float64 { return 0 }}
	ctx := context.Background()
	bond := lifecycle.PortGroup{Name: "bond0", Address: ptr("52:54:00:00:00:01"), Mode: ptr("802.3ad"),
		Properties: map[string]string{"miimon": "100", "xmit_hash_policy": "layer3+4"},
		Ports:      []string{"52:54:00:00:00:02", "52:54:00:00:00:01"}}

	srv.ResetRequests()
	if err := m.SyncPortGroups(ctx, h, []lifecycle.PortGroup{bond}, nil); err != nil {
		t.Fatalf("SyncPortGroups: %v", err)
	}
	want := []string{"POST /portgroups", "PUT /nodes/ID/maintenance", "PATCH /ports/ID", "PATCH /ports/ID", "DELETE /nodes/ID/maintenance"}
	if got := portWrites(srv.Calls()); !slices.Equal(got, want) {
		t.Errorf("writes %q, want %q", got, want)
	}
	if n := srv.MustNode(id); n.Maintenance {
		t.Errorf("maintenance left on: %q", n.MaintenanceReason)
	}
	pgs := srv.PortGroups()
	if len(pgs) != 1 || pgs[0].Name != "pg-1.bond0" || pgs[0].Mode != "802.3ad" || pgs[0].Address != "52:54:00:00:00:01" ||
		pgs[0].Properties["miimon"] != "100" {
		t.Fatalf("port groups in Ironic %+v", pgs)
	}
	got, err := p.PortGroups(ctx, h)
	if err != nil || len(got) != 1 {
		t.Fatalf("PortGroups %+v, %v", got, err)
	}
	if g := got[0]; g.Name != "bond0" || *g.Mode != "802.3ad" || *g.Address != "52:54:00:00:00:01" ||
		!slices.Equal(g.Ports, []string{"52:54:00:00:00:01", "52:54:00:00:00:02"}) || g.Properties["xmit_hash_policy"] != "layer3+4" {
		t.Errorf("read back %+v", g)
	}
	srv.ResetRequests()
	if err := m.SyncPortGroups(ctx, h, []lifecycle.PortGroup{bond}, nil); err != nil {
		t.Fatal(err)
	}
	if calls := srv.Calls(); len(calls) != 0 {
		t.Errorf("second sync wrote %q", calls)
	}

	bond.Mode, bond.Ports = ptr("active-backup"), []string{"52:54:00:00:00:01"}
	srv.ResetRequests()
	if err := m.SyncPortGroups(ctx, h, []lifecycle.PortGroup{bond}, nil); err != nil {
		t.Fatal(err)
	}
	want = []string{"PATCH /portgroups/ID", "PUT /nodes/ID/maintenance", "PATCH /ports/ID", "DELETE /nodes/ID/maintenance"}
	if got := portWrites(srv.Calls()); !slices.Equal(got, want) {
		t.Errorf("update writes %q, want %q", got, want)
	}
	if got := members(t, p, h); got["52:54:00:00:00:02"] != "" || got["52:54:00:00:00:01"] != "bond0" {
		t.Errorf("members after update %v", got)
	}

	srv.ResetRequests()
	if err := m.SyncPortGroups(ctx, h, nil, []string{"bond0"}); err != nil {
		t.Fatal(err)
	}
	want = []string{"PUT /nodes/ID/maintenance", "PATCH /ports/ID", "DELETE /portgroups/ID", "DELETE /nodes/ID/maintenance"}
	if got := portWrites(srv.Calls()); !slices.Equal(got, want) {
		t.Errorf("remove writes %q, want %q", got, want)
	}
	if pgs := srv.PortGroups(); len(pgs) != 0 {
		t.Errorf("port groups left %+v", pgs)
	}
}

// A port group's physical_network needs API 1.102: below it the sync is
// refused before any write, naming the microversion; at 1.102 it is created
// with it and reads back.
func TestFakePortGroupPhysnet(t *testing.T) {
	bond := lifecycle.PortGroup{Name: "bond0", PhysicalNetwork: ptr("physnet1"), Ports: []string{"52:54:00:00:00:01"}}
	for _, mv := range []string{"1.96", "1.102"} {
		t.Run(mv, func(t *testing.T) {
			p, srv := onFakeAt(t, mv)
			h := fakeSpecHost("pg-2")
			id := nodeIn(srv, h, "manageable", "")
			srv.AddPort(id, "52:54:00:00:00:01")
			m := &lifecycle.Machine{Prov: p, Wait: instantWaiter{}, Rand: func() float64 { return 0 }}
			srv.ResetRequests()
			err := m.SyncPortGroups(context.Background(), h, []lifecycle.PortGroup{bond}, nil)
			if mv == "1.96" {
				if err == nil || !strings.Contains(err.Error(), "1.102") || !strings.Contains(err.Error(), "physical_network") {
					t.Fatalf("err = %v, want a refusal naming 1.102", err)
				}
				if calls := srv.Calls(); len(calls) != 0 {
					t.Errorf("refused sync wrote %q", calls)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			// manageable: the port joins without a maintenance window.
			want := []string{"POST /portgroups", "PATCH /ports/ID"}
			if got := portWrites(srv.Calls()); !slices.Equal(got, want) {
				t.Errorf("writes %q, want %q", got, want)
			}
			got, err := p.PortGroups(context.Background(), h)
			if err != nil || len(got) != 1 || got[0].PhysicalNetwork == nil || *got[0].PhysicalNetwork != "physnet1" {
				t.Errorf("read back %+v, %v", got, err)
			}
		})
	}
}
