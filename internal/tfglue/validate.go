package tfglue

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// ValidateSelector checks the label selector at p in a configuration, as
// terraform validate sees it: each match expression's operator and values,
// then that some host could match (no key both required and forbidden, no
// key left without a value every clause accepts). Unknown parts are left
// out: leaving out clauses never makes a selector contradictory, so what
// is reported holds whatever they turn out to be.
func ValidateSelector(ctx context.Context, cfg tfsdk.Config, p path.Path, diags *diag.Diagnostics) {
	var obj types.Object
	diags.Append(cfg.GetAttribute(ctx, p, &obj)...)
	if diags.HasError() || obj.IsNull() || obj.IsUnknown() {
		return
	}
	var sel lifecycle.Selector
	attrs := obj.Attributes()
	if ml, ok := attrs["match_labels"].(types.Map); ok && !ml.IsNull() && !ml.IsUnknown() {
		sel.MatchLabels = map[string]string{}
		for k, v := range ml.Elements() {
			if s, ok := v.(types.String); ok && !s.IsUnknown() && !s.IsNull() {
				sel.MatchLabels[k] = s.ValueString()
			}
		}
	}
	exprPath := p.AtName("match_expressions")
	before := diags.ErrorsCount()
	if me, ok := attrs["match_expressions"].(types.List); ok && !me.IsNull() && !me.IsUnknown() {
		for i, el := range me.Elements() {
			o, ok := el.(types.Object)
			if !ok || o.IsNull() || o.IsUnknown() {
				continue
			}
			e, known := expressionOf(o.Attributes())
			if !known {
				continue
			}
			if err := e.Validate(); err != nil {
				diags.AddAttributeError(exprPath.AtListIndex(i), "Invalid "+exprPath.AtListIndex(i).String(), err.Error())
				continue
			}
			sel.MatchExpressions = append(sel.MatchExpressions, e)
		}
	}
	if diags.ErrorsCount() > before {
		return
	}
	if err := sel.Contradiction(); err != nil {
		diags.AddAttributeError(p, "Contradictory label selector", p.String()+": "+err.Error())
	}
}

// expressionOf reads one match expression; known is false when a part of
// it is not known yet.
func expressionOf(a map[string]attr.Value) (e lifecycle.LabelExpression, known bool) {
	key, _ := a["key"].(types.String)
	op, _ := a["operator"].(types.String)
	values, _ := a["values"].(types.List)
	if key.IsUnknown() || op.IsUnknown() || op.IsNull() || values.IsUnknown() {
		return e, false
	}
	e = lifecycle.LabelExpression{Key: key.ValueString(), Operator: op.ValueString()}
	for _, v := range values.Elements() {
		s, ok := v.(types.String)
		if !ok || s.IsUnknown() {
			return e, false
		}
		e.Values = append(e.Values, s.ValueString())
	}
	return e, true
}
