package tfglue

import (
	"context"
	"sort"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// HostFilter is what baremetal_host_claim and the baremetal_hosts data
// source select hosts by: labels, resource class, traits and hardware
// minimums. Both models embed it, so the attributes have one model and one
// conversion to lifecycle.Selector.
type HostFilter struct {
	Labels           *LabelSelector `tfsdk:"labels"`
	ResourceClass    types.String   `tfsdk:"resource_class"`
	Traits           types.Set      `tfsdk:"traits"`
	MinCPUs          types.Int64    `tfsdk:"min_cpus"`
	MinRAMMebibytes  types.Int64    `tfsdk:"min_ram_mebibytes"`
	MinDiskGigabytes types.Int64    `tfsdk:"min_disk_gigabytes"`
}

// Selector is the lifecycle selector the filter gives, traits sorted.
// Bad label expressions are reported at their paths under `labels`;
// traits not known yet are left out.
func (f *HostFilter) Selector(ctx context.Context, diags *diag.Diagnostics) lifecycle.Selector {
	sel := lifecycle.Selector{
		ResourceClass:    f.ResourceClass.ValueString(),
		MinCPUs:          int(f.MinCPUs.ValueInt64()),
		MinRAMMebibytes:  int(f.MinRAMMebibytes.ValueInt64()),
		MinDiskGigabytes: int(f.MinDiskGigabytes.ValueInt64()),
	}
	f.Labels.Apply(ctx, &sel, path.Root("labels"), diags)
	ElementsAs(ctx, f.Traits, &sel.Traits, diags)
	sort.Strings(sel.Traits)
	return sel
}
