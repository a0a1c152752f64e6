package ironic

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"
	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/ports"
	"github.com/gophercloud/gophercloud/v2/pagination"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// Catalog implements lifecycle.Catalog over Ironic: the host list and
// hardware data the data sources read, and claims as Ironic allocations.
// It is safe for concurrent use; it keeps only the hardware type list.
type Catalog struct {
	sc *gophercloud.ServiceClient

	// claimPoll is the pause between two reads of an allocating allocation.
	claimPoll time.Duration
	// allocationTimeout bounds the wait for one allocation to leave
	// "allocating" (Ironic's conductor normally takes well under a second).
	allocationTimeout time.Duration
	// pageLimit is the page size of the node and port lists (0: Ironic's
	// default, max_limit = 1000; next links are followed).
	pageLimit int
	// w, when set, hears of the writes that change nodes (allocations).
	w *Watcher
	// taskPoll and imageClient tune firmware updates through the BMC
	// (WithFirmwareTaskPoll, WithImageClient).
	taskPoll    time.Duration
	imageClient *http.Client
	// hw caches the enabled hardware types (drivers.go).
	hw hardwareTypes
}

// WithWatcher tells w about the allocations the catalog creates and
// deletes, so that the provisioner's reads from w's lists see them.
func WithWatcher(w *Watcher) CatalogOption {
	return func(c *Catalog) { c.w = w }
}

// wroteNodes tells the watcher, if any, that nodes may have changed.
func (c *Catalog) wroteNodes() {
	if c.w != nil {
		c.w.WroteAll()
	}
}

var _ lifecycle.Catalog = (*Catalog)(nil)

// CatalogOption tunes a Catalog.
type CatalogOption func(*Catalog)

// WithClaimPollInterval sets how often Claim reads an allocation while it
// is "allocating" (default 1 s; the first reads come sooner, from 100 ms
// doubling up to it).
func WithClaimPollInterval(d time.Duration) CatalogOption {
	return func(c *Catalog) {
		if d > 0 {
			c.claimPoll = d
		}
	}
}

// WithAllocationTimeout bounds how long Claim waits for one allocation to
// become active or fail before giving up with an error (default 2 min).
func WithAllocationTimeout(d time.Duration) CatalogOption {
	return func(c *Catalog) {
		if d > 0 {
			c.allocationTimeout = d
		}
	}
}

// WithListPageLimit sets the page size of the node and port lists in
// Hosts (default: Ironic's, up to 1000 per page).
func WithListPageLimit(n int) CatalogOption {
	return func(c *Catalog) { c.pageLimit = n }
}

// NewCatalog returns a Catalog using sc, whose Microversion should be the
// negotiated one (the inventory API needs 1.81, allocations 1.52).
func NewCatalog(sc *gophercloud.ServiceClient, opts ...CatalogOption) *Catalog {
	c := &Catalog{
		sc:                sc,
		claimPoll:         time.Second,
		allocationTimeout: 2 * time.Minute,
	}
	for _, o := range opts {
		o(c)
	}
	return c
}

// portFields are the port fields the catalog reads.
var portFields = []string{"node_uuid", "address", "pxe_enabled"}

// Hosts lists every node with its ports in two list requests (one per page
// of each): GET /v1/nodes/detail and GET /v1/ports?fields=...
//
// The node list is the detail list without a field filter: Ironic 21.4
// answers 500 to ?fields=...,allocation_uuid on the list ("type object
// 'Node' has no attribute 'allocation_uuid'") and 400 to updated_at, and
// both are needed here.
func (c *Catalog) Hosts(ctx context.Context) ([]lifecycle.HostSummary, error) {
	var all []nodes.Node
	err := nodes.ListDetail(c.sc, childrenListOpts{nodes.ListOpts{Limit: c.pageLimit}, c.sc}).EachPage(ctx, func(_ context.Context, page pagination.Page) (bool, error) {
		list, err := nodes.ExtractNodes(page)
		if err != nil {
			return false, err
		}
		all = append(all, list...)
		return true, nil
	})
	if err != nil {
		return nil, apiError("list nodes", err)
	}
	byNode, err := c.listPorts(ctx, ports.ListOpts{Fields: portFields, Limit: c.pageLimit})
	if err != nil {
		return nil, err
	}
	out := make([]lifecycle.HostSummary, 0, len(all))
	for i := range all {
		n := &all[i]
		out = append(out, lifecycle.HostSummary{
			Observation: observationOfNode(n),
			Hardware:    hardwareSummary(n, byNode[n.UUID]),
		})
	}
	return out, nil
}

// Host reads one node (by UUID or name) and its ports.
func (c *Catalog) Host(ctx context.Context, idOrName string) (lifecycle.HostSummary, error) {
	n, err := c.node(ctx, idOrName)
	if err != nil {
		return lifecycle.HostSummary{}, err
	}
	byNode, err := c.listPorts(ctx, ports.ListOpts{NodeUUID: n.UUID, Fields: portFields})
	if err != nil {
		return lifecycle.HostSummary{}, err
	}
	return lifecycle.HostSummary{
		Observation: observationOfNode(n),
		Hardware:    hardwareSummary(n, byNode[n.UUID]),
	}, nil
}

