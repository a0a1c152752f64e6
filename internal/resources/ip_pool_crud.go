package resources

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// This file is baremetal_ip_pool's create, read, update, delete and
// import.

// write reads the plan (get), runs do (create or update the pool it
// defines) and saves the plan as the state (set).
func (r *ipPoolResource) write(ctx context.Context, get, set getter, diags *diag.Diagnostics,
	do func(ctx context.Context, store lifecycle.IPPoolStore, spec lifecycle.IPPoolSpec, diags *diag.Diagnostics)) {
	var plan ipPoolModel
	store, ok := readWith(ctx, get, &plan, r.poolStore, diags)
	if !ok {
		return
	}
	spec := plan.spec(ctx, diags)
	if diags.HasError() {
		return
	}
	if do(ctx, store, spec, diags); diags.HasError() {
		return
	}
	plan.set(spec)
	diags.Append(set(ctx, &plan)...)
}

func (r *ipPoolResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	defer identityFromStateAttrs(ctx, &resp.State, resp.Identity, &resp.Diagnostics, "name")
	r.write(ctx, req.Plan.Get, resp.State.Set, &resp.Diagnostics, createPool)
}

// createPool creates the pool; an interrupted create of this very pool is
// adopted, any other pool of the name is not.
func createPool(ctx context.Context, store lifecycle.IPPoolStore, spec lifecycle.IPPoolSpec, diags *diag.Diagnostics) {
	err := store.CreatePool(ctx, spec)
	if errors.Is(err, lifecycle.ErrIPRecordExists) {
		existing, found, rerr := store.Pool(ctx, spec.Name)
		switch {
		case rerr != nil:
			err = rerr
		case found && sameSpec(existing, spec):
			tflog.Info(ctx, "IP pool exists with this definition already; adopting it", map[string]any{"pool": spec.Name})
			err = nil
		default:
			diags.AddAttributeError(path.Root("name"), "IP pool "+spec.Name+" exists already",
				fmt.Sprintf("Ironic holds an IP pool named %q with another definition; import it or choose another name.", spec.Name))
			return
		}
	}
	if err != nil {
		diags.AddError("Creating IP pool "+spec.Name, err.Error())
	}
}

func (r *ipPoolResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	defer identityAfterRead(ctx, req, resp, "name")
	var state ipPoolModel
	store, ok := readWith(ctx, req.State.Get, &state, r.poolStore, &resp.Diagnostics)
	if !ok {
		return
	}
	name := state.Name.ValueString()
	if name == "" {
		name = state.ID.ValueString()
	}
	spec, ok, err := store.Pool(ctx, name)
	if err != nil {
		resp.Diagnostics.AddError("Reading IP pool "+name, err.Error())
		return
	}
	if !ok {
		tflog.Warn(ctx, "the IP pool no longer exists in Ironic; removing it from state", map[string]any{"pool": name})
		resp.State.RemoveResource(ctx)
		return
	}
	state.set(spec)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

func (r *ipPoolResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	defer identityFromStateAttrs(ctx, &resp.State, resp.Identity, &resp.Diagnostics, "name")
	r.write(ctx, req.Plan.Get, resp.State.Set, &resp.Diagnostics, updatePool)
}

// updatePool updates the pool, checking again at apply that no allocated
// address would be left outside it (a claim may have taken one since the
// plan).
func updatePool(ctx context.Context, store lifecycle.IPPoolStore, spec lifecycle.IPPoolSpec, diags *diag.Diagnostics) {
	if strandDiags(ctx, store, spec, diags); diags.HasError() {
		return
	}
	if err := store.UpdatePool(ctx, spec); err != nil {
		diags.AddError("Updating IP pool "+spec.Name, err.Error())
	}
}

func (r *ipPoolResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state ipPoolModel
	store, ok := readWith(ctx, req.State.Get, &state, r.poolStore, &resp.Diagnostics)
	if !ok {
		return
	}
	name := state.Name.ValueString()
	recs, err := store.Addresses(ctx, name)
	if err != nil {
		resp.Diagnostics.AddError("Listing the addresses of IP pool "+name, err.Error())
		return
	}
	if len(recs) > 0 {
		held := make([]string, 0, len(recs))
		for _, rec := range recs {
			held = append(held, fmt.Sprintf("%s (%s)", rec.Address, rec.Owner))
		}
		resp.Diagnostics.AddError("IP pool "+name+" still has addresses allocated",
			fmt.Sprintf("IP pool %s: %d addresses are held: %s. Destroy their baremetal_ip_claim resources first (in "+
				"whichever workspace holds them); the pool is kept meanwhile.", name, len(recs), strings.Join(held, ", ")))
		return
	}
	if err := store.DeletePool(ctx, name); err != nil {
		resp.Diagnostics.AddError("Deleting IP pool "+name, err.Error())
	}
}

// ImportState takes the pool's name.
func (r *ipPoolResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	defer identityFromStateAttrs(ctx, &resp.State, resp.Identity, &resp.Diagnostics, "name")
	ref := importRefOf(ctx, req, &resp.Diagnostics, "name")
	store := r.poolStore(&resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	spec, ok, err := store.Pool(ctx, ref)
	switch {
	case err != nil:
		resp.Diagnostics.AddError("Importing IP pool "+ref, err.Error())
		return
	case !ok:
		resp.Diagnostics.AddError("Importing IP pool "+ref, fmt.Sprintf("Ironic holds no IP pool named %q", ref))
		return
	}
	var m ipPoolModel
	m.set(spec)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}
