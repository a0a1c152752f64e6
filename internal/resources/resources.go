// Package resources is the Terraform glue of the provider's resources:
// schemas, typed models, plan modifiers and import. Each CRUD method turns
// its model into a lifecycle.Host and calls the state machine; no resource
// talks to Ironic or a BMC directly.
package resources

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// All lists the provider's resources, each under its type name.
func All() []func() resource.Resource {
	return []func() resource.Resource{
		named[hostResource]("_host"),
		NewDeployment,
		NewHostClaim,
		named[firmwareSettingsResource]("_firmware_settings"),
		named[firmwareUpdateResource]("_firmware_update"),
		named[ipPoolResource]("_ip_pool"),
		named[ipClaimResource]("_ip_claim"),
		named[dataImageResource]("_data_image"),
		named[runbookResource]("_runbook"),
		named[inspectionRuleResource]("_inspection_rule"),
	}
}

// What the resources implement beyond resource.Resource (identity.go
// checks their identities), checked at compile time.
var (
	_ resource.ResourceWithImportState      = (*claimResource)(nil)
	_ resource.ResourceWithImportState      = (*firmwareSettingsResource)(nil)
	_ resource.ResourceWithImportState      = (*hostResource)(nil)
	_ resource.ResourceWithImportState      = (*ipClaimResource)(nil)
	_ resource.ResourceWithImportState      = (*ipPoolResource)(nil)
	_ resource.ResourceWithImportState      = (*runbookResource)(nil)
	_ resource.ResourceWithImportState      = (*inspectionRuleResource)(nil)
	_ resource.ResourceWithValidateConfig   = (*runbookResource)(nil)
	_ resource.ResourceWithValidateConfig   = (*inspectionRuleResource)(nil)
	_ resource.ResourceWithModifyPlan       = (*runbookResource)(nil)
	_ resource.ResourceWithModifyPlan       = (*inspectionRuleResource)(nil)
	_ resource.ResourceWithValidateConfig   = (*claimResource)(nil)
	_ resource.ResourceWithValidateConfig   = (*firmwareUpdateResource)(nil)
	_ resource.ResourceWithValidateConfig   = (*hostResource)(nil)
	_ resource.ResourceWithValidateConfig   = (*ipPoolResource)(nil)
	_ resource.ResourceWithConfigValidators = (*hostResource)(nil)
	_ resource.ResourceWithModifyPlan       = (*dataImageResource)(nil)
	_ resource.ResourceWithModifyPlan       = (*firmwareSettingsResource)(nil)
	_ resource.ResourceWithModifyPlan       = (*firmwareUpdateResource)(nil)
	_ resource.ResourceWithModifyPlan       = (*hostResource)(nil)
	_ resource.ResourceWithModifyPlan       = (*ipPoolResource)(nil)
)

// TFLog is the lifecycle.Logger that writes progress through tflog.
type TFLog struct{}

// Log writes msg with fields at INFO level.
func (TFLog) Log(ctx context.Context, msg string, fields map[string]any) {
	tflog.Info(ctx, msg, fields)
}

// otherMaintenanceDoc ends the description of every resource that acts on
// a host: what maintenance that is not a detach means (lifecycle's rule).
const otherMaintenanceDoc = " A host in maintenance for any other reason (set by an operator or another tool) is not detached: " +
	"as the Bare Metal Operator does, the provider clears that maintenance before it changes the host's provision state."

// detachedDiag reports err and returns true when it is lifecycle's
// detached rule speaking (a *lifecycle.DetachedError): a refused create or
// update is an error on host_id; a destroy that forgot the resource without
// acting on the host is a warning, and the resource leaves the state.
func detachedDiag(ctx context.Context, diags *diag.Diagnostics, err error) bool {
	d := lifecycle.AsDetached(err)
	switch {
	case d == nil:
		return false
	case d.Forgotten:
		tflog.Warn(ctx, "host is detached: forgetting the resource, writing nothing to Ironic", map[string]any{"host": d.Host, "node": d.ID})
		diags.AddWarning(d.Summary(), d.Detail())
	default:
		diags.AddAttributeError(path.Root("host_id"), d.Summary(), d.Detail())
	}
	return true
}

// checkAttachedAtPlan refuses, at plan, an action on the host hostID names
// when that host exists and is detached (lifecycle.Machine.CheckAttached);
// a host not known yet is checked at apply.
func checkAttachedAtPlan(ctx context.Context, m *lifecycle.Machine, hostID string, action string, diags *diag.Diagnostics) {
	if m != nil && hostID != "" {
		detachedDiag(ctx, diags, m.CheckAttached(ctx, hostID, action))
	}
}

// hostErrorDiag turns a Converge error into a diagnostic whose summary names
// the host and whose detail carries the state, verb and last_error.
func hostErrorDiag(diags *diag.Diagnostics, action string, err error) {
	diags.AddError(fmt.Sprintf("%s failed", action), err.Error())
}

// refreshTimeout bounds one Read.
const refreshTimeout = 5 * time.Minute

func timeString(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// statusModel is a model whose computed attributes come from the host's
// status and what Ironic says of its node.
type statusModel interface {
	setStatus(h *lifecycle.Host, obs *lifecycle.Observation)
}

// saveHost records m in state whenever the node exists, also after a
// failure, so that a failed host is tainted, never lost.
func saveHost(ctx context.Context, m *lifecycle.Machine, h *lifecycle.Host, model statusModel, state *tfsdk.State, diags *diag.Diagnostics) {
	if h.Status.ID == "" {
		return
	}
	model.setStatus(h, m.Snapshot(ctx, h))
	diags.Append(state.Set(ctx, model)...)
}
