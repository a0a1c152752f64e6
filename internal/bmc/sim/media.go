package sim

import (
	"fmt"
	"net/http"
	"strings"
)

// applyMediaFaults serves what a system's profile and faults make of its
// virtual media: a BMC without any (Profile.NoVirtualMedia: an empty
// VirtualMedia collection, every device URI not found) and inserts that fail (Faults.MediaFailure).
// It reports whether the request was answered.
func (s *Server) applyMediaFaults(w http.ResponseWriter, r *http.Request, sys *system, f Faults) bool {
	p := r.URL.Path
	if !strings.HasPrefix(p, v1+"/Managers/") || !strings.Contains(p, "/VirtualMedia") {
		return false
	}
	s.mu.Lock()
	none := sys.profile.NoVirtualMedia
	s.mu.Unlock()
	if none && r.Method == http.MethodGet && strings.HasSuffix(p, "/VirtualMedia") {
		// A collection with no device in it.
		writeJSON(w, r, http.StatusOK, collectionJSON(p, "#VirtualMediaCollection.VirtualMediaCollection", "Virtual Media Services", nil))
		return true
	}
	if none {
		writeError(w, http.StatusNotFound, "Base.1.8.ResourceMissingAtURI", "no such resource: "+p)
		return true
	}
	inserting := (r.Method == http.MethodPost && strings.HasSuffix(p, "/Actions/VirtualMedia.InsertMedia")) ||
		(r.Method == http.MethodPatch && !strings.Contains(p, "/Actions/"))
	if f.MediaFailure != "" && inserting {
		writeError(w, http.StatusInternalServerError, "Base.1.8.InternalError", f.MediaFailure)
		return true
	}
	return false
}

// EjectMedia ejects the image in a system's virtual media device dev
// ("Cd", "Floppy"), as someone at the BMC's console would: out of band.
func (s *Server) EjectMedia(id, dev string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	sys := s.findSystem(id)
	if sys == nil {
		return fmt.Errorf("no system %q", id)
	}
	m := sys.media[sys.mediaDev(dev)]
	if m == nil {
		return fmt.Errorf("system %q has no virtual media device %q", id, dev)
	}
	m.Image, m.Inserted = "", false
	return nil
}
