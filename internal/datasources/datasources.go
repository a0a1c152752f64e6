// Package datasources is the Terraform glue of the provider's data sources:
// schemas and typed models over lifecycle.Catalog (lists, hardware) and the
// network_data.json renderer. No data source talks to Ironic directly.
package datasources

import (
	"context"
	"fmt"
	"sort"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// All lists the provider's data sources.
func All() []func() datasource.DataSource {
	return []func() datasource.DataSource{
		NewHost,
		NewHosts,
		NewHardware,
		NewNetworkData,
	}
}

// clientsFrom unpacks the provider's Clients in Configure.
func clientsFrom(data any, diags *diag.Diagnostics) *lifecycle.Clients {
	if data == nil { // the provider is not configured yet (validation)
		return nil
	}
	c, ok := data.(*lifecycle.Clients)
	if !ok {
		diags.AddError("Unexpected provider data", fmt.Sprintf("expected *lifecycle.Clients, got %T", data))
		return nil
	}
	return c
}

// catalogOf returns the catalog, or adds an error when there is none.
func catalogOf(c *lifecycle.Clients, diags *diag.Diagnostics) lifecycle.Catalog {
	if c == nil || c.Catalog == nil {
		diags.AddError("Provider not configured", "the provider has no Ironic catalog configured")
		return nil
	}
	return c.Catalog
}

// labelSelectorModel is a Kubernetes-style label selector.
type labelSelectorModel struct {
	MatchLabels      types.Map              `tfsdk:"match_labels"`
	MatchExpressions []labelExpressionModel `tfsdk:"match_expressions"`
}

type labelExpressionModel struct {
	Key      types.String `tfsdk:"key"`
	Operator types.String `tfsdk:"operator"`
	Values   types.List   `tfsdk:"values"`
}

func labelSelectorSchema(desc string) schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		Optional:    true,
		Description: desc,
		Attributes: map[string]schema.Attribute{
			"match_labels": schema.MapAttribute{
				Optional: true, ElementType: types.StringType,
				Description: "Labels the host must carry with exactly these values.",
			},
			"match_expressions": schema.ListNestedAttribute{
				Optional:    true,
				Description: "Expressions the host's labels must satisfy.",
				NestedObject: schema.NestedAttributeObject{
					Attributes: map[string]schema.Attribute{
						"key": schema.StringAttribute{
							Required: true, Description: "Label key.",
							Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
						},
						"operator": schema.StringAttribute{
							Required: true,
							Description: "`In` (the value is one of `values`), `NotIn` (the label is missing or its value is " +
								"not one of `values`), `Exists` or `DoesNotExist`.",
							Validators: []validator.String{stringvalidator.OneOf(lifecycle.Operators...)},
						},
						"values": schema.ListAttribute{
							Optional: true, ElementType: types.StringType,
							Description: "Values for `In` and `NotIn` (required there); not allowed with `Exists` and `DoesNotExist`.",
						},
					},
				},
			},
		},
	}
}

// apply copies the selector's labels into sel, reporting bad expressions
// at their paths.
func (l *labelSelectorModel) apply(ctx context.Context, sel *lifecycle.Selector, p path.Path, diags *diag.Diagnostics) {
	if l == nil {
		return
	}
	if !l.MatchLabels.IsNull() && !l.MatchLabels.IsUnknown() {
		diags.Append(l.MatchLabels.ElementsAs(ctx, &sel.MatchLabels, false)...)
	}
	for i, e := range l.MatchExpressions {
		expr := lifecycle.LabelExpression{Key: e.Key.ValueString(), Operator: e.Operator.ValueString()}
		if !e.Values.IsNull() && !e.Values.IsUnknown() {
			diags.Append(e.Values.ElementsAs(ctx, &expr.Values, false)...)
		}
		if err := expr.Validate(); err != nil {
			diags.AddAttributeError(p.AtName("match_expressions").AtListIndex(i), "Invalid match expression", err.Error())
		}
		sel.MatchExpressions = append(sel.MatchExpressions, expr)
	}
}

func stringList(s []string) types.List {
	el := make([]attr.Value, 0, len(s))
	for _, v := range s {
		el = append(el, types.StringValue(v))
	}
	return types.ListValueMust(types.StringType, el)
}

func sortedStringList(s []string) types.List {
	c := append([]string(nil), s...)
	sort.Strings(c)
	return stringList(c)
}

func stringMap(m map[string]string) types.Map {
	el := make(map[string]attr.Value, len(m))
	for k, v := range m {
		el[k] = types.StringValue(v)
	}
	return types.MapValueMust(types.StringType, el)
}

func computedString(desc string) schema.StringAttribute {
	return schema.StringAttribute{Computed: true, Description: desc}
}

func computedInt(desc string) schema.Int64Attribute {
	return schema.Int64Attribute{Computed: true, Description: desc}
}

func computedBool(desc string) schema.BoolAttribute {
	return schema.BoolAttribute{Computed: true, Description: desc}
}
