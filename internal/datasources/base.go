package datasources

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/tfglue"
)

// base is what every data source embeds: its type name, the provider's
// clients, handed down once by Configure, and the one way to reach them.
type base struct {
	typeName string // after the provider's name: "_host"
	clients  *lifecycle.Clients
}

// Metadata names the data source: the provider's name and typeName.
func (b *base) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + b.typeName
}

// Configure keeps the provider's clients (nil while the provider is not
// configured yet, as during validation).
func (b *base) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	b.clients = tfglue.ClientsFrom(req.ProviderData, &resp.Diagnostics)
}

// catalog returns the catalog, or adds an error when there is none.
func (b *base) catalog(diags *diag.Diagnostics) lifecycle.Catalog {
	if b.clients == nil || b.clients.Catalog == nil {
		diags.AddError("Provider not configured", "the provider has no Ironic catalog configured")
		return nil
	}
	return b.clients.Catalog
}

// readCatalog reads the configuration into m and returns the catalog;
// false after an error, also when the provider has no catalog.
func (b *base) readCatalog(ctx context.Context, cfg tfsdk.Config, m any, diags *diag.Diagnostics) (lifecycle.Catalog, bool) {
	diags.Append(cfg.Get(ctx, m)...)
	cat := b.catalog(diags)
	return cat, !diags.HasError()
}
