package ironic

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/noauth"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// miniIronic is just enough of Ironic's node API for registration: list
// (fields are ignored), get, create, manage, and port lists. It counts
// requests by "METHOD /path-pattern".
type miniIronic struct {
	mu    sync.Mutex
	nodes map[string]map[string]any // by uuid
	seq   int
	count map[string]int
	srv   *httptest.Server
}

func newMiniIronic(t *testing.T) *miniIronic {
	m := &miniIronic{nodes: map[string]map[string]any{}, count: map[string]int{}}
	m.srv = httptest.NewServer(http.HandlerFunc(m.serve))
	t.Cleanup(m.srv.Close)
	return m
}

func (m *miniIronic) add(name, state string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.seq++
	id := fmt.Sprintf("00000000-0000-0000-0000-%012d", m.seq)
	m.nodes[id] = map[string]any{"uuid": id, "name": name, "provision_state": state, "driver": "fake-hardware",
		"automated_clean": true, "properties": map[string]any{"capabilities": BootModeCapabilities("")}, "extra": map[string]any{}, "traits": []string{}}
	return id
}

func (m *miniIronic) requests(key string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.count[key]
}

func (m *miniIronic) find(ident string) map[string]any {
	if n, ok := m.nodes[ident]; ok {
		return n
	}
	for _, n := range m.nodes {
		if n["name"] == ident {
			return n
		}
	}
	return nil
}

