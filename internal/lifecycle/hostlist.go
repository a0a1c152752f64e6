package lifecycle

import (
	"context"
	"regexp"
	"strings"
)

// Listing hosts for `terraform query` (the baremetal_host and
// baremetal_deployment list resources): the nodes that match a HostQuery,
// streamed page by page from Ironic's node list, never read one by one.

// ManagedByKey is the key in a node's extra that marks a node this provider
// manages, and ManagedByValue its value. The provider writes it when it
// creates a node. Nodes it took over while registering (same name), nodes
// created by a version before the mark, and imported nodes do not carry
// it: an import writes nothing to Ironic.
const (
	ManagedByKey   = "managed_by"
	ManagedByValue = "terraform-provider-baremetal"
)

// HostQuery selects hosts. Ironic filters by the fields it can (resource
// class, provision state, driver, conductor group, shard, owner,
// maintenance); the others (names, labels, the managed mark) are matched
// on each node of the list (Matches). Empty fields select everything.
type HostQuery struct {
	ResourceClass  string
	ProvisionState string
	Driver         string
	ConductorGroup string
	Shard          string
	Owner          string
	// Maintenance, when set, selects nodes in (true) or out of (false)
	// maintenance.
	Maintenance *bool

	NamePrefix string
	// NameRegex is matched against the whole node name (RE2, unanchored
	// unless it anchors itself).
	NameRegex *regexp.Regexp
	// Labels must all be on the node with these values.
	Labels map[string]string
	// Unmanaged selects the nodes without the managed mark (ManagedByKey).
	Unmanaged bool
	// Deployed selects the hosts with a deployment to import: provisioned
	// with an image (ImportDeployment's rule).
	Deployed bool
}

// ListedHost is one node of a host list.
type ListedHost struct {
	HostSummary
	// Managed says that the node carries the managed mark.
	Managed bool
	// Owner is Ironic's owner of the node.
	Owner string
}

// HostLister lists hosts page by page. internal/ironic's Catalog
// implements it.
type HostLister interface {
	// ListHosts calls each, in Ironic's order, with every node of q's list
	// that q.Matches, until each returns false: one list request per page
	// (and none after each said stop), never one per node.
	ListHosts(ctx context.Context, q HostQuery, each func(ListedHost) bool) error
}

// Matches applies the filters Ironic does not (the others are matched too,
// so that a lister that could not pass one to Ironic still honours it).
func (q HostQuery) Matches(h ListedHost) bool {
	o := h.Observation
	switch {
	case q.NamePrefix != "" && !strings.HasPrefix(o.Name, q.NamePrefix),
		q.NameRegex != nil && !q.NameRegex.MatchString(o.Name),
		q.Unmanaged && h.Managed,
		q.Deployed && (o.State != StateProvisioned || o.DeployedImage == nil),
		q.ResourceClass != "" && o.ResourceClass != q.ResourceClass,
		q.ProvisionState != "" && o.ProvisionState != q.ProvisionState,
		q.Driver != "" && o.Driver != q.Driver,
		q.ConductorGroup != "" && !strings.EqualFold(o.ConductorGroup, q.ConductorGroup),
		q.Shard != "" && o.Shard != q.Shard,
		q.Owner != "" && h.Owner != q.Owner,
		q.Maintenance != nil && o.Maintenance != *q.Maintenance:
		return false
	}
	for k, v := range q.Labels {
		if got, ok := o.Labels[k]; !ok || got != v {
			return false
		}
	}
	return true
}
