// Package datasources is the Terraform glue of the provider's data sources:
// schemas and typed models over lifecycle.Catalog (lists, hardware) and the
// network_data.json renderer. No data source talks to Ironic directly.
package datasources

import (
	"context"
	"errors"
	"sort"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/tfglue"
)

// All lists the provider's data sources.
func All() []func() datasource.DataSource {
	return []func() datasource.DataSource{
		NewHost,
		NewHosts,
		NewHardware,
		NewNetworkData,
		NewFirmware,
		NewFirmwareSchema,
	}
}

// hostReadDiag reports err from reading the host that key, the value of
// attribute attr, names: a host Ironic does not know is "Host not found" on
// attr ("no Ironic node has the <named> <key>"), any other failure an
// error with summary.
func hostReadDiag(diags *diag.Diagnostics, attr, named, key, summary string, err error) {
	if errors.Is(err, lifecycle.ErrNotRegistered) {
		diags.AddAttributeError(path.Root(attr), "Host not found", "no Ironic node has the "+named+" "+key+": "+err.Error())
		return
	}
	diags.AddError(summary, err.Error())
}

// hostByID reads the host that host_id (an Ironic node UUID or name) names;
// false, with the error reported, when it cannot.
func hostByID(ctx context.Context, cat lifecycle.Catalog, key string, diags *diag.Diagnostics) (lifecycle.HostSummary, bool) {
	host, err := cat.Host(ctx, key)
	if err != nil {
		hostReadDiag(diags, "host_id", "UUID or name", key, "Reading host "+key, err)
		return host, false
	}
	return host, true
}

// sortedStringList is tfglue.StringList of s sorted (s is left as it is).
func sortedStringList(s []string) types.List {
	c := append([]string(nil), s...)
	sort.Strings(c)
	return tfglue.StringList(c)
}
