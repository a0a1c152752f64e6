package ironic

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmc/sim/agent"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

func hx(s string) string { return hex.EncodeToString([]byte(s)) }

// The raw TLV parser, TLV by TLV: the ids' subtypes (MAC, network
// address, names), the system name, IEEE 802.1 port VLAN id and VLAN
// names, and malformed TLVs, which are skipped and counted while the rest
// still reads.
func TestParseLLDP(t *testing.T) {
	const chassisMAC = `[1,"0464649b311200"]`
	portName := `[2,"05` + hx("Ethernet1/3") + `"]`
	for _, tc := range []struct {
		name string
		raw  string
		want *lifecycle.LLDPNeighbour
		bad  int
	}{
		{"null", `null`, nil, 0},
		{"absent", ``, nil, 0},
		{"empty list (nothing heard)", `[]`, nil, 0},
		{"only TTL and end", `[[3,"0078"],[0,""]]`, nil, 0},
		{"full LLDPDU", `[` + chassisMAC + `,` + portName + `,[3,"0078"],[5,"` + hx("leaf-1") + `"],` +
			`[127,"0080c201000a"],[127,"0080c2030064` + "04" + hx("prov") + `"],[127,"0080c20300c8` + "07" + hx("storage") + `"],[0,""]]`,
			&lifecycle.LLDPNeighbour{SwitchChassisID: "64:64:9b:31:12:00", SwitchPortID: "Ethernet1/3", SwitchSystemName: "leaf-1", VLANIDs: []int{100, 200, 10}}, 0},
		{"upper-case hex", `[[1,"0464649B311200"],[2,"05` + strings.ToUpper(hx("Ethernet1/3")) + `"]]`,
			&lifecycle.LLDPNeighbour{SwitchChassisID: "64:64:9b:31:12:00", SwitchPortID: "Ethernet1/3"}, 0},
		{"chassis locally assigned, port MAC", `[[1,"07` + hx("leaf-7") + `"],[2,"03b496914e7a10"]]`,
			&lifecycle.LLDPNeighbour{SwitchChassisID: "leaf-7", SwitchPortID: "b4:96:91:4e:7a:10"}, 0},
		{"chassis IPv4, port IPv6 network addresses", `[[1,"0501c0000201"],[2,"040220010db8000000000000000000000001"]]`,
			&lifecycle.LLDPNeighbour{SwitchChassisID: "192.0.2.1", SwitchPortID: "2001:db8::1"}, 0},
		{"port locally assigned, NUL-padded", `[` + chassisMAC + `,[2,"07` + hx("ge-0/0/10") + `00"]]`,
			&lifecycle.LLDPNeighbour{SwitchChassisID: "64:64:9b:31:12:00", SwitchPortID: "ge-0/0/10"}, 0},
		{"first chassis wins", `[` + chassisMAC + `,[1,"04aabbccddeeff"],` + portName + `]`,
			&lifecycle.LLDPNeighbour{SwitchChassisID: "64:64:9b:31:12:00", SwitchPortID: "Ethernet1/3"}, 0},
		{"other organisation's TLV ignored", `[` + chassisMAC + `,` + portName + `,[127,"00120f0103"]]`,
			&lifecycle.LLDPNeighbour{SwitchChassisID: "64:64:9b:31:12:00", SwitchPortID: "Ethernet1/3"}, 0},
		{"VLAN 0 and duplicates dropped", `[[127,"0080c2010000"],[127,"0080c2030064` + "00" + `"],[127,"0080c2030064` + "00" + `"]]`,
			&lifecycle.LLDPNeighbour{VLANIDs: []int{100}}, 0},

		// Malformed TLVs: skipped, counted, the rest reads.
		{"not a list", `{"1":"04"}`, nil, 1},
		{"not a pair", `[[1],[1,"04aa","x"],"04",` + chassisMAC + `]`, &lifecycle.LLDPNeighbour{SwitchChassisID: "64:64:9b:31:12:00"}, 3},
		{"type not a number", `[["1","0464649b311200"],` + portName + `]`, &lifecycle.LLDPNeighbour{SwitchPortID: "Ethernet1/3"}, 1},
		{"type out of range or fractional", `[[128,"00"],[-1,"00"],[1.5,"00"],` + portName + `]`, &lifecycle.LLDPNeighbour{SwitchPortID: "Ethernet1/3"}, 3},
		{"value not a string", `[[1,4],` + portName + `]`, &lifecycle.LLDPNeighbour{SwitchPortID: "Ethernet1/3"}, 1},
		{"value not hex", `[[1,"04zz"],[1,"046"],` + portName + `]`, &lifecycle.LLDPNeighbour{SwitchPortID: "Ethernet1/3"}, 2},
		{"chassis MAC of 5 bytes", `[[1,"0464649b3112"],` + portName + `]`, &lifecycle.LLDPNeighbour{SwitchPortID: "Ethernet1/3"}, 1},
		{"chassis without a body", `[[1,"04"],[1,""],` + portName + `]`, &lifecycle.LLDPNeighbour{SwitchPortID: "Ethernet1/3"}, 2},
		{"network address of the wrong length", `[[1,"0501c00002"],[2,"0403c0000201"],` + chassisMAC + `]`,
			&lifecycle.LLDPNeighbour{SwitchChassisID: "64:64:9b:31:12:00"}, 2},
		{"empty system name", `[` + chassisMAC + `,[5,""],[5,"0000"]]`, &lifecycle.LLDPNeighbour{SwitchChassisID: "64:64:9b:31:12:00"}, 2},
		{"truncated 802.1 TLVs", `[[127,"0080"],[127,"0080c201000a0b"],[127,"0080c2030064"],[127,"0080c203006405` + hx("prov") + `"],` + chassisMAC + `]`,
			&lifecycle.LLDPNeighbour{SwitchChassisID: "64:64:9b:31:12:00"}, 4},
		{"invalid UTF-8 name", `[` + chassisMAC + `,[5,"6c656166ff31"]]`,
			&lifecycle.LLDPNeighbour{SwitchChassisID: "64:64:9b:31:12:00", SwitchSystemName: "leaf\uFFFD1"}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, bad := parseLLDP(json.RawMessage(tc.raw))
			if !sameNeighbour(got, tc.want) || bad != tc.bad {
				t.Errorf("parseLLDP(%s)\n got  %+v, %d bad\n want %+v, %d bad", tc.raw, got, bad, tc.want, tc.bad)
			}
		})
	}
}

