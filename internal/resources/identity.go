package resources

import (
	"context"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/identityschema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// Resource identity (Terraform 1.12 and later): what names a resource's
// object in Ironic uniquely and for good, so that `import { identity = ... }`
// and `terraform query` can name it. The host and the resources on one
// host (deployment, firmware settings, firmware update) are named by the
// node's UUID, a claim by its allocation's UUID: their `id`. Host names are
// not identities: they can be changed. Runbooks and inspection rules are
// named by their UUIDs (a runbook's name can change). IP pools and their claims are named
// by what names them in Ironic and cannot change: a pool's name, a claim's
// pool and owner.
//
// The identity is copied from the state whenever the provider writes
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

func (r *ipPoolResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = identityschema.Schema{Attributes: map[string]identityschema.Attribute{
		"name": identityschema.StringAttribute{RequiredForImport: true, Description: "The pool's name, unique in the Ironic."},
	}}
}

func (r *ipClaimResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = identityschema.Schema{Attributes: map[string]identityschema.Attribute{
		"pool":  identityschema.StringAttribute{RequiredForImport: true, Description: "The name of the pool the address is claimed from."},
		"owner": identityschema.StringAttribute{RequiredForImport: true, Description: "The owner key the address is held for (unique in its pool)."},
	}}
}

func (r *dataImageResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = uuidIdentitySchema(nodeIdentityDoc + " A host holds one data image, in its virtual CD.")
}

func (r *runbookResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = uuidIdentitySchema("The runbook's Ironic UUID (its `id`; the name can change).")
}

func (r *inspectionRuleResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = uuidIdentitySchema("The inspection rule's Ironic UUID (its `id`).")
}

var (
	_ resource.ResourceWithIdentity = (*runbookResource)(nil)
	_ resource.ResourceWithIdentity = (*inspectionRuleResource)(nil)
	_ resource.ResourceWithIdentity = (*dataImageResource)(nil)
	_ resource.ResourceWithIdentity = (*ipPoolResource)(nil)
	_ resource.ResourceWithIdentity = (*ipClaimResource)(nil)
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
	identityFromStateAttrs(ctx, state, identity, diags, "id")
}

// identityAfterRead is identityFromState for Read, of the attributes
// names (default: id). A Read that removes the resource (its object is gone
// from Ironic) keeps the identity of the prior state: the framework wants
// one after every Read without errors, also when Terraform (before 1.12)
// or the state had none.
func identityAfterRead(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse, names ...string) {
	if len(names) == 0 {
		names = []string{"id"}
	}
	st := &resp.State
	if st.Raw.IsNull() {
		st = &req.State
	}
	identityFromStateAttrs(ctx, st, resp.Identity, &resp.Diagnostics, names...)
}

// identityFromStateAttrs is identityFromState for an identity of the
// string attributes names, each copied from the state's attribute of the
// same name; nothing is set until they are all known and not empty.
func identityFromStateAttrs(ctx context.Context, state *tfsdk.State, identity *tfsdk.ResourceIdentity, diags *diag.Diagnostics, names ...string) {
	if identity == nil || state == nil || state.Raw.IsNull() {
		return
	}
	vals := make([]types.String, len(names))
	for i, n := range names {
		if d := state.GetAttribute(ctx, path.Root(n), &vals[i]); d.HasError() || vals[i].IsNull() || vals[i].IsUnknown() || vals[i].ValueString() == "" {
			return
		}
	}
	for i, n := range names {
		diags.Append(identity.SetAttribute(ctx, path.Root(n), vals[i])...)
	}
}

// importRef is what an import names: the import id (`terraform import`,
// `import { id = ... }`), else the identity's id (`import { identity = ... }`).
func importRef(ctx context.Context, req resource.ImportStateRequest, diags *diag.Diagnostics) string {
	return importRefOf(ctx, req, diags, "id")
}

// importRefOf is importRef for an identity of the string attributes
// names: their values joined by "/" (an IP claim's <pool>/<owner>).
func importRefOf(ctx context.Context, req resource.ImportStateRequest, diags *diag.Diagnostics, names ...string) string {
	if req.ID != "" || req.Identity == nil {
		return req.ID
	}
	parts := make([]string, len(names))
	for i, n := range names {
		var v types.String
		diags.Append(req.Identity.GetAttribute(ctx, path.Root(n), &v)...)
		parts[i] = v.ValueString()
	}
	return strings.Join(parts, "/")
}
