package datasources

// The data sources that read one host through Ironic and fall back to its
// BMC over Redfish when Ironic lacks what they read (baremetal_hardware,
// baremetal_firmware, baremetal_firmware_schema): their shared id,
// host_id, bmc and source attributes, and the one lookup of the host and
// its BMC access.

import (
	"context"
	"maps"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/tfglue"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/validators"
)

// bmcHostModel is the part of their models these data sources share.
type bmcHostModel struct {
	ID     types.String     `tfsdk:"id"`
	HostID types.String     `tfsdk:"host_id"`
	BMC    *tfglue.BMCModel `tfsdk:"bmc"`
	Source types.String     `tfsdk:"source"`
}

func (m *bmcHostModel) bmcHost() *bmcHostModel { return m }

// bmcHostAttributes is the schema of such a data source: id, host_id, bmc
// (used only when Ironic <usedWhen>), source (described by sourceDesc) and
// the data source's own attributes.
func bmcHostAttributes(usedWhen, sourceDesc string, own map[string]schema.Attribute) map[string]schema.Attribute {
	attrs := map[string]schema.Attribute{
		"id":      computedString("The Ironic node UUID."),
		"host_id": hostIDAttribute(),
		"bmc":     bmcCredentialsAttribute(usedWhen),
		"source":  computedString(sourceDesc),
	}
	maps.Copy(attrs, own)
	return attrs
}

// bmcCredentialsAttribute is the optional `bmc` block of the data sources
// that fall back to the BMC over Redfish when Ironic lacks what they read
// (usedWhen says when: "Used only when Ironic <usedWhen>.").
func bmcCredentialsAttribute(usedWhen string) schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		Optional: true,
		Description: "BMC credentials for the Redfish path (Ironic masks the stored password, so it cannot lend it). " +
			"Used only when Ironic " + usedWhen + ".",
		Attributes: map[string]schema.Attribute{
			"address": schema.StringAttribute{
				Required: true,
				Description: "BMC address as in `baremetal_host.bmc.address`, of a Redfish-family scheme (`redfish://`, " +
					"`redfish-virtualmedia://`, `idrac-virtualmedia://`, ...); `ipmi://` and `libvirt://` are refused at validate.",
				Validators: []validator.String{validators.RedfishBMCAddress()},
			},
			"username": schema.StringAttribute{Required: true, Description: "BMC user name."},
			"password": schema.StringAttribute{Required: true, Sensitive: true, Description: "BMC password."},
			"disable_certificate_verification": schema.BoolAttribute{
				Optional: true, Description: "Skip TLS verification of the BMC's certificate. Default false.",
			},
		},
	}
}

// readBMCHost reads the configuration into m (a model that embeds
// bmcHostModel) and returns the host host_id names (m.ID set to its node
// UUID) and the BMC access the bmc block gives (nil without one); false
// after an error, also when the provider has no catalog.
func (b *base) readBMCHost(ctx context.Context, cfg tfsdk.Config, m interface{ bmcHost() *bmcHostModel },
	diags *diag.Diagnostics) (lifecycle.HostSummary, *lifecycle.BMCAccess, bool) {
	var host lifecycle.HostSummary
	cat, ok := b.readCatalog(ctx, cfg, m, diags)
	if !ok {
		return host, nil, false
	}
	bm := m.bmcHost()
	redfish := bm.BMC.Access(diags)
	if diags.HasError() {
		return host, nil, false
	}
	host, ok = hostByID(ctx, cat, bm.HostID.ValueString(), diags)
	bm.ID = types.StringValue(host.ID)
	return host, redfish, ok
}

// firmware returns the firmware catalog, or adds an error when there is
// none.
func (b *base) firmware(diags *diag.Diagnostics) lifecycle.FirmwareCatalog {
	if b.clients == nil || b.clients.Firmware == nil {
		diags.AddError("Provider not configured", "the provider has no Ironic firmware catalog configured")
		return nil
	}
	return b.clients.Firmware
}

// readFirmware is the Read of the data sources over the firmware catalog
// (baremetal_firmware, baremetal_firmware_schema): it reads the
// configuration into a model M and its host, fetches from the catalog what
// the model shows (a method of lifecycle.FirmwareCatalog), the model sets
// itself from it, and the model is the state. An error of fetch is
// reported as reading what of the host.
func readFirmware[M any, P interface {
	*M
	bmcHost() *bmcHostModel
	set(T)
}, T any](ctx context.Context, b *base, req datasource.ReadRequest, resp *datasource.ReadResponse, what string,
	fetch func(fw lifecycle.FirmwareCatalog, ctx context.Context, idOrName string, redfish *lifecycle.BMCAccess) (T, error)) {
	m := P(new(M))
	fw := b.firmware(&resp.Diagnostics)
	host, redfish, ok := b.readBMCHost(ctx, req.Config, m, &resp.Diagnostics)
	if !ok {
		return
	}
	v, err := fetch(fw, ctx, host.ID, redfish)
	if err != nil {
		key := m.bmcHost().HostID.ValueString()
		hostReadDiag(&resp.Diagnostics, "host_id", "UUID or name", key, "Reading "+what+" of host "+key, err)
		return
	}
	m.set(v)
	resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
}
