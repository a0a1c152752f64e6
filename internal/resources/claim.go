package resources

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/setplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/tfglue"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/validators"
)

// NewHostClaim returns the baremetal_host_claim resource.
func NewHostClaim() resource.Resource { return &claimResource{base{typeName: "_host_claim"}} }

type claimResource struct{ base }

// claimModel is baremetal_host_claim's state.
type claimModel struct {
	ID   types.String `tfsdk:"id"`
	Name types.String `tfsdk:"name"`
	tfglue.HostFilter
	Candidates  types.Set      `tfsdk:"candidates"`
	SpreadLabel types.String   `tfsdk:"spread_label"`
	Timeouts    timeouts.Value `tfsdk:"timeouts"`

	HostID       types.String `tfsdk:"host_id"`
	HostName     types.String `tfsdk:"host_name"`
	AllocationID types.String `tfsdk:"allocation_id"`
}

// selector builds the lifecycle selector from the model.
func (m *claimModel) selector(ctx context.Context) (lifecycle.Selector, diag.Diagnostics) {
	var diags diag.Diagnostics
	sel := m.HostFilter.Selector(ctx, &diags)
	tfglue.ElementsAs(ctx, m.Candidates, &sel.Candidates, &diags)
	sort.Strings(sel.Candidates)
	return sel, diags
}

const claimReplaceDesc = "Changing the selector releases the host and claims again (a claim is immutable), " +
	"except right after an import, when the configuration's selector is adopted."

// The selector arguments require replacement, except when the prior state
// is an import (the argument was null in state and the claim was imported).
func replaceString() planmodifier.String {
	return stringplanmodifier.RequiresReplaceIf(replaceUnlessImported, claimReplaceDesc, claimReplaceDesc)
}

func replaceInt64() planmodifier.Int64 {
	return int64planmodifier.RequiresReplaceIf(int64ReplaceUnlessImported, claimReplaceDesc, claimReplaceDesc)
}

func replaceSet() planmodifier.Set {
	return setplanmodifier.RequiresReplaceIf(setReplaceUnlessImported, claimReplaceDesc, claimReplaceDesc)
}

func replaceObject() planmodifier.Object {
	return objectplanmodifier.RequiresReplaceIf(objectReplaceUnlessImported, claimReplaceDesc, claimReplaceDesc)
}

