package resources

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/validators"
)

// This file is baremetal_ip_pool's schema and its validate- and plan-time
// checks; ip_pool_model.go converts the model, ip_pool_crud.go writes and
// reads the pool.

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
