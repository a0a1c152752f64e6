package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// This file is the claim half of CAPM3's host selection on Ironic
// allocations: reuse of the claim's own allocation after an interrupted
// apply, candidate selection and ordering (SelectHosts), resource-class
// inference, and what a refresh or an import of a claim reads. The
// baremetal_host_claim resource converts its model and calls these.

// HostClaim is a claim that holds a host: its active allocation and the
// name of the host (empty when the node could not be read).
type HostClaim struct {
	Allocation
	HostName string
}

// ClaimError is a claim that could not be made, for the caller to report
// as Summary and Detail. Err is the underlying error, if any
// (ErrNoCapacity when every candidate was taken).
type ClaimError struct {
	Summary, Detail string
	Err             error
}

func (e *ClaimError) Error() string { return e.Summary + ": " + e.Detail }
func (e *ClaimError) Unwrap() error { return e.Err }

// HostClaimRequest asks ClaimHost for one host.
type HostClaimRequest struct {
	// Name is the claim's (and its allocation's) name.
	Name        string
	Selector    Selector
	SpreadLabel string
}

// claimedBy goes into every allocation's extra.
var claimedBy = map[string]string{"claimed_by": "terraform-provider-baremetal"}

// ClaimHost claims one host that matches req.Selector with an Ironic
// allocation named req.Name. An allocation of that name that already holds
// a host (an earlier create was interrupted) is kept; one still allocating
// or in error is handed to Catalog.Claim, which waits for it or replaces
// it. Candidates are the matching hosts in SelectHosts' order (spread over
// req.SpreadLabel); without a resource class in the selector, the one all
// candidates share is asked for (Ironic requires one on an allocation).
// Failures are *ClaimError.
func ClaimHost(ctx context.Context, cat Catalog, log Logger, req HostClaimRequest) (HostClaim, error) {
	logf := func(msg string, fields map[string]any) {
		if log != nil {
			log.Log(ctx, msg, fields)
		}
	}
	failed := "Claiming a host for " + req.Name
	var own []string
	a, ok, err := cat.Allocation(ctx, req.Name)
	switch {
	case err != nil:
		return HostClaim{}, &ClaimError{Summary: failed, Detail: "reading allocation " + req.Name + ": " + err.Error(), Err: err}
	case ok && a.State == "active" && a.NodeID != "":
		logf("the claim's allocation exists already; keeping its host", map[string]any{"allocation": a.ID, "node": a.NodeID})
		return HostClaim{Allocation: a, HostName: claimedHostName(ctx, cat, log, a.NodeID)}, nil
	case ok:
		own = append(own, a.ID)
	}

	hosts, err := cat.Hosts(ctx)
	if err != nil {
		return HostClaim{}, &ClaimError{Summary: failed, Detail: "listing hosts: " + err.Error(), Err: err}
	}
	if err := UseInventoryDisks(ctx, cat, hosts, req.Selector); err != nil {
		return HostClaim{}, &ClaimError{Summary: failed, Detail: err.Error(), Err: err}
	}
	ordered, rej := SelectHosts(hosts, req.Selector, req.SpreadLabel, own...)
	if len(ordered) == 0 {
		return HostClaim{}, &ClaimError{Summary: "No host matches the claim", Detail: rej.Error() + "."}
	}
	creq := ClaimRequest{
		Name:          req.Name,
		ResourceClass: req.Selector.ResourceClass,
		Traits:        req.Selector.Traits,
		Extra:         claimedBy,
	}
	classes := map[string]bool{}
	names := make([]string, 0, len(ordered))
	for _, h := range ordered {
		creq.Candidates = append(creq.Candidates, h.ID)
		classes[h.ResourceClass] = true
		names = append(names, h.Name)
	}
	if creq.ResourceClass == "" && len(classes) == 1 {
		creq.ResourceClass = ordered[0].ResourceClass
	}
	logf("claiming a host", map[string]any{"candidates": len(creq.Candidates), "first": ordered[0].Name})
	a, err = cat.Claim(ctx, creq)
	switch {
	case errors.Is(err, ErrNoCapacity):
		return HostClaim{}, &ClaimError{Summary: "No host could be claimed", Err: err,
			Detail: fmt.Sprintf("%d %s matched the claim (%s), but each was taken by another claim or changed state "+
				"while claiming; run again to pick from the hosts left. Ironic said: %v",
				len(ordered), claimPlural(len(ordered), "host", "hosts"), strings.Join(names, ", "), err)}
	case err != nil:
		return HostClaim{}, &ClaimError{Summary: failed, Detail: err.Error(), Err: err}
	}
	return HostClaim{Allocation: a, HostName: claimedHostName(ctx, cat, log, a.NodeID)}, nil
}

// RefreshClaim reads the claim's allocation (a Terraform Read). ok is false
// when the allocation is gone or holds no host: the claim no longer exists.
// The host's name is read again only when the host changed or the known
// name is empty; otherwise HostName is knownHostName.
func RefreshClaim(ctx context.Context, cat Catalog, log Logger, allocationID, knownHostID, knownHostName string) (c HostClaim, ok bool, err error) {
	a, ok, err := cat.Allocation(ctx, allocationID)
	if err != nil || !ok || a.NodeID == "" {
		return HostClaim{}, false, err
	}
	c = HostClaim{Allocation: a, HostName: knownHostName}
	if knownHostID != a.NodeID || knownHostName == "" {
		if n := claimedHostName(ctx, cat, log, a.NodeID); n != "" {
			c.HostName = n
		}
	}
	return c, true, nil
}

// ImportClaim reads the allocation id (UUID or name) for terraform import:
// it must exist and hold a host.
func ImportClaim(ctx context.Context, cat Catalog, log Logger, id string) (HostClaim, error) {
	a, ok, err := cat.Allocation(ctx, id)
	switch {
	case err != nil:
		return HostClaim{}, err
	case !ok:
		return HostClaim{}, errors.New("no Ironic allocation has this UUID or name")
	case a.NodeID == "":
		return HostClaim{}, fmt.Errorf("allocation %s holds no host (state %q, last_error %q)", a.ID, a.State, a.LastError)
	}
	return HostClaim{Allocation: a, HostName: claimedHostName(ctx, cat, log, a.NodeID)}, nil
}

// claimedHostName looks up a node's name ("" when it cannot be read).
func claimedHostName(ctx context.Context, cat Catalog, log Logger, nodeID string) string {
	if nodeID == "" {
		return ""
	}
	h, err := cat.Host(ctx, nodeID)
	if err != nil {
		if log != nil {
			log.Log(ctx, "could not read the claimed host", map[string]any{"node": nodeID, "error": err.Error()})
		}
		return ""
	}
	return h.Name
}

// ReleaseClaim deletes the claim's allocation (a missing one counts as
// released), unless the host it holds is detached: then nothing is written
// (a Forgotten *DetachedError), and the allocation stays with the node that
// was handed on. A host that cannot be read stops the release: it may be a
// detached one.
func ReleaseClaim(ctx context.Context, cat Catalog, allocationID, hostID string) error {
	if hostID != "" {
		h, err := cat.Host(ctx, hostID)
		switch {
		case errors.Is(err, ErrNotRegistered):
		case err != nil:
			return fmt.Errorf("reading host %s before releasing its claim: %w", hostID, err)
		default:
			if err := ForgetDetached(h.Observation, "release its claim (delete allocation "+allocationID+")"); err != nil {
				return err
			}
		}
	}
	return cat.Release(ctx, allocationID)
}
