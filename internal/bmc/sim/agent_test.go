package sim

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmc/sim/agent"
)

// A system with an agent starts a fresh one at every power-on (Redfish
// reset), which looks its node up with the system's MACs; the admin API
// shows the agent's record and sets its faults.
func TestAgentStartsOnPowerOn(t *testing.T) {
	lookups := make(chan string, 10)
	ironic := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/lookup" {
			lookups <- r.URL.Query().Get("addresses")
		}
		http.NotFound(w, r)
	}))
	defer ironic.Close()
	s := startServer(t, Options{Agent: &agent.Config{IronicURL: ironic.URL, LookupInterval: time.Hour}}, 1)
	c := newCaller(t, s.URL())
	reset(c, "sys-0", "On", 204)
	select {
	case got := <-lookups:
		p := DefaultProfile(0)
		if got != p.NICs[0].MAC+","+p.NICs[1].MAC+","+p.NICs[2].MAC {
			t.Errorf("lookup with %q", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no lookup after power-on")
	}
	reset(c, "sys-0", "ForceRestart", 204)
	select {
	case <-lookups:
	case <-time.After(10 * time.Second):
		t.Fatal("no lookup after a restart")
	}

	c.noAuth = true
	var rec agent.Record
	c.expect(200, "GET", "/sim/systems/sys-0/agent", nil, &rec)
	if rec.Boots != 2 || !rec.Running || rec.CallbackURL == "" {
		t.Errorf("agent record %+v", rec)
	}
	var st SystemState
	c.expect(200, "GET", "/sim/systems/sys-0", nil, &st)
	if st.AgentURL != rec.CallbackURL {
		t.Errorf("state agent_url %q, record %q", st.AgentURL, rec.CallbackURL)
	}
	c.expect(200, "POST", "/sim/systems/sys-0/agent/faults", map[string]any{"fail_command": "write_image", "download_delay_ms": 1500}, nil)
	if f := s.Agent("sys-0").Faults(); f.FailCommand != "write_image" || f.DownloadDelay != 1500*time.Millisecond {
		t.Errorf("faults %+v", f)
	}
	c.expect(204, "DELETE", "/sim/systems/sys-0/agent/faults", nil, nil)
	c.noAuth = false
	reset(c, "sys-0", "ForceOff", 204)
	if rec, _ := s.AgentRecord("sys-0"); rec.Running || !strings.Contains(rec.Events[len(rec.Events)-1], "stopped") {
		t.Errorf("after power off: %+v", rec)
	}
}
