package networkdata

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// hostNICs is what inspection found on the test host (deliberately unsorted).
var hostNICs = []lifecycle.NIC{
	{Name: "eno2", MAC: "0c:c4:7a:00:00:02"},
	{Name: "eth1", MAC: "52:54:00:aa:bb:cc"},
	{Name: "eno1", MAC: "0c:c4:7a:00:00:01"},
}

// assertJSON renders t and compares the JSON semantically with want.
func assertJSON(t *testing.T, tmpl Template, nics []lifecycle.NIC, want string) {
	t.Helper()
	got, err := RenderJSON(tmpl, nics)
	if err != nil {
		t.Fatalf("RenderJSON: %v", err)
	}
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, got)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("bad expected JSON: %v", err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("network_data mismatch\n got: %s\nwant: %s", got, compact(want))
	}
	again, _ := RenderJSON(tmpl, nics)
	if !bytes.Equal(got, again) {
		t.Errorf("output is not deterministic:\n%s\n%s", got, again)
	}
}

func compact(s string) string {
	var b bytes.Buffer
	_ = json.Compact(&b, []byte(s))
	return b.String()
}

func TestRenderEmpty(t *testing.T) {
	assertJSON(t, Template{}, nil, `{"links": [], "networks": [], "services": []}`)
}

func TestRenderEthernetFromNICName(t *testing.T) {
	// The Metal3DataTemplate example: enp1s0 takes eth1's MAC, static IPv4
	// with a default route.
	tmpl := Template{
		Links: Links{Ethernets: []Ethernet{{Type: "phy", ID: "enp1s0", FromHostInterface: "eth1"}}},
		Networks: Networks{IPv4: []Network{{
			ID: "baremetal", Link: "enp1s0", Address: "192.168.111.20", Prefix: 24,
			Routes: []Route{{Network: "0.0.0.0", Prefix: 0, Gateway: "192.168.111.1"}},
		}}},
	}
	assertJSON(t, tmpl, hostNICs, `{
	  "links": [
	    {"id": "enp1s0", "type": "phy", "mtu": 1500, "ethernet_mac_address": "52:54:00:aa:bb:cc"}
	  ],
	  "networks": [
	    {"id": "baremetal", "type": "ipv4", "link": "enp1s0",
	     "ip_address": "192.168.111.20", "netmask": "255.255.255.0",
	     "routes": [{"network": "0.0.0.0", "netmask": "0.0.0.0", "gateway": "192.168.111.1", "services": []}]}
	  ],
	  "services": []
	}`)
}

func TestRenderEthernetLiteralMACAndRename(t *testing.T) {
	tmpl := Template{Links: Links{Ethernets: []Ethernet{
		{ID: "eth0", MTU: 9000, MACAddress: "AA-BB-CC-DD-EE-FF", Name: "enp1s0"},
		{ID: "br0", Type: "ovs", MACAddress: "52:54:00:00:00:09"},
		{ID: "eth9", Name: "data0"}, // rename only, no MAC
	}}}
	assertJSON(t, tmpl, nil, `{
	  "links": [
	    {"id": "eth0", "type": "phy", "mtu": 9000, "ethernet_mac_address": "AA-BB-CC-DD-EE-FF", "name": "enp1s0"},
	    {"id": "br0", "type": "ovs", "mtu": 1500, "ethernet_mac_address": "52:54:00:00:00:09"},
	    {"id": "eth9", "type": "phy", "mtu": 1500, "name": "data0"}
	  ],
	  "networks": [],
	  "services": []
	}`)
}

