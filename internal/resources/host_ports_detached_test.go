package resources

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// No resource acts on a detached host: a change of its ports is refused
// (at plan, and at apply for ports known only then), also in the apply
// that detaches it; re-attaching may change them, and unchanged or unknown
// ports pass. The error is on the ports attribute and names the host.
func TestCheckPortsDetached(t *testing.T) {
	ports := func(mac string) types.Set {
		return types.SetValueMust(portObjectType, []attr.Value{
			portValue(types.StringValue(mac), types.BoolValue(false), types.ObjectNull(localLinkAttrTypes)),
		})
	}
	a, b := ports("52:54:00:00:00:0a"), ports("52:54:00:00:00:0b")
	unknownMAC := types.SetValueMust(portObjectType, []attr.Value{
		portValue(types.StringUnknown(), types.BoolValue(false), types.ObjectNull(localLinkAttrTypes)),
	})
	cases := []struct {
		name                  string
		wasDetached, detached bool
		before, after         types.Set
		want                  string // "" for no error
	}{
		{name: "attached host, ports change", before: a, after: b},
		{name: "detached host, ports unchanged", wasDetached: true, detached: true, before: a, after: a},
		{name: "detached host, ports change", wasDetached: true, detached: true, before: a, after: b,
			want: `Host h1 is detached|Host "h1" (node n1) is detached`},
		{name: "detached host, ports removed", wasDetached: true, detached: true, before: a, after: types.SetNull(portObjectType),
			want: `Host h1 is detached|so the provider will not change its Ironic ports`},
		{name: "detached host, ports unknown", wasDetached: true, detached: true, before: a, after: types.SetUnknown(portObjectType)},
		{name: "detached host, a MAC unknown", wasDetached: true, detached: true, before: a, after: unknownMAC},
		{name: "detached in this apply, ports change", detached: true, before: a, after: b,
			want: `Ports cannot change while the host is detached|change its ports in one apply, then detach it in the next`},
		{name: "re-attached in this apply, ports change", wasDetached: true, before: a, after: b},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var state hostModel
			state.Ports = c.before
			state.Name, state.ID = types.StringValue("h1"), types.StringValue("n1")
			state.Detached = types.BoolValue(c.wasDetached)
			plan := state
			plan.Ports, plan.Detached = c.after, types.BoolValue(c.detached)
			var diags diag.Diagnostics
			plan.checkPortsDetached(&state, &diags)
			if c.want == "" {
				if diags.HasError() {
					t.Fatalf("refused: %v", diags)
				}
				return
			}
			if diags.ErrorsCount() != 1 {
				t.Fatalf("want one error, got %v", diags)
			}
			d := diags.Errors()[0]
			summary, detail, _ := strings.Cut(c.want, "|")
			if !strings.Contains(d.Summary(), summary) || !strings.Contains(d.Detail(), detail) {
				t.Errorf("error %q / %q, want %q / %q", d.Summary(), d.Detail(), summary, detail)
			}
			if p, ok := d.(diag.DiagnosticWithPath); !ok || p.Path().String() != "ports" {
				t.Errorf("error not on ports: %#v", d)
			}
		})
	}
}
