package ironic

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/noauth"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// oneNode serves one node (GET /v1/nodes/{uuid or name}) and records the
// provision state verbs it is sent.
type oneNode struct {
	mu    sync.Mutex
	node  map[string]any
	verbs []string
}

func (o *oneNode) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	o.mu.Lock()
	defer o.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	switch {
	case r.Method == http.MethodGet && (strings.HasSuffix(r.URL.Path, "/node-1") || strings.HasSuffix(r.URL.Path, "/host-1")):
		_ = json.NewEncoder(w).Encode(o.node)
	case r.Method == http.MethodPut && strings.HasSuffix(r.URL.Path, "/states/provision"):
		var body struct {
			Target string `json:"target"`
		}
		_ = json.NewDecoder(r.Body).Decode(&body)
		o.verbs = append(o.verbs, body.Target)
		w.WriteHeader(http.StatusAccepted)
	case r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/ports"):
		_ = json.NewEncoder(w).Encode(map[string]any{"ports": []any{}})
	default:
		http.NotFound(w, r)
	}
}

func stallEnv(t *testing.T, node map[string]any, now time.Time) (*Provisioner, *oneNode) {
	t.Helper()
	o := &oneNode{node: node}
	srv := httptest.NewServer(o)
	t.Cleanup(srv.Close)
	sc, err := noauth.NewBareMetalNoAuth(noauth.EndpointOpts{IronicEndpoint: srv.URL + "/v1"})
	if err != nil {
		t.Fatal(err)
	}
	sc.Microversion = "1.82"
	return NewProvisioner(sc, nil, WithStallTimeout(3*time.Minute, func() time.Time { return now })), o
}

// A node in a state where a conductor works synchronously, with no
// reservation and no change for longer than the stall limit, is a lost
// task: every action that looks at it says so. Held nodes, "* wait"
// states and recent changes are not stalls.
func TestStallDetection(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	ago := func(d time.Duration) string { return now.Add(-d).Format(time.RFC3339) }
	cases := []struct {
		name        string
		state       string
		reservation any
		updated     string
		stalled     bool
	}{
		{"verifying, no lock, 4 min", psVerifying, nil, ago(4 * time.Minute), true},
		{"inspecting, no lock, 10 min", psInspecting, nil, ago(10 * time.Minute), true},
		{"cleaning, no lock, 4 min", psCleaning, nil, ago(4 * time.Minute), true},
		{"deploying, no lock, 4 min", psDeploying, nil, ago(4 * time.Minute), true},
		{"deleting, no lock, 4 min", psDeleting, nil, ago(4 * time.Minute), true},
		{"adopting, no lock, 4 min", psAdopting, nil, ago(4 * time.Minute), true},
		{"verifying, locked by a conductor", psVerifying, "conductor-1", ago(30 * time.Minute), false},
		{"verifying, 2 min (under the limit)", psVerifying, nil, ago(2 * time.Minute), false},
		{"clean wait (waits on an agent)", psCleanWait, nil, ago(30 * time.Minute), false},
		{"inspect wait", psInspectWait, nil, ago(30 * time.Minute), false},
		{"wait call-back", psDeployWait, nil, ago(30 * time.Minute), false},
		{"manageable (stable)", psManageable, nil, ago(30 * time.Minute), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, o := stallEnv(t, map[string]any{
				"uuid": "node-1", "name": "host-1", "provision_state": c.state, "driver": "fake-hardware",
				"reservation": c.reservation, "provision_updated_at": c.updated,
			}, now)
			h := &lifecycle.Host{Spec: lifecycle.HostSpec{Name: "host-1"}, Status: lifecycle.HostStatus{ID: "node-1"}}
			_, err := p.current(context.Background(), h)
			var se *lifecycle.StallError
			if got := errors.As(err, &se); got != c.stalled {
				t.Fatalf("current: err = %v, stalled %v, want %v", err, got, c.stalled)
			}
			if !c.stalled {
				return
			}
			if se.ProvisionState != c.state || se.Limit != 3*time.Minute || se.Idle < 3*time.Minute {
				t.Errorf("stall = %+v", se)
			}
			// Register (which runs on every pass) and Delete see it too,
			// and send Ironic nothing.
			if _, id, err := p.Register(context.Background(), h, false, false); !errors.As(err, &se) || id != "node-1" {
				t.Errorf("Register: id %q, err %v", id, err)
			}
			if _, err := p.Delete(context.Background(), h); !errors.As(err, &se) {
				t.Errorf("Delete: err %v", err)
			}
			if len(o.verbs) != 0 {
				t.Errorf("verbs sent to a stalled node: %v", o.verbs)
			}
		})
	}

	// Observe (Terraform's Read) reports the node as it is.
	p, _ := stallEnv(t, map[string]any{"uuid": "node-1", "name": "host-1", "provision_state": psVerifying,
		"provision_updated_at": ago(time.Hour)}, now)
	h := &lifecycle.Host{Spec: lifecycle.HostSpec{Name: "host-1"}, Status: lifecycle.HostStatus{ID: "node-1"}}
	if obs, err := p.Observe(context.Background(), h); err != nil || obs.ProvisionState != psVerifying {
		t.Errorf("Observe: %+v, %v", obs, err)
	}
	// A stall limit of 0 turns detection off.
	p, _ = stallEnv(t, map[string]any{"uuid": "node-1", "name": "host-1", "provision_state": psVerifying,
		"provision_updated_at": ago(time.Hour)}, now)
	WithStallTimeout(0, nil)(p)
	if _, err := p.current(context.Background(), h); err != nil {
		t.Errorf("stall_timeout 0: %v", err)
	}
}