func (r *claimResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	minInt := func(desc string) schema.Int64Attribute {
		return schema.Int64Attribute{
			Optional: true, Description: desc,
			Validators:    []validator.Int64{int64validator.AtLeast(1)},
			PlanModifiers: []planmodifier.Int64{replaceInt64()},
		}
	}
	resp.Schema = schema.Schema{
		// The state 0.1.0 writes. A change that such states no longer decode
		// into bumps it, with an upgrader (see internal/provider's
		// TestStateV0StillDecodes).
		Version: 0,
		Description: "Claims one `available` host that matches a selector, as Metal3's Cluster API provider picks a " +
			"BareMetalHost for a Metal3Machine. The claim is an Ironic allocation restricted to the matching hosts, so two " +
			"claims never get the same host, also across concurrent applies and workspaces. Hosts in a failed state, in " +
			"maintenance or already claimed are skipped. Placement is deterministic: matching hosts are tried by name, then " +
			"node UUID; with `spread_label`, hosts in the failure domain with the fewest claimed hosts come first. When no " +
			"host matches, the error says how many hosts were considered and why each group was rejected. A claim keeps its " +
			"host; every argument change releases it and claims again. Destroy releases the host; the host itself stays. " +
			"Detached hosts (`baremetal_host` `detached = true`) are never claimed, and destroying a claim whose host was " +
			"detached since only forgets the claim: its allocation stays with the node, which is handed on as it is.",
		Attributes: map[string]schema.Attribute{
			"id": keptString("The Ironic allocation UUID (same as `allocation_id`)."),
			"name": schema.StringAttribute{
				Optional: true, Computed: true,
				Description: "The allocation's name in Ironic (unique there). Set it to make a retried create find its own " +
					"allocation instead of claiming a second host; when unset, a unique `tf-claim-...` name is generated once.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown(), replaceString()},
				Validators:    []validator.String{validators.Name()},
			},
			"labels": tfglue.LabelSelectorResourceSchema("Label selector over the hosts' `labels`, as a Kubernetes label selector: every match label and "+
				"every match expression must hold.", replaceObject()),
			"resource_class": schema.StringAttribute{
				Optional:      true,
				Description:   "Ironic resource class the host must have. Also the allocation's resource class.",
				PlanModifiers: []planmodifier.String{replaceString()},
				Validators:    []validator.String{validators.ResourceClass()},
			},
			"traits": schema.SetAttribute{
				Optional: true, ElementType: types.StringType,
				Description:   "Ironic traits the host must all have (e.g. `CUSTOM_GPU`): standard or `CUSTOM_` in upper case.",
				PlanModifiers: []planmodifier.Set{replaceSet()},
				Validators:    []validator.Set{setvalidator.ValueStringsAre(validators.Trait())},
			},
			"min_cpus":           minInt("Fewest CPUs the host must have (Ironic's `cpus` property or inspection)."),
			"min_ram_mebibytes":  minInt("Least RAM the host must have, in MiB."),
			"min_disk_gigabytes": minInt("Smallest size, in GiB, that the host's largest disk must have: the largest disk of the inspection inventory when Ironic holds one, else Ironic's `local_gb`."),
			"candidates": schema.SetAttribute{
				Optional: true, ElementType: types.StringType,
				Description: "Restricts the claim to these hosts (node UUIDs or names). The placement order stays the " +
					"documented one.",
				PlanModifiers: []planmodifier.Set{replaceSet()},
			},
			"spread_label": schema.StringAttribute{
				Optional: true,
				Description: "A failure-domain label key (e.g. `topology.kubernetes.io/zone`). Hosts whose value of this label " +
					"has the fewest claimed hosts come first, so successive claims spread across domains; hosts without the " +
					"label come last (they are not silently preferred).",
				PlanModifiers: []planmodifier.String{replaceString()},
				Validators:    []validator.String{validators.LabelKey()},
			},
			"timeouts": timeoutsAttribute(ctx, timeouts.Opts{Create: true, Delete: true}),

			"host_id":       keptString("The claimed host's Ironic node UUID."),
			"host_name":     keptString("The claimed host's name."),
			"allocation_id": keptString("The Ironic allocation UUID that holds the host."),
		},
	}
}

func (r *claimResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	tfglue.ValidateSelector(ctx, req.Config, path.Root("labels"), &resp.Diagnostics)
}

func generateClaimName() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return "tf-claim-" + hex.EncodeToString(b)
}

func (r *claimResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	defer identityFromState(ctx, &resp.State, resp.Identity, &resp.Diagnostics)
	var plan claimModel
	ctx, cancel, ok := opCreate.start(ctx, req.Plan, &plan, &plan.Timeouts, &resp.Diagnostics)
	if !ok {
		return
	}
	defer cancel()
	cat := r.claimCatalog(&resp.Diagnostics)
	sel, diags := plan.selector(ctx)
	if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
		return
	}
	if err := sel.Validate(); err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("labels"), "Invalid label selector", err.Error())
		return
	}

	name := plan.Name.ValueString()
	if plan.Name.IsNull() || plan.Name.IsUnknown() || name == "" {
		name = generateClaimName()
	}
	plan.Name = types.StringValue(name)
	ctx = tflog.SetField(ctx, "claim", name)

	c, err := lifecycle.ClaimHost(ctx, cat, TFLog{}, lifecycle.HostClaimRequest{
		Name: name, Selector: sel, SpreadLabel: plan.SpreadLabel.ValueString(),
	})
	var cerr *lifecycle.ClaimError
	switch {
	case errors.As(err, &cerr):
		resp.Diagnostics.AddError(cerr.Summary, cerr.Detail)
		return
	case err != nil:
		resp.Diagnostics.AddError("Claiming a host for "+name, err.Error())
		return
	}
	plan.set(c)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// set records the claim's allocation and host.
