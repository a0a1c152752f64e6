package resources

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/tfglue"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/validators"
)

type ipPoolResource struct{ base }

type ipPoolModel struct {
	ID             types.String   `tfsdk:"id"`
	Name           types.String   `tfsdk:"name"`
	Ranges         []ipRangeModel `tfsdk:"ranges"`
	Prefix         types.Int64    `tfsdk:"prefix"`
	Gateway        types.String   `tfsdk:"gateway"`
	DNSServers     types.List     `tfsdk:"dns_servers"`
	PreAllocations types.Map      `tfsdk:"pre_allocations"`
	Size           types.String   `tfsdk:"size"`
}

type ipRangeModel struct {
	Start   types.String `tfsdk:"start"`
	End     types.String `tfsdk:"end"`
	Subnet  types.String `tfsdk:"subnet"`
	Exclude types.List   `tfsdk:"exclude"`
}

// IPStorageDoc is how pools and claims are kept, for the resources' docs.
const ipStorageDoc = "Pools and their addresses are kept in the Ironic the provider talks to, as deploy templates " +
	"(API 1.55+), so every workspace that talks to that Ironic sees them and no other server is needed: the pool is the " +
	"template `CUSTOM_IPPOOL_<NAME>` (its definition in `extra`), and each allocated address is a template named from " +
	"the pool and the address, `CUSTOM_IP4_10_0_0_5_<NAME>` or `CUSTOM_IP6_<32 hex digits>_<NAME>`, with the pool, " +
	"address and owner in `extra`. Ironic keeps template names unique and refuses a second one with 409 Conflict, " +
	"atomically: of two claims that pick the same address at the same moment, in any two workspaces, one records it and " +
	"the other takes the next free address. A claim is found again by its owner key, so a claim interrupted mid-apply " +
	"(Terraform killed after Ironic recorded the address) gets the same address on the next apply, never a second one. " +
	"The templates are never applied: a deploy template only acts on a node whose deployment asks for the trait of its " +
	"name, and their one step has priority 0, which Ironic never runs."

// ipAddress is an optional IP address.
func ipAddress(desc string) schema.StringAttribute {
	return schema.StringAttribute{Optional: true, Description: desc, Validators: []validator.String{validators.IPAddress()}}
}

// ipList is an optional, non-empty list of IP addresses.
func ipList(desc string) schema.ListAttribute {
	return schema.ListAttribute{
		Optional: true, ElementType: types.StringType, Description: desc,
		Validators: []validator.List{listvalidator.SizeAtLeast(1), listvalidator.ValueStringsAre(validators.IPAddress())},
	}
}

func (r *ipPoolResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "A pool of static addresses of one network, as Metal3's IPPool: ranges (start and end, or a subnet " +
			"with exclusions), the network's prefix length, gateway and DNS servers, and pre-allocations. " +
			"`baremetal_ip_claim` takes addresses from it, lowest free first, and `baremetal_network_data` renders them. " +
			"A pool is independent of the hosts and clusters that use it; claims from any number of workspaces share it. " +
			"The ranges are checked at `terraform validate`; a change that would leave an allocated address outside the pool " +
			"is refused at plan, naming the owner; destroying a pool that still has addresses allocated is refused. " +
			ipStorageDoc + " Import with the pool's name.",
		Attributes: map[string]schema.Attribute{
			"id": keptString("The pool's name."),
			"name": replacingString("The pool's name, unique in the Ironic: 1 to 63 lower-case letters, digits and dashes "+
				"(a DNS label). Claims name the pool by it, also from other workspaces. Changing it replaces the pool.",
				validators.New("a pool name", lifecycle.CheckPoolName)),
			"ranges": schema.ListNestedAttribute{
				Required: true,
				Description: "The addresses the pool hands out, in one or more ranges of one family, inside the network " +
					"(`prefix` applied to the first range). Ranges may not overlap. The gateway is never handed out.",
				Validators: []validator.List{listvalidator.SizeAtLeast(1)},
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"start": ipAddress("First address of the range (with `end`; not with `subnet`)."),
					"end":   ipAddress("Last address of the range, inclusive, not before `start`, of the same family."),
					"subnet": schema.StringAttribute{
						Optional: true,
						Description: "A CIDR inside the network, e.g. `10.0.0.64/26`: every address of it except the subnet's " +
							"own address and, for IPv4, its broadcast address.",
					},
					"exclude": schema.ListAttribute{
						Optional: true, ElementType: types.StringType,
						Description: "Addresses or CIDRs of the range never handed out.",
						Validators:  []validator.List{listvalidator.SizeAtLeast(1)},
					},
				}},
			},
			"prefix": schema.Int64Attribute{
				Required: true,
				Description: "The network's prefix length (1-32 for IPv4, 1-128 for IPv6), as claims and " +
					"`network_data.json` give it.",
			},
			"gateway":     ipAddress("The network's default gateway, inside the network."),
			"dns_servers": ipList("DNS servers of the network."),
			"pre_allocations": schema.MapAttribute{
				Optional: true, ElementType: types.StringType,
				Description: "Owner key to the address reserved for it, as Metal3's preAllocations: no other owner gets " +
					"it, and a claim with that owner key gets it (also when it is outside the ranges, inside the network).",
				Validators: []validator.Map{mapvalidator.SizeAtLeast(1), mapvalidator.ValueStringsAre(validators.IPAddress())},
			},
			"size": schema.StringAttribute{
				Computed: true,
				Description: "How many addresses the ranges hold (exclusions and the gateway left out), in decimal: a " +
					"string, as IPv6 pools exceed 64-bit numbers.",
			},
		},
	}
}

