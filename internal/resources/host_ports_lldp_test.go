package resources

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

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

// A port that takes local_link_connection from LLDP on a host whose
// inspection hears none (disabled, out-of-band) is refused at validate,
// naming the port's MAC and the inspection; in-band inspection (set or by
// default), an interfaces.inspect override and ports not known yet pass.
func TestHostValidateConfig_lldpNeedsInBandInspection(t *testing.T) {
	s := hostSchema(t)
	h := newHostTypes(t)
	portsType := h.host.AttributeTypes["ports"].(tftypes.Set)
	port := func(mac string, fromLLDP bool) tftypes.Value {
		return objectWithNulls(portsType.ElementType.(tftypes.Object), map[string]tftypes.Value{
			"mac": tfStr(mac), "local_link_connection_from_lldp": tftypes.NewValue(tftypes.Bool, fromLLDP),
		})
	}
	ports := tftypes.NewValue(portsType, []tftypes.Value{port("52:54:00:00:00:01", false), port("52:54:00:00:00:02", true)})
	for _, tc := range []struct {
		name string
		top  map[string]tftypes.Value
		want string
	}{
		{"disabled", map[string]tftypes.Value{"inspection": tfStr("disabled")},
			`port 52:54:00:00:00:02 sets local_link_connection_from_lldp = true, but inspection = "disabled" hears no LLDP`},
		{"out-of-band", map[string]tftypes.Value{"inspection": tfStr("out-of-band")},
			`port 52:54:00:00:00:02 sets local_link_connection_from_lldp = true, but inspection = "out-of-band" hears no LLDP`},
		{"enabled", map[string]tftypes.Value{"inspection": tfStr("enabled")}, ""},
		{"default", map[string]tftypes.Value{}, ""},
		{"inspection from a variable", map[string]tftypes.Value{"inspection": unknownOf(tftypes.String)}, ""},
		{"inspect interface overridden", map[string]tftypes.Value{"inspection": tfStr("out-of-band"),
			"interfaces": h.interfaces(map[string]tftypes.Value{"inspect": tfStr("agent")})}, ""},
		{"ports from a variable", map[string]tftypes.Value{"inspection": tfStr("disabled"), "ports": unknownOf(portsType)}, ""},
		// Ports not wholly known are judged once they are.
		{"MAC from a variable", map[string]tftypes.Value{"inspection": tfStr("disabled"), "ports": tftypes.NewValue(portsType, []tftypes.Value{
			objectWithNulls(portsType.ElementType.(tftypes.Object), map[string]tftypes.Value{
				"mac": unknownOf(tftypes.String), "local_link_connection_from_lldp": tftypes.NewValue(tftypes.Bool, true)})})},
			""},
		{"no port from LLDP", map[string]tftypes.Value{"inspection": tfStr("disabled"),
			"ports": tftypes.NewValue(portsType, []tftypes.Value{port("52:54:00:00:00:01", false)})}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := map[string]tftypes.Value{"name": tfStr("h"), "bmc": h.redfish(), "boot_mac_address": tfStr("52:54:00:00:00:01"), "ports": ports}
			checkHostValidate(t, s, base, tc.top, tc.want)
		})
	}
}
