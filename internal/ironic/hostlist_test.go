package ironic

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/noauth"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// pagedNodes serves GET /v1/nodes/detail in pages of ?limit= nodes, with
// Ironic's next links (?marker=), and records the query of each request.
type pagedNodes struct {
	nodes []map[string]any
	mu    sync.Mutex
	reqs  []string
}

func (p *pagedNodes) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/nodes/detail" {
		http.Error(w, "not here", http.StatusNotFound)
		return
	}
	p.mu.Lock()
	p.reqs = append(p.reqs, r.URL.RawQuery)
	p.mu.Unlock()
	q := r.URL.Query()
	limit, _ := strconv.Atoi(q.Get("limit"))
	if limit == 0 {
		limit = 1000
	}
	start := 0
	if m := q.Get("marker"); m != "" {
		for i, n := range p.nodes {
			if n["uuid"] == m {
				start = i + 1
			}
		}
	}
	end := min(start+limit, len(p.nodes))
	body := map[string]any{"nodes": p.nodes[start:end]}
	if end < len(p.nodes) {
		q.Set("marker", p.nodes[end-1]["uuid"].(string))
		body["next"] = "http://" + r.Host + r.URL.Path + "?" + q.Encode()
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(body)
}

func pagedCatalog(t *testing.T, pageLimit int) (*Catalog, *pagedNodes) {
	t.Helper()
	p := &pagedNodes{}
	for i := range 5 {
		extra := map[string]any{"labels": map[string]any{"rack": "r1"}}
		if i == 4 {
			extra["labels"] = map[string]any{"rack": "r2"}
		}
		if i == 1 {
			extra[lifecycle.ManagedByKey] = lifecycle.ManagedByValue
		}
		p.nodes = append(p.nodes, map[string]any{
			"uuid": fmt.Sprintf("00000000-0000-0000-0000-00000000000%d", i), "name": fmt.Sprintf("node-%d", i),
			"provision_state": "enroll", "driver": "redfish", "resource_class": "baremetal", "shard": "s1", "extra": extra,
			"driver_info": map[string]any{"redfish_address": "https://10.0.0.1", "redfish_password": "******", "ipmi_port": 623},
		})
	}
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	sc, err := noauth.NewBareMetalNoAuth(noauth.EndpointOpts{IronicEndpoint: srv.URL + "/v1"})
	if err != nil {
		t.Fatal(err)
	}
	sc.Microversion = "1.82"
	return NewCatalog(sc, WithListPageLimit(pageLimit)), p
}

// One list request per page, never one per node; labels, names and the
// managed mark filtered on the list; Ironic's filters in the query string.
func TestListHostsPages(t *testing.T) {
	c, p := pagedCatalog(t, 2)
	var got []string
	err := c.ListHosts(context.Background(), lifecycle.HostQuery{
		Labels: map[string]string{"rack": "r1"}, Unmanaged: true, ResourceClass: "baremetal", Shard: "s1",
	}, func(h lifecycle.ListedHost) bool {
		got = append(got, h.Name)
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	// node-1 is managed, node-4 is in rack r2.
	if fmt.Sprint(got) != "[node-0 node-2 node-3]" {
		t.Errorf("listed %v", got)
	}
	if len(p.reqs) != 3 {
		t.Errorf("%d requests for 5 nodes in pages of 2, want 3: %v", len(p.reqs), p.reqs)
	}
	if want := "limit=2&resource_class=baremetal&shard=s1"; p.reqs[0] != want {
		t.Errorf("first request ?%s, want ?%s", p.reqs[0], want)
	}
}

// A list that stops (Terraform's limit) asks for no more pages.
func TestListHostsStops(t *testing.T) {
	c, p := pagedCatalog(t, 2)
	n := 0
	err := c.ListHosts(context.Background(), lifecycle.HostQuery{}, func(lifecycle.ListedHost) bool {
		n++
		return n < 2
	})
	if err != nil || n != 2 {
		t.Fatalf("%d hosts, %v", n, err)
	}
	if len(p.reqs) != 1 {
		t.Errorf("%d requests after a stop on the first page, want 1", len(p.reqs))
	}
}

// What an import can read of driver_info: not the masked secrets.
func TestListHostsDriverInfo(t *testing.T) {
	c, _ := pagedCatalog(t, 0)
	var h lifecycle.ListedHost
	_ = c.ListHosts(context.Background(), lifecycle.HostQuery{NamePrefix: "node-0"}, func(l lifecycle.ListedHost) bool {
		h = l
		return false
	})
	if h.Driver != "redfish" || fmt.Sprint(h.DriverInfo) != "map[ipmi_port:623 redfish_address:https://10.0.0.1]" {
		t.Errorf("driver %q, driver_info %v", h.Driver, h.DriverInfo)
	}
}

// Nodes the provider creates carry the managed mark.
func TestCreateMarksManaged(t *testing.T) {
	body := nodeBody{"extra": map[string]any{"labels": map[string]string{"a": "b"}}}
	markManaged(body)
	extra := body["extra"].(map[string]any)
	if extra[lifecycle.ManagedByKey] != lifecycle.ManagedByValue || extra["labels"] == nil {
		t.Errorf("extra %v", extra)
	}
	empty := nodeBody{}
	markManaged(empty)
	if empty["extra"].(map[string]any)[lifecycle.ManagedByKey] != lifecycle.ManagedByValue {
		t.Errorf("extra %v", empty["extra"])
	}
}
