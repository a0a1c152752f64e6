package resources

import (
	"context"
	"reflect"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

type rbInner struct {
	A types.String `tfsdk:"a"`
}

type rbEmbedded struct {
	P *rbInner `tfsdk:"p"`
}

type rbModel struct {
	ID   types.String `tfsdk:"id"`
	Tags types.List   `tfsdk:"tags"`
	L    []rbInner    `tfsdk:"l"`
	rbEmbedded
}

var rbSchema = schema.Schema{Attributes: map[string]schema.Attribute{
	"id":   schema.StringAttribute{Optional: true},
	"tags": schema.ListAttribute{Optional: true, ElementType: types.StringType},
	"l": schema.ListNestedAttribute{Optional: true, NestedObject: schema.NestedAttributeObject{
		Attributes: map[string]schema.Attribute{"a": schema.StringAttribute{Optional: true}}}},
	"p": schema.SingleNestedAttribute{Optional: true, Attributes: map[string]schema.Attribute{"a": schema.StringAttribute{Optional: true}}},
}}

func rbFixture() rbModel {
	return rbModel{ID: types.StringValue("x"), Tags: types.ListValueMust(types.StringType, []attr.Value{}),
		L:          []rbInner{{A: types.StringValue("1")}},
		rbEmbedded: rbEmbedded{P: &rbInner{A: types.StringValue("2")}}}
}

// A Read changes its model through pointers and slices (the bmc block,
// RAID volumes, the embedded boot model's deploy_image): the snapshot must
// not see those changes, or a changed host would keep its old state.
func TestSnapshotSharesNothing(t *testing.T) {
	m := rbFixture()
	prior := snapshot(&m)
	if !reflect.DeepEqual(prior, m) {
		t.Fatalf("snapshot differs from the model: %+v against %+v", prior, m)
	}
	m.P.A = types.StringValue("through the embedded struct's pointer")
	m.L[0].A = types.StringValue("through the slice")
	if got := prior.P.A.ValueString(); got != "2" {
		t.Errorf("snapshot's p.a = %q after the model's changed, want 2", got)
	}
	if got := prior.L[0].A.ValueString(); got != "1" {
		t.Errorf("snapshot's l[0].a = %q after the model's changed, want 1", got)
	}
}

func TestWriteIfChanged(t *testing.T) {
	ctx := context.Background()
	// The state starts null, unlike the model, so that a write shows.
	st := tfsdk.State{Schema: rbSchema, Raw: tftypes.NewValue(rbSchema.Type().TerraformType(ctx), nil)}
	m := rbFixture()
	prior := snapshot(&m)
	if d := writeIfChanged(ctx, &st, prior, &m); d.HasError() {
		t.Fatal(d)
	}
	if !st.Raw.IsNull() {
		t.Fatalf("an unchanged model was written: %s", st.Raw)
	}
	// A Read rebuilds values: an empty list made from no elements is the
	// same state as the empty list read (reflect.DeepEqual said not).
	m.Tags = types.ListValueMust(types.StringType, nil)
	if d := writeIfChanged(ctx, &st, prior, &m); d.HasError() {
		t.Fatal(d)
	}
	if !st.Raw.IsNull() {
		t.Fatalf("a model equal but for how its empty list was built was written: %s", st.Raw)
	}
	m.P.A = types.StringValue("changed")
	if d := writeIfChanged(ctx, &st, prior, &m); d.HasError() {
		t.Fatal(d)
	}
	if st.Raw.IsNull() {
		t.Fatal("the changed model was not written: the state is still null")
	}
	var got rbModel
	if d := st.Get(ctx, &got); d.HasError() {
		t.Fatal(d)
	}
	if got.P == nil || got.P.A.ValueString() != "changed" {
		t.Fatalf("the changed model was not written: %+v", got)
	}
}
