package ironic

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/allocations"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// Allocation states.
const (
	allocAllocating = "allocating"
	allocActive     = "active"
)

// allocationBody is an allocation create request (gophercloud's CreateOpts
// cannot leave out empty fields the way this needs).
type allocationBody map[string]any

func (b allocationBody) ToAllocationCreateMap() (map[string]any, error) { return b, nil }

// Claim claims one of req.Candidates, in order, through Ironic allocations:
// it creates an allocation restricted to one candidate, waits until it is
// active or in error, and on error deletes it (which frees the name) and
// tries the next candidate. Ironic makes each allocation atomic, so
// concurrent claims never share a node.
//
// It is idempotent by name: when an allocation named req.Name is active
// (or still allocating, then Claim waits for it) it is returned whatever
// its node; a leftover one in error is deleted first.
func (c *Catalog) Claim(ctx context.Context, req lifecycle.ClaimRequest) (lifecycle.Allocation, error) {
	label := req.Name
	if label == "" {
		label = "(unnamed)"
	}
	if req.Name != "" {
		a, ok, err := c.reuse(ctx, req.Name)
		if err != nil || ok {
			return a, err
		}
	}
	if len(req.Candidates) == 0 {
		return lifecycle.Allocation{}, fmt.Errorf("claim %s: %w: no candidate hosts", label, lifecycle.ErrNoCapacity)
	}

	var reasons []string
	for _, cand := range req.Candidates {
		a, reason, err := c.tryCandidate(ctx, req, cand)
		if err != nil {
			return lifecycle.Allocation{}, fmt.Errorf("claim %s: %w", label, err)
		}
		if a.State == allocActive {
			tflog.Info(ctx, "claimed host", map[string]any{"claim": label, "node": a.NodeID, "allocation": a.ID})
			return a, nil
		}
		tflog.Debug(ctx, "candidate not claimable", map[string]any{"claim": label, "candidate": cand, "reason": reason})
		reasons = append(reasons, fmt.Sprintf("%s: %s", cand, reason))
	}
	n := len(req.Candidates)
	plural := "s"
	if n == 1 {
		plural = ""
	}
	return lifecycle.Allocation{}, fmt.Errorf("claim %s: %w: tried %d candidate%s (resource class %q): %s",
		label, lifecycle.ErrNoCapacity, n, plural, req.ResourceClass, strings.Join(reasons, "; "))
}

// reuse looks for an allocation named name: active (or allocating, then
// settled) is returned with ok; one in error is deleted; none is not ok.
func (c *Catalog) reuse(ctx context.Context, name string) (lifecycle.Allocation, bool, error) {
	a, found, err := c.Allocation(ctx, name)
	if err != nil || !found {
		return lifecycle.Allocation{}, false, err
	}
	if a.State == allocAllocating {
		if a, err = c.waitAllocation(ctx, a); err != nil {
			return lifecycle.Allocation{}, false, err
		}
	}
	if a.State == allocActive {
		return a, true, nil
	}
	tflog.Debug(ctx, "deleting a failed allocation to reuse its name", map[string]any{"allocation": a.ID, "name": name, "last_error": a.LastError})
	if err := c.Release(ctx, a.ID); err != nil {
		return lifecycle.Allocation{}, false, err
	}
	return lifecycle.Allocation{}, false, nil
}

