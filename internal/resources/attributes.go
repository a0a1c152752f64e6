package resources

// The schema attributes the resources share, each written once: ids kept
// across plans, required strings whose change replaces the resource,
// computed values, the timeouts block and the bmc block of the resources
// that reach a BMC themselves.

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/validators"
)

// computedString is a string only the provider sets.
func computedString(desc string) schema.StringAttribute {
	return schema.StringAttribute{Computed: true, Description: desc}
}

// keptString is a computed string that keeps its state value across plans
// (set once, on create).
func keptString(desc string) schema.StringAttribute {
	return schema.StringAttribute{
		Computed: true, Description: desc,
		PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
	}
}

// keptInt64 is keptString for a number.
func keptInt64(desc string) schema.Int64Attribute {
	return schema.Int64Attribute{
		Computed: true, Description: desc,
		PlanModifiers: []planmodifier.Int64{int64planmodifier.UseStateForUnknown()},
	}
}

// keptList is keptString for a list of elem.
func keptList(desc string, elem attr.Type) schema.ListAttribute {
	return schema.ListAttribute{
		Computed: true, ElementType: elem, Description: desc,
		PlanModifiers: []planmodifier.List{listplanmodifier.UseStateForUnknown()},
	}
}

// keptMap is keptString for a map of elem.
func keptMap(desc string, elem attr.Type) schema.MapAttribute {
	return schema.MapAttribute{
		Computed: true, ElementType: elem, Description: desc,
		PlanModifiers: []planmodifier.Map{mapplanmodifier.UseStateForUnknown()},
	}
}

// replacingString is a required string whose change replaces the
// resource, checked by v.
func replacingString(desc string, v ...validator.String) schema.StringAttribute {
	return schema.StringAttribute{
		Required:      true,
		Description:   desc,
		PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
		Validators:    v,
	}
}

// checkString is the validator of a string that f accepts (desc says
// what it must be).
func checkString(desc string, f func(string) error) []validator.String {
	return []validator.String{validators.New(desc, f)}
}

// timeoutsAttribute is the timeouts block with a description.
func timeoutsAttribute(ctx context.Context, opts timeouts.Opts) schema.Attribute {
	a := timeouts.Attributes(ctx, opts).(schema.SingleNestedAttribute) //nolint:forcetypeassert // what the timeouts module returns; ValidateImplementation tests run it
	a.Description = "How long Terraform waits for each operation, as durations greater than zero such as `45m`. " +
		"Waits past these end with an error that names the host, its state and what it was waiting for."
	for name, inner := range a.Attributes {
		if sa, ok := inner.(schema.StringAttribute); ok {
			sa.Validators = append(sa.Validators, validators.PositiveDuration())
			a.Attributes[name] = sa
		}
	}
	return a
}

// nodeIDAttribute is the id of a resource that acts on one host: the
// host's node UUID, kept across plans.
func nodeIDAttribute() schema.StringAttribute { return keptString("The host's Ironic node UUID.") }

// hostIDAttribute is the host_id of a resource that acts on one host:
// required, never empty, and changing it replaces the resource.
func hostIDAttribute(desc string) schema.StringAttribute {
	return replacingString(desc, stringvalidator.LengthAtLeast(1))
}

// redfishBMCAttribute is the optional bmc block (tfglue.BMCModel) of the
// resources that reach the host's BMC over Redfish themselves; desc says
// what for, addressDesc which addresses it takes.
func redfishBMCAttribute(desc, addressDesc string) schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		Optional:    true,
		Description: desc,
		Attributes: map[string]schema.Attribute{
			"address": schema.StringAttribute{
				Required:    true,
				Description: addressDesc,
				Validators:  []validator.String{validators.RedfishBMCAddress()},
			},
			"username": schema.StringAttribute{Required: true, Description: "BMC user name."},
			"password": schema.StringAttribute{Required: true, Sensitive: true, Description: "BMC password."},
			"disable_certificate_verification": schema.BoolAttribute{
				Optional: true, Description: "Skip TLS certificate verification of the BMC.",
			},
		},
	}
}
