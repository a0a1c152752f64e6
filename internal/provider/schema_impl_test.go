package provider

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/resource"
)

// typeSchema is one resource's or data source's type name and the answer
// to Terraform's schema request.
type typeSchema[S any] struct {
	name string
	resp S
}

// resourceSchemas asks every resource of p for its type name and schema,
// as Terraform does; the schema tests share it.
func resourceSchemas(ctx context.Context, p provider.Provider) []typeSchema[resource.SchemaResponse] {
	var out []typeSchema[resource.SchemaResponse]
	for _, f := range p.Resources(ctx) {
		r := f()
		var md resource.MetadataResponse
		r.Metadata(ctx, resource.MetadataRequest{ProviderTypeName: "baremetal"}, &md)
		var sr resource.SchemaResponse
		r.Schema(ctx, resource.SchemaRequest{}, &sr)
		out = append(out, typeSchema[resource.SchemaResponse]{md.TypeName, sr})
	}
	return out
}

// dataSourceSchemas is resourceSchemas for the data sources.
func dataSourceSchemas(ctx context.Context, p provider.Provider) []typeSchema[datasource.SchemaResponse] {
	var out []typeSchema[datasource.SchemaResponse]
	for _, f := range p.DataSources(ctx) {
		ds := f()
		var md datasource.MetadataResponse
		ds.Metadata(ctx, datasource.MetadataRequest{ProviderTypeName: "baremetal"}, &md)
		var sr datasource.SchemaResponse
		ds.Schema(ctx, datasource.SchemaRequest{}, &sr)
		out = append(out, typeSchema[datasource.SchemaResponse]{md.TypeName, sr})
	}
	return out
}

// Every schema passes the framework's own implementation checks (what it
// would otherwise report only when Terraform first asks for the schema):
// reserved names, defaults on non-computed attributes, write-only rules...
func TestSchemasValidateImplementation(t *testing.T) {
	ctx := context.Background()
	p := New("test")()
	var pr provider.SchemaResponse
	p.Schema(ctx, provider.SchemaRequest{}, &pr)
	checkImplementation(t, "provider", pr.Diagnostics, pr.Schema.ValidateImplementation(ctx))
	for _, s := range resourceSchemas(ctx, p) {
		checkImplementation(t, s.name, s.resp.Diagnostics, s.resp.Schema.ValidateImplementation(ctx))
	}
	for _, s := range dataSourceSchemas(ctx, p) {
		checkImplementation(t, "data source "+s.name, s.resp.Diagnostics, s.resp.Schema.ValidateImplementation(ctx))
	}
}

func checkImplementation(t *testing.T, name string, schema, impl diag.Diagnostics) {
	t.Helper()
	if schema.HasError() {
		t.Errorf("%s: Schema: %v", name, schema)
	}
	if impl.HasError() {
		t.Errorf("%s: %v", name, impl)
	}
}
