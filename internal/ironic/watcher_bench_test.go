package ironic

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/noauth"
)

// benchIronic serves the node list and single nodes; every node's
// provision_state flips when flip is called.
type benchIronic struct {
	n        int
	state    atomic.Value // string
	requests atomic.Int64
}

func (b *benchIronic) node(i int) map[string]any {
	return map[string]any{"uuid": nodeID(i), "provision_state": b.state.Load().(string), "power_state": "power off", "maintenance": false}
}

func (b *benchIronic) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b.requests.Add(1)
	w.Header().Set("Content-Type", "application/json")
	if r.URL.Path == "/v1/nodes" {
		all := make([]map[string]any, b.n)
		for i := range all {
			all[i] = b.node(i)
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"nodes": all})
		return
	}
	var i int
	fmt.Sscanf(strings.TrimPrefix(r.URL.Path, "/v1/nodes/00000000-0000-0000-0000-"), "%d", &i)
	_ = json.NewEncoder(w).Encode(b.node(i))
}

// waitRound has every host wait for its node to change, which happens
// after 20 ms, and reports Ironic requests per round. The shared watcher
// asks once per tick for all hosts; per-host polling (what the predecessor
// providers do) asks once per tick per host, at the same tick interval.
func waitRound(b *testing.B, hosts int, shared bool) {
	srv := &benchIronic{n: hosts}
	srv.state.Store("available")
	ts := httptest.NewServer(srv)
	defer ts.Close()
	sc, err := noauth.NewBareMetalNoAuth(noauth.EndpointOpts{IronicEndpoint: ts.URL + "/v1"})
	if err != nil {
		b.Fatal(err)
	}
	const tick = 5 * time.Millisecond
	w := NewWatcher(sc, WatcherOptions{MinInterval: tick, MaxInterval: tick})
	states := []string{"available", "deploying"}
	b.ResetTimer()
	for round := 0; round < b.N; round++ {
		want := states[(round+1)%2]
		flip := time.AfterFunc(20*time.Millisecond, func() { srv.state.Store(want) })
		var wg sync.WaitGroup
		for i := 0; i < hosts; i++ {
			wg.Add(1)
			go func(id string) {
				defer wg.Done()
				ctx := context.Background()
				if shared {
					w.Nudge()
					_ = w.Wait(ctx, id, time.Minute)
					return
				}
				for {
					resp, err := sc.HTTPClient.Get(ts.URL + "/v1/nodes/" + id)
					if err == nil {
						var n map[string]any
						_ = json.NewDecoder(resp.Body).Decode(&n)
						resp.Body.Close()
						if n["provision_state"] == want {
							return
						}
					}
					time.Sleep(tick) // the polling baseline's own tick
				}
			}(nodeID(i))
		}
		wg.Wait()
		flip.Stop()
	}
	b.ReportMetric(float64(srv.requests.Load())/float64(b.N), "requests/round")
}

func BenchmarkWaitRound(b *testing.B) {
	for _, hosts := range []int{10, 100, 500} {
		b.Run(fmt.Sprintf("shared-watcher/hosts=%d", hosts), func(b *testing.B) { waitRound(b, hosts, true) })
		b.Run(fmt.Sprintf("per-host-polling/hosts=%d", hosts), func(b *testing.B) { waitRound(b, hosts, false) })
	}
}
