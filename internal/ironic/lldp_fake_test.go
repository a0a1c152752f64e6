package ironic

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmc/sim/agent"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// lldpInventory is an inventory whose NICs report the TLVs of the given
// switch ports (by interface name; eno1 and eno2), as the agent posts it.
func lldpInventory(t *testing.T, wiring map[string]*agent.SwitchPort) map[string]any {
	t.Helper()
	var intfs []map[string]any
	for i, name := range []string{"eno1", "eno2"} {
		intf := map[string]any{"name": name, "mac_address": "52:54:00:00:00:0" + string(rune('1'+i)), "lldp": []any{}}
		if sp := wiring[name]; sp != nil {
			tlvs, err := sp.TLVs()
			if err != nil {
				t.Fatal(err)
			}
			intf["lldp"] = tlvs
		}
		intfs = append(intfs, intf)
	}
	return map[string]any{"inventory": map[string]any{"interfaces": intfs}, "plugin_data": map[string]any{}}
}

// On the fake Ironic, a port that takes its local_link_connection from
// LLDP gets the inventory's switch port (chassis MAC, port id, system
// name) inside the maintenance window an available node needs; after the
// cabling changed and the inventory with it, LLDPLinks gives the new
// connection, which Ironic's port no longer matches (the drift Read
// shows), and the next sync moves the port; a third writes nothing. A NIC
// the inspection heard no switch on is an error naming the port, and
// writes nothing.
func TestFakeSyncPortsFromLLDP(t *testing.T) {
	p, srv := onFake(t)
	h := fakeSpecHost("ports-lldp")
	id := nodeIn(srv, h, "available", "")
	srv.AddPort(id, "52:54:00:00:00:01")
	srv.AddPort(id, "52:54:00:00:00:02")
	m := &lifecycle.Machine{Prov: p, Wait: instantWaiter{}, Rand: func() float64 { return 0 }}
	ctx := context.Background()
	want := []lifecycle.Port{{MAC: "52:54:00:00:00:01", LocalLinkFromLLDP: true}}
	link := func() *lifecycle.LocalLink {
		t.Helper()
		got, err := p.Ports(ctx, h)
		if err != nil {
			t.Fatal(err)
		}
		for _, pt := range got {
			if pt.MAC == "52:54:00:00:00:01" {
				return pt.LocalLinkConnection
			}
		}
		t.Fatal("no port 52:54:00:00:00:01")
		return nil
	}

	// No inventory yet.
	err := m.SyncPorts(ctx, h, want)
	if err == nil || !strings.Contains(err.Error(), "port 52:54:00:00:00:01: local_link_connection_from_lldp needs the host's inspection inventory") {
		t.Fatalf("sync without an inventory: %v", err)
	}

	leaf1 := &agent.SwitchPort{ChassisMAC: "64:64:9B:31:12:00", PortID: "Ethernet1/3", SystemName: "leaf-1", PortVLAN: 10}
	srv.SetInventory(id, lldpInventory(t, map[string]*agent.SwitchPort{"eno1": leaf1}))
	srv.ResetRequests()
	if err := m.SyncPorts(ctx, h, want); err != nil {
		t.Fatalf("SyncPorts: %v", err)
	}
	if got, w := portWrites(srv.Calls()), []string{"PUT /nodes/ID/maintenance", "PATCH /ports/ID", "DELETE /nodes/ID/maintenance"}; !slices.Equal(got, w) {
		t.Errorf("writes %q, want %q", got, w)
	}
	first := &lifecycle.LocalLink{SwitchID: "64:64:9b:31:12:00", PortID: "Ethernet1/3", SwitchInfo: "leaf-1"}
	if got := link(); !lifecycle.SameLink(got, first) {
		t.Errorf("port link %+v, want %+v", got, first)
	}
	links, inspected, err := m.LLDPLinks(ctx, h, want)
	if err != nil || !inspected || !lifecycle.SameLink(links["52:54:00:00:00:01"], link()) {
		t.Errorf("LLDPLinks %v %v %v: want the port's own link (no drift)", links, inspected, err)
	}

	// Re-cabled to leaf-2 and inspected again.
	leaf2 := &agent.SwitchPort{ChassisMAC: "64:64:9b:31:99:00", PortID: "Ethernet1/7", SystemName: "leaf-2"}
	srv.SetInventory(id, lldpInventory(t, map[string]*agent.SwitchPort{"eno1": leaf2}))
	second := &lifecycle.LocalLink{SwitchID: "64:64:9b:31:99:00", PortID: "Ethernet1/7", SwitchInfo: "leaf-2"}
	links, inspected, err = m.LLDPLinks(ctx, h, want)
	if err != nil || !inspected || !lifecycle.SameLink(links["52:54:00:00:00:01"], second) || lifecycle.SameLink(link(), second) {
		t.Errorf("after re-cabling: LLDPLinks %+v %v %v, port %+v: want the new link, the port still on the old one",
			links["52:54:00:00:00:01"], inspected, err, link())
	}
	if err := m.SyncPorts(ctx, h, want); err != nil {
		t.Fatalf("SyncPorts after re-cabling: %v", err)
	}
	if got := link(); !lifecycle.SameLink(got, second) {
		t.Errorf("port link after re-cabling %+v, want %+v", got, second)
	}
	srv.ResetRequests()
	if err := m.SyncPorts(ctx, h, want); err != nil {
		t.Fatal(err)
	}
	if got := portWrites(srv.Calls()); len(got) != 0 {
		t.Errorf("a sync with the port in step wrote %q", got)
	}

	// eno2 (52:54:00:00:00:02) heard nothing.
	srv.ResetRequests()
	err = m.SyncPorts(ctx, h, []lifecycle.Port{{MAC: "52:54:00:00:00:02", LocalLinkFromLLDP: true}})
	if err == nil || !strings.Contains(err.Error(), "port 52:54:00:00:00:02: local_link_connection_from_lldp is set, but the last inspection heard no LLDP") {
		t.Errorf("sync of a NIC without LLDP: %v", err)
	}
	if got := portWrites(srv.Calls()); len(got) != 0 {
		t.Errorf("failed sync wrote %q", got)
	}
}
