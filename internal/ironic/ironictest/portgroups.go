package ironictest

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// This file is the fake's port group API (/v1/portgroups): create, list
// (detail) by node, patch and delete, with Ironic's rules: names unique
// across nodes, physical_network only from API 1.102, no patch while the
// node is inspecting, no delete while ports are members.

// PortGroup is a port group as the fake stores and shows it.
type PortGroup struct {
	UUID            string         `json:"uuid"`
	Name            string         `json:"name,omitempty"`
	Address         string         `json:"address,omitempty"`
	NodeUUID        string         `json:"node_uuid"`
	Mode            string         `json:"mode"`
	Properties      map[string]any `json:"properties"`
	PhysicalNetwork *string        `json:"physical_network,omitempty"`
}

func (s *Server) portGroupRoutes() {
	s.mux.HandleFunc("POST /v1/portgroups", s.createPortGroup)
	s.mux.HandleFunc("GET /v1/portgroups", s.listPortGroups)
	s.mux.HandleFunc("GET /v1/portgroups/detail", s.listPortGroups)
	s.mux.HandleFunc("PATCH /v1/portgroups/{id}", s.patchPortGroup)
	s.mux.HandleFunc("DELETE /v1/portgroups/{id}", s.deletePortGroup)
}

// PortGroups returns copies of all port groups, by name.
func (s *Server) PortGroups() []PortGroup {
	s.Lock.Lock()
	defer s.Lock.Unlock()
	var out []PortGroup
	for _, g := range s.portGroups {
		out = append(out, *g)
	}
	slices.SortFunc(out, func(a, b PortGroup) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// physnetAllowed answers 400 for a physical_network below API 1.102, as
// Ironic's schema refuses an unknown field.
func (s *Server) physnetAllowed(w http.ResponseWriter, r *http.Request, has bool) bool {
	if has && compare(s.microversion(r), "1.102") < 0 {
		WriteError(w, http.StatusBadRequest, "Additional properties are not allowed ('physical_network' was unexpected)")
		return false
	}
	return true
}

// nameTaken answers 409 when another port group has name.
func (s *Server) nameTaken(w http.ResponseWriter, name, uuid string) bool {
	for _, o := range s.portGroups {
		if name != "" && o.Name == name && o.UUID != uuid {
			WriteError(w, http.StatusConflict, fmt.Sprintf("A portgroup with name %s already exists.", name))
			return true
		}
	}
	return false
}

func (s *Server) createPortGroup(w http.ResponseWriter, r *http.Request) {
	var g PortGroup
	if !decode(w, r, &g) || !s.physnetAllowed(w, r, g.PhysicalNetwork != nil) || s.nameTaken(w, g.Name, "") {
		return
	}
	if s.nodes[g.NodeUUID] == nil {
		WriteError(w, http.StatusBadRequest, fmt.Sprintf("Node %s could not be found.", g.NodeUUID))
		return
	}
	if g.Mode == "" {
		g.Mode = "active-backup" // [DEFAULT]default_portgroup_mode
	}
	if g.Properties == nil {
		g.Properties = map[string]any{}
	}
	g.Address = strings.ToLower(g.Address)
	g.UUID = s.newUUID()
	s.portGroups[g.UUID] = &g
	WriteJSON(w, http.StatusCreated, g)
}

func (s *Server) listPortGroups(w http.ResponseWriter, r *http.Request) {
	out := []PortGroup{}
	for _, g := range s.portGroups {
		if v := r.URL.Query().Get("node"); v != "" {
			if n := s.NodeByIdent(v); n == nil || g.NodeUUID != n.UUID {
				continue
			}
		}
		c := *g
		if compare(s.microversion(r), "1.102") < 0 {
			c.PhysicalNetwork = nil
		}
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b PortGroup) int { return strings.Compare(a.Name, b.Name) })
	WriteJSON(w, http.StatusOK, map[string]any{"portgroups": out})
}

func (s *Server) patchPortGroup(w http.ResponseWriter, r *http.Request) {
	g := s.portGroups[r.PathValue("id")]
	if g == nil {
		WriteError(w, http.StatusNotFound, fmt.Sprintf("Portgroup %s could not be found.", r.PathValue("id")))
		return
	}
	if n := s.nodes[g.NodeUUID]; n != nil && n.ProvisionState == "inspecting" {
		WriteError(w, http.StatusConflict, fmt.Sprintf("Cannot update portgroup %q on node %q while it is in state \"inspecting\".", g.UUID, n.UUID))
		return
	}
	var updated PortGroup
	if !jsonPatch(w, r, g, &updated, func(path string) bool {
		return s.physnetAllowed(w, r, strings.HasPrefix(path, "/physical_network"))
	}) || s.nameTaken(w, updated.Name, g.UUID) {
		return
	}
	updated.Address = strings.ToLower(updated.Address)
	*g = updated
	WriteJSON(w, http.StatusOK, g)
}

func (s *Server) deletePortGroup(w http.ResponseWriter, r *http.Request) {
	g := s.portGroups[r.PathValue("id")]
	if g == nil {
		WriteError(w, http.StatusNotFound, fmt.Sprintf("Portgroup %s could not be found.", r.PathValue("id")))
		return
	}
	for _, p := range s.ports {
		if p.PortGroupUUID == g.UUID {
			WriteError(w, http.StatusConflict, fmt.Sprintf("Portgroup %s can not be deleted because there are ports associated with it.", g.UUID))
			return
		}
	}
	delete(s.portGroups, g.UUID)
	w.WriteHeader(http.StatusNoContent)
}
