package ironic

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/ironic/ironictest"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// On the fake Ironic, through the real client stack: twenty hosts that
// register at once (one of them left behind by a killed apply) are looked
// up in shared node and port lists, never with a GET each, and the left
// behind node is found rather than duplicated. A refresh of all of them
// then costs one list.
func TestFakeRegistrationsAndRefreshShareLists(t *testing.T) {
	p, w, srv := watchedFake(t)
	left := srv.AddNode(nodesNode("h7", "enroll", ""))
	srv.ResetRequests()

	const n = 20
	hosts := make([]*lifecycle.Host, n)
	var wg sync.WaitGroup
	for i := range hosts {
		h := fakeSpecHost(fmt.Sprintf("h%d", i))
		h.Spec.BootMACAddress = fmt.Sprintf("52:54:00:00:01:%02x", i)
		hosts[i] = h
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, id, err := p.Register(lifecycle.WithPass(context.Background()), h, true, false)
			if err != nil {
				t.Errorf("%s: %v", h.Spec.Name, err)
			}
			h.Status.ID = id
		}()
	}
	wg.Wait()

	if hosts[7].Status.ID != left {
		t.Errorf("h7 registered as %q, want the node left behind, %s", hosts[7].Status.ID, left)
	}
	if got := srv.Count(http.MethodPost, "/v1/nodes"); got != n-1 {
		t.Errorf("%d nodes created, want %d", got, n-1)
	}
	singles, lists, portLists := 0, 0, 0
	for _, r := range srv.Requests() {
		switch {
		case r.Method != http.MethodGet:
		case r.Path == "/v1/nodes":
			lists++
		case r.Path == "/v1/ports":
			portLists++
		case strings.HasPrefix(r.Path, "/v1/nodes/"):
			singles++
		}
	}
	if singles != 0 || lists < 1 || lists > 3 || portLists < 1 || portLists > 3 {
		t.Errorf("%d single-node GETs, %d node lists, %d port lists; want 0, 1-3, 1-3", singles, lists, portLists)
	}

	// Refresh (Terraform's Read) of every host: one list between them.
	w.WroteAll() // the registration lists are too old for the refresh now
	srv.ResetRequests()
	for _, h := range hosts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if obs, err := p.Observe(context.Background(), h); err != nil || !obs.Exists {
				t.Errorf("%s: %v %+v", h.Spec.Name, err, obs)
			}
		}()
	}
	wg.Wait()
	if got, all := srv.Count(http.MethodGet, "/v1/nodes"), len(srv.Requests()); got != 1 || all != 1 {
		t.Errorf("refresh of %d hosts: %d requests (%d lists), want one list", n, all, got)
	}
}

// requests counts the fake's requests by "METHOD /nodes" (lists),
// "METHOD /nodes/{id}" or "METHOD /nodes/{id}/<rest>".
func requests(srv *ironictest.Server, key string) int {
	n := 0
	for _, r := range srv.Requests() {
		parts := strings.Split(strings.Trim(strings.TrimPrefix(r.Path, "/v1"), "/"), "/")
		k := r.Method + " /" + parts[0]
		if len(parts) > 1 && parts[1] != "detail" {
			k += "/{id}"
		}
		if len(parts) > 2 {
			k += "/" + strings.Join(parts[2:], "/")
		}
		if k == key {
			n++
		}
	}
	return n
}

// stateNode is a fake-hardware node named name in state.
func stateNode(name, state string) nodes.Node {
	return nodes.Node{Name: name, Driver: "fake-hardware", ProvisionState: state, AutomatedClean: ptr(true),
		Properties: map[string]any{"capabilities": BootModeCapabilities("")}}
}

// Hosts registering at once look their nodes up in one node list, not one
// GET by name each; a node a killed run created is found (no duplicate).
func TestRegisterLooksUpInOneList(t *testing.T) {
	p, _, srv := watchedFake(t)
	existing := srv.AddNode(stateNode("host-3", "enroll")) // created by an apply that was killed

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
	if got := requests(srv, "POST /nodes"); got != n-1 {
		t.Errorf("%d nodes created, want %d (no duplicate of host-3)", got, n-1)
	}
	if got := requests(srv, "GET /nodes/{id}"); got != 0 {
		t.Errorf("%d GETs of single nodes, want 0", got)
	}
	// The first list may miss a few hosts that arrived late; a handful of
	// lists serve thirty hosts.
	if got := requests(srv, "GET /nodes"); got < 1 || got > 3 {
		t.Errorf("%d node lists for %d hosts, want 1 to 3", got, n)
	}
	if got := requests(srv, "PUT /nodes/{id}/states/provision"); got != n {
		t.Errorf("%d manage requests, want %d", got, n)
	}
}

