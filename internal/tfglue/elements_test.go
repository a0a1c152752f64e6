package tfglue

import (
	"context"
	"slices"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

func TestElementsAs(t *testing.T) {
	ctx := context.Background()
	var diags diag.Diagnostics
	var got []string
	ElementsAs(ctx, StringList([]string{"a", "b"}), &got, &diags)
	if diags.HasError() || !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("known list: %v, %v", got, diags)
	}
	keep := []string{"kept"}
	ElementsAs(ctx, types.ListNull(types.StringType), &keep, &diags)
	ElementsAs(ctx, types.SetUnknown(types.StringType), &keep, &diags)
	if diags.HasError() || !slices.Equal(keep, []string{"kept"}) {
		t.Fatalf("null or unknown changed the target: %v, %v", keep, diags)
	}
	var m map[string]string
	ElementsAs(ctx, StringMap(map[string]string{"k": "v"}), &m, &diags)
	if diags.HasError() || m["k"] != "v" {
		t.Fatalf("known map: %v, %v", m, diags)
	}
	var wrong []int64
	ElementsAs(ctx, StringList([]string{"x"}), &wrong, &diags)
	if !diags.HasError() {
		t.Fatal("strings read into []int64 added no error")
	}
}
