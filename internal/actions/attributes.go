package actions

// The schema attributes the actions share: host_id, timeout (with its
// default written as a configuration writes it), mode and the strings that
// take one of a few values.

import (
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/validators"
)

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
	return optionalChoice(desc, "soft", "hard")
}

// requiredChoice is a required string that is one of values.
func requiredChoice(desc string, values ...string) schema.StringAttribute {
	return schema.StringAttribute{Required: true, Description: desc, Validators: []validator.String{stringvalidator.OneOf(values...)}}
}

// optionalChoice is an optional string that is one of values.
func optionalChoice(desc string, values ...string) schema.StringAttribute {
	return schema.StringAttribute{Optional: true, Description: desc, Validators: []validator.String{stringvalidator.OneOf(values...)}}
}

// shortDuration is d as it is written in a configuration: 20m, 1h.
func shortDuration(d time.Duration) string {
	s := strings.TrimSuffix(d.String(), "0s")
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
