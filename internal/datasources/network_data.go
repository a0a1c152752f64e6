package datasources

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"maps"
	"sort"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle/networkdata"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/tfglue"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/validators"
)

// NewNetworkData returns the baremetal_network_data data source.
func NewNetworkData() datasource.DataSource {
	return &networkDataSource{base{typeName: "_network_data"}}
}

type networkDataSource struct{ base }

// networkDataModel maps one to one onto networkdata.Template.
type networkDataModel struct {
	ID       types.String   `tfsdk:"id"`
	HostID   types.String   `tfsdk:"host_id"`
	NICs     types.Map      `tfsdk:"nics"`
	Links    *linksModel    `tfsdk:"links"`
	Networks *networksModel `tfsdk:"networks"`
	Services *servicesModel `tfsdk:"services"`

	HostNICs types.Map    `tfsdk:"host_nics"`
	JSON     types.String `tfsdk:"json"`
}

type linksModel struct {
	Ethernets []ethernetModel `tfsdk:"ethernets"`
	Bonds     []bondModel     `tfsdk:"bonds"`
	VLANs     []vlanModel     `tfsdk:"vlans"`
}

// linkModel is what every link (ethernet, bond, VLAN) has.
type linkModel struct {
	ID                types.String `tfsdk:"id"`
	MTU               types.Int64  `tfsdk:"mtu"`
	MACAddress        types.String `tfsdk:"mac_address"`
	FromHostInterface types.String `tfsdk:"from_host_interface"`
}

// values are the link's id, MTU, MAC address and NIC name, as
// networkdata's links take them.
func (l linkModel) values() (id string, mtu int, mac, fromNIC string) {
	return l.ID.ValueString(), int(l.MTU.ValueInt64()), l.MACAddress.ValueString(), l.FromHostInterface.ValueString()
}

type ethernetModel struct {
	linkModel
	Type types.String `tfsdk:"type"`
	Name types.String `tfsdk:"name"`
}

type bondModel struct {
	linkModel
	Mode           types.String `tfsdk:"mode"`
	XmitHashPolicy types.String `tfsdk:"xmit_hash_policy"`
	Miimon         types.Int64  `tfsdk:"miimon"`
	Parameters     types.Map    `tfsdk:"parameters"`
	Links          types.List   `tfsdk:"links"`
}

type vlanModel struct {
	linkModel
	VLANID   types.Int64  `tfsdk:"vlan_id"`
	VLANLink types.String `tfsdk:"vlan_link"`
}

type networksModel struct {
	IPv4      []staticNetworkModel `tfsdk:"ipv4"`
	IPv6      []staticNetworkModel `tfsdk:"ipv6"`
	IPv4DHCP  []dhcpNetworkModel   `tfsdk:"ipv4_dhcp"`
	IPv6DHCP  []dhcpNetworkModel   `tfsdk:"ipv6_dhcp"`
	IPv6SLAAC []dhcpNetworkModel   `tfsdk:"ipv6_slaac"`
}

type staticNetworkModel struct {
	ID      types.String `tfsdk:"id"`
	Link    types.String `tfsdk:"link"`
	Address types.String `tfsdk:"address"`
	Prefix  types.Int64  `tfsdk:"prefix"`
	Gateway types.String `tfsdk:"gateway"`
	Routes  []routeModel `tfsdk:"routes"`

	// From IP pools (network_data_pool.go).
	IPAddressFromPool types.String `tfsdk:"ip_address_from_pool"`
	PoolOwner         types.String `tfsdk:"pool_owner"`
	GatewayFromPool   types.String `tfsdk:"gateway_from_pool"`
	DNSFromPool       types.String `tfsdk:"dns_from_pool"`
	DNS               types.List   `tfsdk:"dns"`
}

type dhcpNetworkModel struct {
	ID     types.String `tfsdk:"id"`
	Link   types.String `tfsdk:"link"`
	Routes []routeModel `tfsdk:"routes"`
}

type routeModel struct {
	Network types.String `tfsdk:"network"`
	Prefix  types.Int64  `tfsdk:"prefix"`
	Gateway types.String `tfsdk:"gateway"`
	DNS     types.List   `tfsdk:"dns"`
}

type servicesModel struct {
	DNS types.List `tfsdk:"dns"`
}

func mtuAttr() schema.Int64Attribute {
	return schema.Int64Attribute{
		Optional: true, Description: "MTU, 46 to 9000. Default 1500.",
		Validators: []validator.Int64{int64validator.Between(46, 9000)},
	}
}

