package resources

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/diag"
)

// An operation is a Create, Update or Delete that the resource's timeouts
// block bounds.
type operation int

const (
	opCreate operation = iota
	opUpdate
	opDelete
)

// The timeouts of operations whose timeouts block leaves them unset.
const (
	defaultCreateTimeout = 60 * time.Minute
	defaultUpdateTimeout = 60 * time.Minute
	defaultDeleteTimeout = 60 * time.Minute
)

// modelSource is the plan or the state an operation reads its model from.
type modelSource interface {
	Get(ctx context.Context, target any) diag.Diagnostics
}

// start opens op: it reads src into m, whose timeouts block is t, and
// bounds ctx by op's timeout there (its default when unset). False after an
// error, with ctx as it was; else the caller defers cancel.
func (op operation) start(ctx context.Context, src modelSource, m any, t *timeouts.Value, diags *diag.Diagnostics) (context.Context, context.CancelFunc, bool) {
	if diags.Append(src.Get(ctx, m)...); diags.HasError() {
		return ctx, func() {}, false
	}
	return op.deadline(ctx, *t, diags)
}

// deadline is ctx bounded by op's timeout in t (its default when unset),
// for an operation whose model is already read. False after an error in
// diags, also an earlier one, with ctx as it was.
func (op operation) deadline(ctx context.Context, t timeouts.Value, diags *diag.Diagnostics) (context.Context, context.CancelFunc, bool) {
	get, def := t.Create, defaultCreateTimeout
	switch op {
	case opUpdate:
		get, def = t.Update, defaultUpdateTimeout
	case opDelete:
		get, def = t.Delete, defaultDeleteTimeout
	}
	timeout, d := get(ctx, def)
	if diags.Append(d...); diags.HasError() {
		return ctx, func() {}, false
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	return ctx, cancel, true
}
