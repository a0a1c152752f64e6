package agent

import (
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"
)

// A switch port's LLDPDU in IPA's inventory format, byte for byte: chassis
// id subtype MAC, port id subtype interface name, TTL, system name, the
// IEEE 802.1 port VLAN id and VLAN name TLVs, and the end TLV.
func TestSwitchPortTLVs(t *testing.T) {
	p := SwitchPort{
		ChassisMAC: "64:64:9B:31:12:00", PortID: "Ethernet1/3", SystemName: "leaf-1",
		PortVLAN: 10, VLANs: []VLAN{{ID: 100, Name: "prov"}},
	}
	tlvs, err := p.TLVs()
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(tlvs)
	want := `[[1,"0464649b311200"],[2,"05` + hexOf("Ethernet1/3") + `"],[3,"0078"],[5,"` + hexOf("leaf-1") + `"],` +
		`[127,"0080c201000a"],[127,"0080c2030064` + "04" + hexOf("prov") + `"],[0,""]]`
	if string(got) != want {
		t.Errorf("TLVs\n got  %s\n want %s", got, want)
	}
}

func hexOf(s string) string { return hex.EncodeToString([]byte(s)) }

// Bad wiring is refused when cabled, naming the bad value.
func TestCableRefusesBadPorts(t *testing.T) {
	a := &Agent{name: "sys-bad"}
	for _, tc := range []struct {
		mac  string
		port SwitchPort
		want string
	}{
		{"not-a-mac", SwitchPort{ChassisMAC: "64:64:9b:31:12:00", PortID: "p1"}, `"not-a-mac"`},
		{"52:54:00:00:00:01", SwitchPort{ChassisMAC: "leaf-1", PortID: "p1"}, `chassis MAC "leaf-1"`},
		{"52:54:00:00:00:01", SwitchPort{ChassisMAC: "64:64:9b:31:12:00"}, `port id ""`},
		{"52:54:00:00:00:01", SwitchPort{ChassisMAC: "64:64:9b:31:12:00", PortID: "p1", PortVLAN: 5000}, "port VLAN 5000"},
		{"52:54:00:00:00:01", SwitchPort{ChassisMAC: "64:64:9b:31:12:00", PortID: "p1", VLANs: []VLAN{{ID: 0, Name: "x"}}}, `VLAN 0 "x"`},
	} {
		err := a.Cable(tc.mac, &tc.port)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Cable(%s, %+v) = %v, want an error with %s", tc.mac, tc.port, err, tc.want)
		}
	}
}

// The inventory reports no LLDP until the agent is cabled (IPA collects
// none by default); then each cabled NIC reports its port's TLVs and the
// others an empty list; re-cabling and unplugging show in the next
// inventory.
func TestInventoryLLDPFollowsCabling(t *testing.T) {
	a := &Agent{name: "sys-lldp"}
	inv := func() Inventory {
		i := Inventory{Interfaces: []Interface{{Name: "eno1", MACAddress: "52:54:00:AA:00:01"}, {Name: "eno2", MACAddress: "52:54:00:aa:00:02"}}}
		a.withLLDP(&i)
		return i
	}
	if i := inv(); i.Interfaces[0].LLDP != nil || i.Interfaces[1].LLDP != nil {
		t.Fatalf("uncabled agent reports LLDP: %+v", i.Interfaces)
	}
	leaf1 := SwitchPort{ChassisMAC: "64:64:9b:31:12:00", PortID: "Ethernet1/3", SystemName: "leaf-1"}
	if err := a.Cable("52:54:00:aa:00:01", &leaf1); err != nil {
		t.Fatal(err)
	}
	chassisOf := func(i Inventory, n int) string {
		tlvs, ok := i.Interfaces[n].LLDP.([][2]any)
		if !ok {
			t.Fatalf("eno%d lldp %T %v", n+1, i.Interfaces[n].LLDP, i.Interfaces[n].LLDP)
		}
		if len(tlvs) == 0 {
			return ""
		}
		return tlvs[0][1].(string) + " " + tlvs[1][1].(string)
	}
	i := inv()
	if got := chassisOf(i, 0); got != "0464649b311200 05"+hexOf("Ethernet1/3") {
		t.Errorf("eno1 chassis/port %q", got)
	}
	if got := chassisOf(i, 1); got != "" {
		t.Errorf("uncabled eno2 reports %q, want an empty list", got)
	}
	leaf2 := SwitchPort{ChassisMAC: "64:64:9b:31:99:00", PortID: "Ethernet1/7"}
	if err := a.Cable("52:54:00:aa:00:01", &leaf2); err != nil {
		t.Fatal(err)
	}
	if got := chassisOf(inv(), 0); got != "0464649b319900 05"+hexOf("Ethernet1/7") {
		t.Errorf("re-cabled eno1 chassis/port %q", got)
	}
	if err := a.Cable("52:54:00:aa:00:01", nil); err != nil {
		t.Fatal(err)
	}
	if got := chassisOf(inv(), 0); got != "" {
		t.Errorf("unplugged eno1 reports %q", got)
	}
}