// A read after this provider wrote the node is never served from a list
// that started before the write; reads without writes share the latest.
func TestNodeReadsAfterWritesAreFresh(t *testing.T) {
	p, w, srv := watchedFake(t)
	srv.Settle = false // the test moves the node itself
	id := srv.AddNode(stateNode("host-0", "enroll"))
	h := &lifecycle.Host{Spec: lifecycle.HostSpec{Name: "host-0"}, Status: lifecycle.HostStatus{ID: id}}

	ctx := context.Background()
	for range 5 {
		n, err := p.current(lifecycle.WithPass(ctx), h)
		if err != nil || n.ProvisionState != "enroll" {
			t.Fatalf("read: %v %+v", err, n)
		}
	}
	if got := requests(srv, "GET /nodes"); got != 1 {
		t.Fatalf("%d lists for 5 reads without a write, want 1", got)
	}

	// Ironic moves the node, but this provider did not write it: the
	// recent list still serves (it is as fresh as the pass needs).
	srv.UpdateNode(id, func(n *nodes.Node) { n.ProvisionState = "verifying" })
	if n, _ := p.current(lifecycle.WithPass(ctx), h); n.ProvisionState != "enroll" || requests(srv, "GET /nodes") != 1 {
		t.Fatalf("read without a write: %q after %d lists", n.ProvisionState, requests(srv, "GET /nodes"))
	}
	// After a write the next read waits for a new list.
	w.Wrote(id)
	if n, _ := p.current(lifecycle.WithPass(ctx), h); n.ProvisionState != "verifying" || requests(srv, "GET /nodes") != 2 {
		t.Fatalf("read after a write: %q after %d lists, want verifying after 2", n.ProvisionState, requests(srv, "GET /nodes"))
	}
	// A write to any node (an allocation) does the same.
	srv.UpdateNode(id, func(n *nodes.Node) { n.ProvisionState = "manageable" })
	w.WroteAll()
	if n, _ := p.current(lifecycle.WithPass(ctx), h); n.ProvisionState != "manageable" || requests(srv, "GET /nodes") != 3 {
		t.Fatalf("read after an allocation: %q after %d lists", n.ProvisionState, requests(srv, "GET /nodes"))
	}
	if got := requests(srv, "GET /nodes/{id}"); got != 0 {
		t.Errorf("%d GETs of single nodes, want 0", got)
	}
}

// Terraform refreshes many hosts at once (10 at a time by default): the
// reads share list requests instead of one GET each.
func TestRefreshReadsCoalesce(t *testing.T) {
	p, _, srv := watchedFake(t)
	const n = 100
	hosts := make([]*lifecycle.Host, n)
	for i := range hosts {
		name := fmt.Sprintf("host-%d", i)
		hosts[i] = &lifecycle.Host{Spec: lifecycle.HostSpec{Name: name}, Status: lifecycle.HostStatus{ID: srv.AddNode(stateNode(name, "available"))}}
	}
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
	if got := requests(srv, "GET /nodes"); got < 1 || got > 3 {
		t.Errorf("%d lists for %d reads, want 1 to 3", got, n)
	}
	if got := requests(srv, "GET /nodes/{id}"); got != 0 {
		t.Errorf("%d GETs of single nodes, want 0", got)
	}
}

// The registration pass after a create does not write the credentials the
// node was just created with again; new credentials are written.
func TestRegisterDoesNotRewriteFreshCredentials(t *testing.T) {
	p, _, srv := watchedFake(t)
	h := &lifecycle.Host{Spec: lifecycle.HostSpec{Name: "host-0",
		BMC: lifecycle.BMCAccess{Driver: "fake-hardware", DriverInfo: map[string]any{}, CredentialsVersion: "v1"}}}
	for pass := range 3 {
		_, id, err := p.Register(lifecycle.WithPass(context.Background()), h, true, false)
		if err != nil {
			t.Fatalf("pass %d: %v", pass, err)
		}
		h.Status.ID = id
	}
	if got := requests(srv, "POST /nodes"); got != 1 {
		t.Fatalf("%d creates", got)
	}
	if got := requests(srv, "PATCH /nodes/{id}"); got != 0 {
		t.Errorf("%d PATCHes after the create, want 0", got)
	}
	// New credentials are written.
	h.Spec.BMC.CredentialsVersion = "v2"
	_, _, _ = p.Register(lifecycle.WithPass(context.Background()), h, true, false)
	if got := requests(srv, "PATCH /nodes/{id}"); got != 1 {
		t.Errorf("%d PATCHes for new credentials, want 1", got)
	}
}