func TestRenderBondAndVLANOnBond(t *testing.T) {
	tmpl := Template{
		Links: Links{
			Ethernets: []Ethernet{
				{ID: "eno1", FromHostInterface: "eno1"},
				{ID: "eno2", FromHostInterface: "eno2"},
			},
			Bonds: []Bond{{
				ID: "bond0", MTU: 9000, FromHostInterface: "eno1",
				Mode: "802.3ad", XmitHashPolicy: "layer3+4",
				Parameters: map[string]any{"miimon": "100", "bond_lacp_rate": "fast"},
				Links:      []string{"eno1", "eno2"},
			}},
			VLANs: []VLAN{{ID: "bond0.20", VLANID: 20, VLANLink: "bond0", MACAddress: "0c:c4:7a:00:00:01"}},
		},
		Networks: Networks{IPv4: []Network{{
			ID: "storage", Link: "bond0.20", Address: "10.20.0.5/16",
		}}},
	}
	assertJSON(t, tmpl, hostNICs, `{
	  "links": [
	    {"id": "bond0", "type": "bond", "mtu": 9000, "ethernet_mac_address": "0c:c4:7a:00:00:01",
	     "bond_mode": "802.3ad", "bond_xmit_hash_policy": "layer3+4", "bond_links": ["eno1", "eno2"],
	     "bond_miimon": "100", "bond_lacp_rate": "fast"},
	    {"id": "eno1", "type": "phy", "mtu": 1500, "ethernet_mac_address": "0c:c4:7a:00:00:01"},
	    {"id": "eno2", "type": "phy", "mtu": 1500, "ethernet_mac_address": "0c:c4:7a:00:00:02"},
	    {"id": "bond0.20", "type": "vlan", "mtu": 1500, "vlan_id": 20, "vlan_link": "bond0",
	     "vlan_mac_address": "0c:c4:7a:00:00:01"}
	  ],
	  "networks": [
	    {"id": "storage", "type": "ipv4", "link": "bond0.20", "ip_address": "10.20.0.5",
	     "netmask": "255.255.0.0", "routes": []}
	  ],
	  "services": []
	}`)
}

// bond_miimon from the structured field is a JSON number (CAPM3's
// bondMiimon); a parameter may not override it then.
func TestRenderBondMiimon(t *testing.T) {
	miimon := 100
	tmpl := Template{Links: Links{
		Ethernets: []Ethernet{{ID: "a", MACAddress: "52:54:00:00:00:0a"}, {ID: "b", MACAddress: "52:54:00:00:00:0b"}},
		Bonds: []Bond{{ID: "bond0", Mode: "802.3ad", XmitHashPolicy: "layer2+3", Miimon: &miimon, MACAddress: "52:54:00:00:00:0a",
			Links: []string{"a", "b"}, Parameters: map[string]any{"lacp_rate": "fast"}}},
		VLANs: []VLAN{{ID: "bond0.42", VLANID: 42, VLANLink: "bond0"}},
	}}
	assertJSON(t, tmpl, nil, `{
	  "links": [
	    {"id": "bond0", "type": "bond", "mtu": 1500, "ethernet_mac_address": "52:54:00:00:00:0a", "bond_mode": "802.3ad",
	     "bond_xmit_hash_policy": "layer2+3", "bond_miimon": 100, "bond_lacp_rate": "fast", "bond_links": ["a", "b"]},
	    {"id": "a", "type": "phy", "mtu": 1500, "ethernet_mac_address": "52:54:00:00:00:0a"},
	    {"id": "b", "type": "phy", "mtu": 1500, "ethernet_mac_address": "52:54:00:00:00:0b"},
	    {"id": "bond0.42", "type": "vlan", "mtu": 1500, "vlan_id": 42, "vlan_link": "bond0"}
	  ],
	  "networks": [],
	  "services": []
	}`)
	tmpl.Links.Bonds[0].Parameters = map[string]any{"miimon": 200}
	if err := Check(tmpl); err == nil || !strings.Contains(err.Error(), `bond "bond0": parameter "miimon" would override bond_miimon`) {
		t.Errorf("Check = %v, want the override refused", err)
	}
}

func TestRenderActiveBackupBondWithoutMAC(t *testing.T) {
	tmpl := Template{Links: Links{
		Ethernets: []Ethernet{{ID: "a", MACAddress: "52:54:00:00:00:0a"}, {ID: "b", MACAddress: "52:54:00:00:00:0b"}},
		Bonds:     []Bond{{ID: "bond1", Mode: "active-backup", Links: []string{"b", "a"}}},
		VLANs:     []VLAN{{ID: "a.100", VLANID: 4094, VLANLink: "a"}},
	}}
	assertJSON(t, tmpl, nil, `{
	  "links": [
	    {"id": "bond1", "type": "bond", "mtu": 1500, "bond_mode": "active-backup", "bond_links": ["b", "a"]},
	    {"id": "a", "type": "phy", "mtu": 1500, "ethernet_mac_address": "52:54:00:00:00:0a"},
	    {"id": "b", "type": "phy", "mtu": 1500, "ethernet_mac_address": "52:54:00:00:00:0b"},
	    {"id": "a.100", "type": "vlan", "mtu": 1500, "vlan_id": 4094, "vlan_link": "a"}
	  ],
	  "networks": [],
	  "services": []
	}`)
}