// tryCandidate allocates one candidate. It returns the active allocation,
// or a reason why the candidate could not be taken (the failed allocation
// is deleted), or an error that should stop the claim.
func (c *Catalog) tryCandidate(ctx context.Context, req lifecycle.ClaimRequest, cand string) (lifecycle.Allocation, string, error) {
	rc := req.ResourceClass
	if rc == "" {
		// Ironic needs a resource class; take the candidate's own.
		n, err := c.node(ctx, cand)
		if errors.Is(err, lifecycle.ErrNotRegistered) {
			return lifecycle.Allocation{}, "no such node", nil
		}
		if err != nil {
			return lifecycle.Allocation{}, "", err
		}
		if n.ResourceClass == "" {
			return lifecycle.Allocation{}, "the node has no resource_class", nil
		}
		rc = n.ResourceClass
	}
	body := allocationBody{"resource_class": rc, "candidate_nodes": []string{cand}}
	if req.Name != "" {
		body["name"] = req.Name
	}
	if len(req.Traits) > 0 {
		body["traits"] = req.Traits
	}
	if len(req.Extra) > 0 {
		body["extra"] = req.Extra
	}

	var created *allocations.Allocation
	for attempt := 0; ; attempt++ {
		var err error
		created, err = allocations.Create(ctx, c.sc, body).Extract()
		c.wroteNodes()
		if err == nil {
			break
		}
		switch {
		case isConflict(err) && req.Name != "" && attempt < 3:
			// The name is taken: by a claim of the same name that won a
			// race (then it is ours), or by a leftover in error.
			a, ok, rerr := c.reuse(ctx, req.Name)
			if rerr != nil {
				return lifecycle.Allocation{}, "", rerr
			}
			if ok {
				return a, "", nil
			}
			continue
		case isBadRequest(err) && candidateRejected(err):
			// e.g. the node is gone or does not have the resource class.
			return lifecycle.Allocation{}, ironicError(err), nil
		}
		return lifecycle.Allocation{}, "", apiError(fmt.Sprintf("create allocation for node %s", cand), err)
	}

	a, err := c.waitAllocation(ctx, toAllocation(created))
	if err != nil {
		return lifecycle.Allocation{}, "", err
	}
	if a.State == allocActive {
		return a, "", nil
	}
	reason := a.LastError
	if reason == "" {
		reason = "allocation failed without last_error"
	}
	if err := c.Release(ctx, a.ID); err != nil {
		// The next create meets the name and retries the delete.
		tflog.Warn(ctx, "could not delete a failed allocation", map[string]any{"allocation": a.ID, "error": err.Error()})
	}
	return a, reason, nil
}

// candidateRejected tells a 400 about the candidate (unknown node, wrong
// resource class or traits) from one about the request itself.
func candidateRejected(err error) bool {
	msg := strings.ToLower(ironicError(err))
	return strings.Contains(msg, "could not be found") || strings.Contains(msg, "cannot be found") || strings.Contains(msg, "candidate")
}

// waitAllocation reads the allocation until it leaves "allocating".
func (c *Catalog) waitAllocation(ctx context.Context, a lifecycle.Allocation) (lifecycle.Allocation, error) {
	deadline := time.Now().Add(c.allocationTimeout)
	// The conductor usually settles an allocation within a few hundred
	// milliseconds: start polling fast, then every claimPoll.
	pause := min(c.claimPoll, 100*time.Millisecond)
	for a.State == allocAllocating {
		if time.Now().After(deadline) {
			return a, fmt.Errorf("allocation %s (%s) still allocating after %s: is an Ironic conductor running?", a.ID, a.Name, c.allocationTimeout)
		}
		t := time.NewTimer(pause)
		pause = min(2*pause, c.claimPoll)
		select {
		case <-ctx.Done():
			t.Stop()
			return a, fmt.Errorf("waiting for allocation %s: %w", a.ID, ctx.Err())
		case <-t.C:
		}
		next, found, err := c.Allocation(ctx, a.ID)
		if err != nil {
			return a, err
		}
		if !found {
			return a, fmt.Errorf("allocation %s disappeared while allocating", a.ID)
		}
		a = next
	}
	return a, nil
}

// Allocation reads an allocation by UUID or name.
func (c *Catalog) Allocation(ctx context.Context, id string) (lifecycle.Allocation, bool, error) {
	if id == "" {
		return lifecycle.Allocation{}, false, nil
	}
	a, err := allocations.Get(ctx, c.sc, id).Extract()
	if err != nil {
		if isNotFound(err) {
			return lifecycle.Allocation{}, false, nil
		}
		return lifecycle.Allocation{}, false, apiError("get allocation "+id, err)
	}
	return toAllocation(a), true, nil
}

// Release deletes an allocation (by UUID or name); a missing one is
// released already. Deleting an active allocation frees its node
// (instance_uuid and allocation_uuid are cleared).
func (c *Catalog) Release(ctx context.Context, id string) error {
	if id == "" {
		return nil
	}
	err := allocations.Delete(ctx, c.sc, id).ExtractErr()
	c.wroteNodes()
	if err == nil || isNotFound(err) {
		return nil
	}
	return apiError("delete allocation "+id, err)
}

func toAllocation(a *allocations.Allocation) lifecycle.Allocation {
	return lifecycle.Allocation{
		ID:        a.UUID,
		Name:      a.Name,
		NodeID:    a.NodeUUID,
		State:     a.State,
		LastError: a.LastError,
	}
}