// ipList is an optional list of IP addresses.
func ipList(desc string) schema.ListAttribute {
	return schema.ListAttribute{
		Optional: true, ElementType: types.StringType, Description: desc,
		Validators: []validator.List{listvalidator.ValueStringsAre(validators.IPAddress())},
	}
}

func macAttr() schema.StringAttribute {
	return schema.StringAttribute{
		Optional:    true,
		Description: "Literal MAC address. Set at most one of `mac_address` and `from_host_interface`.",
		Validators:  []validator.String{validators.MAC()},
	}
}

func fromNICAttr() schema.StringAttribute {
	return optString("Name of one of the host's NICs (from inspection, or `nics`) whose MAC is used, as CAPM3's " +
		"`fromHostInterface`. A name the host does not have is an error that lists the NICs it has.")
}

// links is a list of links (ethernets, bonds or VLANs): their id (idDesc),
// mtu, mac_address and from_host_interface, and their own attributes.
func links(desc, idDesc string, own map[string]schema.Attribute) schema.ListNestedAttribute {
	attrs := map[string]schema.Attribute{
		"id":                  reqString(idDesc),
		"mtu":                 mtuAttr(),
		"mac_address":         macAttr(),
		"from_host_interface": fromNICAttr(),
	}
	maps.Copy(attrs, own)
	return schema.ListNestedAttribute{
		Optional: true, Description: desc,
		NestedObject: schema.NestedAttributeObject{Attributes: attrs},
	}
}

// networks is a list of networks (static or addressed by DHCP or SLAAC):
// their id, link (linkDesc) and routes, and their own attributes.
func networks(desc, linkDesc string, own map[string]schema.Attribute) schema.ListNestedAttribute {
	attrs := map[string]schema.Attribute{
		"id":     reqString("Network id (unique across all networks)."),
		"link":   reqString(linkDesc),
		"routes": routesAttr(),
	}
	maps.Copy(attrs, own)
	return schema.ListNestedAttribute{
		Optional: true, Description: desc,
		NestedObject: schema.NestedAttributeObject{Attributes: attrs},
	}
}

func routesAttr() schema.ListNestedAttribute {
	return schema.ListNestedAttribute{
		Optional:    true,
		Description: "Static routes.",
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"network": withString(reqString("Destination network address (e.g. `10.1.0.0`, `0.0.0.0`)."), validators.IPAddress()),
			"prefix": schema.Int64Attribute{
				Required: true, Description: "Destination prefix length; 0 is the default route.",
				Validators: []validator.Int64{int64validator.Between(0, 128)},
			},
			"gateway": withString(optString("Next hop. Unset: the network's `gateway` (none for DHCP networks)."), validators.IPAddress()),
			"dns":     ipList("DNS servers (IP addresses) rendered as the route's services."),
		}},
	}
}