func sameNeighbour(a, b *lifecycle.LLDPNeighbour) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.SwitchChassisID == b.SwitchChassisID && a.SwitchPortID == b.SwitchPortID &&
		a.SwitchSystemName == b.SwitchSystemName && slices.Equal(a.VLANIDs, b.VLANIDs)
}

// What the simulated agent sends is what the parser reads back: the two
// sides of the rig's LLDP agree.
func TestParseLLDPOfSimulatedSwitch(t *testing.T) {
	tlvs, err := agent.SwitchPort{ChassisMAC: "64:64:9B:31:12:00", PortID: "Ethernet1/3", SystemName: "leaf-1",
		PortVLAN: 10, VLANs: []agent.VLAN{{ID: 100, Name: "prov"}, {ID: 200, Name: "storage"}}}.TLVs()
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(tlvs)
	got, bad := parseLLDP(raw)
	want := &lifecycle.LLDPNeighbour{SwitchChassisID: "64:64:9b:31:12:00", SwitchPortID: "Ethernet1/3", SwitchSystemName: "leaf-1", VLANIDs: []int{100, 200, 10}}
	if !sameNeighbour(got, want) || bad != 0 {
		t.Errorf("parsed %s: %+v (%d bad), want %+v", raw, got, bad, want)
	}
}

// Where each NIC's LLDP comes from: the inventory's raw TLVs first, then
// the plugin data's lldp_raw, then its parsed_lldp; unreadable plugin data
// costs only the fallbacks.
func TestInventoryLLDPSources(t *testing.T) {
	inv := `{"inventory": {"interfaces": [
	  {"name": "eno1", "mac_address": "52:54:00:00:00:01", "lldp": [[1,"0464649b311200"],[2,"05` + hx("Ethernet1/1") + `"]]},
	  {"name": "eno2", "mac_address": "52:54:00:00:00:02", "lldp": []},
	  {"name": "eno3", "mac_address": "52:54:00:00:00:03", "lldp": null},
	  {"name": "eno4", "mac_address": "52:54:00:00:00:04"}
	]}, "plugin_data": %s}`
	for _, tc := range []struct {
		name, pluginData string
		want             map[string]string // interface -> chassis/port
	}{
		{"no plugin data", `null`, map[string]string{"eno1": "64:64:9b:31:12:00 Ethernet1/1"}},
		{"raw TLVs win over the plugin data", `{
		  "lldp_raw": {"eno1": [[1,"04aaaaaaaaaaaa"],[2,"05` + hx("wrong") + `"]], "eno2": [[1,"04bbbbbbbbbbbb"],[2,"05` + hx("Ethernet1/2") + `"]]},
		  "parsed_lldp": {"eno1": {"switch_chassis_id": "cc:cc:cc:cc:cc:cc", "switch_port_id": "wrong"},
		                  "eno3": {"switch_chassis_id": "DD:DD:DD:DD:DD:DD", "switch_port_id": "Ethernet1/3", "switch_system_name": "leaf-3",
		                           "switch_port_vlans": [{"id": 30, "name": "x"}], "switch_port_untagged_vlan_id": 3}}}`,
			map[string]string{"eno1": "64:64:9b:31:12:00 Ethernet1/1", "eno2": "bb:bb:bb:bb:bb:bb Ethernet1/2", "eno3": "dd:dd:dd:dd:dd:dd Ethernet1/3 leaf-3 [30 3]"}},
		{"unreadable plugin data", `{"lldp_raw": "nope", "parsed_lldp": 7}`, map[string]string{"eno1": "64:64:9b:31:12:00 Ethernet1/1"}},
		{"malformed fallback entries", `{"lldp_raw": {"eno2": [[1]]}, "parsed_lldp": {"eno4": {"switch_port_vlans": "x"}}}`,
			map[string]string{"eno1": "64:64:9b:31:12:00 Ethernet1/1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var d inventoryLLDP
			if err := json.Unmarshal([]byte(fmt.Sprintf(inv, tc.pluginData)), &d); err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for name, n := range d.neighbours(context.Background(), "node-1") {
				s := n.SwitchChassisID + " " + n.SwitchPortID
				if n.SwitchSystemName != "" {
					s += " " + n.SwitchSystemName
				}
				if n.VLANIDs != nil {
					s += " " + fmt.Sprintf("%v", n.VLANIDs)
				}
				got[name] = s
			}
			if !maps.Equal(got, tc.want) {
				t.Errorf("neighbours %v, want %v", got, tc.want)
			}
		})
	}
}
