package ironictest

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"
)

// Media is a node's CD virtual media as the vmedia API shows it.
type Media struct {
	Image    string
	Inserted bool
}

// VMedia returns the node's CD virtual media.
func (s *Server) VMedia(ident string) Media {
	s.Lock.Lock()
	defer s.Lock.Unlock()
	return s.vmedia[s.NodeByIdent(ident).UUID]
}

// vmediaRoutes is Ironic's virtual media API: attach and detach at 1.89,
// read at 1.93 (404 before, as Ironic answers). As on the real Ironic, a
// fake-hardware node answers 204 and the attach fails "in the background"
// (last_error); other drivers hold the image.
func (s *Server) vmediaRoutes() {
	s.mux.HandleFunc("POST /v1/nodes/{id}/vmedia", s.withNode(func(w http.ResponseWriter, r *http.Request, n *nodes.Node) {
		var body struct {
			DeviceType string `json:"device_type"`
			ImageURL   string `json:"image_url"`
		}
		if !s.requireMicroversion(w, r, "1.89") || !decode(w, r, &body) || s.locked(w, n) {
			return
		}
		if !strings.HasPrefix(body.ImageURL, "http://") && !strings.HasPrefix(body.ImageURL, "https://") {
			WriteError(w, http.StatusBadRequest, "Unsupported or missing URL scheme")
			return
		}
		n.LastError = ""
		if n.Driver == "fake-hardware" {
			n.LastError = fmt.Sprintf("Could not attach device %s to node %s: fake-hardware has no virtual media", body.DeviceType, n.UUID)
		} else {
			s.vmedia[n.UUID] = Media{Image: body.ImageURL, Inserted: true}
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	s.mux.HandleFunc("DELETE /v1/nodes/{id}/vmedia", s.withNode(func(w http.ResponseWriter, r *http.Request, n *nodes.Node) {
		if !s.requireMicroversion(w, r, "1.89") || s.locked(w, n) {
			return
		}
		n.LastError = ""
		delete(s.vmedia, n.UUID)
		w.WriteHeader(http.StatusNoContent)
	}))
	s.mux.HandleFunc("GET /v1/nodes/{id}/vmedia", s.withNode(func(w http.ResponseWriter, r *http.Request, n *nodes.Node) {
		if compare(s.microversion(r), "1.93") < 0 {
			WriteError(w, http.StatusNotFound, "The resource could not be found.")
			return
		}
		m := s.vmedia[n.UUID]
		WriteJSON(w, http.StatusOK, []any{map[string]any{"image": m.Image, "inserted": m.Inserted, "media_types": []string{"CD", "DVD"}}})
	}))
}