func TestRenderIPv4StaticRoutesDNS(t *testing.T) {
	tmpl := Template{
		Links: Links{Ethernets: []Ethernet{{ID: "eno1", FromHostInterface: "eno1"}}},
		Networks: Networks{IPv4: []Network{{
			ID: "provisioning", Link: "eno1", Address: "172.22.0.10", Prefix: 24, Gateway: "172.22.0.1",
			Routes: []Route{
				// No gateway: the network's gateway is used.
				{Network: "10.0.0.0", Prefix: 8, DNS: []string{"10.0.0.53", "10.0.1.53"}},
				{Network: "192.168.0.0", Prefix: 16, Gateway: "172.22.0.254"},
			},
		}}},
	}
	// The network gateway also adds a default route.
	assertJSON(t, tmpl, hostNICs, `{
	  "links": [
	    {"id": "eno1", "type": "phy", "mtu": 1500, "ethernet_mac_address": "0c:c4:7a:00:00:01"}
	  ],
	  "networks": [
	    {"id": "provisioning", "type": "ipv4", "link": "eno1",
	     "ip_address": "172.22.0.10", "netmask": "255.255.255.0",
	     "routes": [
	       {"network": "10.0.0.0", "netmask": "255.0.0.0", "gateway": "172.22.0.1",
	        "services": [{"type": "dns", "address": "10.0.0.53"}, {"type": "dns", "address": "10.0.1.53"}]},
	       {"network": "192.168.0.0", "netmask": "255.255.0.0", "gateway": "172.22.0.254", "services": []},
	       {"network": "0.0.0.0", "netmask": "0.0.0.0", "gateway": "172.22.0.1", "services": []}
	     ]}
	  ],
	  "services": []
	}`)
}

func TestRenderGatewayWithExplicitDefaultRoute(t *testing.T) {
	tmpl := Template{
		Links: Links{Ethernets: []Ethernet{{ID: "eno1", FromHostInterface: "eno1"}}},
		Networks: Networks{IPv4: []Network{{
			ID: "n", Link: "eno1", Address: "10.1.2.3", Prefix: 30, Gateway: "10.1.2.1",
			Routes: []Route{{Network: "0.0.0.0", Prefix: 0, Gateway: "10.1.2.2"}},
		}}},
	}
	assertJSON(t, tmpl, hostNICs, `{
	  "links": [{"id": "eno1", "type": "phy", "mtu": 1500, "ethernet_mac_address": "0c:c4:7a:00:00:01"}],
	  "networks": [
	    {"id": "n", "type": "ipv4", "link": "eno1", "ip_address": "10.1.2.3", "netmask": "255.255.255.252",
	     "routes": [{"network": "0.0.0.0", "netmask": "0.0.0.0", "gateway": "10.1.2.2", "services": []}]}
	  ],
	  "services": []
	}`)
}

func TestRenderIPv6Static(t *testing.T) {
	tmpl := Template{
		Links: Links{Ethernets: []Ethernet{{ID: "eno2", FromHostInterface: "eno2"}}},
		Networks: Networks{IPv6: []Network{{
			ID: "v6", Link: "eno2", Address: "FD00:1::10", Prefix: 64, Gateway: "fd00:1::1",
			Routes: []Route{{Network: "fd00:2::", Prefix: 48, DNS: []string{"fd00:1::53"}}},
		}}},
	}
	assertJSON(t, tmpl, hostNICs, `{
	  "links": [{"id": "eno2", "type": "phy", "mtu": 1500, "ethernet_mac_address": "0c:c4:7a:00:00:02"}],
	  "networks": [
	    {"id": "v6", "type": "ipv6", "link": "eno2", "ip_address": "fd00:1::10",
	     "netmask": "ffff:ffff:ffff:ffff::",
	     "routes": [
	       {"network": "fd00:2::", "netmask": "ffff:ffff:ffff::", "gateway": "fd00:1::1",
	        "services": [{"type": "dns", "address": "fd00:1::53"}]},
	       {"network": "::", "netmask": "::", "gateway": "fd00:1::1", "services": []}
	     ]}
	  ],
	  "services": []
	}`)
}

