// Package actions is the provider's actions (Terraform 1.14 and later):
// one-off verbs on a host, invoked with `terraform apply
// -invoke=action.<type>.<name>` or from a resource's
// lifecycle.action_trigger. Like the resources, they are thin: each reads
// its configuration and calls one of lifecycle's host actions, which hold
// the rules (the state machine, the capacity gate, the detached rule) and
// reach Ironic and the BMC. Progress goes to Terraform through
// InvokeResponse.SendProgress. Older Terraform and OpenTofu ignore
// actions; the *_trigger attributes of baremetal_host do the same verbs.
package actions

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/tfglue"
)

// All returns the provider's actions.
func All() []func() action.Action {
	return []func() action.Action{
		newRebootAction,
		newPowerAction,
		newBootOnceAction,
		newInspectAction,
		newStepsAction,
		newBMCResetAction,
	}
}

// base is what every action embeds: the provider's clients.
type base struct {
	clients *lifecycle.Clients
}

// Configure keeps the provider's clients (nil while the provider is not
// configured, as during validation).
func (b *base) Configure(_ context.Context, req action.ConfigureRequest, resp *action.ConfigureResponse) {
	b.clients = tfglue.ClientsFrom(req.ProviderData, &resp.Diagnostics)
}

// ready reports whether the provider is configured, else says so.
func (b *base) ready(diags *diag.Diagnostics) bool {
	if b.clients == nil || b.clients.Machine == nil {
		diags.AddError("Provider not configured", "The baremetal provider was not configured before the action ran.")
		return false
	}
	return true
}

// hostModel is what every action's configuration has: the host and the
// timeout. Each action's model embeds it.
type hostModel struct {
	HostID  types.String `tfsdk:"host_id"`
	Timeout types.String `tfsdk:"timeout"`
}

func (h hostModel) host() hostModel { return h }

// model is an action's configuration: a hostModel and the action's own
// attributes.
type model interface{ host() hostModel }

// verb is the host action an action runs, under its deadline.
type verb func(ctx context.Context, c *lifecycle.Clients, req lifecycle.ActionRequest) error

// run is the verb of an action whose own attributes need no check before
// it runs: f, given the configuration.
func run[M model](f func(ctx context.Context, c *lifecycle.Clients, req lifecycle.ActionRequest, m M) error) func(M, *diag.Diagnostics) verb {
	return func(m M, _ *diag.Diagnostics) verb {
		return func(ctx context.Context, c *lifecycle.Clients, req lifecycle.ActionRequest) error {
			return f(ctx, c, req, m)
		}
	}
}

// hostAction is an action on one host: host_id and timeout, its own
// attributes, and the lifecycle host action it runs. Each action is one
// value of it (power.go, host.go).
type hostAction[M model] struct {
	base
	typeName    string // after the provider's name: "_host_reboot"
	description string
	attributes  map[string]schema.Attribute // besides host_id and timeout
	timeout     time.Duration               // the default of timeout
	// what names what failed when the verb fails, with the host.
	what func(m M) string
	// verb reads the action's own attributes; nil after adding an error
	// to diags.
	verb func(m M, diags *diag.Diagnostics) verb
	// check, when set, refuses at plan what the verb would refuse, with
	// the provider configured (the configuration may hold unknowns).
	check func(ctx context.Context, c *lifecycle.Clients, m M, diags *diag.Diagnostics)
	// validators are the action's config validators.
	validators []action.ConfigValidator
}

// ConfigValidators are the action's config validators.
func (a *hostAction[M]) ConfigValidators(context.Context) []action.ConfigValidator {
	return a.validators
}

// ModifyPlan runs the action's plan-time check, once the provider is
// configured.
func (a *hostAction[M]) ModifyPlan(ctx context.Context, req action.ModifyPlanRequest, resp *action.ModifyPlanResponse) {
	if a.check == nil || a.clients == nil || a.clients.Machine == nil {
		return
	}
	var m M
	if resp.Diagnostics.Append(tfglue.GetKnown(ctx, req.Config, &m)...); resp.Diagnostics.HasError() {
		return
	}
	a.check(ctx, a.clients, m, &resp.Diagnostics)
}

func (a *hostAction[M]) Metadata(_ context.Context, req action.MetadataRequest, resp *action.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + a.typeName
}

func (a *hostAction[M]) Schema(_ context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	attrs := map[string]schema.Attribute{"host_id": hostAttribute(), "timeout": timeoutAttribute(a.timeout)}
	for name, attr := range a.attributes {
		attrs[name] = attr
	}
	resp.Schema = schema.Schema{Description: a.description, Attributes: attrs}
}

// Invoke reads the configuration, then runs the verb under the timeout
// with progress sent to Terraform; an error fails the action as what.
func (a *hostAction[M]) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	var m M
	if resp.Diagnostics.Append(req.Config.Get(ctx, &m)...); resp.Diagnostics.HasError() {
		return
	}
	do := a.verb(m, &resp.Diagnostics)
	if do == nil || !a.ready(&resp.Diagnostics) {
		return
	}
	h := m.host()
	d := a.timeout
	if v := h.Timeout.ValueString(); v != "" {
		var err error
		if d, err = time.ParseDuration(v); err != nil || d <= 0 {
			resp.Diagnostics.AddAttributeError(path.Root("timeout"), "Invalid timeout",
				fmt.Sprintf("%q is not a duration greater than zero (e.g. \"20m\")", v))
			return
		}
	}
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	ar := lifecycle.ActionRequest{Ref: h.HostID.ValueString(), Progress: func(msg string) {
		if resp.SendProgress != nil {
			resp.SendProgress(action.InvokeProgressEvent{Message: msg})
		}
	}}
	if err := do(ctx, a.clients, ar); err != nil {
		fail(&resp.Diagnostics, a.what(m), err)
	}
}

// fail reports err, from the host action what, as the action's error.
func fail(diags *diag.Diagnostics, what string, err error) {
	if d := lifecycle.AsDetached(err); d != nil {
		diags.AddError(d.Summary(), d.Detail())
		return
	}
	diags.AddError(what+" failed", err.Error())
}

// powerMode is the mode attribute, def when unset.
func powerMode(v types.String, def lifecycle.PowerMode) lifecycle.PowerMode {
	if v.IsNull() || v.IsUnknown() || v.ValueString() == "" {
		return def
	}
	return lifecycle.PowerMode(v.ValueString())
}
