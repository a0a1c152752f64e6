package tfglue

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
)

// Collection is a list, set or map value (types.List, types.Set,
// types.Map).
type Collection interface {
	attr.Value
	ElementsAs(ctx context.Context, target any, allowUnhandled bool) diag.Diagnostics
}

// ElementsAs reads the elements of v into target (a pointer to a slice or
// map) when v is neither null nor unknown; otherwise target is left as it
// is. Problems go to diags.
func ElementsAs(ctx context.Context, v Collection, target any, diags *diag.Diagnostics) {
	if v.IsNull() || v.IsUnknown() {
		return
	}
	diags.Append(v.ElementsAs(ctx, target, false)...)
}
