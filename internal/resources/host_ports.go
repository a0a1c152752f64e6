package resources

import (
	"context"
	"fmt"
	"strings"

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

// portModel is one element of baremetal_host's ports.
type portModel struct {
	MAC                 types.String    `tfsdk:"mac"`
	PXEEnabled          types.Bool      `tfsdk:"pxe_enabled"`
	PhysicalNetwork     types.String    `tfsdk:"physical_network"`
	LocalLinkConnection *localLinkModel `tfsdk:"local_link_connection"`
	LinkFromLLDP        types.Bool      `tfsdk:"local_link_connection_from_lldp"`
}

type localLinkModel struct {
	SwitchID   types.String `tfsdk:"switch_id"`
	PortID     types.String `tfsdk:"port_id"`
	SwitchInfo types.String `tfsdk:"switch_info"`
}

var (
	localLinkAttrTypes = map[string]attr.Type{"switch_id": types.StringType, "port_id": types.StringType, "switch_info": types.StringType}
	portAttrTypes      = map[string]attr.Type{
		"mac": types.StringType, "pxe_enabled": types.BoolType, "physical_network": types.StringType,
		"local_link_connection":           types.ObjectType{AttrTypes: localLinkAttrTypes},
		"local_link_connection_from_lldp": types.BoolType,
	}
	portObjectType = types.ObjectType{AttrTypes: portAttrTypes}
)

// portsAttribute is baremetal_host's ports.
func portsAttribute() schema.SetNestedAttribute {
	return schema.SetNestedAttribute{
		Optional: true,
		Description: "Ironic ports of the host, by NIC MAC, for network-aware Ironic deployments: each sets the port's `pxe_enabled`, " +
			"`physical_network` and `local_link_connection` (the switch port the NIC is cabled to) through Ironic's port API, " +
			"creating the port when the node has none for that MAC. Fields left out are left as Ironic has them. " +
			"Whatever the setting, every NIC the host's inspection found becomes a port (as the Bare Metal Operator registers them), " +
			"not PXE-enabled unless set here; the boot MAC's port is PXE-enabled. A change made in Ironic behind Terraform's back shows in the plan. " +
			"On an `available` or deployed host Ironic only takes these changes in maintenance mode: the provider sets it for the change and ends it.",
		Validators: []validator.Set{uniquePortMACs{}, oneLinkSource{}},
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"mac": schema.StringAttribute{
				Required: true, Description: "The NIC's MAC address (the port's `address`).",
				Validators: []validator.String{validators.MAC()},
			},
			"pxe_enabled": schema.BoolAttribute{Optional: true, Description: "Whether the host may PXE-boot from this NIC."},
			"physical_network": schema.StringAttribute{
				Optional: true, Description: "The physical network the NIC is on (Ironic's `physical_network`, for Neutron's physnet mapping).",
				Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"local_link_connection": schema.SingleNestedAttribute{
				Optional:    true,
				Description: "The switch port the NIC is cabled to (Ironic's `local_link_connection`).",
				Attributes: map[string]schema.Attribute{
					"switch_id": schema.StringAttribute{
						Required: true, Description: "The switch's MAC address (or OpenFlow datapath id), as LLDP reports its chassis id.",
						Validators: []validator.String{validators.SwitchID()},
					},
					"port_id":     schema.StringAttribute{Required: true, Description: "The switch port, e.g. `Ethernet1/12`."},
					"switch_info": schema.StringAttribute{Optional: true, Description: "Free text about the switch, e.g. its host name."},
				},
			},
			"local_link_connection_from_lldp": schema.BoolAttribute{
				Optional: true,
				Description: "Take the port's `local_link_connection` from the LLDP the host's last in-band inspection heard on this NIC " +
					"(`baremetal_hardware`'s `nics[*].lldp`): `switch_id` is the switch's chassis MAC, `port_id` its port id, " +
					"`switch_info` its system name. The provider parses the agent's raw LLDP TLVs itself, so ironic-inspector's LLDP " +
					"hooks are not needed, but the agent must collect LLDP (IPA's `ipa-collect-lldp=1`). When the cabling changed and " +
					"the host was inspected again, the plan shows the port's old connection being replaced (Read records it with " +
					"this attribute false) and apply sets the new one. Cannot be combined with `local_link_connection`, nor with " +
					"`inspection` = `disabled` or `out-of-band` (refused at validate: neither hears LLDP); " +
					"apply fails, naming the port, when the inspection heard no switch on the NIC or its chassis id is not a MAC.",
			},
		}},
	}
}

// uniquePortMACs refuses a MAC listed twice in ports.
type uniquePortMACs struct{}

