package tfglue

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

func TestKnown(t *testing.T) {
	obj := func(v attr.Value) types.Object {
		return types.ObjectValueMust(map[string]attr.Type{"a": types.StringType}, map[string]attr.Value{"a": v})
	}
	for _, c := range []struct {
		name string
		v    attr.Value
		want bool
	}{
		{"nil", nil, false},
		{"null", types.StringNull(), true},
		{"value", types.StringValue("x"), true},
		{"unknown", types.StringUnknown(), false},
		{"object", obj(types.StringValue("x")), true},
		{"object with an unknown attribute", obj(types.StringUnknown()), false},
		{"list with an unknown object", types.ListValueMust(obj(types.StringValue("")).Type(context.Background()),
			[]attr.Value{obj(types.StringValue("1")), obj(types.StringUnknown())}), false},
		{"set with an unknown element", types.SetValueMust(types.StringType, []attr.Value{types.StringUnknown()}), false},
		{"map with an unknown element", types.MapValueMust(types.StringType, map[string]attr.Value{"raid": types.StringUnknown()}), false},
		{"map", types.MapValueMust(types.StringType, map[string]attr.Value{"raid": types.StringValue("agent")}), true},
	} {
		if got := Known(c.v); got != c.want {
			t.Errorf("%s: Known = %v, want %v", c.name, got, c.want)
		}
	}
}

// knownModel has nested attributes in Go structs and slices, which Get
// cannot fill from unknown values, and in framework types, which keep them.
type knownModel struct {
	Block   *knownBlock  `tfsdk:"block"`
	Volumes []knownBlock `tfsdk:"volumes"`
	Object  types.Object `tfsdk:"object"`
	Map     types.Map    `tfsdk:"map"`
	knownEmbedded
}

type knownBlock struct {
	Level types.String `tfsdk:"level"`
	Disks []knownDisk  `tfsdk:"disks"`
}

type knownDisk struct {
	Name types.String `tfsdk:"name"`
}

type knownEmbedded struct {
	Tail types.String `tfsdk:"tail"`
}

func TestGetKnown(t *testing.T) {
	ctx := context.Background()
	block := map[string]rschema.Attribute{
		"level": rschema.StringAttribute{Optional: true},
		"disks": rschema.ListNestedAttribute{Optional: true, NestedObject: rschema.NestedAttributeObject{
			Attributes: map[string]rschema.Attribute{"name": rschema.StringAttribute{Optional: true}}}},
	}
	s := rschema.Schema{Attributes: map[string]rschema.Attribute{
		"block":   rschema.SingleNestedAttribute{Optional: true, Attributes: block},
		"volumes": rschema.ListNestedAttribute{Optional: true, NestedObject: rschema.NestedAttributeObject{Attributes: block}},
		"object":  rschema.SingleNestedAttribute{Optional: true, Attributes: map[string]rschema.Attribute{"a": rschema.StringAttribute{Optional: true}}},
		"map":     rschema.MapAttribute{Optional: true, ElementType: types.StringType},
		"tail":    rschema.StringAttribute{Optional: true},
	}}
	typ := s.Type().TerraformType(ctx).(tftypes.Object)
	blockType := typ.AttributeTypes["block"].(tftypes.Object)
	disksType := blockType.AttributeTypes["disks"]
	unknown := func(t tftypes.Type) tftypes.Value { return tftypes.NewValue(t, tftypes.UnknownValue) }
	str := func(v string) tftypes.Value { return tftypes.NewValue(tftypes.String, v) }
	raw := tftypes.NewValue(typ, map[string]tftypes.Value{
		// block: unknown (a variable); volumes: [0] known with unknown
		// disks, [1] unknown (a for_each key's object).
		"block": unknown(blockType),
		"volumes": tftypes.NewValue(typ.AttributeTypes["volumes"], []tftypes.Value{
			tftypes.NewValue(blockType, map[string]tftypes.Value{"level": unknown(tftypes.String), "disks": unknown(disksType)}),
			unknown(blockType),
		}),
		"object": unknown(typ.AttributeTypes["object"]),
		"map":    unknown(typ.AttributeTypes["map"]),
		"tail":   str("t"),
	})
	cfg := tfsdk.Config{Schema: s, Raw: raw}

	var m knownModel
	if d := cfg.Get(ctx, &m); !d.HasError() {
		t.Fatal("Get read unknown values into Go structs: this test no longer shows what GetKnown is for")
	}
	if d := GetKnown(ctx, cfg, &m); d.HasError() {
		t.Fatalf("GetKnown: %v", d)
	}
	if m.Block != nil {
		t.Errorf("unknown block read as %+v, want nil", m.Block)
	}
	if len(m.Volumes) != 2 || !m.Volumes[0].Level.IsUnknown() || m.Volumes[0].Disks != nil ||
		!m.Volumes[1].Level.IsUnknown() || m.Volumes[1].Disks != nil {
		t.Errorf("volumes read as %+v: want both with an unknown level and no disks", m.Volumes)
	}
	if !m.Object.IsUnknown() || !m.Map.IsUnknown() {
		t.Errorf("framework-typed attributes lost their unknown values: object %v, map %v", m.Object, m.Map)
	}
	if m.Tail.ValueString() != "t" {
		t.Errorf("embedded attribute read as %v", m.Tail)
	}
	if !cfg.Raw.Equal(raw) {
		t.Error("GetKnown changed the configuration it read")
	}
	for p, want := range map[string]bool{"block": false, "volumes": false, "tail": true} {
		if got := KnownAt(ctx, cfg, path.Root(p)); got != want {
			t.Errorf("KnownAt(%s) = %v, want %v", p, got, want)
		}
	}
	plan := tfsdk.Plan{Schema: s, Raw: raw}
	var pm knownModel
	if d := GetKnown(ctx, plan, &pm); d.HasError() || pm.Block != nil || KnownAt(ctx, plan, path.Root("block")) {
		t.Errorf("plan: GetKnown %v, block %v", d, pm.Block)
	}
}
