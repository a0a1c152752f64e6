package tfglue

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"
)

func TestNullableString(t *testing.T) {
	if got := NullableString(""); !got.IsNull() {
		t.Errorf(`NullableString("") = %v, want null`, got)
	}
	if got := NullableString("x"); !got.Equal(types.StringValue("x")) {
		t.Errorf(`NullableString("x") = %v, want "x"`, got)
	}
}
