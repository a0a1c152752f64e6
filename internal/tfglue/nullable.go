package tfglue

import "github.com/hashicorp/terraform-plugin-framework/types"

// NullableString is s, or null when it is empty: a value Ironic or the BMC
// leaves unset.
func NullableString(s string) types.String {
	if s == "" {
		return types.StringNull()
	}
	return types.StringValue(s)
}