func (uniquePortMACs) Description(context.Context) string {
	return "each MAC at most once"
}
func (v uniquePortMACs) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (uniquePortMACs) ValidateSet(_ context.Context, req validator.SetRequest, resp *validator.SetResponse) {
	seen := map[string]bool{}
	eachPort(req, func(attrs map[string]attr.Value) {
		mac, ok := attrs["mac"].(types.String)
		if !ok || mac.IsNull() || mac.IsUnknown() {
			return
		}
		key := strings.ToLower(mac.ValueString())
		if seen[key] {
			resp.Diagnostics.AddAttributeError(req.Path, "Duplicate port MAC",
				fmt.Sprintf("ports lists MAC %q more than once; give each NIC one entry.", mac.ValueString()))
		}
		seen[key] = true
	})
}

// eachPort calls f with the attributes of each port the configuration
// lists (none while ports is null or unknown): the walk the ports'
// validators share.
func eachPort(req validator.SetRequest, f func(attrs map[string]attr.Value)) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	for _, el := range req.ConfigValue.Elements() {
		if obj, ok := el.(basetypes.ObjectValue); ok {
			f(obj.Attributes())
		}
	}
}

// oneLinkSource refuses a port that sets local_link_connection and takes
// it from LLDP too.
type oneLinkSource struct{}

func (oneLinkSource) Description(context.Context) string {
	return "local_link_connection and local_link_connection_from_lldp = true are exclusive"
}
func (v oneLinkSource) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (oneLinkSource) ValidateSet(_ context.Context, req validator.SetRequest, resp *validator.SetResponse) {
	eachPort(req, func(attrs map[string]attr.Value) {
		fromLLDP, _ := attrs["local_link_connection_from_lldp"].(types.Bool)
		link := attrs["local_link_connection"]
		if !fromLLDP.ValueBool() || link == nil || link.IsNull() {
			return
		}
		mac, _ := attrs["mac"].(types.String)
		resp.Diagnostics.AddAttributeError(req.Path, "Conflicting local_link_connection",
			fmt.Sprintf("port %s sets local_link_connection and local_link_connection_from_lldp = true; "+
				"set local_link_connection by hand or take it from LLDP, not both.", mac.ValueString()))
	})
}

// checkLLDPInspection refuses, at validate, a port that takes its
// local_link_connection from LLDP on a host whose inspection hears no LLDP
// (disabled, out-of-band: only the agent of an in-band inspection
// listens), which would fail the apply after registering the host. An
// interfaces.inspect override, or one not known yet, is left to the apply.
func (m *hostModel) checkLLDPInspection(ctx context.Context, diags *diag.Diagnostics) {
	mode := lifecycle.InspectionMode(m.Inspection.ValueString())
	if mode != lifecycle.InspectionDisabled && mode != lifecycle.InspectionOutOfBand || !tfglue.Known(m.Ports) {
		return
	}
	var ifaces map[string]string
	if m.Interfaces.IsUnknown() || m.Interfaces.ElementsAs(ctx, &ifaces, false).HasError() || ifaces["inspect"] != "" {
		return
	}
	for _, el := range m.Ports.Elements() {
		obj, _ := el.(basetypes.ObjectValue)
		attrs := obj.Attributes()
		if fromLLDP, _ := attrs["local_link_connection_from_lldp"].(types.Bool); !fromLLDP.ValueBool() {
			continue
		}
		mac, _ := attrs["mac"].(types.String)
		diags.AddAttributeError(path.Root("ports").AtSetValue(el), "LLDP needs in-band inspection",
			fmt.Sprintf("port %s sets local_link_connection_from_lldp = true, but inspection = %q hears no LLDP: only in-band "+
				"inspection (inspection = \"enabled\") runs the agent that listens to the switch. Set the port's "+
				"local_link_connection by hand, or inspect in-band.", mac.ValueString(), mode))
	}
}

// portsSpec converts the ports argument.
func (m *hostModel) portsSpec(ctx context.Context) ([]lifecycle.Port, diag.Diagnostics) {
	var diags diag.Diagnostics
	if m.Ports.IsNull() || m.Ports.IsUnknown() {
		return nil, diags
	}
	var pms []portModel
	diags.Append(m.Ports.ElementsAs(ctx, &pms, false)...)
	out := make([]lifecycle.Port, 0, len(pms))
	for _, pm := range pms {
		p := lifecycle.Port{MAC: pm.MAC.ValueString()}
		if !pm.PXEEnabled.IsNull() {
			b := pm.PXEEnabled.ValueBool()
			p.PXEEnabled = &b
		}
		if !pm.PhysicalNetwork.IsNull() {
			s := pm.PhysicalNetwork.ValueString()
			p.PhysicalNetwork = &s
		}
		if l := pm.LocalLinkConnection; l != nil {
			p.LocalLinkConnection = &lifecycle.LocalLink{SwitchID: l.SwitchID.ValueString(), PortID: l.PortID.ValueString(), SwitchInfo: l.SwitchInfo.ValueString()}
		}
		p.LocalLinkFromLLDP = pm.LinkFromLLDP.ValueBool()
		out = append(out, p)
	}
	return out, diags
}

