package provider

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/resource"
)

// Every schema passes the framework's own implementation checks (what it
// would otherwise report only when Terraform first asks for the schema):
// reserved names, defaults on non-computed attributes, write-only rules...
func TestSchemasValidateImplementation(t *testing.T) {
	ctx := context.Background()
	p := New("test")()
	var pr provider.SchemaResponse
	p.Schema(ctx, provider.SchemaRequest{}, &pr)
	if d := pr.Schema.ValidateImplementation(ctx); d.HasError() {
		t.Errorf("provider schema: %v", d)
	}
	for _, f := range p.Resources(ctx) {
		r := f()
		var md resource.MetadataResponse
		r.Metadata(ctx, resource.MetadataRequest{ProviderTypeName: "baremetal"}, &md)
		var sr resource.SchemaResponse
		r.Schema(ctx, resource.SchemaRequest{}, &sr)
		if sr.Diagnostics.HasError() {
			t.Errorf("%s: Schema: %v", md.TypeName, sr.Diagnostics)
		}
		if d := sr.Schema.ValidateImplementation(ctx); d.HasError() {
			t.Errorf("%s: %v", md.TypeName, d)
		}
	}
	for _, f := range p.DataSources(ctx) {
		ds := f()
		var md datasource.MetadataResponse
		ds.Metadata(ctx, datasource.MetadataRequest{ProviderTypeName: "baremetal"}, &md)
		var sr datasource.SchemaResponse
		ds.Schema(ctx, datasource.SchemaRequest{}, &sr)
		if sr.Diagnostics.HasError() {
			t.Errorf("%s: Schema: %v", md.TypeName, sr.Diagnostics)
		}
		if d := sr.Schema.ValidateImplementation(ctx); d.HasError() {
			t.Errorf("data source %s: %v", md.TypeName, d)
		}
	}
}
