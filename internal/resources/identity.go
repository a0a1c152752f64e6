package resources

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/identityschema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// Resource identity (Terraform 1.12 and later): what names a resource's
// object in Ironic uniquely and for good, so that `import { identity = ... }`
// and `terraform query` can name it. Every resource here is named by one
// Ironic UUID, its `id`: a node's for the host and the resources on one
// host (deployment, firmware settings, firmware update), an allocation's
// for a claim. Names are not identities: they can be changed.
//
// The identity is copied from the state's id whenever the provider writes
// state (create, read, update, import): a state written before identity
// existed gains it on its first refresh. Older Terraform and OpenTofu do
// not ask for identities and import by id as before.

// idIdentityModel is the identity of every resource here.
type idIdentityModel struct {
	ID types.String `tfsdk:"id"`
}

// uuidIdentitySchema is the identity schema: one id, the UUID desc names.
func uuidIdentitySchema(desc string) identityschema.Schema {
	return identityschema.Schema{
		Attributes: map[string]identityschema.Attribute{
			"id": identityschema.StringAttribute{
				RequiredForImport: true,
				Description:       desc,
			},
		},
	}
}

// nodeIdentityDoc is the identity of the host and of the resources on one host.
const nodeIdentityDoc = "The host's Ironic node UUID."

func (r *hostResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = uuidIdentitySchema(nodeIdentityDoc)
}

func (r *deploymentResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = uuidIdentitySchema(nodeIdentityDoc + " A host has at most one deployment.")
}

func (r *firmwareSettingsResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = uuidIdentitySchema(nodeIdentityDoc + " The settings are the BIOS settings of that host.")
}

func (r *firmwareUpdateResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = uuidIdentitySchema(nodeIdentityDoc + " The resource records an update made on that host; it cannot be imported.")
}

func (r *claimResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = uuidIdentitySchema("The Ironic allocation UUID that holds the claimed host (the claim's `id`).")
}

var (
	_ resource.ResourceWithIdentity = (*hostResource)(nil)
	_ resource.ResourceWithIdentity = (*deploymentResource)(nil)
	_ resource.ResourceWithIdentity = (*firmwareSettingsResource)(nil)
	_ resource.ResourceWithIdentity = (*firmwareUpdateResource)(nil)
	_ resource.ResourceWithIdentity = (*claimResource)(nil)
)

// identityFromState sets identity to the id the state holds. It is
// deferred at the top of Create, Read, Update and ImportState, so that
// every return that leaves a resource in state leaves its identity too;
// a state that is null (removed, or never written) or without an id yet
// is left alone.
func identityFromState(ctx context.Context, state *tfsdk.State, identity *tfsdk.ResourceIdentity, diags *diag.Diagnostics) {
	if identity == nil || state == nil || state.Raw.IsNull() {
		return
	}
	var id types.String
	if d := state.GetAttribute(ctx, path.Root("id"), &id); d.HasError() || id.IsNull() || id.IsUnknown() || id.ValueString() == "" {
		return
	}
	diags.Append(identity.Set(ctx, idIdentityModel{ID: id})...)
}

// importRef is what an import names: the import id (`terraform import`,
// `import { id = ... }`), else the identity's id (`import { identity = ... }`).
func importRef(ctx context.Context, req resource.ImportStateRequest, diags *diag.Diagnostics) string {
	if req.ID != "" || req.Identity == nil {
		return req.ID
	}
	var m idIdentityModel
	diags.Append(req.Identity.Get(ctx, &m)...)
	return m.ID.ValueString()
}
