package resources

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/tfglue"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/validators"
)

// portGroupModel is one element of baremetal_host's port_groups.
type portGroupModel struct {
	Name            types.String `tfsdk:"name"`
	Address         types.String `tfsdk:"address"`
	Mode            types.String `tfsdk:"mode"`
	Properties      types.Map    `tfsdk:"properties"`
	Ports           types.Set    `tfsdk:"ports"`
	PhysicalNetwork types.String `tfsdk:"physical_network"`
}

var (
	portGroupAttrTypes = map[string]attr.Type{
		"name": types.StringType, "address": types.StringType, "mode": types.StringType,
		"properties": types.MapType{ElemType: types.StringType}, "ports": types.SetType{ElemType: types.StringType},
		"physical_network": types.StringType,
	}
	portGroupObjectType = types.ObjectType{AttrTypes: portGroupAttrTypes}
)

// portGroupsAttribute is baremetal_host's port_groups.
func portGroupsAttribute() schema.SetNestedAttribute {
	return schema.SetNestedAttribute{
		Optional: true,
		Description: "Bonds of the host's NICs, as Ironic port groups (`/v1/portgroups`): each groups some of the host's `ports` " +
			"(its members join through their `portgroup_uuid`) under a bonding mode. Render the same bond in the instance's " +
			"network configuration with `baremetal_network_data`'s `links.bonds`. A port group is stored in Ironic as " +
			"`<host name>.<name>` (Ironic's port group names are unique across nodes). Fields left out are left as Ironic " +
			"has them; a port group removed from this set is deleted from Ironic (its ports leave it first), and port groups " +
			"created outside Terraform are left alone. A change made in Ironic behind Terraform's back shows in the plan. " +
			"Moving a port in or out of a port group on an `available` or deployed host needs Ironic's maintenance mode: " +
			"the provider sets it for the change and ends it. Import reads every port group of the node, and their " +
			"member ports into `ports`.",
		Validators: []validator.Set{uniquePortGroups{}},
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"name": schema.StringAttribute{
				Required: true, Description: "The bond's name on the host, e.g. `bond0` (letters, digits, `-`, `.`, `_` and `~`).",
				Validators: []validator.String{validators.Name()},
			},
			"address": schema.StringAttribute{
				Optional: true, Description: "The bond's MAC address (Ironic's `address`), usually that of one of its members.",
				Validators: []validator.String{validators.MAC()},
			},
			"mode": schema.StringAttribute{
				Optional: true,
				Description: "The Linux bonding mode: `" + strings.Join(lifecycle.BondModes, "`, `") + "`. Unset, Ironic's " +
					"`[DEFAULT]default_portgroup_mode` (`active-backup` unless configured otherwise).",
				Validators: []validator.String{stringvalidator.OneOf(lifecycle.BondModes...)},
			},
			"properties": schema.MapAttribute{
				Optional: true, ElementType: types.StringType,
				Description: "Bonding options (Ironic's port group `properties`), e.g. `{ miimon = \"100\", xmit_hash_policy = \"layer3+4\" }`. " +
					"Values that Ironic holds as other JSON than strings read as their JSON text.",
			},
			"ports": schema.SetAttribute{
				Required: true, ElementType: types.StringType,
				Description: "The member ports, by MAC; each must be one of this host's `ports`, and in at most one port group.",
				Validators: []validator.Set{
					setvalidator.SizeAtLeast(1),
					setvalidator.ValueStringsAre(validators.MAC()),
				},
			},
			"physical_network": schema.StringAttribute{
				Optional: true,
				Description: "The physical network of the bond (Ironic's port group `physical_network`). Needs Ironic API " +
					"microversion 1.102 (Ironic 2025.2) or later: refused at plan on an older Ironic.",
				Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
			},
		}},
	}
}

// eachPortGroup calls f with the attributes of each port group the
// configuration lists (none while the set is null or unknown).
func eachPortGroup(v basetypes.SetValue, f func(attrs map[string]attr.Value)) {
	if v.IsNull() || v.IsUnknown() {
		return
	}
	for _, el := range v.Elements() {
		if obj, ok := el.(basetypes.ObjectValue); ok {
			f(obj.Attributes())
		}
	}
}

