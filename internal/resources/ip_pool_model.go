package resources

import (
	"context"
	"reflect"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/tfglue"
)

// This file converts baremetal_ip_pool's model to and from lifecycle's
// pool definition.

// spec is the model as lifecycle's pool definition.
func (m *ipPoolModel) spec(ctx context.Context, diags *diag.Diagnostics) lifecycle.IPPoolSpec {
	s := lifecycle.IPPoolSpec{Name: m.Name.ValueString(), Prefix: int(m.Prefix.ValueInt64()), Gateway: m.Gateway.ValueString()}
	for _, r := range m.Ranges {
		x := lifecycle.IPRange{Start: r.Start.ValueString(), End: r.End.ValueString(), Subnet: r.Subnet.ValueString()}
		tfglue.ElementsAs(ctx, r.Exclude, &x.Exclude, diags)
		s.Ranges = append(s.Ranges, x)
	}
	tfglue.ElementsAs(ctx, m.DNSServers, &s.DNSServers, diags)
	tfglue.ElementsAs(ctx, m.PreAllocations, &s.PreAllocations, diags)
	return s
}

// set records spec in the model (empty lists and maps as null: the schema
// never accepts them empty).
func (m *ipPoolModel) set(spec lifecycle.IPPoolSpec) {
	m.ID = types.StringValue(spec.Name)
	m.Name = types.StringValue(spec.Name)
	m.Prefix = types.Int64Value(int64(spec.Prefix))
	m.Gateway = tfglue.NullableString(spec.Gateway)
	m.Ranges = nil
	for _, x := range spec.Ranges {
		r := ipRangeModel{Start: tfglue.NullableString(x.Start), End: tfglue.NullableString(x.End), Subnet: tfglue.NullableString(x.Subnet),
			Exclude: types.ListNull(types.StringType)}
		if len(x.Exclude) > 0 {
			r.Exclude = tfglue.StringList(x.Exclude)
		}
		m.Ranges = append(m.Ranges, r)
	}
	m.DNSServers = types.ListNull(types.StringType)
	if len(spec.DNSServers) > 0 {
		m.DNSServers = tfglue.StringList(spec.DNSServers)
	}
	m.PreAllocations = types.MapNull(types.StringType)
	if len(spec.PreAllocations) > 0 {
		m.PreAllocations = tfglue.StringMap(spec.PreAllocations)
	}
	m.Size = types.StringUnknown()
	if p, err := lifecycle.CompilePool(spec); err == nil {
		m.Size = types.StringValue(p.Size().String())
	}
}

// poolFieldPath is the attribute path of a pool problem.
func poolFieldPath(f lifecycle.PoolField) path.Path {
	p := path.Root(f.Attr)
	if f.Index >= 0 {
		p = p.AtListIndex(f.Index)
	}
	if f.Key != "" {
		p = p.AtMapKey(f.Key)
	}
	if f.Sub != "" {
		p = p.AtName(f.Sub)
	}
	if f.SubIndex >= 0 {
		p = p.AtListIndex(f.SubIndex)
	}
	return p
}

// poolAttrs are the attributes the pool's checks read.
var poolAttrs = []string{"ranges", "prefix", "gateway", "dns_servers", "pre_allocations"}

// knownSpec reads the pool definition from src when every attribute the
// checks read is known (the name may be unknown: then it is not judged).
func knownSpec[S tfglue.Source](ctx context.Context, src S, diags *diag.Diagnostics) (lifecycle.IPPoolSpec, bool, bool) {
	for _, a := range poolAttrs {
		if !tfglue.KnownAt(ctx, src, path.Root(a)) {
			return lifecycle.IPPoolSpec{}, false, false
		}
	}
	var m ipPoolModel
	diags.Append(tfglue.GetKnown(ctx, src, &m)...)
	if diags.HasError() {
		return lifecycle.IPPoolSpec{}, false, false
	}
	nameKnown := !m.Name.IsUnknown()
	spec := m.spec(ctx, diags)
	if !nameKnown {
		spec.Name = "unknown"
	}
	return spec, nameKnown, !diags.HasError()
}

// sameSpec compares two definitions (nil and empty alike).
func sameSpec(a, b lifecycle.IPPoolSpec) bool {
	norm := func(s lifecycle.IPPoolSpec) lifecycle.IPPoolSpec {
		if len(s.DNSServers) == 0 {
			s.DNSServers = nil
		}
		if len(s.PreAllocations) == 0 {
			s.PreAllocations = nil
		}
		rs := make([]lifecycle.IPRange, len(s.Ranges))
		for i, x := range s.Ranges {
			if len(x.Exclude) == 0 {
				x.Exclude = nil
			}
			rs[i] = x
		}
		s.Ranges = rs
		return s
	}
	return reflect.DeepEqual(norm(a), norm(b))
}
