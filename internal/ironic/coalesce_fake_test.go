package ironic

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/ironic/clients"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/ironic/ironictest"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// On the fake Ironic, through the real client stack: twenty hosts that
// register at once (one of them left behind by a killed apply) are looked
// up in shared node and port lists, never with a GET each, and the left
// behind node is found rather than duplicated. A refresh of all of them
// then costs one list.
func TestFakeRegistrationsAndRefreshShareLists(t *testing.T) {
	srv := ironictest.New(t)
	conn, err := clients.Connect(context.Background(), clients.Config{Endpoint: srv.URL, MaxRetries: 3, MinBackoff: time.Millisecond, MaxBackoff: 2 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	w := NewWatcher(conn.Client, WatcherOptions{MinInterval: 5 * time.Millisecond, MaxInterval: 20 * time.Millisecond})
	p := NewProvisioner(conn.Client, w, WithJitter(0, nil))
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