// uniquePortGroups refuses a name listed twice, and a MAC in two groups.
type uniquePortGroups struct{}

func (uniquePortGroups) Description(context.Context) string {
	return "each name at most once, each port in at most one port group"
}
func (v uniquePortGroups) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (uniquePortGroups) ValidateSet(_ context.Context, req validator.SetRequest, resp *validator.SetResponse) {
	names, member := map[string]bool{}, map[string]string{}
	eachPortGroup(req.ConfigValue, func(attrs map[string]attr.Value) {
		name, ok := attrs["name"].(types.String)
		if !ok || !tfglue.Known(name) {
			return
		}
		if names[name.ValueString()] {
			resp.Diagnostics.AddAttributeError(req.Path, "Duplicate port group name",
				fmt.Sprintf("port_groups lists %q more than once; give each bond one entry.", name.ValueString()))
		}
		names[name.ValueString()] = true
		macs, ok := attrs["ports"].(types.Set)
		if !ok || macs.IsNull() || macs.IsUnknown() {
			return
		}
		for _, el := range macs.Elements() {
			s, ok := el.(types.String)
			if !ok || !tfglue.Known(s) {
				continue
			}
			mac := strings.ToLower(s.ValueString())
			if other := member[mac]; other != "" && other != name.ValueString() {
				resp.Diagnostics.AddAttributeError(req.Path, "Port in two port groups",
					fmt.Sprintf("port %s is a member of port groups %q and %q; a NIC belongs to one bond.", s.ValueString(), other, name.ValueString()))
			}
			member[mac] = name.ValueString()
		}
	})
}

// checkPortGroupMembers refuses, at validate, a member port that is not
// one of the host's ports (unknown values are left to a later validate).
func (m *hostModel) checkPortGroupMembers(diags *diag.Diagnostics) {
	if !tfglue.Known(m.PortGroups) || m.PortGroups.IsNull() || !tfglue.Known(m.Ports) {
		return
	}
	var macs []string
	eachPort(validator.SetRequest{ConfigValue: m.Ports}, func(attrs map[string]attr.Value) {
		if mac, ok := attrs["mac"].(types.String); ok && !mac.IsUnknown() {
			macs = append(macs, strings.ToLower(mac.ValueString()))
		}
	})
	for _, el := range m.PortGroups.Elements() {
		obj, _ := el.(basetypes.ObjectValue)
		attrs := obj.Attributes()
		name, _ := attrs["name"].(types.String)
		members, _ := attrs["ports"].(types.Set)
		if members.IsNull() || members.IsUnknown() {
			continue
		}
		for _, e := range members.Elements() {
			s, _ := e.(types.String)
			if s.IsUnknown() || s.IsNull() || slices.Contains(macs, strings.ToLower(s.ValueString())) {
				continue
			}
			listed := "ports lists none"
			if len(macs) > 0 {
				listed = "ports lists " + strings.Join(macs, ", ")
			}
			diags.AddAttributeError(path.Root("port_groups").AtSetValue(el), "Port group member is not a port",
				fmt.Sprintf("port group %q lists member %s, which is not one of the host's ports (%s). Add { mac = %q } to ports.",
					name.ValueString(), s.ValueString(), listed, s.ValueString()))
		}
	}
}

// checkPortGroupPhysnet refuses, at plan, a port group's physical_network
// on an Ironic whose API lacks it (1.102).
func checkPortGroupPhysnet(api lifecycle.APIFeatures, groups types.Set, diags *diag.Diagnostics) {
	err := api.Require(lifecycle.FeaturePortGroupPhysnet, "port_groups.physical_network")
	if err == nil {
		return
	}
	eachPortGroup(groups, func(attrs map[string]attr.Value) {
		physnet, _ := attrs["physical_network"].(types.String)
		name, _ := attrs["name"].(types.String)
		if physnet.IsNull() {
			return
		}
		diags.AddAttributeError(path.Root("port_groups"), "Ironic too old for a port group's physical_network",
			fmt.Sprintf("port group %q: %s. Leave physical_network out of the port group (set it on its ports instead).", name.ValueString(), err))
	})
}

