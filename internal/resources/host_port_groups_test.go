package resources

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

func strPtr(s string) *string { return &s }

var objectAsOptions = basetypes.ObjectAsOptions{}

// A port group reads back as the configuration has it: fields it leaves
// null stay null whatever Ironic says (mode, properties), set fields take
// Ironic's values (so a change behind Terraform's back is drift), and MACs
// Ironic lower-cases keep the configuration's spelling. Without a
// configuration (import) every field Ironic has is read.
func TestPortGroupValue(t *testing.T) {
	ctx := context.Background()
	g := lifecycle.PortGroup{Name: "bond0", Address: strPtr("52:54:00:00:00:0a"), Mode: strPtr("active-backup"),
		Properties: map[string]string{"miimon": "100"}, Ports: []string{"52:54:00:00:00:0a", "52:54:00:00:00:0b"}}
	template := &portGroupModel{
		Name: types.StringValue("bond0"), Address: types.StringValue("52:54:00:00:00:0A"), Mode: types.StringNull(),
		Properties: types.MapNull(types.StringType), PhysicalNetwork: types.StringNull(),
		Ports: types.SetValueMust(types.StringType, []attr.Value{types.StringValue("52:54:00:00:00:0A")}),
	}
	v, diags := portGroupValue(ctx, g, template)
	if diags.HasError() {
		t.Fatal(diags)
	}
	var got portGroupModel
	if d := v.(types.Object).As(ctx, &got, objectAsOptions); d.HasError() {
		t.Fatal(d)
	}
	if got.Address.ValueString() != "52:54:00:00:00:0A" || !got.Mode.IsNull() || !got.Properties.IsNull() || !got.PhysicalNetwork.IsNull() {
		t.Errorf("with a configuration: %+v", got)
	}
	var members []string
	got.Ports.ElementsAs(ctx, &members, false)
	if len(members) != 2 || members[0] != "52:54:00:00:00:0A" && members[1] != "52:54:00:00:00:0A" {
		t.Errorf("members %v: want Ironic's two, the configured one spelt as configured", members)
	}

	v, diags = portGroupValue(ctx, g, nil)
	if diags.HasError() {
		t.Fatal(diags)
	}
	if d := v.(types.Object).As(ctx, &got, objectAsOptions); d.HasError() {
		t.Fatal(d)
	}
	props := map[string]string{}
	got.Properties.ElementsAs(ctx, &props, false)
	if got.Mode.ValueString() != "active-backup" || got.Address.ValueString() != "52:54:00:00:00:0a" || props["miimon"] != "100" || !got.PhysicalNetwork.IsNull() {
		t.Errorf("imported: %+v", got)
	}
}
