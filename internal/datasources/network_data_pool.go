package datasources

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle/networkdata"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/validators"
)

// Static networks that take their address, gateway or DNS servers from an
// IP pool (baremetal_ip_pool), as Metal3DataTemplate's ipAddressFromIPPool,
// gateway fromIPPool and dnsFromIPPool do. The pool is read at the data
// source's read: at plan time when its arguments are known.

// poolNetworkAttributes are the static network attributes about pools.
func poolNetworkAttributes() map[string]schema.Attribute {
	poolName := func(desc string) schema.StringAttribute {
		return withString(optString(desc), validators.New("a pool name", lifecycle.CheckPoolName))
	}
	return map[string]schema.Attribute{
		"ip_address_from_pool": poolName("Takes `address` and `prefix` from this IP pool (`baremetal_ip_pool.name`), as " +
			"Metal3's `ipAddressFromIPPool`: the address the pool holds for `pool_owner` (its `baremetal_ip_claim`, or its " +
			"pre-allocation). Set either this or `address`. When the claim is created in the same apply, make the data " +
			"source depend on it (`depends_on`), so that it is read after the claim."),
		"pool_owner": withString(optString("The owner key whose address `ip_address_from_pool` takes (the claim's `owner`). Default: "+
			"`host_id` as written."), stringvalidator.LengthBetween(1, 255)),
		"gateway_from_pool": poolName("Takes `gateway` from this IP pool, as Metal3's gateway `fromIPPool`."),
		"dns_from_pool":     poolName("Takes `dns` from this IP pool's `dns_servers`, as Metal3's `dnsFromIPPool`."),
		"dns": ipList("DNS servers of the network (e.g. a claim's `dns_servers`), rendered as the network's " +
			"`services`. Not with `dns_from_pool`."),
	}
}

// staticNetworkPath is networks.<family>[i].
func staticNetworkPath(family string, i int) path.Path {
	return path.Root("networks").AtName(family).AtListIndex(i)
}

// checkPoolNetworks reports, at the attribute, a static network with
// both or neither of address and ip_address_from_pool, or with both gateway
// and gateway_from_pool, or dns and dns_from_pool. Unknown values are not
// judged. It returns the template without the networks whose address or
// gateway come from a pool (they are rendered, and checked, at read).
func checkPoolNetworks(m *networkDataModel, tmpl networkdata.Template, diags *diag.Diagnostics) networkdata.Template {
	if m.Networks == nil {
		return tmpl
	}
	filter := func(family string, models []staticNetworkModel, nets []networkdata.Network) []networkdata.Network {
		var out []networkdata.Network
		for i, n := range models {
			p := staticNetworkPath(family, i)
			fromPool := !n.IPAddressFromPool.IsNull()
			switch {
			case n.Address.IsUnknown() || n.IPAddressFromPool.IsUnknown():
			case fromPool && !n.Address.IsNull():
				diags.AddAttributeError(p.AtName("address"), "Conflicting address",
					fmt.Sprintf("%s: set either address or ip_address_from_pool (%q), not both", p, n.IPAddressFromPool.ValueString()))
			case !fromPool && n.Address.IsNull():
				diags.AddAttributeError(p.AtName("address"), "Missing address",
					fmt.Sprintf("%s: set address, or ip_address_from_pool to take it from an IP pool", p))
			}
			if !n.Gateway.IsNull() && !n.GatewayFromPool.IsNull() && !n.Gateway.IsUnknown() && !n.GatewayFromPool.IsUnknown() {
				diags.AddAttributeError(p.AtName("gateway"), "Conflicting gateway",
					fmt.Sprintf("%s: set either gateway or gateway_from_pool, not both", p))
			}
			if !n.DNS.IsNull() && !n.DNSFromPool.IsNull() && !n.DNS.IsUnknown() && !n.DNSFromPool.IsUnknown() {
				diags.AddAttributeError(p.AtName("dns"), "Conflicting DNS servers",
					fmt.Sprintf("%s: set either dns or dns_from_pool, not both", p))
			}
			if fromPool || !n.GatewayFromPool.IsNull() || i >= len(nets) {
				continue
			}
			out = append(out, nets[i])
		}
		return out
	}
	tmpl.Networks.IPv4 = filter("ipv4", m.Networks.IPv4, tmpl.Networks.IPv4)
	tmpl.Networks.IPv6 = filter("ipv6", m.Networks.IPv6, tmpl.Networks.IPv6)
	return tmpl
}

