package tfglue

import (
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// Framework values of what Ironic reports as Go strings: one way to build
// each, for resources and data sources alike. A nil slice or map gives an
// empty (not null) value.

// StringList is s as a list of strings, in order.
func StringList(s []string) types.List {
	return types.ListValueMust(types.StringType, stringValues(s))
}

// StringSet is s as a set of strings.
func StringSet(s []string) types.Set {
	return types.SetValueMust(types.StringType, stringValues(s))
}

// StringMap is m as a map of strings.
func StringMap(m map[string]string) types.Map {
	el := make(map[string]attr.Value, len(m))
	for k, v := range m {
		el[k] = types.StringValue(v)
	}
	return types.MapValueMust(types.StringType, el)
}

func stringValues(s []string) []attr.Value {
	el := make([]attr.Value, 0, len(s))
	for _, v := range s {
		el = append(el, types.StringValue(v))
	}
	return el
}
