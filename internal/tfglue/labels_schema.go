package tfglue

import (
	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	dschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/validators"
)

// The framework has distinct schema types for resources and data sources;
// both flavours below are built from these, so they cannot drift apart
// (labels_schema_test.go checks that they describe the same attributes).
const (
	matchLabelsDesc      = "Labels the host must carry with exactly these values."
	matchExpressionsDesc = "Expressions the host's labels must satisfy."
	keyDesc              = "Label key (a Kubernetes label key)."
	operatorDesc         = "`In` (the value is one of `values`), `NotIn` (the label is missing or its value is " +
		"not one of `values`), `Exists` or `DoesNotExist`."
	valuesDesc = "Values for `In` and `NotIn` (required there); not allowed with `Exists` and `DoesNotExist`."
)

func keyValidators() []validator.String {
	return []validator.String{validators.LabelKey()}
}

func matchLabelsValidators() []validator.Map {
	return []validator.Map{mapvalidator.KeysAre(validators.LabelKey())}
}

func operatorValidators() []validator.String {
	return []validator.String{stringvalidator.OneOf(lifecycle.Operators...)}
}

// LabelSelectorResourceSchema is the optional `labels` selector of a
// resource, with the given description and plan modifiers.
func LabelSelectorResourceSchema(desc string, mods ...planmodifier.Object) rschema.SingleNestedAttribute {
	return rschema.SingleNestedAttribute{
		Optional:      true,
		Description:   desc,
		PlanModifiers: mods,
		Attributes: map[string]rschema.Attribute{
			"match_labels": rschema.MapAttribute{Optional: true, ElementType: types.StringType, Description: matchLabelsDesc,
				Validators: matchLabelsValidators()},
			"match_expressions": rschema.ListNestedAttribute{
				Optional:    true,
				Description: matchExpressionsDesc,
				NestedObject: rschema.NestedAttributeObject{
					Attributes: map[string]rschema.Attribute{
						"key":      rschema.StringAttribute{Required: true, Description: keyDesc, Validators: keyValidators()},
						"operator": rschema.StringAttribute{Required: true, Description: operatorDesc, Validators: operatorValidators()},
						"values":   rschema.ListAttribute{Optional: true, ElementType: types.StringType, Description: valuesDesc},
					},
				},
			},
		},
	}
}

// LabelSelectorDataSourceSchema is the optional `labels` selector of a data
// source, with the given description.
func LabelSelectorDataSourceSchema(desc string) dschema.SingleNestedAttribute {
	return dschema.SingleNestedAttribute{
		Optional:    true,
		Description: desc,
		Attributes: map[string]dschema.Attribute{
			"match_labels": dschema.MapAttribute{Optional: true, ElementType: types.StringType, Description: matchLabelsDesc,
				Validators: matchLabelsValidators()},
			"match_expressions": dschema.ListNestedAttribute{
				Optional:    true,
				Description: matchExpressionsDesc,
				NestedObject: dschema.NestedAttributeObject{
					Attributes: map[string]dschema.Attribute{
						"key":      dschema.StringAttribute{Required: true, Description: keyDesc, Validators: keyValidators()},
						"operator": dschema.StringAttribute{Required: true, Description: operatorDesc, Validators: operatorValidators()},
						"values":   dschema.ListAttribute{Optional: true, ElementType: types.StringType, Description: valuesDesc},
					},
				},
			},
		},
	}
}
