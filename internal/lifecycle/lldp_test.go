package lifecycle

import (
	"strings"
	"testing"
)

// Ports that take their local_link_connection from LLDP get the last
// inspection's neighbour on their NIC (MACs without case); the others stay
// as configured; every way it cannot work is an error naming the port.
func TestResolveLLDPPorts(t *testing.T) {
	leaf1 := LLDPNeighbour{SwitchChassisID: "64:64:9B:31:12:00", SwitchPortID: "Ethernet1/3", SwitchSystemName: "leaf-1", VLANIDs: []int{100}}
	heard := map[string]LLDPNeighbour{
		"52:54:00:00:00:01": leaf1,
		"52:54:00:00:00:02": {SwitchChassisID: "leaf-2", SwitchPortID: "Ethernet1/4"},
		"52:54:00:00:00:03": {SwitchChassisID: "64:64:9b:31:12:00"},
	}
	hand := &LocalLink{SwitchID: "aa:bb:cc:dd:ee:ff", PortID: "p9"}
	for _, tc := range []struct {
		name      string
		port      Port
		inspected bool
		want      *LocalLink
		err       string
	}{
		{"from LLDP", Port{MAC: "52:54:00:00:00:01", LocalLinkFromLLDP: true}, true,
			&LocalLink{SwitchID: "64:64:9b:31:12:00", PortID: "Ethernet1/3", SwitchInfo: "leaf-1"}, ""},
		{"MAC in upper case", Port{MAC: "52:54:00:00:00:01", LocalLinkFromLLDP: true}, true,
			&LocalLink{SwitchID: "64:64:9b:31:12:00", PortID: "Ethernet1/3", SwitchInfo: "leaf-1"}, ""},
		{"by hand stays", Port{MAC: "52:54:00:00:00:09", LocalLinkConnection: hand}, false, hand, ""},
		{"no inventory", Port{MAC: "52:54:00:00:00:01", LocalLinkFromLLDP: true}, false, nil,
			"port 52:54:00:00:00:01: local_link_connection_from_lldp needs the host's inspection inventory, and Ironic holds none"},
		{"nothing heard on the NIC", Port{MAC: "52:54:00:00:00:04", LocalLinkFromLLDP: true}, true, nil,
			"port 52:54:00:00:00:04: local_link_connection_from_lldp is set, but the last inspection heard no LLDP from a switch on that NIC"},
		{"chassis id not a MAC", Port{MAC: "52:54:00:00:00:02", LocalLinkFromLLDP: true}, true, nil,
			`port 52:54:00:00:00:02: local_link_connection_from_lldp: the switch's LLDP chassis id "leaf-2" is not a MAC address`},
		{"no port id", Port{MAC: "52:54:00:00:00:03", LocalLinkFromLLDP: true}, true, nil,
			"port 52:54:00:00:00:03: local_link_connection_from_lldp: the switch (chassis 64:64:9b:31:12:00) announced no port id"},
		{"both", Port{MAC: "52:54:00:00:00:01", LocalLinkFromLLDP: true, LocalLinkConnection: hand}, true, nil,
			"port 52:54:00:00:00:01: local_link_connection_from_lldp and local_link_connection are both set"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "MAC in upper case" {
				tc.port.MAC = strings.ToUpper(tc.port.MAC)
			}
			got, err := ResolveLLDPPorts([]Port{tc.port}, heard, tc.inspected)
			switch {
			case tc.err != "":
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one with %q", err, tc.err)
				}
			case err != nil:
				t.Fatal(err)
			case !SameLink(got[0].LocalLinkConnection, tc.want) || got[0].MAC != tc.port.MAC:
				t.Errorf("port %+v link %+v, want %+v", got[0], got[0].LocalLinkConnection, tc.want)
			}
		})
	}
}

func TestSameLink(t *testing.T) {
	a := &LocalLink{SwitchID: "AA:BB:CC:DD:EE:FF", PortID: "p1", SwitchInfo: "leaf"}
	for _, tc := range []struct {
		b    *LocalLink
		want bool
	}{
		{&LocalLink{SwitchID: "aa:bb:cc:dd:ee:ff", PortID: "p1", SwitchInfo: "leaf"}, true},
		{&LocalLink{SwitchID: "aa:bb:cc:dd:ee:ff", PortID: "P1", SwitchInfo: "leaf"}, false},
		{&LocalLink{SwitchID: "aa:bb:cc:dd:ee:ff", PortID: "p1"}, false},
		{nil, false},
	} {
		if got := SameLink(a, tc.b); got != tc.want {
			t.Errorf("SameLink(%+v, %+v) = %v", a, tc.b, got)
		}
	}
	if !SameLink(nil, nil) {
		t.Error("two nils differ")
	}
}
