// Package tfglue holds the Terraform glue that resources and data sources
// share: unpacking the provider's clients, the Redfish `bmc` block (one
// model, one conversion to lifecycle.BMCAccess), the host filter of claims
// and host lists, framework values of Go strings, and the Kubernetes-style
// label selector (one model, one conversion, one set of attribute
// descriptions and validators for both schema flavours).
package tfglue

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// ClientsFrom unpacks the provider's Clients in Configure. It returns nil
// while the provider is not configured yet (during validation).
func ClientsFrom(data any, diags *diag.Diagnostics) *lifecycle.Clients {
	if data == nil {
		return nil
	}
	c, ok := data.(*lifecycle.Clients)
	if !ok {
		diags.AddError("Unexpected provider data", fmt.Sprintf("expected *lifecycle.Clients, got %T", data))
		return nil
	}
	return c
}

// LabelSelector is a Kubernetes-style label selector.
type LabelSelector struct {
	MatchLabels      types.Map         `tfsdk:"match_labels"`
	MatchExpressions []LabelExpression `tfsdk:"match_expressions"`
}

// LabelExpression is one match expression of a LabelSelector.
type LabelExpression struct {
	Key      types.String `tfsdk:"key"`
	Operator types.String `tfsdk:"operator"`
	Values   types.List   `tfsdk:"values"`
}

// Apply copies the selector's labels into sel, reporting bad expressions at
// their paths under p (the selector's own path). A nil selector selects all.
func (l *LabelSelector) Apply(ctx context.Context, sel *lifecycle.Selector, p path.Path, diags *diag.Diagnostics) {
	if l == nil {
		return
	}
	ElementsAs(ctx, l.MatchLabels, &sel.MatchLabels, diags)
	for i, e := range l.MatchExpressions {
		expr := e.expression()
		if err := expr.Validate(); err != nil {
			diags.AddAttributeError(p.AtName("match_expressions").AtListIndex(i), "Invalid match expression", err.Error())
		}
		sel.MatchExpressions = append(sel.MatchExpressions, expr)
	}
}

// ValidateExpressions reports, at each expression's path under p (the
// match_expressions list), an operator whose values are missing or not
// allowed. Expressions with unknown parts are skipped: they are checked
// again once known.
func ValidateExpressions(exprs []LabelExpression, p path.Path, diags *diag.Diagnostics) {
	for i, e := range exprs {
		if e.Key.IsUnknown() || e.Operator.IsUnknown() || e.Values.IsUnknown() || e.Operator.IsNull() {
			continue
		}
		if err := e.expression().Validate(); err != nil {
			diags.AddAttributeError(p.AtListIndex(i), "Invalid match expression", err.Error())
		}
	}
}

func (e LabelExpression) expression() lifecycle.LabelExpression {
	expr := lifecycle.LabelExpression{Key: e.Key.ValueString(), Operator: e.Operator.ValueString()}
	if !e.Values.IsNull() && !e.Values.IsUnknown() {
		for _, v := range e.Values.Elements() {
			if s, ok := v.(types.String); ok {
				expr.Values = append(expr.Values, s.ValueString())
			}
		}
	}
	return expr
}
