package ironictest

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/allocations"
	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"
)

// This file is the fake's allocation API (1.52+): an allocation picks an
// available node of its resource class (with its traits, among its
// candidates) as Ironic's conductor does, at once or after AllocatingReads
// reads, or fails.

func (s *Server) createAllocation(w http.ResponseWriter, r *http.Request) {
	if !s.requireMicroversion(w, r, "1.52") {
		return
	}
	var a allocations.Allocation
	if !decode(w, r, &a) || !mandatory(w, "resource_class", a.ResourceClass) {
		return
	}
	for _, o := range s.allocations {
		if a.Name != "" && o.Name == a.Name {
			WriteError(w, http.StatusConflict, fmt.Sprintf("Allocation with name %s already exists.", a.Name))
			return
		}
	}
	a.UUID = s.newUUID()
	a.CreatedAt = s.now()
	a.State = "allocating"
	s.allocating[a.UUID] = s.AllocatingReads
	s.allocations[a.UUID] = &a
	s.settleAllocation(&a)
	WriteJSON(w, http.StatusCreated, a)
}

// settleAllocation picks a node for an allocating allocation once it has
// been read AllocatingReads times, as a conductor would.
func (s *Server) settleAllocation(a *allocations.Allocation) {
	if a.State != "allocating" {
		return
	}
	if s.allocating[a.UUID] > 0 {
		s.allocating[a.UUID]--
		return
	}
	delete(s.allocating, a.UUID)
	// Pick a node as the conductor would (the fake does it at once).
	var cands []*nodes.Node
	for _, n := range s.nodes {
		if n.ProvisionState != "available" || n.Maintenance || n.InstanceUUID != "" || n.AllocationUUID != "" ||
			n.ResourceClass != a.ResourceClass {
			continue
		}
		if len(a.CandidateNodes) > 0 && !slices.Contains(a.CandidateNodes, n.UUID) && !slices.Contains(a.CandidateNodes, n.Name) {
			continue
		}
		hasAll := true
		for _, t := range a.Traits {
			hasAll = hasAll && slices.Contains(n.Traits, t)
		}
		if hasAll {
			cands = append(cands, n)
		}
	}
	slices.SortFunc(cands, func(x, y *nodes.Node) int { return strings.Compare(x.UUID, y.UUID) })
	if len(cands) == 0 {
		a.State = "error"
		a.LastError = fmt.Sprintf("No available nodes match the resource class %s.", a.ResourceClass)
	} else {
		n := cands[0]
		a.State, a.NodeUUID = "active", n.UUID
		n.AllocationUUID, n.InstanceUUID = a.UUID, a.UUID
	}
}

func (s *Server) allocationByIdent(ident string) *allocations.Allocation {
	return byIdent(s.allocations, ident, func(a *allocations.Allocation) string { return a.Name })
}

func (s *Server) getAllocation(w http.ResponseWriter, r *http.Request) {
	a := s.allocationByIdent(r.PathValue("id"))
	if a == nil {
		WriteError(w, http.StatusNotFound, fmt.Sprintf("Allocation %s could not be found.", r.PathValue("id")))
		return
	}
	s.settleAllocation(a)
	WriteJSON(w, http.StatusOK, a)
}

func (s *Server) listAllocations(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	out := []allocations.Allocation{}
	for _, a := range s.allocations {
		if v := q.Get("node"); v != "" {
			if n := s.NodeByIdent(v); n == nil || a.NodeUUID != n.UUID {
				continue
			}
		}
		if v := q.Get("state"); v != "" && a.State != v {
			continue
		}
		out = append(out, *a)
	}
	slices.SortFunc(out, func(x, y allocations.Allocation) int { return strings.Compare(x.UUID, y.UUID) })
	WriteJSON(w, http.StatusOK, map[string]any{"allocations": out})
}

func (s *Server) deleteAllocation(w http.ResponseWriter, r *http.Request) {
	a := s.allocationByIdent(r.PathValue("id"))
	if a == nil {
		WriteError(w, http.StatusNotFound, fmt.Sprintf("Allocation %s could not be found.", r.PathValue("id")))
		return
	}
	if n := s.nodes[a.NodeUUID]; n != nil {
		n.AllocationUUID, n.InstanceUUID = "", ""
	}
	delete(s.allocations, a.UUID)
	w.WriteHeader(http.StatusNoContent)
}
