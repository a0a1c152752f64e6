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
		return types.ObjectValueMust(portAttrTypes, map[string]attr.Value{
			"mac": types.StringValue(mac), "pxe_enabled": types.BoolNull(), "physical_network": types.StringNull(),
			"local_link_connection": llc, "local_link_connection_from_lldp": fromLLDP,
		})
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
		t.Run(tc.name, func(t *testing.T) {
			req := validator.SetRequest{Path: path.Root("ports"), ConfigValue: types.SetValueMust(portObjectType, tc.ports)}
			var resp validator.SetResponse
			oneLinkSource{}.ValidateSet(context.Background(), req, &resp)
			var got string
			for _, d := range resp.Diagnostics.Errors() {
				got += d.Summary() + ": " + d.Detail()
			}
			if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
				t.Errorf("diagnostics %q, want %q", got, tc.want)
			}
		})
	}
}

// portsSpec carries local_link_connection_from_lldp to the lifecycle port.
func TestPortsSpecFromLLDP(t *testing.T) {
	m := hostModel{}
	m.Ports = types.SetValueMust(portObjectType, []attr.Value{types.ObjectValueMust(portAttrTypes, map[string]attr.Value{
		"mac": types.StringValue("52:54:00:00:00:01"), "pxe_enabled": types.BoolNull(), "physical_network": types.StringNull(),
		"local_link_connection": types.ObjectNull(localLinkAttrTypes), "local_link_connection_from_lldp": types.BoolValue(true),
	})})
	got, diags := m.portsSpec(context.Background())
	if diags.HasError() {
		t.Fatal(diags)
	}
	want := lifecycle.Port{MAC: "52:54:00:00:00:01", LocalLinkFromLLDP: true}
	if len(got) != 1 || got[0].MAC != want.MAC || !got[0].LocalLinkFromLLDP || got[0].LocalLinkConnection != nil {
		t.Errorf("portsSpec = %+v, want %+v", got, want)
	}
}
