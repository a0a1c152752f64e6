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
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/tfglue"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/validators"
)

// All returns the provider's actions.
func All() []func() action.Action {
	return []func() action.Action{
		func() action.Action { return &rebootAction{} },
		func() action.Action { return &powerAction{} },
		func() action.Action { return &bootOnceAction{} },
		func() action.Action { return &inspectAction{} },
		func() action.Action { return &stepsAction{} },
		func() action.Action { return &bmcResetAction{} },
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

// hostAttribute is host_id: the host the action acts on.
func hostAttribute() schema.StringAttribute {
	return schema.StringAttribute{
		Required: true,
		Description: "The host to act on: its Ironic node UUID or name (a `baremetal_host`'s `id` or `name`). " +
			"A detached host (`detached = true`) is refused.",
		Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
	}
}

// timeoutAttribute is timeout, with the action's default.
func timeoutAttribute(def time.Duration) schema.StringAttribute {
	return schema.StringAttribute{
		Optional: true,
		Description: fmt.Sprintf("How long the action may take, as a duration such as `20m`; default `%s`. "+
			"Past it the action fails with an error that names the host, its state and what it was waiting for.", shortDuration(def)),
		Validators: []validator.String{validators.Duration()},
	}
}

// modeAttribute is mode: soft or hard.
func modeAttribute(desc string) schema.StringAttribute {
	return schema.StringAttribute{
		Optional:    true,
		Description: desc,
		Validators:  []validator.String{stringvalidator.OneOf("soft", "hard")},
	}
}

// shortDuration is d as it is written in a configuration: 20m, 1h.
func shortDuration(d time.Duration) string {
	s := strings.TrimSuffix(d.String(), "0s")
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// run reads host_id and timeout (default def), and runs do with the
// host's action request under that deadline, with progress sent to
// Terraform; an error from do fails the action as what (the host action
// that failed, naming the host).
func (b *base) run(ctx context.Context, host, timeout types.String, def time.Duration, resp *action.InvokeResponse,
	what string, do func(ctx context.Context, req lifecycle.ActionRequest) error) {
	if !b.ready(&resp.Diagnostics) {
		return
	}
	d := def
	if !timeout.IsNull() && timeout.ValueString() != "" {
		var err error
		if d, err = time.ParseDuration(timeout.ValueString()); err != nil || d <= 0 {
			resp.Diagnostics.AddAttributeError(path.Root("timeout"), "Invalid timeout",
				fmt.Sprintf("%q is not a duration greater than zero (e.g. \"20m\")", timeout.ValueString()))
			return
		}
	}
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	req := lifecycle.ActionRequest{Ref: host.ValueString(), Progress: func(msg string) {
		if resp.SendProgress != nil {
			resp.SendProgress(action.InvokeProgressEvent{Message: msg})
		}
	}}
	if err := do(ctx, req); err != nil {
		fail(&resp.Diagnostics, what, err)
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