func TestRenderIPv6CIDRAddress(t *testing.T) {
	tmpl := Template{
		Links:    Links{Ethernets: []Ethernet{{ID: "eno2", FromHostInterface: "eno2"}}},
		Networks: Networks{IPv6: []Network{{ID: "v6", Link: "eno2", Address: "2001:db8::5/128", Prefix: 128}}},
	}
	assertJSON(t, tmpl, hostNICs, `{
	  "links": [{"id": "eno2", "type": "phy", "mtu": 1500, "ethernet_mac_address": "0c:c4:7a:00:00:02"}],
	  "networks": [{"id": "v6", "type": "ipv6", "link": "eno2", "ip_address": "2001:db8::5",
	    "netmask": "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "routes": []}],
	  "services": []
	}`)
}

func TestRenderDHCPVariantsAndServices(t *testing.T) {
	tmpl := Template{
		Links: Links{Ethernets: []Ethernet{
			{ID: "eno1", FromHostInterface: "eno1"},
			{ID: "eno2", FromHostInterface: "eno2"},
		}},
		Networks: Networks{
			IPv4DHCP: []DHCPNetwork{{ID: "d4", Link: "eno1",
				Routes: []Route{{Network: "10.10.0.0", Prefix: 16, Gateway: "10.0.0.1", DNS: []string{"8.8.8.8"}}}}},
			IPv6DHCP:  []DHCPNetwork{{ID: "d6", Link: "eno2"}},
			IPv6SLAAC: []DHCPNetwork{{ID: "s6", Link: "eno2", Routes: []Route{{Network: "fd00:9::", Prefix: 64}}}},
		},
		Services: Services{DNS: []string{"8.8.8.8", "2001:4860:4860::8888"}},
	}
	assertJSON(t, tmpl, hostNICs, `{
	  "links": [
	    {"id": "eno1", "type": "phy", "mtu": 1500, "ethernet_mac_address": "0c:c4:7a:00:00:01"},
	    {"id": "eno2", "type": "phy", "mtu": 1500, "ethernet_mac_address": "0c:c4:7a:00:00:02"}
	  ],
	  "networks": [
	    {"id": "d4", "type": "ipv4_dhcp", "link": "eno1",
	     "routes": [{"network": "10.10.0.0", "netmask": "255.255.0.0", "gateway": "10.0.0.1",
	                 "services": [{"type": "dns", "address": "8.8.8.8"}]}]},
	    {"id": "d6", "type": "ipv6_dhcp", "link": "eno2", "routes": []},
	    {"id": "s6", "type": "ipv6_slaac", "link": "eno2",
	     "routes": [{"network": "fd00:9::", "netmask": "ffff:ffff:ffff:ffff::", "services": []}]}
	  ],
	  "services": [
	    {"type": "dns", "address": "8.8.8.8"},
	    {"type": "dns", "address": "2001:4860:4860::8888"}
	  ]
	}`)
}

