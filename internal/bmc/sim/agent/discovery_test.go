package agent

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"
)

// A machine Ironic does not know (no port has its MACs, so no node): its
// agent posts the inventory to /v1/continue_inspection without a node, as
// IPA does, with its NICs' MACs for Ironic to enroll it by; Ironic's answer
// (the new node, with auto-discovery) is recorded. Its lookups find no node
// (the node is in enroll, not waiting for an agent), so it boots no further.
func TestUnknownMachinePostsInventoryWithoutNode(t *testing.T) {
	posts := make(chan *http.Request, 10)
	bodies := make(chan map[string]any, 10)
	lookups := make(chan string, 100)
	m := http.NewServeMux()
	m.HandleFunc("GET /v1/ports", func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]any{"ports": []any{}})
	})
	m.HandleFunc("POST /v1/continue_inspection", func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		posts <- r
		bodies <- body
		w.WriteHeader(http.StatusAccepted)
		_, _ = w.Write([]byte(`{"uuid": "99999999-2222-4333-8444-555555555555"}`))
	})
	m.HandleFunc("GET /v1/lookup", func(w http.ResponseWriter, r *http.Request) {
		lookups <- r.URL.Query().Get("addresses")
		http.Error(w, `{"error_message": "not found"}`, http.StatusNotFound)
	})
	srv := httptest.NewServer(m)
	t.Cleanup(srv.Close)
	a, machine := startAgent(t, srv.URL, func(c *Config) { c.InspectIronic = true; c.LookupTimeout = time.Second })

	a.PowerOn()
	r := recv(t, posts, "the inventory post")
	body := recv(t, bodies, "the inventory")
	if r.URL.Query().Get("node_uuid") != "" || r.URL.Path != "/v1/continue_inspection" {
		t.Errorf("posted to %s, want /v1/continue_inspection without a node", r.URL)
	}
	inv, _ := body["inventory"].(map[string]any)
	ifaces, _ := inv["interfaces"].([]any)
	var macs []string
	for _, i := range ifaces {
		m, _ := i.(map[string]any)
		macs = append(macs, m["mac_address"].(string))
	}
	var want []string
	for _, i := range machine.Inventory().Interfaces {
		want = append(want, i.MACAddress)
	}
	if len(macs) == 0 || !slices.Equal(macs, want) {
		t.Errorf("inventory MACs %v, want the machine's %v", macs, want)
	}
	recv(t, lookups, "a lookup after the inspection")
	rec := a.Record()
	if rec.Inspection == nil || rec.Inspection.Status != http.StatusAccepted || !strings.Contains(rec.Inspection.Answer, "99999999-2222") {
		t.Errorf("inspection record %+v", rec.Inspection)
	}
	if rec.NodeUUID != "" || rec.Heartbeats != 0 {
		t.Errorf("an unknown machine found a node %q or heartbeated %d times", rec.NodeUUID, rec.Heartbeats)
	}
}