func (d *networkDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	static := func(family string) schema.ListNestedAttribute {
		attrs := map[string]schema.Attribute{
			"address": withString(optString("The host's address, `10.0.0.5`, or address/prefix, `10.0.0.5/24` (then `prefix` may be omitted), "+
				"e.g. a `baremetal_ip_claim`'s `cidr`. Set either this or `ip_address_from_pool`."), validators.IPOrPrefix()),
			"prefix": schema.Int64Attribute{
				Optional: true, Description: "Prefix length (1-32 for IPv4, 1-128 for IPv6).",
				Validators: []validator.Int64{int64validator.Between(1, 128)},
			},
			"gateway": withString(optString("Default gateway, inside the network's subnet. Routes without a gateway use it, and a default route through it is "+
				"added unless `routes` has one."), validators.IPAddress()),
		}
		maps.Copy(attrs, poolNetworkAttributes())
		return networks("Statically addressed "+family+" networks.", "Id of the link (ethernet, bond or VLAN) the network is on.", attrs)
	}
	dynamic := func(desc string) schema.ListNestedAttribute {
		return networks(desc, "Id of the link the network is on.", nil)
	}
	resp.Schema = schema.Schema{
		Description: "Renders OpenStack network_data.json for one host the way Metal3's Metal3DataTemplate does: links " +
			"(ethernets, bonds, VLANs) whose MACs come from the host's inspected NICs by name (`from_host_interface`) or are " +
			"given, IPv4/IPv6 static and DHCP networks with routes, and DNS services. Feed `json` to " +
			"`baremetal_deployment.network_data`. The host's NICs come from its hardware inventory (`host_id`) and/or `nics`.",
		Attributes: map[string]schema.Attribute{
			"id": computedString("A digest of `json`."),
			"host_id": optString("The host (Ironic node UUID or name) whose NIC names and MACs `from_host_interface` refers to. " +
				"Its NICs come from the hardware inventory (the same sources as `baremetal_hardware`)."),
			"nics": schema.MapAttribute{
				Optional: true, ElementType: types.StringType,
				Description: "NIC name to MAC address, for hosts that are not inspected (or to override an inspected NIC's MAC).",
				Validators:  []validator.Map{mapvalidator.ValueStringsAre(validators.MAC())},
			},
			"links": schema.SingleNestedAttribute{
				Optional: true, Description: "Layer-2 interfaces. Link ids are unique across ethernets, bonds and VLANs.",
				Attributes: map[string]schema.Attribute{
					"ethernets": links("Physical (or virtual) interfaces.", "Link id other entries refer to.", map[string]schema.Attribute{
						"type": schema.StringAttribute{
							Optional: true, Description: "OpenStack link type: `phy` (default), `bridge`, `dvs`, `hw_veb`, `hyperv`, `ovs`, `tap`, `vhostuser` or `vif`.",
							Validators: []validator.String{stringvalidator.OneOf("bridge", "dvs", "hw_veb", "hyperv", "ovs", "phy", "tap", "vhostuser", "vif")},
						},
						"name": optString("Renames the interface (cloud-init renames the NIC it finds by MAC). An ethernet needs a MAC or a name."),
					}),
					"bonds": links("Bonded interfaces.", "Link id.", map[string]schema.Attribute{
						"mode": schema.StringAttribute{
							Required: true, Description: "Bonding mode: `balance-rr`, `active-backup`, `balance-xor`, `broadcast`, `balance-tlb`, `balance-alb` or `802.3ad`.",
							Validators: []validator.String{stringvalidator.OneOf("balance-rr", "active-backup", "balance-xor", "broadcast", "balance-tlb", "balance-alb", "802.3ad")},
						},
						"xmit_hash_policy": schema.StringAttribute{
							Optional: true, Description: "Transmit hash policy: `layer2`, `layer2+3`, `layer3+4`, `encap2+3`, `encap3+4` or `vlan+srcmac`.",
							Validators: []validator.String{stringvalidator.OneOf("layer2", "layer2+3", "layer3+4", "encap2+3", "encap3+4", "vlan+srcmac")},
						},
						"miimon": schema.Int64Attribute{
							Optional: true, Description: "MII link monitoring interval in milliseconds, rendered as `bond_miimon` " +
								"(e.g. 100; 0 turns monitoring off). Unset, the instance's bonding driver default.",
							Validators: []validator.Int64{int64validator.AtLeast(0)},
						},
						"parameters": schema.MapAttribute{
							Optional: true, ElementType: types.StringType,
							Description: "Further bonding options, rendered as `bond_<key>` (e.g. `lacp_rate = \"fast\"`). Values that " +
								"are integers or `true`/`false` are rendered as JSON numbers and booleans. A key may not " +
								"override `bond_mode`, `bond_links`, `bond_xmit_hash_policy`, nor `bond_miimon` when `miimon` is set.",
						},
						"links": schema.ListAttribute{
							Required: true, ElementType: types.StringType,
							Description: "Ids of the member ethernet links.",
						},
					}),
					"vlans": links("Tagged interfaces.", "Link id.", map[string]schema.Attribute{
						"vlan_id": schema.Int64Attribute{
							Required: true, Description: "802.1Q tag, 1 to 4094.",
							Validators: []validator.Int64{int64validator.Between(1, 4094)},
						},
						"vlan_link": reqString("Id of the ethernet or bond link the VLAN sits on."),
					}),
				},
			},
			"networks": schema.SingleNestedAttribute{
				Optional: true, Description: "Layer-3 configurations, each on one link.",
				Attributes: map[string]schema.Attribute{
					"ipv4":       static("IPv4"),
					"ipv6":       static("IPv6"),
					"ipv4_dhcp":  dynamic("IPv4 networks addressed by DHCP."),
					"ipv6_dhcp":  dynamic("IPv6 networks addressed by DHCPv6."),
					"ipv6_slaac": dynamic("IPv6 networks addressed by SLAAC."),
				},
			},
			"services": schema.SingleNestedAttribute{
				Optional: true, Description: "Global services.",
				Attributes: map[string]schema.Attribute{
					"dns": ipList("DNS server addresses."),
				},
			},
			"host_nics": computedMap(types.StringType, "The NICs (name to MAC) that `from_host_interface` was resolved against."),
			"json":      computedString("The rendered network_data.json (keys sorted, so it is stable)."),
		},
	}
}

