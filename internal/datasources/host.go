package datasources

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"sort"

	"github.com/hashicorp/terraform-plugin-framework-validators/datasourcevalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/tfglue"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/validators"
)

// hostSummaryModel is one host as baremetal_host and baremetal_hosts show it.
type hostSummaryModel struct {
	ID                types.String          `tfsdk:"id"`
	Name              types.String          `tfsdk:"name"`
	ProvisioningState types.String          `tfsdk:"provisioning_state"`
	IronicState       types.String          `tfsdk:"ironic_state"`
	TargetIronicState types.String          `tfsdk:"target_ironic_state"`
	Maintenance       types.Bool            `tfsdk:"maintenance"`
	LastError         types.String          `tfsdk:"last_error"`
	PoweredOn         types.Bool            `tfsdk:"powered_on"`
	Labels            types.Map             `tfsdk:"labels"`
	ResourceClass     types.String          `tfsdk:"resource_class"`
	Traits            types.List            `tfsdk:"traits"`
	Claimed           types.Bool            `tfsdk:"claimed"`
	AllocationID      types.String          `tfsdk:"allocation_id"`
	Hardware          *hardwareSummaryModel `tfsdk:"hardware"`
	Health            types.String          `tfsdk:"health"`
	HealthSource      types.String          `tfsdk:"health_source"`
}

// hostModel is baremetal_host: the summary, and what reading the health
// from the BMC takes.
type hostModel struct {
	hostSummaryModel
	BMC           *tfglue.BMCModel `tfsdk:"bmc"`
	HealthFromBMC types.Bool       `tfsdk:"health_from_bmc"`
}

// hardwareSummaryModel is the hardware summary of a host.
type hardwareSummaryModel struct {
	CPUArch       types.String      `tfsdk:"cpu_arch"`
	CPUCount      types.Int64       `tfsdk:"cpu_count"`
	RAMMebibytes  types.Int64       `tfsdk:"ram_mebibytes"`
	DiskGigabytes types.Int64       `tfsdk:"disk_gigabytes"`
	NICs          []nicSummaryModel `tfsdk:"nics"`
}

type nicSummaryModel struct {
	Name types.String `tfsdk:"name"`
	MAC  types.String `tfsdk:"mac"`
	IP   types.String `tfsdk:"ip"`
	PXE  types.Bool   `tfsdk:"pxe"`
}

// summaryAttributes are the host attributes, all computed; lookup makes id
// and name optional inputs too.
func summaryAttributes(lookup bool) map[string]schema.Attribute {
	attrs := map[string]schema.Attribute{
		"id":                  computedString("The Ironic node UUID."),
		"name":                computedString("The host's name (the Ironic node name)."),
		"provisioning_state":  computedString("The Bare Metal Operator state the Ironic state implies: `registering`, `inspecting`, `preparing`, `available`, `provisioning`, `provisioned`, ..."),
		"ironic_state":        computedString("The Ironic provision state (`manageable`, `available`, `active`, `clean failed`, ...)."),
		"target_ironic_state": computedString("The Ironic target provision state while a transition runs, else empty."),
		"maintenance":         computedBool("Whether the node is in maintenance."),
		"last_error":          computedString("Ironic's last_error for the node, or empty."),
		"powered_on":          computedBool("Whether Ironic reports the host powered on; null while the power state is unknown."),
		"labels":              computedMap(types.StringType, "The host's labels (kept in the node's extra)."),
		"resource_class":      computedString("The Ironic resource class."),
		"traits":              computedList(types.StringType, "The Ironic traits, sorted."),
		"claimed":             computedBool("Whether an allocation (a `baremetal_host_claim`) holds the host."),
		"allocation_id":       computedString("The UUID of the allocation that holds the host, or empty."),
		"hardware": computedObject("Hardware summary from the node's properties and ports (null when Ironic knows none). "+
			"Use the `baremetal_hardware` data source for the full inventory.", map[string]schema.Attribute{
			"cpu_arch":       computedString("CPU architecture (e.g. `x86_64`)."),
			"cpu_count":      computedInt("Number of CPUs."),
			"ram_mebibytes":  computedInt("Memory in MiB."),
			"disk_gigabytes": computedInt("Size of the largest disk in GiB: Ironic's `local_gb`; with `min_disk_gigabytes` set, the largest disk of the inspection inventory when Ironic holds one."),
			"nics": computedObjects("Network interfaces (from ports or inspection).", map[string]schema.Attribute{
				"name": computedString("Interface name, when known."),
				"mac":  computedString("MAC address."),
				"ip":   computedString("IP address, when known."),
				"pxe":  computedBool("Whether the host boots (PXE) from this interface."),
			}),
		}),
	}
	healthAttributes(attrs)
	if lookup {
		attrs["bmc"] = bmcCredentialsAttribute("is asked for the health (`health_from_bmc`)")
		attrs["health_from_bmc"] = healthFromBMCAttribute()
		attrs["id"] = schema.StringAttribute{
			Optional: true, Computed: true,
			Description: "The Ironic node UUID to look up. Set exactly one of `id` and `name`.",
		}
		attrs["name"] = schema.StringAttribute{
			Optional: true, Computed: true,
			Description: "The host name to look up. Set exactly one of `id` and `name`.",
			Validators:  []validator.String{validators.Name()},
		}
	}
	return attrs
}

