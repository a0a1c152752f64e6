package resources

import (
	"context"
	"fmt"
	"regexp"

	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/tfglue"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/validators"
)

// List resources (Terraform 1.14 and later): `terraform query` lists the
// Ironic nodes that match a filter as baremetal_host (or, for the
// provisioned ones, baremetal_deployment) resources, each with its
// identity, and with -generate-config-out writes a `resource` block and an
// `import { identity = ... }` block for each. Both read Ironic's node
// list, one request per page, never a node at a time (lifecycle.HostLister),
// and stop asking for pages at Terraform's `limit`. With include_resource
// (which -generate-config-out sets) each result carries the state an import
// of that node followed by a refresh gives (importedHost,
// importedDeployment), so that the generated configuration plans no change
// once imported. Terraform writes sensitive arguments (the BMC password,
// driver_secrets) as `null # sensitive` in it: Ironic never shows them.

// ListResources lists the provider's list resources.
func ListResources() []func() list.ListResource {
	return []func() list.ListResource{NewHostList, NewDeploymentList}
}

// NewHostList returns the baremetal_host list resource.
func NewHostList() list.ListResource { return &hostList{listResource{base{typeName: "_host"}}} }

// NewDeploymentList returns the baremetal_deployment list resource.
func NewDeploymentList() list.ListResource {
	return &deploymentList{listResource{base{typeName: "_deployment"}}}
}

// listResource is what both list resources embed: base, the one check of
// their name filters and the one stream of their results.
type listResource struct{ base }

type hostList struct{ listResource }

type deploymentList struct{ listResource }

var (
	_ list.ListResourceWithConfigure      = (*hostList)(nil)
	_ list.ListResourceWithValidateConfig = (*hostList)(nil)
	_ list.ListResourceWithConfigure      = (*deploymentList)(nil)
	_ list.ListResourceWithValidateConfig = (*deploymentList)(nil)
)

// listFilterModel is the config block of both list resources
// (provision_state and maintenance only in baremetal_host's).
type listFilterModel struct {
	NamePrefix     types.String `tfsdk:"name_prefix"`
	NameRegex      types.String `tfsdk:"name_regex"`
	Labels         types.Map    `tfsdk:"labels"`
	ResourceClass  types.String `tfsdk:"resource_class"`
	Driver         types.String `tfsdk:"driver"`
	ConductorGroup types.String `tfsdk:"conductor_group"`
	Shard          types.String `tfsdk:"shard"`
	Owner          types.String `tfsdk:"owner"`
	Unmanaged      types.Bool   `tfsdk:"unmanaged"`
}

type hostListModel struct {
	listFilterModel
	ProvisionState types.String `tfsdk:"provision_state"`
	Maintenance    types.Bool   `tfsdk:"maintenance"`
}

// unmanagedDoc says what unmanaged selects.
const unmanagedDoc = "Only nodes that no `baremetal_host` created: without the mark (`extra.managed_by = \"terraform-provider-baremetal\"`) " +
	"that the provider writes on the nodes it creates. An import writes nothing to Ironic, so imported nodes stay unmarked (and listed): " +
	"filter them out by name or label."

// filterString is an optional string filter.
func filterString(desc string) schema.StringAttribute {
	return schema.StringAttribute{Optional: true, Description: desc}
}

// filterBool is an optional bool filter.
func filterBool(desc string) schema.BoolAttribute {
	return schema.BoolAttribute{Optional: true, Description: desc}
}

func listFilterAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"name_prefix": filterString("Only nodes whose name starts with this."),
		"name_regex": schema.StringAttribute{
			Optional:    true,
			Description: "Only nodes whose name matches this regular expression (RE2 syntax, as Terraform's `regex`; unanchored unless it uses `^` and `$`).",
			Validators: []validator.String{validators.New("a regular expression", func(s string) error {
				_, err := regexp.Compile(s)
				return err
			})},
		},
		"labels": schema.MapAttribute{
			Optional: true, ElementType: types.StringType,
			Description: "Only nodes that have all these labels (the `labels` of `baremetal_host`, kept in the node's `extra.labels`) with these values.",
			Validators:  []validator.Map{mapvalidator.KeysAre(validators.LabelKey())},
		},
		"resource_class":  filterString("Only nodes of this Ironic resource class (filtered by Ironic)."),
		"driver":          filterString("Only nodes with this Ironic driver, e.g. `redfish`, `ipmi` (filtered by Ironic)."),
		"conductor_group": filterString("Only nodes in this conductor group (filtered by Ironic; case does not matter)."),
		"shard":           filterString("Only nodes in this shard (filtered by Ironic from API 1.82, else by the provider)."),
		"owner":           filterString("Only nodes with this Ironic `owner` (a project id; filtered by Ironic)."),
		"unmanaged":       filterBool(unmanagedDoc + " Default false: all nodes."),
	}
}