// spec is the model as lifecycle's pool definition.
func (m *ipPoolModel) spec(ctx context.Context, diags *diag.Diagnostics) lifecycle.IPPoolSpec {
	s := lifecycle.IPPoolSpec{Name: m.Name.ValueString(), Prefix: int(m.Prefix.ValueInt64()), Gateway: m.Gateway.ValueString()}
	for _, r := range m.Ranges {
		x := lifecycle.IPRange{Start: r.Start.ValueString(), End: r.End.ValueString(), Subnet: r.Subnet.ValueString()}
		tfglue.ElementsAs(ctx, r.Exclude, &x.Exclude, diags)
		s.Ranges = append(s.Ranges, x)
	}
	tfglue.ElementsAs(ctx, m.DNSServers, &s.DNSServers, diags)
	tfglue.ElementsAs(ctx, m.PreAllocations, &s.PreAllocations, diags)
	return s
}

// set records spec in the model (empty lists and maps as null: the schema
// never accepts them empty).
func (m *ipPoolModel) set(spec lifecycle.IPPoolSpec) {
	m.ID = types.StringValue(spec.Name)
	m.Name = types.StringValue(spec.Name)
	m.Prefix = types.Int64Value(int64(spec.Prefix))
	m.Gateway = tfglue.NullableString(spec.Gateway)
	m.Ranges = nil
	for _, x := range spec.Ranges {
		r := ipRangeModel{Start: tfglue.NullableString(x.Start), End: tfglue.NullableString(x.End), Subnet: tfglue.NullableString(x.Subnet),
			Exclude: types.ListNull(types.StringType)}
		if len(x.Exclude) > 0 {
			r.Exclude = tfglue.StringList(x.Exclude)
		}
		m.Ranges = append(m.Ranges, r)
	}
	m.DNSServers = types.ListNull(types.StringType)
	if len(spec.DNSServers) > 0 {
		m.DNSServers = tfglue.StringList(spec.DNSServers)
	}
	m.PreAllocations = types.MapNull(types.StringType)
	if len(spec.PreAllocations) > 0 {
		m.PreAllocations = tfglue.StringMap(spec.PreAllocations)
	}
	m.Size = types.StringUnknown()
	if p, err := lifecycle.CompilePool(spec); err == nil {
		m.Size = types.StringValue(p.Size().String())
	}
}

// poolFieldPath is the attribute path of a pool problem.
func poolFieldPath(f lifecycle.PoolField) path.Path {
	p := path.Root(f.Attr)
	if f.Index >= 0 {
		p = p.AtListIndex(f.Index)
	}
	if f.Key != "" {
		p = p.AtMapKey(f.Key)
	}
	if f.Sub != "" {
		p = p.AtName(f.Sub)
	}
	if f.SubIndex >= 0 {
		p = p.AtListIndex(f.SubIndex)
	}
	return p
}

// poolAttrs are the attributes the pool's checks read.
var poolAttrs = []string{"ranges", "prefix", "gateway", "dns_servers", "pre_allocations"}

// knownSpec reads the pool definition from src when every attribute the
// checks read is known (the name may be unknown: then it is not judged).
func knownSpec[S tfglue.Source](ctx context.Context, src S, diags *diag.Diagnostics) (lifecycle.IPPoolSpec, bool, bool) {
	for _, a := range poolAttrs {
		if !tfglue.KnownAt(ctx, src, path.Root(a)) {
			return lifecycle.IPPoolSpec{}, false, false
		}
	}
	var m ipPoolModel
	diags.Append(tfglue.GetKnown(ctx, src, &m)...)
	if diags.HasError() {
		return lifecycle.IPPoolSpec{}, false, false
	}
	nameKnown := !m.Name.IsUnknown()
	spec := m.spec(ctx, diags)
	if !nameKnown {
		spec.Name = "unknown"
	}
	return spec, nameKnown, !diags.HasError()
}

