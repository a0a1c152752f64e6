package resources

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/tfglue"
)

// What an imported host reads. Import (by id, name or identity) sets what
// setImportedHost sets, then Read reads the node (readNode). The host list
// resource (`terraform query`) builds the same state from a node of its list
// (importedHost), so that the configuration `terraform query
// -generate-config-out` writes from it plans nothing after the import.

// stateData is a resource state being written: a tfsdk.State (import) or
// a tfsdk.Resource (a list result).
type stateData interface {
	Get(ctx context.Context, target any) diag.Diagnostics
	Set(ctx context.Context, val any) diag.Diagnostics
	SetAttribute(ctx context.Context, p path.Path, val any) diag.Diagnostics
}

// setImportedHost writes into st, a null state, what an import knows of
// the node obs before it is read.
func setImportedHost(ctx context.Context, st stateData, obs lifecycle.Observation) diag.Diagnostics {
	return setAttributes(ctx, st, map[string]any{
		"id":                     obs.ID,
		"name":                   obs.Name,
		"provisioning_state":     string(obs.State),
		"online":                 obs.PoweredOn != nil && *obs.PoweredOn,
		"externally_provisioned": obs.State == lifecycle.StateExternallyProvisioned,
	})
}

// importedHost writes into st, a null state, the host an import of node
// obs followed by a refresh gives: setImportedHost, then readNode.
func importedHost(ctx context.Context, st stateData, obs lifecycle.Observation) diag.Diagnostics {
	diags := setImportedHost(ctx, st, obs)
	var m hostModel
	if diags.Append(st.Get(ctx, &m)...); diags.HasError() {
		return diags
	}
	h := &lifecycle.Host{Spec: lifecycle.HostSpec{Name: obs.Name}, Status: m.status()}
	h.Status.ID = obs.ID
	if obs.State != "" {
		h.Status.State = obs.State
	}
	// An imported host has no ports in state: readNode reads none, and
	// needs no machine for them.
	diags.Append(m.readNode(ctx, nil, h, obs, true)...)
	diags.Append(st.Set(ctx, &m)...)
	return diags
}

// readNode is what a refresh reads into m of the node obs (h holds the
// refreshed status): power, the fields a user may change behind
// Terraform's back, the status, the day-2 arguments (machine reads the
// ports the state lists), and the defaults an import leaves unset;
// importing says it is an import's first read.
func (m *hostModel) readNode(ctx context.Context, machine *lifecycle.Machine, h *lifecycle.Host, obs lifecycle.Observation, importing bool) diag.Diagnostics {
	m.readOnline(obs)
	m.readObserved(obs, importing)
	m.setStatus(h, &obs)
	diags := m.readDay2(ctx, machine, h, obs)
	if m.LastUpdated.IsNull() {
		m.LastUpdated = types.StringValue(timeString(obs.UpdatedAt))
	}
	m.readDefaults(obs)
	return diags
}

// readDefaults fills the arguments with a default that are still null:
// only an imported host's state has such nulls (every other state was
// planned with the defaults). They read as the default, or as what Ironic
// says when it says something, so that a configuration that leaves them
// unset, as the one terraform query generates, plans no change. A node
// without a resource class reads as "" (not the default): the first apply
// then sets `baremetal`, unless the configuration names another.
func (m *hostModel) readDefaults(obs lifecycle.Observation) {
	if m.Inspection.IsNull() {
		m.Inspection = types.StringValue("enabled")
	}
	if m.BootMode.IsNull() {
		m.BootMode = types.StringValue(string(lifecycle.BootModeUEFI))
	}
	if m.AutomatedCleaningMode.IsNull() {
		m.AutomatedCleaningMode = types.StringValue(lifecycle.CleaningMetadata)
	}
	m.readDesiredState(obs)
	if m.ResourceClass.IsNull() {
		m.ResourceClass = types.StringValue(obs.ResourceClass)
	}
	if m.Online.IsNull() {
		m.Online = types.BoolValue(obs.PoweredOn != nil && *obs.PoweredOn)
	}
	if m.ExternallyProvisioned.IsNull() {
		m.ExternallyProvisioned = types.BoolValue(obs.State == lifecycle.StateExternallyProvisioned)
	}
	// Without bmc and driver (an import), the node's driver and the
	// driver_info Ironic shows: enough for a configuration that validates
	// and plans no change. The passwords Ironic masks are not read; they
	// go in driver_secrets (or bmc) when the host's credentials change.
	if m.BMC == nil && m.Driver.IsNull() && obs.Driver != "" {
		m.Driver = types.StringValue(obs.Driver)
		if m.DriverInfo.IsNull() && len(obs.DriverInfo) > 0 {
			m.DriverInfo = tfglue.StringMap(obs.DriverInfo)
		}
	}
}

// setAttributes writes each value into its root attribute of st.
func setAttributes(ctx context.Context, st stateData, values map[string]any) diag.Diagnostics {
	var diags diag.Diagnostics
	for attr, v := range values {
		diags.Append(st.SetAttribute(ctx, path.Root(attr), v)...)
	}
	return diags
}
