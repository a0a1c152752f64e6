package datasources

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle/networkdata"
)

func str(s string) types.String { return types.StringValue(s) }

func TestNetworkDataTemplate(t *testing.T) {
	ctx := context.Background()
	m := networkDataModel{
		Links: &linksModel{
			Ethernets: []ethernetModel{
				{linkModel: linkModel{ID: str("eth0"), MTU: types.Int64Null(), MACAddress: types.StringNull(),
					FromHostInterface: str("eno1")}, Type: types.StringNull(), Name: types.StringNull()},
				{linkModel: linkModel{ID: str("eth1"), MTU: types.Int64Value(9000), MACAddress: str("52:54:00:00:00:02"),
					FromHostInterface: types.StringNull()}, Type: str("phy"), Name: str("data0")},
			},
			Bonds: []bondModel{{
				linkModel: linkModel{ID: str("bond0"), MTU: types.Int64Null(), MACAddress: types.StringNull(), FromHostInterface: str("eno1")},
				Mode:      str("802.3ad"), XmitHashPolicy: str("layer3+4"),
				Parameters: types.MapValueMust(types.StringType, map[string]attr.Value{"miimon": str("100"), "use_carrier": str("true"), "lacp_rate": str("fast")}),
				Links:      types.ListValueMust(types.StringType, []attr.Value{str("eth0"), str("eth1")}),
			}},
			VLANs: []vlanModel{{
				linkModel: linkModel{ID: str("vlan20"), MTU: types.Int64Null(), MACAddress: types.StringNull(), FromHostInterface: types.StringNull()},
				VLANID:    types.Int64Value(20), VLANLink: str("bond0"),
			}},
		},
		Networks: &networksModel{
			IPv4: []staticNetworkModel{{
				ID: str("provisioning"), Link: str("vlan20"), Address: str("10.0.0.5"), Prefix: types.Int64Value(24),
				Gateway: str("10.0.0.1"),
				Routes: []routeModel{{Network: str("10.1.0.0"), Prefix: types.Int64Value(16), Gateway: types.StringNull(),
					DNS: types.ListValueMust(types.StringType, []attr.Value{str("10.1.0.53")})}},
			}},
			IPv6: []staticNetworkModel{{
				ID: str("v6"), Link: str("bond0"), Address: str("fd00::5/64"), Prefix: types.Int64Null(), Gateway: types.StringNull(),
			}},
			IPv4DHCP:  []dhcpNetworkModel{{ID: str("d4"), Link: str("eth1")}},
			IPv6DHCP:  []dhcpNetworkModel{{ID: str("d6"), Link: str("eth1")}},
			IPv6SLAAC: []dhcpNetworkModel{{ID: str("s6"), Link: str("eth1")}},
		},
		Services: &servicesModel{DNS: types.ListValueMust(types.StringType, []attr.Value{str("8.8.8.8")})},
	}
	got, diags := m.template(ctx)
	if diags.HasError() {
		t.Fatal(diags)
	}
	want := networkdata.Template{
		Links: networkdata.Links{
			Ethernets: []networkdata.Ethernet{
				{ID: "eth0", FromHostInterface: "eno1"},
				{ID: "eth1", Type: "phy", MTU: 9000, MACAddress: "52:54:00:00:00:02", Name: "data0"},
			},
			Bonds: []networkdata.Bond{{
				ID: "bond0", FromHostInterface: "eno1", Mode: "802.3ad", XmitHashPolicy: "layer3+4",
				Parameters: map[string]any{"miimon": int64(100), "use_carrier": true, "lacp_rate": "fast"},
				Links:      []string{"eth0", "eth1"},
			}},
			VLANs: []networkdata.VLAN{{ID: "vlan20", VLANID: 20, VLANLink: "bond0"}},
		},
		Networks: networkdata.Networks{
			IPv4: []networkdata.Network{{
				ID: "provisioning", Link: "vlan20", Address: "10.0.0.5", Prefix: 24, Gateway: "10.0.0.1",
				Routes: []networkdata.Route{{Network: "10.1.0.0", Prefix: 16, DNS: []string{"10.1.0.53"}}},
			}},
			IPv6:      []networkdata.Network{{ID: "v6", Link: "bond0", Address: "fd00::5/64", Routes: []networkdata.Route{}}},
			IPv4DHCP:  []networkdata.DHCPNetwork{{ID: "d4", Link: "eth1", Routes: []networkdata.Route{}}},
			IPv6DHCP:  []networkdata.DHCPNetwork{{ID: "d6", Link: "eth1", Routes: []networkdata.Route{}}},
			IPv6SLAAC: []networkdata.DHCPNetwork{{ID: "s6", Link: "eth1", Routes: []networkdata.Route{}}},
		},
		Services: networkdata.Services{DNS: []string{"8.8.8.8"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("template\n got %+v\nwant %+v", got, want)
	}

	// It renders with the host's NICs; explicit NICs win by name.
	nics := mergeNICs([]lifecycle.HardwareNIC{{Name: "eno1", MAC: "0c:c4:7a:00:00:01"}, {Name: "eno2", MAC: "0c:c4:7a:00:00:02"}},
		map[string]string{"eno2": "0c:c4:7a:00:00:22"})
	if nics[1].MAC != "0c:c4:7a:00:00:22" {
		t.Errorf("explicit NIC did not win: %+v", nics)
	}
	out, err := networkdata.RenderJSON(got, nics)
	if err != nil {
		t.Fatalf("render: %v", err)
	}
	var doc map[string]any
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `"ethernet_mac_address":"0c:c4:7a:00:00:01"`) || !strings.Contains(string(out), `"bond_miimon":100`) {
		t.Errorf("unexpected output: %s", out)
	}

	// A NIC the host does not have names the NICs it has.
	_, err = networkdata.RenderJSON(got, mergeNICs(nil, map[string]string{"eth9": "52:54:00:00:00:09"}))
	var missing *networkdata.MissingNICError
	if !errors.As(err, &missing) || !strings.Contains(err.Error(), "eth9") {
		t.Errorf("want a MissingNICError naming eth9, got %v", err)
	}
}

func TestNetworkDataTemplateEmpty(t *testing.T) {
	got, diags := (&networkDataModel{}).template(context.Background())
	if diags.HasError() || !reflect.DeepEqual(got, networkdata.Template{}) {
		t.Errorf("empty model: %+v %v", got, diags)
	}
}

func TestFilterHosts(t *testing.T) {
	mk := func(name string, st lifecycle.State, ps string, labels map[string]string, alloc string) lifecycle.HostSummary {
		return lifecycle.HostSummary{Observation: lifecycle.Observation{
			ID: "u-" + name, Name: name, State: st, ProvisionState: ps, Labels: labels, AllocationID: alloc, ResourceClass: "baremetal",
		}, Hardware: &lifecycle.HardwareDetails{CPUCount: 4, RAMMebibytes: 4096}}
	}
	hosts := []lifecycle.HostSummary{
		mk("c", lifecycle.StateAvailable, "available", map[string]string{"role": "worker"}, ""),
		mk("a", lifecycle.StateAvailable, "available", map[string]string{"role": "worker"}, "x"),
		mk("b", lifecycle.StateInspecting, "inspect wait", map[string]string{"role": "master"}, ""),
	}
	hosts[0].Health, hosts[1].Health = lifecycle.HealthCritical, lifecycle.HealthOK // b: Ironic reports none
	names := func(hs []lifecycle.HostSummary) string {
		var s []string
		for _, h := range hs {
			s = append(s, h.Name)
		}
		return strings.Join(s, ",")
	}
	yes, no := true, false
	cases := []struct {
		state   string
		claimed *bool
		sel     lifecycle.Selector
		want    string
		health  string
	}{
		{"", nil, lifecycle.Selector{}, "a,b,c", ""},
		{"available", nil, lifecycle.Selector{}, "a,c", ""},
		{"inspect wait", nil, lifecycle.Selector{}, "b", ""},
		{"", &yes, lifecycle.Selector{}, "a", ""},
		{"", &no, lifecycle.Selector{}, "b,c", ""},
		{"", nil, lifecycle.Selector{MatchLabels: map[string]string{"role": "worker"}}, "a,c", ""},
		{"", nil, lifecycle.Selector{MatchExpressions: []lifecycle.LabelExpression{{Key: "role", Operator: lifecycle.OpNotIn, Values: []string{"worker"}}}}, "b", ""},
		{"", nil, lifecycle.Selector{MinCPUs: 8}, "", ""},
		{"", nil, lifecycle.Selector{ResourceClass: "gpu"}, "", ""},
		{"", nil, lifecycle.Selector{}, "c", "Critical"},
		{"", nil, lifecycle.Selector{}, "a", "OK"},
		{"", nil, lifecycle.Selector{}, "", "Warning"},
		{"available", &no, lifecycle.Selector{}, "c", "Critical"},
	}
	for i, c := range cases {
		if got := names(filterHosts(hosts, c.state, c.claimed, c.health, c.sel)); got != c.want {
			t.Errorf("case %d: got %q, want %q", i, got, c.want)
		}
	}
}

// TestHardwareNICMACs: a dual-stack NIC is two entries of nics (one per IP
// family, as BMO lists them) and one of nic_macs, so that a map by name
// does not fail with Terraform's "Duplicate object key" (seen with the
// real agent, whose qemu NIC had an IPv4 and a SLAAC IPv6 address).
func TestHardwareNICMACs(t *testing.T) {
	var m hardwareModel
	m.setHardware(&lifecycle.HardwareData{NICs: []lifecycle.HardwareNIC{
		{Name: "enp0s2", MAC: "52:54:00:aa:bb:01", IP: "10.0.2.15"},
		{Name: "enp0s2", MAC: "52:54:00:aa:bb:01", IP: "fec0::5054:ff:feaa:bb01"},
		{Name: "eno2", MAC: "52:54:00:aa:bb:02"},
		{Name: "", MAC: "52:54:00:aa:bb:03"},
	}})
	if len(m.NICs) != 4 {
		t.Errorf("nics: %d entries, want 4 (one per IP family)", len(m.NICs))
	}
	want := map[string]attr.Value{"enp0s2": str("52:54:00:aa:bb:01"), "eno2": str("52:54:00:aa:bb:02")}
	if !m.NICMACs.Equal(types.MapValueMust(types.StringType, want)) {
		t.Errorf("nic_macs = %v, want %v", m.NICMACs, want)
	}
}
