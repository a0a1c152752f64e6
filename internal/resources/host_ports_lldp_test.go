package resources

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// A port may set local_link_connection or take it from LLDP, not both;
// local_link_connection_from_lldp = false beside a hand-set connection is
// fine. The error names the port's MAC.
func TestOneLinkSource(t *testing.T) {
	link := types.ObjectValueMust(localLinkAttrTypes, map[string]attr.Value{
		"switch_id": types.StringValue("aa:bb:cc:dd:ee:ff"), "port_id": types.StringValue("p1"), "switch_info": types.StringNull(),
	})
	port := func(mac string, fromLLDP types.Bool, llc types.Object) attr.Value {
		return portValue(types.StringValue(mac), fromLLDP, llc)
	}
	noLink := types.ObjectNull(localLinkAttrTypes)
	for _, tc := range []struct {
		name  string
		ports []attr.Value
		want  string
	}{
		{"from LLDP", []attr.Value{port("52:54:00:00:00:01", types.BoolValue(true), noLink)}, ""},
		{"by hand", []attr.Value{port("52:54:00:00:00:01", types.BoolNull(), link)}, ""},
		{"by hand, from LLDP false", []attr.Value{port("52:54:00:00:00:01", types.BoolValue(false), link)}, ""},
		{"from LLDP unknown", []attr.Value{port("52:54:00:00:00:01", types.BoolUnknown(), link)}, ""},
		{"both", []attr.Value{
			port("52:54:00:00:00:01", types.BoolValue(true), noLink),
			port("52:54:00:00:00:02", types.BoolValue(true), link),
		}, "port 52:54:00:00:00:02 sets local_link_connection and local_link_connection_from_lldp = true"},
	} {
		t.Run(tc.name, func(t *testing.T) { checkPortsValidator(t, oneLinkSource{}, tc.ports, tc.want) })
	}
}

// portValue is a port of the configuration: its MAC, where its
// local_link_connection comes from, and nothing else set.
func portValue(mac types.String, fromLLDP types.Bool, llc types.Object) attr.Value {
	return types.ObjectValueMust(portAttrTypes, map[string]attr.Value{
		"mac": mac, "pxe_enabled": types.BoolNull(), "physical_network": types.StringNull(),
		"local_link_connection": llc, "local_link_connection_from_lldp": fromLLDP,
	})
}

// A MAC listed twice, in any case, is an error naming it; distinct MACs
// and an unknown one are fine.
func TestUniquePortMACs(t *testing.T) {
	noLink := types.ObjectNull(localLinkAttrTypes)
	testPort := func(mac string) attr.Value { return portValue(types.StringValue(mac), types.BoolNull(), noLink) }
	unknown := portValue(types.StringUnknown(), types.BoolNull(), noLink)
	for _, tc := range []struct {
		name  string
		ports []attr.Value
		want  string
	}{
		{"distinct", []attr.Value{testPort("52:54:00:00:00:01"), testPort("52:54:00:00:00:02")}, ""},
		{"unknown", []attr.Value{testPort("52:54:00:00:00:01"), unknown}, ""},
		{"twice", []attr.Value{testPort("52:54:00:00:00:01"), testPort("52:54:00:00:00:0A"), testPort("52:54:00:00:00:0a")},
			`Duplicate port MAC: ports lists MAC "52:54:00:00:00:0`},
	} {
		t.Run(tc.name, func(t *testing.T) { checkPortsValidator(t, uniquePortMACs{}, tc.ports, tc.want) })
	}
}

// checkPortsValidator runs v on ports: its errors must contain want, and
// there must be none when want is empty.
func checkPortsValidator(t *testing.T, v validator.Set, ports []attr.Value, want string) {
	t.Helper()
	req := validator.SetRequest{Path: path.Root("ports"), ConfigValue: types.SetValueMust(portObjectType, ports)}
	var resp validator.SetResponse
	v.ValidateSet(context.Background(), req, &resp)
	var got string
	for _, d := range resp.Diagnostics.Errors() {
		got += d.Summary() + ": " + d.Detail()
	}
	if (want == "") != (got == "") || !strings.Contains(got, want) {
		t.Errorf("diagnostics %q, want %q", got, want)
	}
}

// portsSpec carries local_link_connection_from_lldp to the lifecycle port.
func TestPortsSpecFromLLDP(t *testing.T) {
	m := hostModel{}
	m.Ports = types.SetValueMust(portObjectType, []attr.Value{
		portValue(types.StringValue("52:54:00:00:00:01"), types.BoolValue(true), types.ObjectNull(localLinkAttrTypes)),
	})
	got, diags := m.portsSpec(context.Background())
	if diags.HasError() {
		t.Fatal(diags)
	}
	want := lifecycle.Port{MAC: "52:54:00:00:00:01", LocalLinkFromLLDP: true}
	if len(got) != 1 || got[0].MAC != want.MAC || !got[0].LocalLinkFromLLDP || got[0].LocalLinkConnection != nil {
		t.Errorf("portsSpec = %+v, want %+v", got, want)
	}
}
