package clients

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
)

// This file holds the fake Ironic the package's tests connect to, and the
// tests of Conn's own counters.

// ctConfig is a Config for test servers: tiny backoffs, so retries and
// waits take milliseconds.
func ctConfig(endpoint string) Config {
	return Config{
		Endpoint:   endpoint,
		MinBackoff: time.Millisecond,
		MaxBackoff: 4 * time.Millisecond,
	}
}

// ctWriteRoot writes Ironic's GET /v1/ document for a server whose
// highest microversion is max.
func ctWriteRoot(w http.ResponseWriter, max string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set(headerMinVersion, "1.1")
	w.Header().Set(headerMaxVersion, max)
	fmt.Fprintf(w, `{"id": "v1", "media_types": {"base": "application/json"}, "version": {"id": "v1", "links": [], "status": "CURRENT", "min_version": "1.1", "version": %q}}`, max)
}

// ctIronic is a fake Ironic: root document, conductors (alive after
// aliveAfter polls), drivers, and a nodes list that records the
// microversion header.
type ctIronic struct {
	max            string
	aliveAfter     int32
	conductorPolls atomic.Int32
	driverPolls    atomic.Int32
	lastNodesMV    atomic.Value
}

func (f *ctIronic) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/":
		// Unversioned discovery document (gophercloud reads it when it
		// takes Ironic from a keystone catalog).
		_, _ = fmt.Fprintf(w, `{"name": "OpenStack Ironic API", "default_version": {"id": "v1", "status": "CURRENT", "min_version": "1.1", "version": %[1]q}, "versions": [{"id": "v1", "status": "CURRENT", "min_version": "1.1", "version": %[1]q}]}`, f.max)
	case "/v1/", "/v1":
		ctWriteRoot(w, f.max)
	case "/v1/conductors":
		n := f.conductorPolls.Add(1)
		if r.Header.Get("X-OpenStack-Ironic-API-Version") == "" {
			http.Error(w, "conductors need a microversion", http.StatusNotFound)
			return
		}
		_, _ = fmt.Fprintf(w, `{"conductors": [{"hostname": "c1", "conductor_group": "", "alive": %v}]}`, n > f.aliveAfter)
	case "/v1/drivers":
		n := f.driverPolls.Add(1)
		if n > f.aliveAfter {
			_, _ = w.Write([]byte(`{"drivers": [{"name": "fake-hardware"}]}`))
			return
		}
		_, _ = w.Write([]byte(`{"drivers": []}`))
	case "/v1/nodes":
		f.lastNodesMV.Store(r.Header.Get("X-OpenStack-Ironic-API-Version"))
		_, _ = w.Write([]byte(`{"nodes": []}`))
	default:
		http.NotFound(w, r)
	}
}

// TestConnWritesInFlight: a write counts from when it is sent until it is
// answered, a read never, and the count comes back to zero.
func TestConnWritesInFlight(t *testing.T) {
	f := &ctIronic{max: "1.82"}
	release := make(chan struct{})
	arrived := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPut {
			arrived <- struct{}{}
			<-release
			w.WriteHeader(http.StatusAccepted)
			return
		}
		f.ServeHTTP(w, r)
	}))
	defer srv.Close()
	conn, err := Connect(context.Background(), ctConfig(srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	if n := conn.WritesInFlight(); n != 0 {
		t.Fatalf("after connecting (reads only): %d writes in flight, want 0", n)
	}
	done := make(chan error, 1)
	go func() {
		_, err := conn.Client.Put(context.Background(), conn.Client.ServiceURL("nodes", "n1", "states", "power"),
			map[string]string{"target": "power off"}, nil, &gophercloud.RequestOpts{OkCodes: []int{http.StatusAccepted}})
		done <- err
	}()
	<-arrived
	if n := conn.WritesInFlight(); n != 1 {
		t.Errorf("while Ironic holds the PUT: %d writes in flight, want 1", n)
	}
	if _, err := conn.Client.Get(context.Background(), conn.Client.ServiceURL("nodes"), nil, nil); err != nil {
		t.Fatal(err)
	}
	if n := conn.WritesInFlight(); n != 1 {
		t.Errorf("after a read beside it: %d writes in flight, want 1", n)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := conn.WritesInFlight(); n != 0 {
		t.Fatalf("after the PUT was answered: %d writes in flight, want 0", n)
	}
	if n := (&Conn{}).WritesInFlight(); n != -1 {
		t.Fatalf("a Conn without the counting transport: %d, want -1", n)
	}
}
