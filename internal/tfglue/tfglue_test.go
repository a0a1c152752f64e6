package tfglue

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	dschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

func TestClientsFrom(t *testing.T) {
	var diags diag.Diagnostics
	if c := ClientsFrom(nil, &diags); c != nil || diags.HasError() {
		t.Fatalf("nil provider data: got %v, %v; want nil and no error", c, diags)
	}
	want := &lifecycle.Clients{}
	if c := ClientsFrom(want, &diags); c != want || diags.HasError() {
		t.Fatalf("clients: got %v, %v", c, diags)
	}
	if c := ClientsFrom("nope", &diags); c != nil || !diags.HasError() || !strings.Contains(diags[0].Detail(), "string") {
		t.Fatalf("wrong type: got %v, %v; want an error naming the type", c, diags)
	}
}

func list(vals ...string) types.List {
	el := make([]attr.Value, 0, len(vals))
	for _, v := range vals {
		el = append(el, types.StringValue(v))
	}
	return types.ListValueMust(types.StringType, el)
}

func TestApply(t *testing.T) {
	ctx := context.Background()
	l := &LabelSelector{
		MatchLabels: types.MapValueMust(types.StringType, map[string]attr.Value{"rack": types.StringValue("r1")}),
		MatchExpressions: []LabelExpression{
			{Key: types.StringValue("zone"), Operator: types.StringValue("In"), Values: list("a", "b")},
			{Key: types.StringValue("gpu"), Operator: types.StringValue("Exists"), Values: types.ListNull(types.StringType)},
			{Key: types.StringValue("bad"), Operator: types.StringValue("In"), Values: types.ListNull(types.StringType)},
		},
	}
	var sel lifecycle.Selector
	var diags diag.Diagnostics
	l.Apply(ctx, &sel, path.Root("labels"), &diags)
	if !reflect.DeepEqual(sel.MatchLabels, map[string]string{"rack": "r1"}) {
		t.Errorf("MatchLabels = %v", sel.MatchLabels)
	}
	if len(sel.MatchExpressions) != 3 || !reflect.DeepEqual(sel.MatchExpressions[0].Values, []string{"a", "b"}) {
		t.Errorf("MatchExpressions = %+v", sel.MatchExpressions)
	}
	if diags.ErrorsCount() != 1 {
		t.Fatalf("diags = %v, want one error for the In without values", diags)
	}
	d, ok := diags[0].(diag.DiagnosticWithPath)
	if !ok || !d.Path().Equal(path.Root("labels").AtName("match_expressions").AtListIndex(2)) {
		t.Errorf("error path = %v, want labels.match_expressions[2]", diags[0])
	}

	var none *LabelSelector
	var empty lifecycle.Selector
	none.Apply(ctx, &empty, path.Root("labels"), &diags)
	if empty.MatchLabels != nil || empty.MatchExpressions != nil {
		t.Errorf("nil selector changed sel: %+v", empty)
	}
}

func TestValidateExpressions(t *testing.T) {
	p := path.Root("labels").AtName("match_expressions")
	exprs := []LabelExpression{
		{Key: types.StringValue("a"), Operator: types.StringValue("Exists"), Values: list("x")},                    // values not allowed
		{Key: types.StringValue("b"), Operator: types.StringUnknown(), Values: list()},                             // unknown: skipped
		{Key: types.StringValue("c"), Operator: types.StringValue("NotIn"), Values: list("1")},                     // fine
		{Key: types.StringValue("d"), Operator: types.StringValue("In"), Values: types.ListNull(types.StringType)}, // missing values
	}
	var diags diag.Diagnostics
	ValidateExpressions(exprs, p, &diags)
	if diags.ErrorsCount() != 2 {
		t.Fatalf("diags = %v, want errors for expressions 0 and 3", diags)
	}
	for i, want := range []int{0, 3} {
		d := diags[i].(diag.DiagnosticWithPath)
		if !d.Path().Equal(p.AtListIndex(want)) {
			t.Errorf("error %d at %v, want %v", i, d.Path(), p.AtListIndex(want))
		}
	}
}

// Both schema flavours describe the same attributes the same way.
func TestLabelSelectorSchemasAgree(t *testing.T) {
	r := LabelSelectorResourceSchema("r")
	d := LabelSelectorDataSourceSchema("d")
	if len(r.Attributes) != len(d.Attributes) {
		t.Fatalf("resource has %d attributes, data source %d", len(r.Attributes), len(d.Attributes))
	}
	for name, ra := range r.Attributes {
		da, ok := d.Attributes[name]
		if !ok || ra.GetDescription() != da.GetDescription() || ra.IsOptional() != da.IsOptional() {
			t.Errorf("%s differs between resource and data source", name)
		}
	}
	rn := r.Attributes["match_expressions"].(rschema.ListNestedAttribute).NestedObject.Attributes
	dn := d.Attributes["match_expressions"].(dschema.ListNestedAttribute).NestedObject.Attributes
	if len(rn) != len(dn) {
		t.Fatalf("match_expressions: resource has %d attributes, data source %d", len(rn), len(dn))
	}
	for name, ra := range rn {
		da, ok := dn[name]
		if !ok || ra.GetDescription() != da.GetDescription() || ra.IsRequired() != da.IsRequired() {
			t.Errorf("match_expressions.%s differs between resource and data source", name)
		}
	}
}
