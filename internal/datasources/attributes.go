package datasources

// The schema attributes the data sources share: host_id, and one way to
// write each kind of input (optional or required strings) and of computed
// value they report.

import (
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// hostIDAttribute is the host_id of a data source that reads one host.
func hostIDAttribute() schema.StringAttribute {
	return reqString("The host: Ironic node UUID or name.")
}

// optString is an optional string.
func optString(desc string) schema.StringAttribute {
	return schema.StringAttribute{Optional: true, Description: desc}
}

// reqString is a required, non-empty string.
func reqString(desc string) schema.StringAttribute {
	return schema.StringAttribute{Required: true, Description: desc, Validators: []validator.String{stringvalidator.LengthAtLeast(1)}}
}

// withString adds validators to a string attribute.
func withString(a schema.StringAttribute, v ...validator.String) schema.StringAttribute {
	a.Validators = append(a.Validators, v...)
	return a
}

func computedString(desc string) schema.StringAttribute {
	return schema.StringAttribute{Computed: true, Description: desc}
}

func computedInt(desc string) schema.Int64Attribute {
	return schema.Int64Attribute{Computed: true, Description: desc}
}

func computedBool(desc string) schema.BoolAttribute {
	return schema.BoolAttribute{Computed: true, Description: desc}
}

// computedObject is a computed nested object.
func computedObject(desc string, attrs map[string]schema.Attribute) schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{Computed: true, Description: desc, Attributes: attrs}
}

// computedObjects is a computed list of nested objects.
func computedObjects(desc string, attrs map[string]schema.Attribute) schema.ListNestedAttribute {
	return schema.ListNestedAttribute{Computed: true, Description: desc, NestedObject: schema.NestedAttributeObject{Attributes: attrs}}
}

// computedList is a computed list of elem values.
func computedList(elem attr.Type, desc string) schema.ListAttribute {
	return schema.ListAttribute{Computed: true, ElementType: elem, Description: desc}
}

// computedMap is a computed map of elem values.
func computedMap(elem attr.Type, desc string) schema.MapAttribute {
	return schema.MapAttribute{Computed: true, ElementType: elem, Description: desc}
}