func summaryOf(h lifecycle.HostSummary) hostSummaryModel {
	m := hostSummaryModel{
		ID:                types.StringValue(h.ID),
		Name:              types.StringValue(h.Name),
		ProvisioningState: types.StringValue(string(h.State)),
		IronicState:       types.StringValue(h.ProvisionState),
		TargetIronicState: types.StringValue(h.TargetProvisionState),
		Maintenance:       types.BoolValue(h.Maintenance),
		LastError:         types.StringValue(h.LastError),
		PoweredOn:         types.BoolNull(),
		Labels:            tfglue.StringMap(h.Labels),
		ResourceClass:     types.StringValue(h.ResourceClass),
		Traits:            sortedStringList(h.Traits),
		Claimed:           types.BoolValue(h.AllocationID != ""),
		AllocationID:      types.StringValue(h.AllocationID),
	}
	m.Health, m.HealthSource = ironicHealth(h)
	if h.PoweredOn != nil {
		m.PoweredOn = types.BoolValue(*h.PoweredOn)
	}
	if hw := h.Hardware; hw != nil {
		s := &hardwareSummaryModel{
			CPUArch:       types.StringValue(hw.CPUArch),
			CPUCount:      types.Int64Value(int64(hw.CPUCount)),
			RAMMebibytes:  types.Int64Value(int64(hw.RAMMebibytes)),
			DiskGigabytes: types.Int64Value(int64(lifecycle.LargestDiskGigabytes(hw))),
			NICs:          []nicSummaryModel{},
		}
		for _, n := range hw.NICs {
			s.NICs = append(s.NICs, nicSummaryModel{
				Name: types.StringValue(n.Name), MAC: types.StringValue(n.MAC),
				IP: types.StringValue(n.IP), PXE: types.BoolValue(n.PXE),
			})
		}
		m.Hardware = s
	}
	return m
}

// ---- baremetal_host ----

// NewHost returns the baremetal_host data source.
func NewHost() datasource.DataSource { return &hostDataSource{base{typeName: "_host"}} }

type hostDataSource struct{ base }

var _ datasource.DataSourceWithConfigValidators = (*hostDataSource)(nil)

func (d *hostDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "Looks up one bare-metal host (an Ironic node) by UUID or name: its state, labels, claim and a hardware summary " +
			"(`kubectl get bmh <name>`).",
		Attributes: summaryAttributes(true),
	}
}

func (d *hostDataSource) ConfigValidators(context.Context) []datasource.ConfigValidator {
	return []datasource.ConfigValidator{datasourcevalidator.ExactlyOneOf(path.MatchRoot("id"), path.MatchRoot("name"))}
}

var _ datasource.DataSourceWithValidateConfig = (*hostDataSource)(nil)

// ValidateConfig refuses health_from_bmc = true without a bmc block.
func (d *hostDataSource) ValidateConfig(ctx context.Context, req datasource.ValidateConfigRequest, resp *datasource.ValidateConfigResponse) {
	validateHealthFromBMC(ctx, req, resp)
}

