// Package datasources is the Terraform glue of the provider's data sources:
// schemas and typed models over lifecycle.Catalog (lists, hardware) and the
// network_data.json renderer. No data source talks to Ironic directly.
package datasources

import (
	"sort"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// All lists the provider's data sources.
func All() []func() datasource.DataSource {
	return []func() datasource.DataSource{
		NewHost,
		NewHosts,
		NewHardware,
		NewNetworkData,
		NewFirmware,
	}
}

func stringList(s []string) types.List {
	el := make([]attr.Value, 0, len(s))
	for _, v := range s {
		el = append(el, types.StringValue(v))
	}
	return types.ListValueMust(types.StringType, el)
}

func sortedStringList(s []string) types.List {
	c := append([]string(nil), s...)
	sort.Strings(c)
	return stringList(c)
}

func stringMap(m map[string]string) types.Map {
	el := make(map[string]attr.Value, len(m))
	for k, v := range m {
		el[k] = types.StringValue(v)
	}
	return types.MapValueMust(types.StringType, el)
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
