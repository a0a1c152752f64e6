package resources

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/tfglue"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/validators"
)

type ipClaimResource struct{ base }

type ipClaimModel struct {
	ID         types.String `tfsdk:"id"`
	Pool       types.String `tfsdk:"pool"`
	Owner      types.String `tfsdk:"owner"`
	Address    types.String `tfsdk:"address"`
	Prefix     types.Int64  `tfsdk:"prefix"`
	Gateway    types.String `tfsdk:"gateway"`
	DNSServers types.List   `tfsdk:"dns_servers"`
	CIDR       types.String `tfsdk:"cidr"`
}

func (r *ipClaimResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "One address of a `baremetal_ip_pool` held for one owner key, as Metal3's IPClaim and IPAddress. The " +
			"claim takes the pool's lowest free address (the owner's pre-allocation, when the pool has one) and keeps it: " +
			"the address does not change when other claims come and go, nor when hosts are added to or removed from a " +
			"module's map (key the owner by the map key, not by a position). Destroy releases it. An exhausted pool fails the " +
			"apply with the pool, its size and the owners holding its addresses. Owner keys are unique per pool: a second " +
			"claim with the same pool and owner gets the same address. An address released out of band (its Ironic record " +
			"deleted) shows as a claim to create in the next plan. " + ipStorageDoc +
			" Import with `<pool>/<owner>`.",
		Attributes: map[string]schema.Attribute{
			"id": keptString("The UUID of the Ironic deploy template that records the address."),
			"pool": replacingString("The name of the pool (`baremetal_ip_pool.name`, of this or another workspace). "+
				"Changing it releases the address and claims one from the new pool.",
				validators.New("a pool name", lifecycle.CheckPoolName)),
			"owner": replacingString("Who holds the address: any string, unique in the pool, such as a host's id or a "+
				"module's map key (`\"${var.cluster}/${each.key}\"`). A claim interrupted mid-apply finds its address again "+
				"by it. Changing it releases the address and claims again.",
				stringvalidator.LengthBetween(1, 255)),
			"address":     keptString("The address held, e.g. `10.0.0.5` (IPv6 in its canonical form)."),
			"prefix":      keptInt64("The pool's prefix length."),
			"gateway":     keptString("The pool's gateway (null when it has none)."),
			"dns_servers": keptList("The pool's DNS servers.", types.StringType),
			"cidr":        keptString("The address with the prefix length, e.g. `10.0.0.5/24`."),
		},
	}
}

// set records the claim in the model.
func (m *ipClaimModel) set(c lifecycle.IPClaim) {
	m.ID = types.StringValue(c.ID)
	m.Pool = types.StringValue(c.Pool)
	m.Owner = types.StringValue(c.Owner)
	m.Address = types.StringValue(c.Address)
	if c.Prefix > 0 {
		m.Prefix = types.Int64Value(int64(c.Prefix))
		m.CIDR = types.StringValue(c.CIDR())
	} else if m.Prefix.IsUnknown() || m.CIDR.IsUnknown() {
		m.Prefix, m.CIDR = types.Int64Null(), types.StringNull()
	}
	m.Gateway = tfglue.NullableString(c.Gateway)
	m.DNSServers = tfglue.StringList(c.DNSServers)
}

// claimDiag reports a failed claim: an exhausted pool and a missing pool
// by what they are.
func claimDiag(diags *diag.Diagnostics, pool, owner string, err error) {
	var ex *lifecycle.PoolExhaustedError
	switch {
	case errors.As(err, &ex):
		diags.AddError(fmt.Sprintf("IP pool %s is exhausted", pool), err.Error())
	case errors.Is(err, lifecycle.ErrPoolNotFound):
		diags.AddAttributeError(path.Root("pool"), "No IP pool "+pool, err.Error())
	default:
		diags.AddError(fmt.Sprintf("Claiming an address of IP pool %s for %q", pool, owner), err.Error())
	}
}

func (r *ipClaimResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	defer identityFromStateAttrs(ctx, &resp.State, resp.Identity, &resp.Diagnostics, "pool", "owner")
	var plan ipClaimModel
	store, ok := readWith(ctx, req.Plan.Get, &plan, r.poolStore, &resp.Diagnostics)
	if !ok {
		return
	}
	pool, owner := plan.Pool.ValueString(), plan.Owner.ValueString()
	ctx = tflog.SetField(ctx, "pool", pool)
	c, err := lifecycle.ClaimIP(ctx, store, TFLog{}, pool, owner)
	if err != nil {
		claimDiag(&resp.Diagnostics, pool, owner, err)
		return
	}
	plan.set(c)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *ipClaimResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	defer identityAfterRead(ctx, req, resp, "pool", "owner")
	var state ipClaimModel
	store, ok := readWith(ctx, req.State.Get, &state, r.poolStore, &resp.Diagnostics)
	if !ok {
		return
	}
	c, ok, err := lifecycle.RefreshIPClaim(ctx, store, state.ID.ValueString(), state.Pool.ValueString(), state.Owner.ValueString())
	if err != nil {
		resp.Diagnostics.AddError(fmt.Sprintf("Reading the address of %q in IP pool %s", state.Owner.ValueString(), state.Pool.ValueString()), err.Error())
		return
	}
	if !ok {
		tflog.Warn(ctx, "the claimed address is no longer recorded in Ironic; removing the claim from state",
			map[string]any{"pool": state.Pool.ValueString(), "owner": state.Owner.ValueString(), "address": state.Address.ValueString()})
		resp.State.RemoveResource(ctx)
		return
	}
	state.set(c)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

// Update never changes the address: pool and owner replace the claim, so
// only a plan after an import gets here.
func (r *ipClaimResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	defer identityFromStateAttrs(ctx, &resp.State, resp.Identity, &resp.Diagnostics, "pool", "owner")
	var state ipClaimModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

func (r *ipClaimResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state ipClaimModel
	store, ok := readWith(ctx, req.State.Get, &state, r.poolStore, &resp.Diagnostics)
	if !ok {
		return
	}
	if err := lifecycle.ReleaseIP(ctx, store, state.ID.ValueString()); err != nil {
		resp.Diagnostics.AddError(fmt.Sprintf("Releasing %s of %q in IP pool %s", state.Address.ValueString(), state.Owner.ValueString(), state.Pool.ValueString()), err.Error())
	}
}

// ImportState takes <pool>/<owner> (the owner may contain slashes).
func (r *ipClaimResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	defer identityFromStateAttrs(ctx, &resp.State, resp.Identity, &resp.Diagnostics, "pool", "owner")
	ref := importRefOf(ctx, req, &resp.Diagnostics, "pool", "owner")
	store := r.poolStore(&resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	pool, owner, ok := strings.Cut(ref, "/")
	if !ok || pool == "" || owner == "" {
		resp.Diagnostics.AddError("Invalid import id", fmt.Sprintf("%q: import an IP claim with <pool>/<owner>, e.g. r01/worker-0", ref))
		return
	}
	c, found, err := lifecycle.FindIPClaim(ctx, store, pool, owner)
	switch {
	case err != nil:
		resp.Diagnostics.AddError("Importing IP claim "+ref, err.Error())
		return
	case !found:
		resp.Diagnostics.AddError("Importing IP claim "+ref, fmt.Sprintf("owner %q holds no address of IP pool %s", owner, pool))
		return
	}
	var m ipClaimModel
	m.Prefix, m.CIDR = types.Int64Unknown(), types.StringUnknown()
	m.set(c)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}
