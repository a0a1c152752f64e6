package resources

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/setplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
)

// Imported resources. An import cannot read back every argument (a host's
// bmc.address and interfaces; a claim's selector), so they are null in the
// imported state, and what it reads back (a host's driver and the
// driver_info Ironic does not mask) may be written differently in the
// configuration (a bmc address instead of a driver). ImportState marks the
// resource in private state (importedKey); until the first update clears
// the mark, a configuration that sets such an argument otherwise is adopted
// instead of replacing the resource. This file owns the mark and that rule.

// importedKey marks, in private state, a resource that was imported.
const importedKey = "imported"

// privateState is the part of the framework's private state the mark is
// read and written through.
type privateState interface {
	GetKey(context.Context, string) ([]byte, diag.Diagnostics)
}

func isImported(ctx context.Context, p privateState) bool {
	if p == nil {
		return false
	}
	b, _ := p.GetKey(ctx, importedKey)
	return len(b) > 0
}

// markImported sets the mark (ImportState); clearImported removes it (the
// first update, which writes the configuration's arguments).
func markImported(ctx context.Context, p interface {
	SetKey(context.Context, string, []byte) diag.Diagnostics
}) diag.Diagnostics {
	return p.SetKey(ctx, importedKey, []byte(`{"imported":true}`))
}

func clearImported(ctx context.Context, p interface {
	SetKey(context.Context, string, []byte) diag.Diagnostics
}) diag.Diagnostics {
	return p.SetKey(ctx, importedKey, nil)
}

// replacesUnlessImported is the rule: a change replaces the resource,
// except in an imported resource not updated yet.
func replacesUnlessImported(ctx context.Context, _ attr.Value, p privateState) bool {
	return !isImported(ctx, p)
}

// replaceUnlessImported and the functions below are the rule as the
// RequiresReplaceIf function of each attribute type.
func replaceUnlessImported(ctx context.Context, req planmodifier.StringRequest, resp *stringplanmodifier.RequiresReplaceIfFuncResponse) {
	resp.RequiresReplace = replacesUnlessImported(ctx, req.StateValue, req.Private)
}

func mapReplaceUnlessImported(ctx context.Context, req planmodifier.MapRequest, resp *mapplanmodifier.RequiresReplaceIfFuncResponse) {
	resp.RequiresReplace = replacesUnlessImported(ctx, req.StateValue, req.Private)
}

func int64ReplaceUnlessImported(ctx context.Context, req planmodifier.Int64Request, resp *int64planmodifier.RequiresReplaceIfFuncResponse) {
	resp.RequiresReplace = replacesUnlessImported(ctx, req.StateValue, req.Private)
}

func setReplaceUnlessImported(ctx context.Context, req planmodifier.SetRequest, resp *setplanmodifier.RequiresReplaceIfFuncResponse) {
	resp.RequiresReplace = replacesUnlessImported(ctx, req.StateValue, req.Private)
}

func objectReplaceUnlessImported(ctx context.Context, req planmodifier.ObjectRequest, resp *objectplanmodifier.RequiresReplaceIfFuncResponse) {
	resp.RequiresReplace = replacesUnlessImported(ctx, req.StateValue, req.Private)
}
