package sim

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"net/http"
	"slices"
	"strconv"
	"time"
)

// openPaths answer without authentication, as the Redfish specification
// requires of the service root and session login.
func isOpen(r *http.Request) bool {
	switch r.URL.Path {
	case "/redfish", "/redfish/v1", "/redfish/v1/odata", "/redfish/v1/$metadata":
		return r.Method == http.MethodGet || r.Method == http.MethodHead
	case "/redfish/v1/SessionService/Sessions":
		return r.Method == http.MethodPost
	}
	return false
}

// authorize checks the X-Auth-Token or basic credentials of r. sys is the
// system the request is addressed to (nil for shared resources, which any
// system's credentials may read). It answers 401 itself and reports false
// when the request may not go on.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request, scope string, sys *system) bool {
	if isOpen(r) {
		return true
	}
	s.mu.Lock()
	ok := false
	if token := r.Header.Get("X-Auth-Token"); token != "" {
		if sess := s.sessions[token]; sess != nil {
			ok = s.sessionGrants(sess, sys)
		}
	} else if user, pass, has := r.BasicAuth(); has {
		ok = len(s.credentialSystems(user, pass, scope, sys)) > 0
	}
	s.mu.Unlock()
	if !ok {
		w.Header().Set("WWW-Authenticate", `Basic realm="Redfish"`)
		writeError(w, http.StatusUnauthorized, "Base.1.8.NoValidSession", "authentication required or credentials rejected")
	}
	return ok
}

// sessionGrants reports whether sess may act on sys (any session may read
// shared resources); s.mu held.
func (s *Server) sessionGrants(sess *session, sys *system) bool {
	for _, id := range sess.systems {
		other := s.systems[id]
		if other == nil || other.faults.WrongCredentials {
			continue
		}
		if sys == nil || other == sys {
			return true
		}
	}
	return false
}

// credentialSystems lists the systems that accept user/pass: only sys (or
// the listener's own system) when given, else every system; s.mu held.
func (s *Server) credentialSystems(user, pass, scope string, sys *system) []string {
	candidates := s.sortedSystems()
	if sys != nil {
		candidates = []*system{sys}
	} else if scope != "" {
		candidates = []*system{s.systems[scope]}
	}
	var ids []string
	for _, c := range candidates {
		if c.faults.WrongCredentials {
			continue
		}
		if subtle.ConstantTimeCompare([]byte(user), []byte(c.username)) == 1 &&
			subtle.ConstantTimeCompare([]byte(pass), []byte(c.password)) == 1 {
			ids = append(ids, c.id)
		}
	}
	return ids
}

func (s *Server) activeSessionsFor(id string) int {
	n := 0
	for _, sess := range s.sessions {
		if slices.Contains(sess.systems, id) {
			n++
		}
	}
	return n
}

// ActiveSessions is the number of sessions not logged out, on all systems.
func (s *Server) ActiveSessions() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.sessions)
}

func sessionURI(id string) string { return "/redfish/v1/SessionService/Sessions/" + id }

func (s *Server) handleSessionService(w http.ResponseWriter, r *http.Request) {
	writeService(w, r, "SessionService", "v1_1_8", "Session Service", map[string]any{
		"SessionTimeout": 1800,
		"Sessions":       link("/redfish/v1/SessionService/Sessions"),
	})
}

func (s *Server) handleSessionCreate(w http.ResponseWriter, r *http.Request) {
	var body struct {
		UserName string
		Password string
	}
	if !readJSON(w, r, &body) {
		return
	}
	s.mu.Lock()
	scope := scopeOf(r)
	ids := s.credentialSystems(body.UserName, body.Password, scope, nil)
	if len(ids) == 0 {
		s.mu.Unlock()
		writeError(w, http.StatusUnauthorized, "Base.1.8.NoValidSession", "credentials rejected")
		return
	}
	s.nextSess++
	id := strconv.Itoa(s.nextSess)
	sess := &session{id: id, token: newToken(), username: body.UserName, systems: ids, created: time.Now()}
	s.sessions[sess.token] = sess
	for _, sid := range ids {
		s.systems[sid].sessionsCreated++
	}
	s.mu.Unlock()
	w.Header().Set("X-Auth-Token", sess.token)
	w.Header().Set("Location", sessionURI(id))
	writeJSON(w, r, http.StatusCreated, sessionJSON(sess))
}

func (s *Server) handleSessions(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	var members []string
	for _, sess := range s.sessions {
		members = append(members, sessionURI(sess.id))
	}
	s.mu.Unlock()
	slices.Sort(members)
	writeCollection(w, r, "/redfish/v1/SessionService/Sessions", "#SessionCollection.SessionCollection", "Sessions", members)
}

func (s *Server) findSession(id string) *session {
	for _, sess := range s.sessions {
		if sess.id == id {
			return sess
		}
	}
	return nil
}

func (s *Server) handleSession(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	sess := s.findSession(r.PathValue("sid"))
	var body map[string]any
	if sess != nil {
		body = sessionJSON(sess)
	}
	s.mu.Unlock()
	if sess == nil {
		writeError(w, http.StatusNotFound, "Base.1.8.ResourceMissingAtURI", "no such session")
		return
	}
	writeJSON(w, r, http.StatusOK, body)
}

func (s *Server) handleSessionDelete(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	sess := s.findSession(r.PathValue("sid"))
	if sess != nil {
		delete(s.sessions, sess.token)
		for _, sid := range sess.systems {
			if sys := s.systems[sid]; sys != nil {
				sys.sessionsDeleted++
			}
		}
	}
	s.mu.Unlock()
	if sess == nil {
		writeError(w, http.StatusNotFound, "Base.1.8.ResourceMissingAtURI", "no such session")
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func sessionJSON(sess *session) map[string]any {
	return map[string]any{
		"@odata.id":   sessionURI(sess.id),
		"@odata.type": "#Session.v1_3_0.Session",
		"Id":          sess.id,
		"Name":        "User Session",
		"UserName":    sess.username,
		"CreatedTime": sess.created.UTC().Format(time.RFC3339),
	}
}

func newToken() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
