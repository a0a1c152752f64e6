package lifecycletest

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// Catalog is a fake lifecycle.Catalog: a list of hosts and the allocations
// on them. Claim takes the first candidate no allocation holds, as
// Ironic's allocation API does with candidate_nodes, atomically.
type Catalog struct {
	mu sync.Mutex
	// HostList is what Hosts returns (AllocationID is kept up to date).
	HostList []lifecycle.HostSummary
	// Allocations by name.
	Allocations map[string]lifecycle.Allocation
	// HostsErr, AllocationErr and ClaimErr fail those calls when set.
	HostsErr, AllocationErr, ClaimErr error
	// Claims records every ClaimRequest.
	Claims []lifecycle.ClaimRequest
	// Released lists released allocation ids.
	Released []string
	// Disks are the inspection inventories' disks by node id (no entry:
	// no inventory); DiskReads lists the ids InventoryDisks was asked for.
	Disks     map[string][]lifecycle.Disk
	DiskReads []string
	nextID    int
}

// NewCatalog returns a Catalog over hosts.
func NewCatalog(hosts ...lifecycle.HostSummary) *Catalog {
	return &Catalog{HostList: hosts, Allocations: map[string]lifecycle.Allocation{}}
}

// Hosts returns HostList.
func (c *Catalog) Hosts(context.Context) ([]lifecycle.HostSummary, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.HostList), c.HostsErr
}

// Host finds a host by UUID or name.
func (c *Catalog) Host(_ context.Context, idOrName string) (lifecycle.HostSummary, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, h := range c.HostList {
		if h.ID == idOrName || h.Name == idOrName {
			return h, nil
		}
	}
	return lifecycle.HostSummary{}, fmt.Errorf("%s: %w", idOrName, lifecycle.ErrNotRegistered)
}

// Hardware is not faked.
func (c *Catalog) Hardware(context.Context, string, *lifecycle.BMCAccess) (*lifecycle.HardwareData, error) {
	return nil, fmt.Errorf("lifecycletest.Catalog has no hardware")
}

// Claim allocates the first free candidate; ErrNoCapacity when none is.
// An allocation of the same name that is not active is replaced.
func (c *Catalog) Claim(_ context.Context, req lifecycle.ClaimRequest) (lifecycle.Allocation, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.Claims = append(c.Claims, req)
	if c.ClaimErr != nil {
		return lifecycle.Allocation{}, c.ClaimErr
	}
	held := map[string]bool{}
	for name, a := range c.Allocations {
		if name != req.Name && a.NodeID != "" {
			held[a.NodeID] = true
		}
	}
	for _, id := range req.Candidates {
		if held[id] {
			continue
		}
		c.nextID++
		a := lifecycle.Allocation{ID: fmt.Sprintf("alloc-%d", c.nextID), Name: req.Name, NodeID: id, State: "active"}
		c.Allocations[req.Name] = a
		for i := range c.HostList {
			if c.HostList[i].ID == id {
				c.HostList[i].AllocationID = a.ID
			}
		}
		return a, nil
	}
	return lifecycle.Allocation{}, fmt.Errorf("none of the requested nodes are available: %w", lifecycle.ErrNoCapacity)
}

// Allocation finds an allocation by id or name.
func (c *Catalog) Allocation(_ context.Context, id string) (lifecycle.Allocation, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.AllocationErr != nil {
		return lifecycle.Allocation{}, false, c.AllocationErr
	}
	for name, a := range c.Allocations {
		if a.ID == id || name == id {
			return a, true, nil
		}
	}
	return lifecycle.Allocation{}, false, nil
}

// Release deletes an allocation.
func (c *Catalog) Release(_ context.Context, id string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for name, a := range c.Allocations {
		if a.ID == id || name == id {
			delete(c.Allocations, name)
			for i := range c.HostList {
				if c.HostList[i].AllocationID == a.ID {
					c.HostList[i].AllocationID = ""
				}
			}
		}
	}
	c.Released = append(c.Released, id)
	return nil
}

// InventoryDisks returns Disks[id] (lifecycle.DiskReader).
func (c *Catalog) InventoryDisks(_ context.Context, id string) ([]lifecycle.Disk, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.DiskReads = append(c.DiskReads, id)
	d, ok := c.Disks[id]
	return d, ok, nil
}