func TestRenderReturnsObject(t *testing.T) {
	doc, err := Render(Template{Services: Services{DNS: []string{"1.1.1.1"}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"links":    []any{},
		"networks": []any{},
		"services": []any{map[string]any{"type": "dns", "address": "1.1.1.1"}},
	}
	if !reflect.DeepEqual(doc, want) {
		t.Errorf("Render = %#v", doc)
	}
}

func TestMissingNIC(t *testing.T) {
	tmpl := Template{Links: Links{Ethernets: []Ethernet{{ID: "enp1s0", FromHostInterface: "enp9s0"}}}}
	_, err := Render(tmpl, hostNICs)
	if err == nil {
		t.Fatal("want an error")
	}
	want := `link "enp1s0": the host has no NIC named "enp9s0"; the host has NICs: eno1, eno2, eth1`
	if err.Error() != want {
		t.Errorf("error = %q\nwant    %q", err, want)
	}
	var missing *MissingNICError
	if !errors.As(err, &missing) || missing.NIC != "enp9s0" || missing.Link != "enp1s0" ||
		!reflect.DeepEqual(missing.Available, []string{"eno1", "eno2", "eth1"}) {
		t.Errorf("errors.As MissingNICError: %+v", missing)
	}

	_, err = Render(tmpl, nil)
	if err == nil || !strings.Contains(err.Error(), `no NIC named "enp9s0": no NICs are known for the host (has it been inspected?)`) {
		t.Errorf("no-NIC error = %v", err)
	}
	if _, err := RenderJSON(tmpl, nil); err == nil {
		t.Error("RenderJSON: want an error")
	}
}

func TestRenderErrors(t *testing.T) {
	eth := func(id string) Ethernet { return Ethernet{ID: id, MACAddress: "52:54:00:00:00:01"} }
	onEno1 := func(n Networks) Template {
		return Template{Links: Links{Ethernets: []Ethernet{eth("eno1")}}, Networks: n}
	}
	v4 := func(nw Network) Template {
		if nw.ID == "" {
			nw.ID = "net"
		}
		if nw.Link == "" {
			nw.Link = "eno1"
		}
		return onEno1(Networks{IPv4: []Network{nw}})
	}
	v6 := func(nw Network) Template {
		nw.ID, nw.Link = "net6", "eno1"
		return onEno1(Networks{IPv6: []Network{nw}})
	}
	bond := func(b Bond) Template {
		if b.Mode == "" {
			b.Mode = "balance-rr"
		}
		if b.ID == "" {
			b.ID = "bond0"
		}
		return Template{Links: Links{Ethernets: []Ethernet{eth("eno1"), eth("eno2")}, Bonds: []Bond{b}}}
	}

	for _, tc := range []struct {
		name string
		tmpl Template
		nics []lifecycle.NIC
		want []string
	}{
		{"malformed literal MAC", Template{Links: Links{Ethernets: []Ethernet{{ID: "eth0", MACAddress: "52:54:00:00:00"}}}},
			nil, []string{`link "eth0": malformed MAC address "52:54:00:00:00"`}},
		{"MAC with bad separator", Template{Links: Links{Ethernets: []Ethernet{{ID: "eth0", MACAddress: "5254.0000.0001"}}}},
			nil, []string{`malformed MAC address "5254.0000.0001"`}},
		{"malformed host NIC MAC", Template{Links: Links{Ethernets: []Ethernet{{ID: "eth0", FromHostInterface: "bad"}}}},
			[]lifecycle.NIC{{Name: "bad", MAC: "zz:zz:zz:zz:zz:zz"}},
			[]string{`link "eth0": host NIC "bad" has a malformed MAC address "zz:zz:zz:zz:zz:zz"`}},
		{"MAC and host interface", Template{Links: Links{Ethernets: []Ethernet{
			{ID: "eth0", MACAddress: "52:54:00:00:00:01", FromHostInterface: "eno1"}}}},
			hostNICs, []string{`link "eth0": set either a MAC address or a host interface, not both`}},
		{"ethernet without MAC or name", Template{Links: Links{Ethernets: []Ethernet{{ID: "eth0"}}}},
			nil, []string{`ethernet "eth0" needs a MAC address, a host interface or a name`}},
		{"unknown ethernet type", Template{Links: Links{Ethernets: []Ethernet{{ID: "eth0", Type: "wifi", Name: "x"}}}},
			nil, []string{`ethernet "eth0": unknown link type "wifi"`, "phy"}},
		{"MTU too small", Template{Links: Links{Ethernets: []Ethernet{{ID: "eth0", Name: "x", MTU: 45}}}},
			nil, []string{`link "eth0": MTU 45 is out of range (46-9000)`}},
		{"MTU too big", Template{Links: Links{VLANs: []VLAN{{ID: "v", VLANID: 5, VLANLink: "eth0", MTU: 9001}},
			Ethernets: []Ethernet{{ID: "eth0", Name: "x"}}}},
			nil, []string{`link "v": MTU 9001 is out of range (46-9000)`}},
		{"duplicate link ids", Template{Links: Links{Ethernets: []Ethernet{eth("eno1"), eth("eno1")},
			VLANs: []VLAN{{ID: "eno1", VLANID: 2, VLANLink: "eno1"}}}},
			nil, []string{`duplicate link id "eno1": an ethernet link reuses the id of an ethernet link`,
				`duplicate link id "eno1": a vlan link reuses the id of an ethernet link`}},
		{"bond reuses an ethernet id", Template{Links: Links{Ethernets: []Ethernet{eth("eno1")},
			Bonds: []Bond{{ID: "eno1", Mode: "802.3ad", Links: []string{"eno1"}}}}},
			nil, []string{`duplicate link id "eno1": a bond link reuses the id of an ethernet link`}},
		{"empty link id", Template{Links: Links{Ethernets: []Ethernet{{MACAddress: "52:54:00:00:00:01"}}}},
			nil, []string{"an ethernet link has an empty id"}},
		{"bond member not a link", bond(Bond{Links: []string{"eno1", "eno3"}}),
			nil, []string{`bond "bond0": member "eno3" is not an ethernet link (ethernet links: eno1, eno2)`}},
		{"bond member is a vlan", Template{Links: Links{Ethernets: []Ethernet{eth("eno1")},
			VLANs: []VLAN{{ID: "v10", VLANID: 10, VLANLink: "eno1"}},
			Bonds: []Bond{{ID: "bond0", Mode: "balance-rr", Links: []string{"v10"}}}}},
			nil, []string{`bond "bond0": member "v10" is not an ethernet link (ethernet links: eno1)`}},
		{"bond without ethernets", Template{Links: Links{Bonds: []Bond{{ID: "b", Mode: "broadcast", Links: []string{"x"}}}}},
			nil, []string{`member "x" is not an ethernet link (ethernet links: none)`}},
		{"bond member twice", bond(Bond{Links: []string{"eno1", "eno1"}}),
			nil, []string{`bond "bond0" lists member "eno1" twice`}},
		{"bond without members", bond(Bond{}), nil, []string{`bond "bond0" has no member links`}},
		{"member of two bonds", Template{Links: Links{Ethernets: []Ethernet{eth("eno1"), eth("eno2")}, Bonds: []Bond{
			{ID: "b1", Mode: "balance-xor", Links: []string{"eno1", "eno2"}},
			{ID: "b2", Mode: "balance-tlb", Links: []string{"eno2"}}}}},
			nil, []string{`link "eno2" is a member of two bonds: "b1" and "b2"`}},
		{"unknown bond mode", bond(Bond{Mode: "lacp", Links: []string{"eno1"}}),
			nil, []string{`bond "bond0": unknown bond mode "lacp" (want one of balance-rr, active-backup, balance-xor, broadcast, balance-tlb, balance-alb, 802.3ad)`}},
		{"empty bond mode", Template{Links: Links{Ethernets: []Ethernet{eth("eno1")},
			Bonds: []Bond{{ID: "b", Links: []string{"eno1"}}}}},
			nil, []string{`bond "b": unknown bond mode ""`}},
		{"unknown xmit hash policy", bond(Bond{Mode: "balance-alb", XmitHashPolicy: "layer4", Links: []string{"eno1"}}),
			nil, []string{`bond "bond0": unknown transmit hash policy "layer4"`}},
		{"parameter overrides mode", bond(Bond{Links: []string{"eno1"}, Parameters: map[string]any{"mode": "x", "bond_links": "y"}}),
			nil, []string{`bond "bond0": parameter "mode" would override bond_mode`,
				`bond "bond0": parameter "bond_links" would override bond_links`}},
		{"bond MAC from missing NIC", bond(Bond{Links: []string{"eno1"}, FromHostInterface: "eno7"}),
			hostNICs, []string{`link "bond0": the host has no NIC named "eno7"; the host has NICs: eno1, eno2, eth1`}},
		{"vlan id zero", Template{Links: Links{Ethernets: []Ethernet{eth("eno1")},
			VLANs: []VLAN{{ID: "v", VLANLink: "eno1"}}}},
			nil, []string{`vlan "v": VLAN id 0 is out of range (1-4094)`}},
		{"vlan id too big", Template{Links: Links{Ethernets: []Ethernet{eth("eno1")},
			VLANs: []VLAN{{ID: "v", VLANID: 4095, VLANLink: "eno1"}}}},
			nil, []string{`vlan "v": VLAN id 4095 is out of range (1-4094)`}},
		{"vlan link unknown", Template{Links: Links{Ethernets: []Ethernet{eth("eno1")},
			VLANs: []VLAN{{ID: "v", VLANID: 7, VLANLink: "bond9", MACAddress: "bad"}}}},
			nil, []string{`vlan "v": vlan link "bond9" is not an ethernet or bond link (candidates: eno1)`,
				`link "v": malformed MAC address "bad"`}},
		{"vlan on vlan", Template{Links: Links{Ethernets: []Ethernet{eth("eno1")},
			VLANs: []VLAN{{ID: "v1", VLANID: 7, VLANLink: "eno1"}, {ID: "v2", VLANID: 8, VLANLink: "v1"}}}},
			nil, []string{`vlan "v2": vlan link "v1" is not an ethernet or bond link`}},
		{"network link unknown", v4(Network{Link: "eno9", Address: "10.0.0.2", Prefix: 24}),
			nil, []string{`network "net": link "eno9" matches no link id (links: eno1)`}},
		{"dhcp network link unknown", Template{Networks: Networks{IPv6SLAAC: []DHCPNetwork{{ID: "s", Link: "x"}}}},
			nil, []string{`network "s": link "x" matches no link id (links: none)`}},
		{"duplicate network id", onEno1(Networks{
			IPv4:     []Network{{ID: "n", Link: "eno1", Address: "10.0.0.2", Prefix: 24}},
			IPv4DHCP: []DHCPNetwork{{ID: "n", Link: "eno1"}}}),
			nil, []string{`duplicate network id "n"`}},
		{"empty network id", onEno1(Networks{IPv6DHCP: []DHCPNetwork{{Link: "eno1"}}}),
			nil, []string{"an ipv6_dhcp network has an empty id"}},
		{"invalid IP", v4(Network{Address: "10.0.0.300", Prefix: 24}),
			nil, []string{`network "net": address "10.0.0.300" is not an IPv4 address`}},
		{"IPv6 address on ipv4 network", v4(Network{Address: "fd00::2", Prefix: 24}),
			nil, []string{`network "net": address "fd00::2" is not an IPv4 address`}},
		{"IPv4 address on ipv6 network", v6(Network{Address: "10.0.0.2", Prefix: 64}),
			nil, []string{`network "net6": address "10.0.0.2" is not an IPv6 address`}},
		{"IPv4-mapped address on ipv4 network", v4(Network{Address: "::ffff:10.0.0.2", Prefix: 24}),
			nil, []string{`address "::ffff:10.0.0.2" is not an IPv4 address`}},
		{"empty address", v4(Network{Prefix: 24}), nil, []string{`network "net": address "" is not an IPv4 address`}},
		{"prefix zero", v4(Network{Address: "10.0.0.2"}), nil, []string{`network "net": prefix 0 is out of range (1-32)`}},
		{"prefix 33", v4(Network{Address: "10.0.0.2", Prefix: 33}), nil, []string{`prefix 33 is out of range (1-32)`}},
		{"prefix 129", v6(Network{Address: "fd00::2", Prefix: 129}), nil, []string{`prefix 129 is out of range (1-128)`}},
		{"bad CIDR", v4(Network{Address: "10.0.0.2/40"}), nil, []string{`address "10.0.0.2/40" is not an IPv4 address/prefix`}},
		{"CIDR and prefix disagree", v4(Network{Address: "10.0.0.2/24", Prefix: 16}),
			nil, []string{`address "10.0.0.2/24" has prefix /24 but the prefix is 16`}},
		{"gateway not an IP", v4(Network{Address: "10.0.0.2", Prefix: 24, Gateway: "router"}),
			nil, []string{`network "net": gateway "router" is not an IPv4 address`}},
		{"gateway wrong family", v6(Network{Address: "fd00::2", Prefix: 64, Gateway: "10.0.0.1"}),
			nil, []string{`network "net6": gateway "10.0.0.1" is not an IPv6 address`}},
		{"route network invalid", v4(Network{Address: "10.0.0.2", Prefix: 24,
			Routes: []Route{{Network: "10.0.0", Prefix: 8, Gateway: "10.0.0.1"}}}),
			nil, []string{`network "net": route network "10.0.0" is not an IPv4 address`}},
		{"route prefix out of range", v4(Network{Address: "10.0.0.2", Prefix: 24,
			Routes: []Route{{Network: "10.0.0.0", Prefix: 33, Gateway: "10.0.0.1"}}}),
			nil, []string{`network "net": route 10.0.0.0/33: prefix is out of range (0-32)`}},
		{"route prefix negative", v6(Network{Address: "fd00::2", Prefix: 64,
			Routes: []Route{{Network: "fd00::", Prefix: -1}}}),
			nil, []string{`route fd00::/-1: prefix is out of range (0-128)`}},
		{"route gateway invalid", onEno1(Networks{IPv4DHCP: []DHCPNetwork{{ID: "d", Link: "eno1",
			Routes: []Route{{Network: "10.0.0.0", Prefix: 8, Gateway: "fd00::1"}}}}}),
			nil, []string{`network "d": route gateway "fd00::1" is not an IPv4 address`}},
		{"route DNS invalid", onEno1(Networks{IPv6DHCP: []DHCPNetwork{{ID: "d", Link: "eno1",
			Routes: []Route{{Network: "::", DNS: []string{"dns.example.com"}}}}}}),
			nil, []string{`network "d": route ::/0: DNS server "dns.example.com" is not an IP address`}},
		{"zoned address", v6(Network{Address: "fe80::2%eth0", Prefix: 64}),
			nil, []string{`address "fe80::2%eth0" is not an IPv6 address`}},
		{"gateway outside the subnet", v4(Network{Address: "10.0.0.5", Prefix: 24, Gateway: "10.0.1.1"}),
			nil, []string{`network "net": gateway "10.0.1.1" is outside the subnet 10.0.0.0/24 of address 10.0.0.5/24`}},
		{"IPv6 gateway outside the subnet", v6(Network{Address: "fd00:1::5/64", Gateway: "fd00:2::1"}),
			nil, []string{`gateway "fd00:2::1" is outside the subnet fd00:1::/64`}},
		{"services DNS invalid", Template{Services: Services{DNS: []string{"1.1.1.1", "one.one"}}},
			nil, []string{`services: DNS server "one.one" is not an IP address`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := Render(tc.tmpl, tc.nics)
			if err == nil {
				t.Fatalf("Render = %v, want an error", doc)
			}
			if doc != nil {
				t.Errorf("Render returned a document with the error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\ndoes not contain %q", err, w)
				}
			}
		})
	}
}

func TestRenderReportsAllErrors(t *testing.T) {
	tmpl := Template{
		Links: Links{Ethernets: []Ethernet{
			{ID: "a", FromHostInterface: "nope"},
			{ID: "b", MACAddress: "xx"},
		}},
		Networks: Networks{IPv4: []Network{{ID: "n", Link: "c", Address: "1.2.3.4", Prefix: 40}}},
	}
	_, err := Render(tmpl, hostNICs)
	if err == nil {
		t.Fatal("want errors")
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != 4 {
		t.Errorf("want 4 joined errors, got %d:\n%s", len(lines), err)
	}
}

func TestCheck(t *testing.T) {
	ok := Template{
		Links:    Links{Ethernets: []Ethernet{{ID: "eno1", FromHostInterface: "not-inspected-yet"}}},
		Networks: Networks{IPv4: []Network{{ID: "n", Link: "eno1", Address: "10.0.0.5/24", Gateway: "10.0.0.1"}}},
	}
	if err := Check(ok); err != nil {
		t.Errorf("Check with an unknown NIC name: %v (NIC names are only known at render time)", err)
	}
	bad := ok
	bad.Networks = Networks{IPv4: []Network{{ID: "n", Link: "eno2", Address: "10.0.0.5/24"}}}
	if err := Check(bad); err == nil || !strings.Contains(err.Error(), `network "n": link "eno2" matches no link id (links: eno1)`) {
		t.Errorf("Check of a network on no link = %v", err)
	}
}