// portGroupsSpec converts the port_groups argument (nil when null).
func portGroupsSpec(ctx context.Context, set types.Set) ([]lifecycle.PortGroup, diag.Diagnostics) {
	var diags diag.Diagnostics
	if set.IsNull() || set.IsUnknown() {
		return nil, diags
	}
	var pgs []portGroupModel
	diags.Append(set.ElementsAs(ctx, &pgs, false)...)
	out := make([]lifecycle.PortGroup, 0, len(pgs))
	for _, pm := range pgs {
		g := lifecycle.PortGroup{Name: pm.Name.ValueString()}
		if !pm.Address.IsNull() {
			g.Address = pm.Address.ValueStringPointer()
		}
		if !pm.Mode.IsNull() {
			g.Mode = pm.Mode.ValueStringPointer()
		}
		if !pm.PhysicalNetwork.IsNull() {
			g.PhysicalNetwork = pm.PhysicalNetwork.ValueStringPointer()
		}
		if !pm.Properties.IsNull() {
			g.Properties = map[string]string{}
			diags.Append(pm.Properties.ElementsAs(ctx, &g.Properties, false)...)
		}
		diags.Append(pm.Ports.ElementsAs(ctx, &g.Ports, false)...)
		out = append(out, g)
	}
	return out, diags
}

// syncPortGroups sets the host's port groups after its ports: those of the
// plan, and deletes those prior (the state before this apply, nil on
// create) listed and the plan no longer does.
func (m *hostModel) syncPortGroups(ctx context.Context, machine *lifecycle.Machine, h *lifecycle.Host, prior *hostModel) error {
	want, diags := portGroupsSpec(ctx, m.PortGroups)
	if diags.HasError() {
		return fmt.Errorf("port_groups: %v", diags)
	}
	var remove []string
	if prior != nil {
		old, diags := portGroupsSpec(ctx, prior.PortGroups)
		if diags.HasError() {
			return fmt.Errorf("port_groups: %v", diags)
		}
		for _, g := range old {
			if !slices.ContainsFunc(want, func(w lifecycle.PortGroup) bool { return w.Name == g.Name }) {
				remove = append(remove, g.Name)
			}
		}
	}
	return machine.SyncPortGroups(ctx, h, want, remove)
}

// portGroupValue is a port group as state holds it: fields the
// configuration left null (template, when not nil) stay null.
func portGroupValue(ctx context.Context, g lifecycle.PortGroup, template *portGroupModel) (attr.Value, diag.Diagnostics) {
	pm := portGroupModel{Name: types.StringValue(g.Name), Address: types.StringNull(), Mode: types.StringNull(),
		PhysicalNetwork: types.StringNull(), Properties: types.MapNull(types.StringType)}
	if g.Address != nil && *g.Address != "" && (template == nil || !template.Address.IsNull()) {
		pm.Address = types.StringValue(*g.Address)
		if template != nil && strings.EqualFold(template.Address.ValueString(), *g.Address) {
			pm.Address = template.Address // the configuration's spelling of the MAC
		}
	}
	if g.Mode != nil && (template == nil || !template.Mode.IsNull()) {
		pm.Mode = types.StringValue(*g.Mode)
	}
	if g.PhysicalNetwork != nil && (template == nil || !template.PhysicalNetwork.IsNull()) {
		pm.PhysicalNetwork = types.StringValue(*g.PhysicalNetwork)
	}
	var diags diag.Diagnostics
	if (template == nil && len(g.Properties) > 0) || (template != nil && !template.Properties.IsNull()) {
		pm.Properties = tfglue.StringMap(g.Properties)
	}
	members := make([]string, 0, len(g.Ports))
	for _, mac := range g.Ports {
		if template != nil {
			// Keep the configuration's spelling of a MAC Ironic lower-cases.
			for _, el := range template.Ports.Elements() {
				if s, ok := el.(types.String); ok && strings.EqualFold(s.ValueString(), mac) {
					mac = s.ValueString()
				}
			}
		}
		members = append(members, mac)
	}
	set, d := types.SetValueFrom(ctx, types.StringType, members)
	diags.Append(d...)
	pm.Ports = set
	obj, d := types.ObjectValueFrom(ctx, portGroupAttrTypes, pm)
	diags.Append(d...)
	return obj, diags
}