func (m *claimModel) set(c lifecycle.HostClaim) {
	m.ID = types.StringValue(c.ID)
	m.AllocationID = types.StringValue(c.ID)
	m.HostID = types.StringValue(c.NodeID)
	m.HostName = types.StringValue(c.HostName)
	if c.Name != "" {
		m.Name = types.StringValue(c.Name)
	}
}

func (r *claimResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	defer identityAfterRead(ctx, req, resp)
	var state claimModel
	cat, ok := readWith(ctx, req.State.Get, &state, r.claimCatalog, &resp.Diagnostics)
	if !ok {
		return
	}
	prior := snapshot(&state)
	ctx, cancel := context.WithTimeout(ctx, refreshTimeout)
	defer cancel()
	c, ok, err := lifecycle.RefreshClaim(ctx, cat, TFLog{}, state.AllocationID.ValueString(), state.HostID.ValueString(), state.HostName.ValueString())
	if err != nil {
		resp.Diagnostics.AddError("Reading claim "+state.Name.ValueString(), err.Error())
		return
	}
	if !ok {
		tflog.Warn(ctx, "the claim's allocation no longer exists (or holds no host); removing it from state",
			map[string]any{"claim": state.Name.ValueString(), "allocation": state.AllocationID.ValueString()})
		resp.State.RemoveResource(ctx)
		return
	}
	state.set(c)
	resp.Diagnostics.Append(writeIfChanged(ctx, &resp.State, prior, &state)...)
}

// Update only runs for changes that keep the host: timeouts, and selector
// arguments adopted after an import.
func (r *claimResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	defer identityFromState(ctx, &resp.State, resp.Identity, &resp.Diagnostics)
	var plan, state claimModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	plan.ID, plan.AllocationID, plan.HostID, plan.HostName = state.ID, state.AllocationID, state.HostID, state.HostName
	if plan.Name.IsUnknown() || plan.Name.IsNull() {
		plan.Name = state.Name
	}
	resp.Diagnostics.Append(clearImported(ctx, resp.Private)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *claimResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state claimModel
	ctx, cancel, ok := opDelete.start(ctx, req.State, &state, &state.Timeouts, &resp.Diagnostics)
	if !ok {
		return
	}
	defer cancel()
	cat := r.claimCatalog(&resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	err := lifecycle.ReleaseClaim(ctx, cat, state.AllocationID.ValueString(), state.HostID.ValueString())
	if err != nil && !detachedDiag(ctx, &resp.Diagnostics, err) {
		resp.Diagnostics.AddError("Releasing claim "+state.Name.ValueString(),
			fmt.Sprintf("deleting allocation %s of host %s: %v", state.AllocationID.ValueString(), state.HostName.ValueString(), err))
	}
}

// ImportState takes an allocation UUID or name.
func (r *claimResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	defer identityFromState(ctx, &resp.State, resp.Identity, &resp.Diagnostics)
	ref := importRef(ctx, req, &resp.Diagnostics)
	cat := r.claimCatalog(&resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	c, err := lifecycle.ImportClaim(ctx, cat, TFLog{}, ref)
	if err != nil {
		resp.Diagnostics.AddError("Importing claim "+ref, err.Error())
		return
	}
	m := claimModel{
		Name: types.StringValue(c.Name),
		HostFilter: tfglue.HostFilter{
			ResourceClass: types.StringNull(), Traits: types.SetNull(types.StringType),
			MinCPUs: types.Int64Null(), MinRAMMebibytes: types.Int64Null(), MinDiskGigabytes: types.Int64Null(),
		},
		Candidates: types.SetNull(types.StringType), SpreadLabel: types.StringNull(),
		Timeouts: timeouts.Value{Object: types.ObjectNull(map[string]attr.Type{
			"create": types.StringType, "delete": types.StringType,
		})},
	}
	m.set(c)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
	resp.Diagnostics.Append(markImported(ctx, resp.Private)...)
}
