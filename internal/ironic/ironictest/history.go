package ironictest

import (
	"net/http"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"
)

// HistoryEvent is one entry of a node's history (API 1.78), as
// GET /v1/nodes/{id}/history?detail=True shows it.
type HistoryEvent struct {
	UUID      string    `json:"uuid"`
	CreatedAt time.Time `json:"created_at"`
	Severity  string    `json:"severity"`
	EventType string    `json:"event_type"`
	Event     string    `json:"event"`
	Conductor string    `json:"conductor"`
	User      string    `json:"user"`
}

// historyRoutes adds GET /v1/nodes/{id}/history.
func (s *Server) historyRoutes() {
	s.mux.HandleFunc("GET /v1/nodes/{id}/history", s.withNode(func(w http.ResponseWriter, r *http.Request, n *nodes.Node) {
		if !s.requireMicroversion(w, r, "1.78") {
			return
		}
		out := []HistoryEvent{}
		for _, e := range s.history[n.UUID] {
			if r.URL.Query().Get("detail") != "True" {
				e.EventType, e.Conductor, e.User = "", "", ""
			}
			out = append(out, e)
		}
		WriteJSON(w, http.StatusOK, map[string]any{"history": out})
	}))
}

// AddHistory records an event in the node's history (severity INFO,
// WARNING or ERROR), as a conductor does; now when at is zero.
func (s *Server) AddHistory(ident, severity, eventType, event string, at time.Time) {
	s.Lock.Lock()
	defer s.Lock.Unlock()
	if at.IsZero() {
		at = s.now()
	}
	s.record(s.NodeByIdent(ident), severity, eventType, event, at)
}

// History returns a copy of the node's history.
func (s *Server) History(ident string) []HistoryEvent {
	s.Lock.Lock()
	defer s.Lock.Unlock()
	return append([]HistoryEvent(nil), s.history[s.NodeByIdent(ident).UUID]...)
}

// record appends to n's history; call with s.Lock held.
func (s *Server) record(n *nodes.Node, severity, eventType, event string, at time.Time) {
	s.history[n.UUID] = append(s.history[n.UUID], HistoryEvent{UUID: s.newUUID(), CreatedAt: at, Severity: severity,
		EventType: eventType, Event: event, Conductor: "fake-conductor", User: "fake"})
}

// historyTypes are the event types Ironic records a verb's failure under.
var historyTypes = map[string]string{
	"manage": "verifying", "inspect": "inspecting", "clean": "cleaning", "provide": "cleaning",
	"active": "deploying", "rebuild": "deploying", "deleted": "deleting", "adopt": "adopting", "service": "servicing",
}
