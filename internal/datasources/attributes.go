package datasources

// The schema attributes the data sources share: host_id and the computed
// values they report.

import (
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// hostIDAttribute is the host_id of a data source that reads one host.
func hostIDAttribute() schema.StringAttribute {
	return schema.StringAttribute{
		Required:    true,
		Description: "The host: Ironic node UUID or name.",
		Validators:  []validator.String{stringvalidator.LengthAtLeast(1)},
	}
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