// checkPortsDetached refuses a change of ports on a host that is or will
// be detached (plan and apply: a port change is a write to the node, and
// no resource acts on a detached host); re-attaching in the same apply may
// change them, after the attach. Unknown ports are judged at apply.
func (m *hostModel) checkPortsDetached(state *hostModel, diags *diag.Diagnostics) {
	m.checkPortGroupsDetached(state, diags)
	if !m.Detached.ValueBool() || !tfglue.Known(m.Ports) || m.Ports.Equal(state.Ports) {
		return
	}
	name := state.Name.ValueString()
	if !state.Detached.ValueBool() {
		diags.AddAttributeError(path.Root("ports"), "Ports cannot change while the host is detached",
			fmt.Sprintf("Host %q is detached in this apply (detached = true), and a detached host is not acted on: change its "+
				"ports in one apply, then detach it in the next.", name))
		return
	}
	e := &lifecycle.DetachedError{Host: name, ID: state.ID.ValueString(), Action: "change its Ironic ports"}
	diags.AddAttributeError(path.Root("ports"), e.Summary(), e.Detail())
}

// syncPorts sets the host's ports after Create or Update converged it.
func (m *hostModel) syncPorts(ctx context.Context, machine *lifecycle.Machine, h *lifecycle.Host) error {
	want, diags := m.portsSpec(ctx)
	if diags.HasError() {
		return fmt.Errorf("ports: %v", diags)
	}
	return machine.SyncPorts(ctx, h, want)
}

// readPorts reads back the fields the configuration sets on each of its
// ports, so that a change made in Ironic shows as drift; a port that is
// gone drops out (the plan creates it again). Fields left unset stay
// unset. MACs and switch ids compare without case. A port that takes its
// local_link_connection from LLDP is compared with what the last
// inspection heard: when they differ, it reads with Ironic's connection
// and local_link_connection_from_lldp false, the drift the plan shows.
func (m *hostModel) readPorts(ctx context.Context, machine *lifecycle.Machine, h *lifecycle.Host) diag.Diagnostics {
	var diags diag.Diagnostics
	if m.Ports.IsNull() || m.Ports.IsUnknown() {
		return diags
	}
	var pms []portModel
	if diags.Append(m.Ports.ElementsAs(ctx, &pms, false)...); diags.HasError() {
		return diags
	}
	observed, err := machine.ObservePorts(ctx, h)
	if err != nil {
		diags.AddError("Reading the ports of host "+h.Spec.Name, err.Error())
		return diags
	}
	byMAC := map[string]lifecycle.Port{}
	for _, p := range observed {
		byMAC[strings.ToLower(p.MAC)] = p
	}
	spec, d := m.portsSpec(ctx)
	if diags.Append(d...); diags.HasError() {
		return diags
	}
	lldpLinks, inspected, err := machine.LLDPLinks(ctx, h, spec)
	if err != nil {
		diags.AddError("Reading the ports of host "+h.Spec.Name, err.Error())
		return diags
	}
	var els []attr.Value
	for _, pm := range pms {
		p, ok := byMAC[strings.ToLower(pm.MAC.ValueString())]
		if !ok {
			continue
		}
		if !pm.PXEEnabled.IsNull() && p.PXEEnabled != nil {
			pm.PXEEnabled = types.BoolValue(*p.PXEEnabled)
		}
		if !pm.PhysicalNetwork.IsNull() && p.PhysicalNetwork != nil {
			pm.PhysicalNetwork = types.StringValue(*p.PhysicalNetwork)
		}
		if l := pm.LocalLinkConnection; l != nil {
			if o := p.LocalLinkConnection; o == nil {
				pm.LocalLinkConnection = nil
			} else {
				if !strings.EqualFold(o.SwitchID, l.SwitchID.ValueString()) {
					l.SwitchID = types.StringValue(o.SwitchID)
				}
				l.PortID = types.StringValue(o.PortID)
				if !l.SwitchInfo.IsNull() || o.SwitchInfo != "" {
					l.SwitchInfo = types.StringValue(o.SwitchInfo)
				}
			}
		}
		if pm.LinkFromLLDP.ValueBool() && inspected {
			if o := p.LocalLinkConnection; !lifecycle.SameLink(o, lldpLinks[strings.ToLower(pm.MAC.ValueString())]) {
				pm.LinkFromLLDP = types.BoolValue(false)
				pm.LocalLinkConnection = linkModel(o)
			}
		}
		obj, d := types.ObjectValueFrom(ctx, portAttrTypes, pm)
		diags.Append(d...)
		els = append(els, obj)
	}
	set, d := types.SetValue(portObjectType, els)
	diags.Append(d...)
	m.Ports = set
	return diags
}

// linkModel is a local_link_connection as state holds it (nil for none).
func linkModel(l *lifecycle.LocalLink) *localLinkModel {
	if l == nil {
		return nil
	}
	m := &localLinkModel{SwitchID: types.StringValue(l.SwitchID), PortID: types.StringValue(l.PortID), SwitchInfo: types.StringNull()}
	if l.SwitchInfo != "" {
		m.SwitchInfo = types.StringValue(l.SwitchInfo)
	}
	return m
}
