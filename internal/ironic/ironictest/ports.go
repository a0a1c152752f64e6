package ironictest

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"
	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/ports"
)

// This file is the fake's port API: create (one port per MAC), list by
// address or node, and patch, refusing a change of the connectivity fields
// where Ironic's conductor does.

func (s *Server) createPort(w http.ResponseWriter, r *http.Request) {
	var p ports.Port
	if !decode(w, r, &p) {
		return
	}
	p.Address = strings.ToLower(p.Address)
	lowerSwitchID(p.LocalLinkConnection)
	if s.nodes[p.NodeUUID] == nil {
		WriteError(w, http.StatusBadRequest, fmt.Sprintf("Node %s could not be found.", p.NodeUUID))
		return
	}
	for _, o := range s.ports {
		if o.Address == p.Address {
			WriteError(w, http.StatusConflict, fmt.Sprintf("A port with MAC address %s already exists.", p.Address))
			return
		}
	}
	p.UUID = s.newUUID()
	s.ports[p.UUID] = &p
	WriteJSON(w, http.StatusCreated, p)
}

// portStatesOpen are the provision states in which Ironic lets a port's
// connectivity fields change on a node that is not in maintenance
// (conductor update_port).
var portStatesOpen = map[string]bool{"enroll": true, "inspecting": true, "inspect wait": true, "manageable": true}

// patchPort applies a JSON patch to a port, refusing a change of
// pxe_enabled, local_link_connection or physical_network as Ironic does
// (409 InvalidState) unless the node is in maintenance or in an open state.
// switch_id is stored in lower case, as Ironic normalises it.
func (s *Server) patchPort(w http.ResponseWriter, r *http.Request) {
	p := s.ports[r.PathValue("id")]
	if p == nil {
		WriteError(w, http.StatusNotFound, fmt.Sprintf("Port %s could not be found.", r.PathValue("id")))
		return
	}
	n := s.nodes[p.NodeUUID]
	var updated ports.Port
	if !jsonPatch(w, r, p, &updated, func(path string) bool { return portFieldOpen(w, n, path) }) {
		return
	}
	lowerSwitchID(updated.LocalLinkConnection)
	*p = updated
	WriteJSON(w, http.StatusOK, p)
}

// portFieldOpen tells whether the port field at path may change on a port
// of node n (nil: none); when not, it has answered w with Ironic's 409.
func portFieldOpen(w http.ResponseWriter, n *nodes.Node, path string) bool {
	switch strings.Split(strings.TrimPrefix(path, "/"), "/")[0] {
	case "pxe_enabled", "local_link_connection", "physical_network", "portgroup_uuid":
		if n != nil && !n.Maintenance && !portStatesOpen[n.ProvisionState] {
			WriteError(w, http.StatusConflict, fmt.Sprintf("The following fields can only be updated when the node %s "+
				"is in a enroll, inspecting, inspect wait, manageable state or in maintenance mode: pxe_enabled, "+
				"local_link_connection, physical_network. The current state is %s.", n.UUID, n.ProvisionState))
			return false
		}
	}
	return true
}

// lowerSwitchID stores a local_link_connection's switch_id in lower case,
// as Ironic normalises it.
func lowerSwitchID(llc map[string]any) {
	if id, ok := llc["switch_id"].(string); ok {
		llc["switch_id"] = strings.ToLower(id)
	}
}

func (s *Server) listPorts(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	out := []ports.Port{}
	for _, p := range s.ports {
		if v := q.Get("address"); v != "" && p.Address != strings.ToLower(v) {
			continue
		}
		if v := q.Get("node_uuid"); v != "" && p.NodeUUID != v {
			continue
		}
		if v := q.Get("node"); v != "" {
			if n := s.NodeByIdent(v); n == nil || p.NodeUUID != n.UUID {
				continue
			}
		}
		out = append(out, *p)
	}
	slices.SortFunc(out, func(a, b ports.Port) int { return strings.Compare(a.Address, b.Address) })
	WriteJSON(w, http.StatusOK, map[string]any{"ports": out})
}
