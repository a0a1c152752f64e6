package resources

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/tfglue"
)

// base is what every resource embeds: its type name, the provider's
// clients, handed down once by Configure, and the one way to reach them.
type base struct {
	typeName string // after the provider's name: "_host"
	clients  *lifecycle.Clients
}

// named is the constructor of the resource R, which embeds base, under
// typeName (after the provider's name: "_host").
func named[R any, P interface {
	*R
	resource.Resource
	name(typeName string)
}](typeName string) func() resource.Resource {
	return func() resource.Resource {
		p := P(new(R))
		p.name(typeName)
		return p
	}
}

func (b *base) name(typeName string) { b.typeName = typeName }

// Metadata names the resource: the provider's name and typeName.
func (b *base) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + b.typeName
}

// Configure keeps the provider's clients (nil while the provider is not
// configured yet, as during validation).
func (b *base) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	b.clients = tfglue.ClientsFrom(req.ProviderData, &resp.Diagnostics)
}

// machine is the state machine; only called once the provider is
// configured (CRUD and import).
func (b *base) machine() *lifecycle.Machine { return b.clients.Machine }

// hasFirmware reports whether the provider is configured with a firmware
// catalog (plan-time checks skip without one).
func (b *base) hasFirmware() bool { return b.clients != nil && b.clients.Firmware != nil }

// getter reads a model: req.Plan.Get, req.State.Get or req.Config.Get.
type getter func(ctx context.Context, target any) diag.Diagnostics

// poolStore is the IP pool store (the pools live in Ironic), or nil after
// adding an error when the provider has none.
func (b *base) poolStore(diags *diag.Diagnostics) lifecycle.IPPoolStore {
	if b.clients != nil && b.clients.IPPools != nil {
		return b.clients.IPPools
	}
	diags.AddError("Provider not configured", "the provider has no Ironic configured; IP pools live in Ironic")
	return nil
}

// readWith reads m with get and returns the client that client gives
// (poolStore, claimCatalog); false after an error.
func readWith[C any](ctx context.Context, get getter, m any, client func(*diag.Diagnostics) C, diags *diag.Diagnostics) (C, bool) {
	diags.Append(get(ctx, m)...)
	c := client(diags)
	return c, !diags.HasError()
}

// claimCatalog is the catalog host claims allocate from, or nil after
// adding an error when the provider has none.
func (b *base) claimCatalog(diags *diag.Diagnostics) lifecycle.Catalog {
	if b.clients != nil && b.clients.Catalog != nil {
		return b.clients.Catalog
	}
	diags.AddError("Provider not configured", "the provider has no Ironic catalog configured; claims need one")
	return nil
}
