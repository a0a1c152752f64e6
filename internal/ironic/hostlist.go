package ironic

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

var _ lifecycle.HostLister = (*Catalog)(nil)

// ListHosts implements lifecycle.HostLister: GET /v1/nodes/detail with the
// filters Ironic knows, one request per page (Ironic's next links), and
// q.Matches on each node for the others. It stops asking for pages once
// each returns false. Ports are not read: an imported host has none in
// state.
func (c *Catalog) ListHosts(ctx context.Context, q lifecycle.HostQuery, each func(lifecycle.ListedHost) bool) error {
	u := c.sc.ServiceURL("nodes", "detail")
	if qs := c.nodeListQuery(q).Encode(); qs != "" {
		u += "?" + qs
	}
	err := eachPage(ctx, c.sc, u, "nodes", func(page []nodes.Node) (bool, error) {
		for i := range page {
			n := &page[i]
			h := lifecycle.ListedHost{
				HostSummary: lifecycle.HostSummary{Observation: observationOfNode(n)},
				Managed:     managedByUs(n),
				Owner:       n.Owner,
			}
			if q.Matches(h) && !each(h) {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		return apiError("list nodes", err)
	}
	return nil
}

// nodeListQuery is the node list's query string for q: the filters Ironic
// applies itself (shard from API 1.82), and the page size.
func (c *Catalog) nodeListQuery(q lifecycle.HostQuery) url.Values {
	v := url.Values{}
	set := func(k, val string) {
		if val != "" {
			v.Set(k, val)
		}
	}
	set("resource_class", q.ResourceClass)
	set("provision_state", q.ProvisionState)
	if q.Deployed && q.ProvisionState == "" {
		v.Set("provision_state", psActive)
	}
	if has(c.sc, lifecycle.FeatureParentNode) {
		v.Set("include_children", "True") // see withChildren
	}
	set("driver", q.Driver)
	set("conductor_group", strings.ToLower(q.ConductorGroup))
	set("owner", q.Owner)
	if q.Shard != "" && has(c.sc, lifecycle.FeatureShard) {
		v.Set("shard", q.Shard)
	}
	if q.Maintenance != nil {
		v.Set("maintenance", strconv.FormatBool(*q.Maintenance))
	}
	if c.pageLimit > 0 {
		v.Set("limit", strconv.Itoa(c.pageLimit))
	}
	return v
}

// managedByUs reads the managed mark (lifecycle.ManagedByKey) of a node.
func managedByUs(n *nodes.Node) bool {
	s, _ := n.Extra[lifecycle.ManagedByKey].(string)
	return s == lifecycle.ManagedByValue
}

// markManaged adds the managed mark to a node create request.
func markManaged(body nodeBody) {
	extra, _ := body["extra"].(map[string]any)
	if extra == nil {
		extra = map[string]any{}
	}
	extra[lifecycle.ManagedByKey] = lifecycle.ManagedByValue
	body["extra"] = extra
}

// visibleDriverInfo is a node's driver_info without what Ironic masks
// (passwords and other secrets read back as "******") and without values
// that are not scalars, as strings: what an import can put in a host's
// driver_info, and without the mark this provider sets on nodes Ironic made
// their own parent (ownPowerSupplyOp: not the user's). nil when nothing is
// left.
func visibleDriverInfo(info map[string]any) map[string]string {
	var out map[string]string
	for k, v := range info {
		if k == ownPowerSupplyOp.Path[len("/driver_info/"):] {
			continue
		}
		var s string
		switch x := v.(type) {
		case string:
			if strings.Trim(x, "*") == "" && x != "" {
				continue // masked
			}
			s = x
		case bool, float64, int, int64:
			s = fmt.Sprint(x)
		default:
			continue
		}
		if out == nil {
			out = map[string]string{}
		}
		out[k] = s
	}
	return out
}
