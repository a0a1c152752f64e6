package datasources

// Health: Ironic's node health (API 1.109+) in every host the data sources
// show, and the BMC's Redfish health on request (health_from_bmc) for an
// older Ironic.

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// Health sources (health_source).
const (
	healthSourceIronic = "ironic"
	healthSourceBMC    = "bmc"
)

// healthValues are the health values Ironic and Redfish report.
var healthValues = []string{lifecycle.HealthOK, lifecycle.HealthWarning, lifecycle.HealthCritical}

// healthAttributes are the computed health and health_source of a host.
func healthAttributes(attrs map[string]schema.Attribute) {
	attrs["health"] = computedString("The host's hardware health: `OK`, `Warning` or `Critical`. Ironic's node `health` (Ironic API 1.109 " +
		"and later: what its conductor last read from the BMC with the power state), or, with `health_from_bmc = true`, what the BMC " +
		"says now. Null when neither is read or Ironic reports none for the node.")
	attrs["health_source"] = computedString("Where `health` came from: `ironic` (the node's `health`) or `bmc` (the BMC's Redfish " +
		"`Status.HealthRollup` of the System); null with `health`.")
}

// healthFromBMCAttribute is the optional health_from_bmc of the data
// sources that read one host with a bmc block.
func healthFromBMCAttribute() schema.BoolAttribute {
	return schema.BoolAttribute{
		Optional: true,
		Description: "Read `health` from the host's BMC over Redfish (the System's `Status.HealthRollup`, which counts its drives, fans, " +
			"power supplies, ...; its own `Status.Health` when the BMC gives no rollup) instead of from Ironic: for an Ironic before API 1.109, " +
			"which has no node health (2025.1 is 1.96). Needs the `bmc` block (Ironic masks the stored password). Cost: every read of the data " +
			"source (every plan and apply) connects to the BMC and makes two Redfish GETs (the service root and the System), one BMC round trip " +
			"per host per read; on a fleet, read it for the hosts you watch, not in every configuration. Default false.",
	}
}

// healthFilterAttribute is baremetal_hosts' health filter.
func healthFilterAttribute() schema.StringAttribute {
	return withString(optString("Only hosts whose Ironic node `health` is this: `OK`, `Warning` or `Critical` (Ironic API 1.109 and "+
		"later; on an older Ironic the filter is refused, as Ironic keeps no health to filter on)."),
		stringvalidator.OneOf(healthValues...))
}

// ironicHealth is the health and health_source of a host as Ironic has it.
func ironicHealth(h lifecycle.HostSummary) (health, source types.String) {
	if h.Health == "" {
		return types.StringNull(), types.StringNull()
	}
	return types.StringValue(h.Health), types.StringValue(healthSourceIronic)
}

// readHealth is the health a data source that reads one host shows:
// Ironic's, or the BMC's when fromBMC (which needs redfish: an error on
// health_from_bmc without it).
func (b *base) readHealth(ctx context.Context, host lifecycle.HostSummary, fromBMC types.Bool, redfish *lifecycle.BMCAccess,
	diags *diag.Diagnostics) (health, source types.String) {
	if !fromBMC.ValueBool() {
		return ironicHealth(host)
	}
	if redfish == nil {
		diags.AddAttributeError(path.Root("health_from_bmc"), "health_from_bmc needs the bmc block",
			"Reading the health from the BMC needs its credentials (Ironic masks the stored password): set bmc.")
		return types.StringNull(), types.StringNull()
	}
	reader, ok := b.clients.Catalog.(lifecycle.BMCHealthReader)
	if !ok {
		diags.AddAttributeError(path.Root("health_from_bmc"), "No BMC health reader", "the provider's catalog cannot read a BMC's health")
		return types.StringNull(), types.StringNull()
	}
	h, err := reader.BMCHealth(ctx, host.ID, redfish)
	if err != nil {
		diags.AddAttributeError(path.Root("health_from_bmc"), "Reading the health of host "+host.Name+" from its BMC", err.Error())
		return types.StringNull(), types.StringNull()
	}
	if h == "" {
		return types.StringNull(), types.StringNull()
	}
	return types.StringValue(h), types.StringValue(healthSourceBMC)
}

// healthFilter is baremetal_hosts' health filter, refused on an Ironic
// without node health.
func (b *base) healthFilter(v types.String, diags *diag.Diagnostics) string {
	want := v.ValueString()
	if want == "" {
		return ""
	}
	if err := b.clients.API.Require(lifecycle.FeatureHealth, "health"); err != nil {
		diags.AddAttributeError(path.Root("health"), "Filtering hosts on health needs Ironic's node health", err.Error())
	}
	return want
}

// validateHealthFromBMC refuses health_from_bmc = true without a bmc
// block, at validate.
func validateHealthFromBMC(ctx context.Context, req datasource.ValidateConfigRequest, resp *datasource.ValidateConfigResponse) {
	var fromBMC types.Bool
	var bmc types.Object
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("health_from_bmc"), &fromBMC)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("bmc"), &bmc)...)
	if fromBMC.ValueBool() && bmc.IsNull() {
		resp.Diagnostics.AddAttributeError(path.Root("health_from_bmc"), "health_from_bmc needs the bmc block",
			"Reading the health from the BMC needs its credentials (Ironic masks the stored password): set bmc.")
	}
}