func (d *hostDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var cfg hostModel
	cat, ok := d.readCatalog(ctx, req.Config, &cfg, &resp.Diagnostics)
	if !ok {
		return
	}
	redfish := cfg.BMC.Access(&resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	key, attr := cfg.ID.ValueString(), "id"
	if key == "" {
		key, attr = cfg.Name.ValueString(), "name"
	}
	h, err := cat.Host(ctx, key)
	if err != nil {
		hostReadDiag(&resp.Diagnostics, attr, attr, key, "Reading host "+key, err)
		return
	}
	m := hostModel{hostSummaryModel: summaryOf(h), BMC: cfg.BMC, HealthFromBMC: cfg.HealthFromBMC}
	m.Health, m.HealthSource = d.readHealth(ctx, h, cfg.HealthFromBMC, redfish, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// ---- baremetal_hosts ----

// NewHosts returns the baremetal_hosts data source.
func NewHosts() datasource.DataSource { return &hostsDataSource{base{typeName: "_hosts"}} }

type hostsDataSource struct{ base }

type hostsModel struct {
	ID                types.String `tfsdk:"id"`
	ProvisioningState types.String `tfsdk:"provisioning_state"`
	Claimed           types.Bool   `tfsdk:"claimed"`
	Health            types.String `tfsdk:"health"`
	tfglue.HostFilter

	Hosts []hostSummaryModel `tfsdk:"hosts"`
	IDs   types.List         `tfsdk:"ids"`
	Names types.List         `tfsdk:"names"`
}

var _ datasource.DataSourceWithValidateConfig = (*hostsDataSource)(nil)

// ValidateConfig checks the label selector at terraform validate.
func (d *hostsDataSource) ValidateConfig(ctx context.Context, req datasource.ValidateConfigRequest, resp *datasource.ValidateConfigResponse) {
	tfglue.ValidateSelector(ctx, req.Config, path.Root("labels"), &resp.Diagnostics)
}

func (d *hostsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	minInt := func(desc string) schema.Int64Attribute {
		return schema.Int64Attribute{Optional: true, Description: desc, Validators: []validator.Int64{int64validator.AtLeast(1)}}
	}
	resp.Schema = schema.Schema{
		Description: "Lists bare-metal hosts (`kubectl get bmh`), filtered by state, labels, resource class, traits, " +
			"claim, health and hardware minimums; every filter left unset matches all hosts. Hosts are ordered by name, then UUID.",
		Attributes: map[string]schema.Attribute{
			"id": computedString("A digest of the filters."),
			"provisioning_state": optString("Only hosts in this state: a Bare Metal Operator state (`available`, `provisioned`, ...) " +
				"or an Ironic provision state (`manageable`, `clean failed`, ...)."),
			"labels":         tfglue.LabelSelectorDataSourceSchema("Only hosts whose labels match this selector (every match label and every match expression)."),
			"resource_class": withString(optString("Only hosts with this Ironic resource class."), validators.ResourceClass()),
			"traits": schema.SetAttribute{
				Optional: true, ElementType: types.StringType,
				Description: "Only hosts that have all these traits (standard, or `CUSTOM_` in upper case).",
				Validators:  []validator.Set{setvalidator.ValueStringsAre(validators.Trait())},
			},
			"claimed": schema.BoolAttribute{
				Optional:    true,
				Description: "true: only hosts held by an allocation; false: only unclaimed hosts. Unset: both.",
			},
			"health":             healthFilterAttribute(),
			"min_cpus":           minInt("Only hosts with at least this many CPUs."),
			"min_ram_mebibytes":  minInt("Only hosts with at least this much RAM, in MiB."),
			"min_disk_gigabytes": minInt("Only hosts whose largest disk has at least this many GiB: the largest disk of the inspection inventory when Ironic holds one, else Ironic's `local_gb`."),
			"hosts":              computedObjects("The matching hosts, by name then UUID.", summaryAttributes(false)),
			"ids":                computedList(types.StringType, "The node UUIDs of `hosts`, in the same order."),
			"names":              computedList(types.StringType, "The names of `hosts`, in the same order."),
		},
	}
}

// filterHosts applies the filters; it is the data source's logic, kept
// apart from the framework for tests.
func filterHosts(hosts []lifecycle.HostSummary, state string, claimed *bool, health string, sel lifecycle.Selector) []lifecycle.HostSummary {
	var out []lifecycle.HostSummary
	for _, h := range hosts {
		if state != "" && string(h.State) != state && h.ProvisionState != state {
			continue
		}
		if health != "" && h.Health != health {
			continue
		}
		if claimed != nil && (h.AllocationID != "") != *claimed {
			continue
		}
		if sel.Reject(h) != "" {
			continue
		}
		out = append(out, h)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Name != out[j].Name {
			return out[i].Name < out[j].Name
		}
		return out[i].ID < out[j].ID
	})
	return out
}

func (d *hostsDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m hostsModel
	cat, ok := d.readCatalog(ctx, req.Config, &m, &resp.Diagnostics)
	if !ok {
		return
	}
	sel := m.HostFilter.Selector(ctx, &resp.Diagnostics)
	health := d.healthFilter(m.Health, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	var claimed *bool
	if !m.Claimed.IsNull() {
		b := m.Claimed.ValueBool()
		claimed = &b
	}
	all, err := cat.Hosts(ctx)
	if err != nil {
		resp.Diagnostics.AddError("Listing hosts", err.Error())
		return
	}
	if err := lifecycle.UseInventoryDisks(ctx, cat, all, sel); err != nil {
		resp.Diagnostics.AddError("Listing hosts", err.Error())
		return
	}
	matched := filterHosts(all, m.ProvisioningState.ValueString(), claimed, health, sel)
	m.Hosts = make([]hostSummaryModel, 0, len(matched))
	ids := make([]string, 0, len(matched))
	names := make([]string, 0, len(matched))
	for _, h := range matched {
		m.Hosts = append(m.Hosts, summaryOf(h))
		ids = append(ids, h.ID)
		names = append(names, h.Name)
	}
	m.IDs = tfglue.StringList(ids)
	m.Names = tfglue.StringList(names)
	raw, _ := json.Marshal(struct {
		State   string
		Claimed *bool
		Sel     lifecycle.Selector
		Health  string `json:",omitempty"`
	}{m.ProvisioningState.ValueString(), claimed, sel, health})
	sum := sha256.Sum256(raw)
	m.ID = types.StringValue(hex.EncodeToString(sum[:8]))
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}