// readPortGroups reads back the port groups the state lists: the fields
// it sets, and the members as Ironic has them, so that a change made in
// Ironic shows as drift; a port group that is gone drops out (the plan
// creates it again).
func (m *hostModel) readPortGroups(ctx context.Context, machine *lifecycle.Machine, h *lifecycle.Host) diag.Diagnostics {
	var diags diag.Diagnostics
	if m.PortGroups.IsNull() || m.PortGroups.IsUnknown() || machine == nil {
		return diags
	}
	var pms []portGroupModel
	if diags.Append(m.PortGroups.ElementsAs(ctx, &pms, false)...); diags.HasError() {
		return diags
	}
	observed, err := machine.ObservePortGroups(ctx, h)
	if err != nil {
		diags.AddError("Reading the port groups of host "+h.Spec.Name, err.Error())
		return diags
	}
	var els []attr.Value
	for _, pm := range pms {
		i := slices.IndexFunc(observed, func(g lifecycle.PortGroup) bool { return g.Name == pm.Name.ValueString() })
		if i < 0 {
			continue
		}
		v, d := portGroupValue(ctx, observed[i], &pm)
		diags.Append(d...)
		els = append(els, v)
	}
	set, d := types.SetValue(portGroupObjectType, els)
	diags.Append(d...)
	m.PortGroups = set
	return diags
}

// importPortGroups writes into st, an imported host's state, every port
// group of its node, and their member ports into ports (with only their
// MAC: the other port fields are left as Ironic has them), so that the
// configuration that lists them plans no change. Nothing when the node has
// no port groups.
func importPortGroups(ctx context.Context, machine *lifecycle.Machine, st stateData, obs lifecycle.Observation) diag.Diagnostics {
	var diags diag.Diagnostics
	h := &lifecycle.Host{Spec: lifecycle.HostSpec{Name: obs.Name}}
	h.Status.ID = obs.ID
	groups, err := machine.ObservePortGroups(ctx, h)
	if err != nil {
		diags.AddError("Importing the port groups of host "+obs.Name, err.Error())
		return diags
	}
	if len(groups) == 0 {
		return diags
	}
	var els, ports []attr.Value
	seen := map[string]bool{}
	for _, g := range groups {
		v, d := portGroupValue(ctx, g, nil)
		diags.Append(d...)
		els = append(els, v)
		for _, mac := range g.Ports {
			if seen[mac] {
				continue
			}
			seen[mac] = true
			p, d := types.ObjectValueFrom(ctx, portAttrTypes, portModel{MAC: types.StringValue(mac), PXEEnabled: types.BoolNull(),
				PhysicalNetwork: types.StringNull(), LinkFromLLDP: types.BoolNull()})
			diags.Append(d...)
			ports = append(ports, p)
		}
	}
	set, d := types.SetValue(portGroupObjectType, els)
	diags.Append(d...)
	portSet, d := types.SetValue(portObjectType, ports)
	diags.Append(d...)
	if diags.HasError() {
		return diags
	}
	diags.Append(st.SetAttribute(ctx, path.Root("port_groups"), set)...)
	diags.Append(st.SetAttribute(ctx, path.Root("ports"), portSet)...)
	return diags
}

// checkPortGroupsDetached is checkPortsDetached for port_groups.
func (m *hostModel) checkPortGroupsDetached(state *hostModel, diags *diag.Diagnostics) {
	unchanged := m.PortGroups.Equal(state.PortGroups) || m.PortGroups.IsNull() && state.PortGroups.IsNull()
	if !m.Detached.ValueBool() || !tfglue.Known(m.PortGroups) || unchanged {
		return
	}
	name := state.Name.ValueString()
	if !state.Detached.ValueBool() {
		diags.AddAttributeError(path.Root("port_groups"), "Port groups cannot change while the host is detached",
			fmt.Sprintf("Host %q is detached in this apply (detached = true), and a detached host is not acted on: change its "+
				"port groups in one apply, then detach it in the next.", name))
		return
	}
	e := &lifecycle.DetachedError{Host: name, ID: state.ID.ValueString(), Action: "change its Ironic port groups"}
	diags.AddAttributeError(path.Root("port_groups"), e.Summary(), e.Detail())
}