// resolvePools fills in tmpl's static networks what they take from IP
// pools, reporting each failure at its attribute.
func (d *networkDataSource) resolvePools(ctx context.Context, m *networkDataModel, tmpl *networkdata.Template, diags *diag.Diagnostics) {
	if m.Networks == nil {
		return
	}
	var store lifecycle.IPPoolStore
	storeOf := func() lifecycle.IPPoolStore {
		if store == nil {
			if d.clients == nil || d.clients.IPPools == nil {
				diags.AddError("Provider not configured", "the provider has no Ironic configured; IP pools live in Ironic")
				return nil
			}
			store = d.clients.IPPools
		}
		return store
	}
	poolErr := func(p path.Path, pool string, err error) {
		summary := "Reading IP pool " + pool
		if errors.Is(err, lifecycle.ErrPoolNotFound) {
			summary = "No IP pool " + pool
		}
		diags.AddAttributeError(p, summary, p.String()+": "+err.Error())
	}
	resolve := func(family string, models []staticNetworkModel, nets []networkdata.Network) {
		for i, n := range models {
			if i >= len(nets) {
				return
			}
			p := staticNetworkPath(family, i)
			if pool := n.IPAddressFromPool.ValueString(); pool != "" {
				owner := n.PoolOwner.ValueString()
				if owner == "" {
					owner = m.HostID.ValueString()
				}
				if owner == "" {
					diags.AddAttributeError(p.AtName("pool_owner"), "Missing pool_owner",
						p.String()+": ip_address_from_pool needs the owner key of the claim: set pool_owner, or host_id")
					continue
				}
				s := storeOf()
				if s == nil {
					return
				}
				c, err := lifecycle.PoolAddress(ctx, s, pool, owner)
				if err != nil {
					poolErr(p.AtName("ip_address_from_pool"), pool, err)
					continue
				}
				if nets[i].Prefix != 0 && nets[i].Prefix != c.Prefix {
					diags.AddAttributeError(p.AtName("prefix"), "Conflicting prefix",
						fmt.Sprintf("%s: prefix %d, but IP pool %s's prefix is %d", p, nets[i].Prefix, pool, c.Prefix))
					continue
				}
				nets[i].Address, nets[i].Prefix = c.Address, c.Prefix
			}
			for _, from := range []struct {
				attr, pool string
				set        func(lifecycle.IPPoolSpec) error
			}{
				{"gateway_from_pool", n.GatewayFromPool.ValueString(), func(spec lifecycle.IPPoolSpec) error {
					if spec.Gateway == "" {
						return fmt.Errorf("IP pool %s has no gateway", spec.Name)
					}
					nets[i].Gateway = spec.Gateway
					return nil
				}},
				{"dns_from_pool", n.DNSFromPool.ValueString(), func(spec lifecycle.IPPoolSpec) error {
					if len(spec.DNSServers) == 0 {
						return fmt.Errorf("IP pool %s has no dns_servers", spec.Name)
					}
					nets[i].DNS = spec.DNSServers
					return nil
				}},
			} {
				if from.pool == "" {
					continue
				}
				s := storeOf()
				if s == nil {
					return
				}
				spec, err := lifecycle.PoolSettings(ctx, s, from.pool)
				if err == nil {
					err = from.set(spec)
				}
				if err != nil {
					poolErr(p.AtName(from.attr), from.pool, err)
				}
			}
		}
	}
	resolve("ipv4", m.Networks.IPv4, tmpl.Networks.IPv4)
	resolve("ipv6", m.Networks.IPv6, tmpl.Networks.IPv6)
}