// ValidateConfig checks the ranges, gateway, DNS servers and
// pre-allocations at terraform validate (once they are known), each
// problem at its attribute, naming the bad value.
func (r *ipPoolResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	spec, _, ok := knownSpec(ctx, req.Config, &resp.Diagnostics)
	if !ok {
		return
	}
	for _, p := range lifecycle.CheckPool(spec) {
		if p.Field.Attr == "name" {
			continue // the name attribute's own validator speaks
		}
		resp.Diagnostics.AddAttributeError(poolFieldPath(p.Field), "Invalid "+p.Field.String(), p.Error())
	}
}

// ModifyPlan computes size, and refuses at plan a new pool whose name
// Ironic holds with another definition, and a change that would strand an
// allocated address (naming its owner).
func (r *ipPoolResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	spec, nameKnown, ok := knownSpec(ctx, req.Plan, &resp.Diagnostics)
	if !ok || !nameKnown {
		return
	}
	p, err := lifecycle.CompilePool(spec)
	if err != nil {
		return // ValidateConfig reported it
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("size"), p.Size().String())...)
	if r.clients == nil || r.clients.IPPools == nil {
		return
	}
	store := r.clients.IPPools
	if req.State.Raw.IsNull() {
		existing, found, err := store.Pool(ctx, spec.Name)
		if err != nil {
			resp.Diagnostics.AddError("Reading IP pool "+spec.Name, err.Error())
			return
		}
		if found && !sameSpec(existing, spec) {
			resp.Diagnostics.AddAttributeError(path.Root("name"), "IP pool "+spec.Name+" exists already",
				fmt.Sprintf("Ironic holds an IP pool named %q with another definition (another workspace's pool?). Import it "+
					"(terraform import <address> %s) to manage it here, or choose another name.", spec.Name, spec.Name))
		}
		return
	}
	strandDiags(ctx, store, spec, &resp.Diagnostics)
}

// strandDiags refuses spec when it would strand allocated addresses.
func strandDiags(ctx context.Context, store lifecycle.IPPoolStore, spec lifecycle.IPPoolSpec, diags *diag.Diagnostics) {
	recs, err := store.Addresses(ctx, spec.Name)
	if err != nil {
		diags.AddError("Listing the addresses of IP pool "+spec.Name, err.Error())
		return
	}
	stranded, err := lifecycle.Stranded(spec, recs)
	if err != nil || len(stranded) == 0 {
		return
	}
	for _, s := range stranded {
		at := path.Root("ranges")
		if strings.Contains(s.Reason, "pre-allocated") {
			at = path.Root("pre_allocations")
		}
		diags.AddAttributeError(at, "Change would strand an allocated address",
			fmt.Sprintf("IP pool %s: address %s, held by owner %q, %s. Release that claim first (destroy its "+
				"baremetal_ip_claim, in whichever workspace holds it), or keep the address in the pool.", spec.Name, s.Address, s.Owner, s.Reason))
	}
}

// sameSpec compares two definitions (nil and empty alike).
func sameSpec(a, b lifecycle.IPPoolSpec) bool {
	norm := func(s lifecycle.IPPoolSpec) lifecycle.IPPoolSpec {
		if len(s.DNSServers) == 0 {
			s.DNSServers = nil
		}
		if len(s.PreAllocations) == 0 {
			s.PreAllocations = nil
		}
		rs := make([]lifecycle.IPRange, len(s.Ranges))
		for i, x := range s.Ranges {
			if len(x.Exclude) == 0 {
				x.Exclude = nil
			}
			rs[i] = x
		}
		s.Ranges = rs
		return s
	}
	return reflect.DeepEqual(norm(a), norm(b))
}

// write reads the plan, runs do (create or update the pool it defines)
// and saves the plan as the state.
func (r *ipPoolResource) write(ctx context.Context, p tfsdk.Plan, st *tfsdk.State, diags *diag.Diagnostics,
	do func(ctx context.Context, store lifecycle.IPPoolStore, spec lifecycle.IPPoolSpec, diags *diag.Diagnostics)) {
	var plan ipPoolModel
	store, ok := readWith(ctx, p.Get, &plan, r.poolStore, diags)
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
	diags.Append(st.Set(ctx, &plan)...)
}

func (r *ipPoolResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	defer identityFromStateAttrs(ctx, &resp.State, resp.Identity, &resp.Diagnostics, "name")
	r.write(ctx, req.Plan, &resp.State, &resp.Diagnostics, createPool)
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
	r.write(ctx, req.Plan, &resp.State, &resp.Diagnostics, updatePool)
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