// A conductor that restarts moves the nodes it cannot resume to failed
// states; one that takes nodes over from a dead conductor aborts their
// cleaning. Neither is the host's failure: the verb is issued again at once.
func TestInterruptedTasksAreRetried(t *testing.T) {
	restart := "The inspecting state can't be resumed by conductor localhost. Moving to fail state."
	cases := []struct {
		state, lastError, want string
		call                   func(p *Provisioner, h *lifecycle.Host) (lifecycle.Result, error)
	}{
		{psInspectFail, restart, "inspect", func(p *Provisioner, h *lifecycle.Host) (lifecycle.Result, error) {
			r, _, _, err := p.Inspect(context.Background(), h, false, false)
			return r, err
		}},
		{psCleanFail, "Operation was aborted due to conductor take over", "manage", func(p *Provisioner, h *lifecycle.Host) (lifecycle.Result, error) {
			return p.Provide(context.Background(), h)
		}},
		{psAdoptFail, "The adopting state can't be resumed by conductor 127.0.0.2. Moving to fail state.", "adopt", func(p *Provisioner, h *lifecycle.Host) (lifecycle.Result, error) {
			return p.Adopt(context.Background(), h, false)
		}},
	}
	for _, c := range cases {
		t.Run(c.state, func(t *testing.T) {
			p, o := stallEnv(t, map[string]any{"uuid": "node-1", "name": "host-1", "provision_state": c.state,
				"last_error": c.lastError}, time.Now())
			h := &lifecycle.Host{Spec: lifecycle.HostSpec{Name: "host-1"}, Status: lifecycle.HostStatus{ID: "node-1"}}
			res, err := c.call(p, h)
			if err != nil || res.ErrorMessage != "" {
				t.Fatalf("res %+v, err %v: want the verb issued again", res, err)
			}
			if len(o.verbs) != 1 || o.verbs[0] != c.want {
				t.Errorf("verbs = %v, want [%s]", o.verbs, c.want)
			}
		})
	}
	// The same failed state with another error is the host's failure.
	p, o := stallEnv(t, map[string]any{"uuid": "node-1", "name": "host-1", "provision_state": psInspectFail,
		"last_error": "BMC said no"}, time.Now())
	h := &lifecycle.Host{Spec: lifecycle.HostSpec{Name: "host-1"}, Status: lifecycle.HostStatus{ID: "node-1"}}
	if res, _, _, err := p.Inspect(context.Background(), h, false, false); err != nil || !strings.Contains(res.ErrorMessage, "BMC said no") || len(o.verbs) != 0 {
		t.Errorf("res %+v, err %v, verbs %v", res, err, o.verbs)
	}
}