// node reads a node by UUID or name; a missing one wraps ErrNotRegistered.
func (c *Catalog) node(ctx context.Context, idOrName string) (*nodes.Node, error) {
	if strings.TrimSpace(idOrName) == "" {
		return nil, fmt.Errorf("node %q: %w", idOrName, lifecycle.ErrNotRegistered)
	}
	n, err := nodes.Get(ctx, c.sc, idOrName).Extract()
	if err != nil {
		if isNotFound(err) {
			return nil, fmt.Errorf("node %q: %w", idOrName, lifecycle.ErrNotRegistered)
		}
		return nil, apiError("get node "+idOrName, err)
	}
	return n, nil
}

// portInfo is what the catalog needs of a port.
type portInfo struct {
	MAC string
	PXE bool
}

// listPorts lists ports (all pages) grouped by node UUID, in list order.
func (c *Catalog) listPorts(ctx context.Context, opts ports.ListOpts) (map[string][]portInfo, error) {
	out := map[string][]portInfo{}
	err := ports.List(c.sc, opts).EachPage(ctx, func(_ context.Context, page pagination.Page) (bool, error) {
		list, err := ports.ExtractPorts(page)
		if err != nil {
			return false, err
		}
		for _, p := range list {
			out[p.NodeUUID] = append(out[p.NodeUUID], portInfo{MAC: strings.ToLower(p.Address), PXE: p.PXEEnabled})
		}
		return true, nil
	})
	if err != nil {
		return nil, apiError("list ports", err)
	}
	return out, nil
}

// observationOfNode maps a node to an Observation exactly as
// Provisioner.Observe does (labels from extra.labels, the BMO state the
// provision state implies, the deployed image from instance_info), with
// no previous lifecycle state. Provisioner.Observe builds the same value
// inline from a host lookup; this is the node-only half of it.
func observationOfNode(n *nodes.Node) lifecycle.Observation {
	obs := lifecycle.Observation{
		Exists:               true,
		ID:                   n.UUID,
		Name:                 n.Name,
		Driver:               n.Driver,
		DriverInfo:           withoutDeployImage(visibleDriverInfo(n.DriverInfo)),
		BootInterface:        n.BootInterface,
		BIOSInterface:        n.BIOSInterface,
		State:                MapState(n.ProvisionState, lifecycle.StateNone),
		ProvisionState:       n.ProvisionState,
		TargetProvisionState: n.TargetProvisionState,
		LastError:            n.LastError,
		Maintenance:          n.Maintenance,
		MaintenanceReason:    n.MaintenanceReason,
		DeployedImage:        deployedImage(n.InstanceInfo),
		Labels:               labelsOf(n),
		ResourceClass:        n.ResourceClass,
		Traits:               n.Traits,
		AllocationID:         n.AllocationUUID,
		ConductorGroup:       n.ConductorGroup,
		Shard:                n.Shard,
		UpdatedAt:            n.UpdatedAt,
		CurrentStep:          currentStep(n),
		ProvisionUpdatedAt:   n.ProvisionUpdatedAt,
		Health:               n.Health,
	}
	if obs.UpdatedAt.IsZero() {
		// Node lists cannot carry updated_at (Ironic 21.4 refuses the
		// field); the last provision state change is the next best.
		obs.UpdatedAt = n.ProvisionUpdatedAt
	}
	if c, ok := n.Properties["capabilities"].(string); ok {
		obs.BootMode = BootModeOf(c)
	}
	obs.AutomatedCleaning = n.AutomatedClean
	obs.Boot = observedBoot(n)
	if len(n.RAIDConfig) > 0 {
		if raw, err := json.Marshal(n.RAIDConfig); err == nil {
			obs.RAIDConfig = string(raw)
		}
	}
	switch n.PowerState {
	case powerOn:
		on := true
		obs.PoweredOn = &on
	case powerOff:
		off := false
		obs.PoweredOn = &off
	}
	return obs
}

// hardwareSummary is the hardware summary from node properties (cpus,
// memory_mb, local_gb, cpu_arch) and ports, in the shape the provisioner's
// Inspect returns without an inventory (one disk named "local"); nil when
// neither says anything.
func hardwareSummary(n *nodes.Node, pts []portInfo) *lifecycle.HardwareDetails {
	d := &lifecycle.HardwareDetails{}
	d.CPUArch, _ = n.Properties["cpu_arch"].(string)
	d.CPUCount = intProp(n.Properties["cpus"])
	d.RAMMebibytes = intProp(n.Properties["memory_mb"])
	if gb := intProp(n.Properties["local_gb"]); gb > 0 {
		d.Storage = append(d.Storage, lifecycle.Disk{Name: "local", SizeBytes: int64(gb) << 30})
	}
	for _, p := range pts {
		d.NICs = append(d.NICs, lifecycle.NIC{MAC: p.MAC, PXE: p.PXE})
	}
	if d.CPUArch == "" && d.CPUCount == 0 && d.RAMMebibytes == 0 && len(d.Storage) == 0 && len(d.NICs) == 0 {
		return nil
	}
	return d
}

// catalogError is an API failure: its text is short (Ironic's faultstring,
// see ironicError) and it still unwraps to the gophercloud or context error.
type catalogError struct {
	msg string
	err error
}

func (e *catalogError) Error() string { return e.msg }
func (e *catalogError) Unwrap() error { return e.err }

func apiError(what string, err error) error {
	return &catalogError{msg: what + ": " + ironicError(err), err: err}
}