// listStrings reads a list of strings (nil when null or unknown).
func listStrings(ctx context.Context, l types.List, diags *diag.Diagnostics) []string {
	var out []string
	tfglue.ElementsAs(ctx, l, &out, diags)
	return out
}

// paramValue renders a bond parameter: integers and booleans as JSON
// numbers and booleans, anything else as a string.
func paramValue(s string) any {
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return i
	}
	switch strings.ToLower(s) {
	case "true":
		return true
	case "false":
		return false
	}
	return s
}

func routes(ctx context.Context, in []routeModel, diags *diag.Diagnostics) []networkdata.Route {
	out := make([]networkdata.Route, 0, len(in))
	for _, r := range in {
		out = append(out, networkdata.Route{
			Network: r.Network.ValueString(), Prefix: int(r.Prefix.ValueInt64()), Gateway: r.Gateway.ValueString(),
			DNS: listStrings(ctx, r.DNS, diags),
		})
	}
	return out
}

func dhcp(ctx context.Context, in []dhcpNetworkModel, diags *diag.Diagnostics) []networkdata.DHCPNetwork {
	out := make([]networkdata.DHCPNetwork, 0, len(in))
	for _, n := range in {
		out = append(out, networkdata.DHCPNetwork{ID: n.ID.ValueString(), Link: n.Link.ValueString(), Routes: routes(ctx, n.Routes, diags)})
	}
	return out
}

func static(ctx context.Context, in []staticNetworkModel, diags *diag.Diagnostics) []networkdata.Network {
	out := make([]networkdata.Network, 0, len(in))
	for _, n := range in {
		out = append(out, networkdata.Network{
			ID: n.ID.ValueString(), Link: n.Link.ValueString(), Address: n.Address.ValueString(),
			Prefix: int(n.Prefix.ValueInt64()), Gateway: n.Gateway.ValueString(), Routes: routes(ctx, n.Routes, diags),
			DNS: listStrings(ctx, n.DNS, diags),
		})
	}
	return out
}

// template maps the HCL model onto networkdata.Template.
func (m *networkDataModel) template(ctx context.Context) (networkdata.Template, diag.Diagnostics) {
	var diags diag.Diagnostics
	var t networkdata.Template
	if l := m.Links; l != nil {
		for _, e := range l.Ethernets {
			id, mtu, mac, from := e.values()
			t.Links.Ethernets = append(t.Links.Ethernets, networkdata.Ethernet{
				Type: e.Type.ValueString(), ID: id, MTU: mtu, MACAddress: mac, FromHostInterface: from, Name: e.Name.ValueString(),
			})
		}
		for _, b := range l.Bonds {
			id, mtu, mac, from := b.values()
			bond := networkdata.Bond{
				ID: id, MTU: mtu, MACAddress: mac, FromHostInterface: from, Mode: b.Mode.ValueString(),
				XmitHashPolicy: b.XmitHashPolicy.ValueString(), Links: listStrings(ctx, b.Links, &diags),
			}
			if !b.Miimon.IsNull() && !b.Miimon.IsUnknown() {
				n := int(b.Miimon.ValueInt64())
				bond.Miimon = &n
			}
			if !b.Parameters.IsNull() && !b.Parameters.IsUnknown() {
				var params map[string]string
				diags.Append(b.Parameters.ElementsAs(ctx, &params, false)...)
				bond.Parameters = make(map[string]any, len(params))
				for k, v := range params {
					bond.Parameters[k] = paramValue(v)
				}
			}
			t.Links.Bonds = append(t.Links.Bonds, bond)
		}
		for _, v := range l.VLANs {
			id, mtu, mac, from := v.values()
			t.Links.VLANs = append(t.Links.VLANs, networkdata.VLAN{
				ID: id, MTU: mtu, MACAddress: mac, FromHostInterface: from,
				VLANID: int(v.VLANID.ValueInt64()), VLANLink: v.VLANLink.ValueString(),
			})
		}
	}
	if n := m.Networks; n != nil {
		t.Networks = networkdata.Networks{
			IPv4: static(ctx, n.IPv4, &diags), IPv6: static(ctx, n.IPv6, &diags),
			IPv4DHCP: dhcp(ctx, n.IPv4DHCP, &diags), IPv6DHCP: dhcp(ctx, n.IPv6DHCP, &diags), IPv6SLAAC: dhcp(ctx, n.IPv6SLAAC, &diags),
		}
	}
	if s := m.Services; s != nil {
		t.Services.DNS = listStrings(ctx, s.DNS, &diags)
	}
	return t, diags
}