func (m *miniIronic) serve(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	parts := strings.Split(strings.Trim(strings.TrimPrefix(r.URL.Path, "/v1"), "/"), "/")
	key := r.Method + " /" + parts[0]
	if len(parts) > 1 {
		key += "/{id}"
	}
	if len(parts) > 2 {
		key += "/" + strings.Join(parts[2:], "/")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.count[key]++
	switch key {
	case "GET /nodes":
		list := []map[string]any{}
		for _, n := range m.nodes {
			list = append(list, n)
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"nodes": list})
	case "GET /ports":
		_ = json.NewEncoder(w).Encode(map[string]any{"ports": []any{}})
	case "GET /nodes/{id}":
		n := m.find(parts[1])
		if n == nil {
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"error_message": "not found"}`))
			return
		}
		_ = json.NewEncoder(w).Encode(n)
	case "POST /nodes":
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		m.seq++
		id := fmt.Sprintf("00000000-0000-0000-0000-%012d", m.seq)
		n := map[string]any{"uuid": id, "provision_state": "enroll", "traits": []string{}}
		for k, v := range body {
			n[k] = v
		}
		m.nodes[id] = n
		w.WriteHeader(http.StatusCreated)
		_ = json.NewEncoder(w).Encode(n)
	case "PUT /nodes/{id}/states/provision":
		n := m.find(parts[1])
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		if n == nil || body["target"] != "manage" {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		n["provision_state"] = "manageable"
		w.WriteHeader(http.StatusAccepted)
	default:
		w.WriteHeader(http.StatusNotImplemented)
	}
}

func (m *miniIronic) provisioner(t *testing.T) (*Provisioner, *Watcher) {
	sc, err := noauth.NewBareMetalNoAuth(noauth.EndpointOpts{IronicEndpoint: m.srv.URL + "/v1"})
	if err != nil {
		t.Fatal(err)
	}
	sc.Microversion = "1.82"
	w := NewWatcher(sc, WatcherOptions{MinInterval: 5 * time.Millisecond, MaxInterval: 20 * time.Millisecond})
	return NewProvisioner(sc, w, WithJitter(0, nil)), w
}

// Hosts registering at once look their nodes up in one node list, not one
// GET by name each; a node a killed run created is found (no duplicate).
func TestRegisterLooksUpInOneList(t *testing.T) {
	m := newMiniIronic(t)
	existing := m.add("host-3", "enroll") // created by an apply that was killed
	p, _ := m.provisioner(t)

	const n = 30
	ids := make([]string, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			h := &lifecycle.Host{Spec: lifecycle.HostSpec{Name: fmt.Sprintf("host-%d", i),
				BMC: lifecycle.BMCAccess{Driver: "fake-hardware", DriverInfo: map[string]any{}}}}
			ctx := lifecycle.WithPass(context.Background())
			res, id, err := p.Register(ctx, h, false, false)
			if err != nil || res.ErrorMessage != "" {
				t.Errorf("host-%d: %v %q", i, err, res.ErrorMessage)
			}
			ids[i] = id
		}()
	}
	close(start)
	wg.Wait()

	if ids[3] != existing {
		t.Errorf("host-3 registered as %s, want the existing node %s", ids[3], existing)
	}
	if got := m.requests("POST /nodes"); got != n-1 {
		t.Errorf("%d nodes created, want %d (no duplicate of host-3)", got, n-1)
	}
	if got := m.requests("GET /nodes/{id}"); got != 0 {
		t.Errorf("%d GETs of single nodes, want 0", got)
	}
	// The first list may miss a few hosts that arrived late; a handful of
	// lists serve thirty hosts.
	if got := m.requests("GET /nodes"); got < 1 || got > 3 {
		t.Errorf("%d node lists for %d hosts, want 1 to 3", got, n)
	}
	if got := m.requests("PUT /nodes/{id}/states/provision"); got != n {
		t.Errorf("%d manage requests, want %d", got, n)
	}
}

// A read after this provider wrote the node is never served from a list
// that started before the write; reads without writes share the latest.
func TestNodeReadsAfterWritesAreFresh(t *testing.T) {
	m := newMiniIronic(t)
	id := m.add("host-0", "enroll")
	p, w := m.provisioner(t)
	h := &lifecycle.Host{Spec: lifecycle.HostSpec{Name: "host-0"}, Status: lifecycle.HostStatus{ID: id}}

	ctx := context.Background()
	for range 5 {
		n, err := p.current(lifecycle.WithPass(ctx), h)
		if err != nil || n.ProvisionState != "enroll" {
			t.Fatalf("read: %v %+v", err, n)
		}
	}
	if got := m.requests("GET /nodes"); got != 1 {
		t.Fatalf("%d lists for 5 reads without a write, want 1", got)
	}

	// Ironic moves the node, but this provider did not write it: the
	// recent list still serves (it is as fresh as the pass needs).
	m.mu.Lock()
	m.nodes[id]["provision_state"] = "verifying"
	m.mu.Unlock()
	if n, _ := p.current(lifecycle.WithPass(ctx), h); n.ProvisionState != "enroll" || m.requests("GET /nodes") != 1 {
		t.Fatalf("read without a write: %q after %d lists", n.ProvisionState, m.requests("GET /nodes"))
	}
	// After a write the next read waits for a new list.
	w.Wrote(id)
	if n, _ := p.current(lifecycle.WithPass(ctx), h); n.ProvisionState != "verifying" || m.requests("GET /nodes") != 2 {
		t.Fatalf("read after a write: %q after %d lists, want verifying after 2", n.ProvisionState, m.requests("GET /nodes"))
	}
	// A write to any node (an allocation) does the same.
	m.mu.Lock()
	m.nodes[id]["provision_state"] = "manageable"
	m.mu.Unlock()
	w.WroteAll()
	if n, _ := p.current(lifecycle.WithPass(ctx), h); n.ProvisionState != "manageable" || m.requests("GET /nodes") != 3 {
		t.Fatalf("read after an allocation: %q after %d lists", n.ProvisionState, m.requests("GET /nodes"))
	}
	if got := m.requests("GET /nodes/{id}"); got != 0 {
		t.Errorf("%d GETs of single nodes, want 0", got)
	}
}

// Terraform refreshes many hosts at once (10 at a time by default): the
// reads share list requests instead of one GET each.
func TestRefreshReadsCoalesce(t *testing.T) {
	m := newMiniIronic(t)
	const n = 100
	hosts := make([]*lifecycle.Host, n)
	for i := range hosts {
		name := fmt.Sprintf("host-%d", i)
		hosts[i] = &lifecycle.Host{Spec: lifecycle.HostSpec{Name: name}, Status: lifecycle.HostStatus{ID: m.add(name, "available")}}
	}
	p, _ := m.provisioner(t)
	sem := make(chan struct{}, 10)
	var wg sync.WaitGroup
	for _, h := range hosts {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			obs, err := p.Observe(context.Background(), h)
			if err != nil || !obs.Exists || obs.ID != h.Status.ID || obs.ProvisionState != "available" {
				t.Errorf("%s: %v %+v", h.Spec.Name, err, obs)
			}
		}()
	}
	wg.Wait()
	if got := m.requests("GET /nodes"); got < 1 || got > 3 {
		t.Errorf("%d lists for %d reads, want 1 to 3", got, n)
	}
	if got := m.requests("GET /nodes/{id}"); got != 0 {
		t.Errorf("%d GETs of single nodes, want 0", got)
	}
}

// The registration pass after a create does not write the credentials the
// node was just created with again; new credentials are written.
func TestRegisterDoesNotRewriteFreshCredentials(t *testing.T) {
	m := newMiniIronic(t)
	p, _ := m.provisioner(t)
	h := &lifecycle.Host{Spec: lifecycle.HostSpec{Name: "host-0",
		BMC: lifecycle.BMCAccess{Driver: "fake-hardware", DriverInfo: map[string]any{}, CredentialsVersion: "v1"}}}
	for pass := range 3 {
		_, id, err := p.Register(lifecycle.WithPass(context.Background()), h, true, false)
		if err != nil {
			t.Fatalf("pass %d: %v", pass, err)
		}
		h.Status.ID = id
	}
	if got := m.requests("POST /nodes"); got != 1 {
		t.Fatalf("%d creates", got)
	}
	if got := m.requests("PATCH /nodes/{id}"); got != 0 {
		t.Errorf("%d PATCHes after the create, want 0", got)
	}
	// New credentials are written (the fake answers 501 to PATCH, which
	// is enough to see the attempt).
	h.Spec.BMC.CredentialsVersion = "v2"
	_, _, _ = p.Register(lifecycle.WithPass(context.Background()), h, true, false)
	if got := m.requests("PATCH /nodes/{id}"); got != 1 {
		t.Errorf("%d PATCHes for new credentials, want 1", got)
	}
}