func (l *hostList) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	attrs := listFilterAttributes()
	attrs["provision_state"] = filterString("Only nodes in this Ironic provision state (`enroll`, `manageable`, `available`, `active`, ...; filtered by Ironic).")
	attrs["maintenance"] = filterBool("Only nodes in maintenance (true) or out of it (false); unset: both (filtered by Ironic).")
	resp.Schema = schema.Schema{
		Description: "Lists Ironic nodes as `baremetal_host` resources for `terraform query` (Terraform 1.14 and later), to adopt " +
			"hosts registered outside this configuration: `terraform query -generate-config-out=hosts.tf` writes a `resource` and " +
			"an `import { identity = { id = \"<node UUID>\" } }` block for each. The generated host has the node's `driver` and the " +
			"`driver_info` Ironic shows; the BMC passwords Ironic masks are left out (`null # sensitive`): add them (`driver_secrets`, " +
			"or a `bmc` block) before an apply that changes the host's credentials. All filters are optional and combine with AND; " +
			"Ironic applies those it knows, the provider the others (names, labels, `unmanaged`), one list request per page of nodes.",
		Attributes: attrs,
	}
}

func (l *deploymentList) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "Lists the deployments of Ironic nodes as `baremetal_deployment` resources for `terraform query` (Terraform 1.14 " +
			"and later): the nodes in provision state `active` deployed with an image (`instance_info.image_source`), the ones " +
			"`terraform import` of a `baremetal_deployment` accepts. The generated deployment has the image from `instance_info`; " +
			"user, meta and network data stay unset (Ironic does not show the config drive). All filters are optional and combine with AND.",
		Attributes: listFilterAttributes(),
	}
}

// ValidateListResourceConfig refuses name_prefix together with name_regex.
func (l *listResource) ValidateListResourceConfig(ctx context.Context, req list.ValidateConfigRequest, resp *list.ValidateConfigResponse) {
	var prefix, re types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("name_prefix"), &prefix)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("name_regex"), &re)...)
	if !prefix.IsNull() && !re.IsNull() {
		resp.Diagnostics.AddAttributeError(path.Root("name_regex"), "Conflicting name filters",
			"Set name_prefix or name_regex, not both (a regex can say ^prefix).")
	}
}

// query turns the filters into a lifecycle.HostQuery.
func (f *listFilterModel) query(ctx context.Context, diags *diag.Diagnostics) lifecycle.HostQuery {
	q := lifecycle.HostQuery{
		NamePrefix:     f.NamePrefix.ValueString(),
		ResourceClass:  f.ResourceClass.ValueString(),
		Driver:         f.Driver.ValueString(),
		ConductorGroup: f.ConductorGroup.ValueString(),
		Shard:          f.Shard.ValueString(),
		Owner:          f.Owner.ValueString(),
		Unmanaged:      f.Unmanaged.ValueBool(),
	}
	if s := f.NameRegex.ValueString(); s != "" {
		re, err := regexp.Compile(s)
		if err != nil {
			diags.AddAttributeError(path.Root("name_regex"), "Invalid name_regex", err.Error())
		}
		q.NameRegex = re
	}
	tfglue.ElementsAs(ctx, f.Labels, &q.Labels, diags)
	return q
}

func (l *hostList) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	var cfg hostListModel
	var diags diag.Diagnostics
	diags.Append(req.Config.Get(ctx, &cfg)...)
	q := cfg.query(ctx, &diags)
	q.ProvisionState = cfg.ProvisionState.ValueString()
	if !cfg.Maintenance.IsNull() && !cfg.Maintenance.IsUnknown() {
		m := cfg.Maintenance.ValueBool()
		q.Maintenance = &m
	}
	stream.Results = l.stream(ctx, req, q, diags, importedHost)
}

func (l *deploymentList) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	var cfg listFilterModel
	var diags diag.Diagnostics
	diags.Append(req.Config.Get(ctx, &cfg)...)
	q := cfg.query(ctx, &diags)
	q.Deployed = true
	stream.Results = l.stream(ctx, req, q, diags, importedDeployment)
}

// stream lists the hosts q selects as list results: each with its
// identity (the node UUID) and its name as display name, and with
// include_resource the state fill writes for it; at most req.Limit of
// them. diags are the configuration's: any error ends the list at once.
func (l *listResource) stream(ctx context.Context, req list.ListRequest, q lifecycle.HostQuery, diags diag.Diagnostics,
	fill func(context.Context, stateData, lifecycle.Observation) diag.Diagnostics,
) func(func(list.ListResult) bool) {
	if !diags.HasError() && l.clients == nil {
		diags.AddError("Provider not configured", "The list resource has no Ironic client: the provider was not configured.")
	}
	if diags.HasError() {
		return list.ListResultsStreamDiagnostics(diags)
	}
	lister, ok := l.clients.Catalog.(lifecycle.HostLister)
	if !ok {
		diags.AddError("Listing hosts", fmt.Sprintf("the provider's catalog (%T) cannot list hosts", l.clients.Catalog))
		return list.ListResultsStreamDiagnostics(diags)
	}
	return func(push func(list.ListResult) bool) {
		var n int64
		stopped := false
		err := lister.ListHosts(ctx, q, func(h lifecycle.ListedHost) bool {
			res := req.NewListResult(ctx)
			res.DisplayName = h.Name
			if res.DisplayName == "" {
				res.DisplayName = h.ID
			}
			res.Diagnostics.Append(res.Identity.Set(ctx, idIdentityModel{ID: types.StringValue(h.ID)})...)
			if req.IncludeResource {
				res.Diagnostics.Append(fill(ctx, res.Resource, h.Observation)...)
			}
			n++
			if !push(res) {
				stopped = true
				return false
			}
			return req.Limit <= 0 || n < req.Limit
		})
		if err != nil && !stopped {
			var d diag.Diagnostics
			d.AddError("Listing Ironic nodes", err.Error())
			push(list.ListResult{Diagnostics: d})
		}
	}
}