// readTemplate reads the configuration into m and maps it onto the
// template, the template's errors added to diags; false when the
// configuration cannot be read.
func (m *networkDataModel) readTemplate(ctx context.Context, cfg tfsdk.Config, diags *diag.Diagnostics) (networkdata.Template, bool) {
	if diags.Append(cfg.Get(ctx, m)...); diags.HasError() {
		return networkdata.Template{}, false
	}
	tmpl, d := m.template(ctx)
	diags.Append(d...)
	return tmpl, true
}

// mergeNICs combines the host's NICs with the explicit ones (which win by
// name), sorted by name.
func mergeNICs(host []lifecycle.HardwareNIC, explicit map[string]string) []lifecycle.NIC {
	byName := map[string]string{}
	var unnamed []lifecycle.NIC
	for _, n := range host {
		if n.Name == "" {
			unnamed = append(unnamed, lifecycle.NIC{MAC: n.MAC, IP: n.IP, PXE: n.PXE})
			continue
		}
		byName[n.Name] = n.MAC
	}
	for k, v := range explicit {
		byName[k] = v
	}
	out := make([]lifecycle.NIC, 0, len(byName))
	for k, v := range byName {
		out = append(out, lifecycle.NIC{Name: k, MAC: v})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return append(out, unnamed...)
}

var _ datasource.DataSourceWithValidateConfig = (*networkDataSource)(nil)

// ValidateConfig renders the document at terraform validate, without the
// host (NIC names are resolved at read time): links that name no link,
// addresses of the wrong family, prefixes out of range, gateways outside
// their subnet... Skipped while a part is unknown; the read checks again.
func (d *networkDataSource) ValidateConfig(ctx context.Context, req datasource.ValidateConfigRequest, resp *datasource.ValidateConfigResponse) {
	for _, name := range []string{"links", "networks", "services"} {
		if !tfglue.KnownAt(ctx, req.Config, path.Root(name)) {
			return
		}
	}
	var m networkDataModel
	tmpl, ok := m.readTemplate(ctx, req.Config, &resp.Diagnostics)
	if !ok {
		return
	}
	tmpl = checkPoolNetworks(&m, tmpl, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	err := networkdata.Check(tmpl)
	if err == nil {
		return
	}
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	for _, e := range errs {
		msg := e.Error()
		where := "links"
		switch {
		case strings.HasPrefix(msg, "network ") || strings.Contains(msg, " network has an empty id") || strings.HasPrefix(msg, "duplicate network"):
			where = "networks"
		case strings.HasPrefix(msg, "services"):
			where = "services"
		}
		resp.Diagnostics.AddAttributeError(path.Root(where), "Invalid network data", where+": "+msg)
	}
}

func (d *networkDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m networkDataModel
	tmpl, ok := m.readTemplate(ctx, req.Config, &resp.Diagnostics)
	if !ok {
		return
	}
	var explicit map[string]string
	tfglue.ElementsAs(ctx, m.NICs, &explicit, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	var hostNICs []lifecycle.HardwareNIC
	if key := m.HostID.ValueString(); key != "" {
		cat := d.catalog(&resp.Diagnostics)
		if resp.Diagnostics.HasError() {
			return
		}
		host, ok := hostByID(ctx, cat, key, &resp.Diagnostics)
		if !ok {
			return
		}
		hw, err := cat.Hardware(ctx, host.ID, nil)
		if err != nil {
			resp.Diagnostics.AddError("Reading the NICs of host "+host.Name, err.Error())
			return
		}
		if hw != nil {
			hostNICs = hw.NICs
		}
	}
	d.resolvePools(ctx, &m, &tmpl, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	nics := mergeNICs(hostNICs, explicit)
	out, err := networkdata.RenderJSON(tmpl, nics)
	if err != nil {
		var missing *networkdata.MissingNICError
		summary := "Invalid network data"
		if errors.As(err, &missing) {
			summary = "Unknown host NIC"
		}
		resp.Diagnostics.AddError(summary, err.Error())
		return
	}
	used := map[string]string{}
	for _, n := range nics {
		if n.Name != "" {
			used[n.Name] = n.MAC
		}
	}
	sum := sha256.Sum256(out)
	m.ID = types.StringValue(hex.EncodeToString(sum[:]))
	m.HostNICs = tfglue.StringMap(used)
	m.JSON = types.StringValue(string(out))
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}
