// Command floor is the benchmark's lower bound: a minimal Ironic client,
// outside the provider, that drives N fake-hardware nodes through the same
// states as a baremetal_host (create, manage, inspect, provide with
// automated cleaning, power on) and back (power off, delete), as fast as
// the API lets it: the list-polling limit. It polls every node with one
// paged list every 0.2 s, keeps at most 32 requests in flight, and lets at
// most -gate nodes (20, the provider's default max_concurrent, as BMO's)
// inspect or clean at once.
//
//	go run ./bench/floor -endpoint http://127.0.0.1:6385 -hosts 100 -prefix floor apply
//	go run ./bench/floor -endpoint http://127.0.0.1:6385 -hosts 100 -prefix floor destroy
//
// It prints the wall time and the number of requests it sent.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

const (
	microversion = "1.82"
	poll         = 200 * time.Millisecond
	inFlight     = 32
)

var (
	endpoint = flag.String("endpoint", "http://127.0.0.1:6385", "Ironic API root")
	hosts    = flag.Int("hosts", 20, "number of nodes")
	prefix   = flag.String("prefix", "floor", "node name prefix: PREFIX-0 .. PREFIX-(N-1)")
	timeout  = flag.Duration("timeout", time.Hour, "give up after this long")
	gate     = flag.Int("gate", 20, "most nodes inspecting or cleaning at once (0: no limit)")
)

type client struct {
	hc       *http.Client
	root     string
	requests atomic.Int64
	sem      chan struct{}
}

// do sends one request (at most inFlight at once) and decodes a JSON answer
// into out when it is not nil. It returns the HTTP status.
func (c *client) do(ctx context.Context, method, path string, body, out any) (int, error) {
	c.sem <- struct{}{}
	defer func() { <-c.sem }()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.root+path, rd)
	if err != nil {
		return 0, err
	}
	req.Header.Set("X-OpenStack-Ironic-API-Version", microversion)
	req.Header.Set("Content-Type", "application/json")
	c.requests.Add(1)
	resp, err := c.hc.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, err
	}
	if resp.StatusCode >= 300 {
		return resp.StatusCode, fmt.Errorf("%s %s: HTTP %d: %s", method, path, resp.StatusCode, strings.TrimSpace(string(data)))
	}
	if out != nil {
		return resp.StatusCode, json.Unmarshal(data, out)
	}
	return resp.StatusCode, nil
}

type node struct {
	UUID                 string  `json:"uuid"`
	Name                 string  `json:"name"`
	ProvisionState       string  `json:"provision_state"`
	TargetProvisionState *string `json:"target_provision_state"`
	PowerState           *string `json:"power_state"`
	TargetPowerState     *string `json:"target_power_state"`
	LastError            *string `json:"last_error"`
	InspectionFinishedAt *string `json:"inspection_finished_at"`
}

func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// list reads every node with the fields the floor needs (one request per
// 1000 nodes). A page's marker is the last node of the page before; when a
// destroy deletes that node between the two requests Ironic answers 404,
// and the list starts again.
func (c *client) list(ctx context.Context) (map[string]node, error) {
	const first = "/v1/nodes?fields=uuid,name,provision_state,target_provision_state,power_state,target_power_state,last_error,inspection_finished_at&limit=1000"
	out := map[string]node{}
	restarts := 0
	for path := first; path != ""; {
		var page struct {
			Nodes []node `json:"nodes"`
			Next  string `json:"next"`
		}
		if code, err := c.do(ctx, "GET", path, nil, &page); err != nil {
			if code != http.StatusNotFound || path == first || restarts == 10 {
				return nil, err
			}
			restarts++
			out, path = map[string]node{}, first
			continue
		}
		for _, n := range page.Nodes {
			out[n.Name] = n
		}
		path = ""
		if page.Next != "" {
			path = strings.TrimPrefix(page.Next, strings.TrimSuffix(c.root, "/"))
			if i := strings.Index(path, "/v1/"); i >= 0 {
				path = path[i:]
			}
		}
	}
	return out, nil
}

// step is what a node needs next, given its state; "" means nothing now.
type step struct {
	method, path string
	body         any
}

// driver follows one node through its steps. busy is set while a request
// for it is in flight; issued remembers the state an action was sent in, so
// that it is not sent again before the node moved.
type driver struct {
	name   string
	busy   atomic.Bool
	mu     sync.Mutex
	issued string
	done   bool
}

// busyStates are the provision states that take a slot of the gate.
var busyStates = map[string]bool{"inspecting": true, "inspect wait": true, "cleaning": true, "clean wait": true}

// next is d's next step. slots is how many nodes more may start
// inspecting or cleaning this round (the gate); next takes one when it
// sends inspect or provide.
func (d *driver) next(n node, present bool, destroy bool, slots *int) (*step, bool, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if destroy {
		if !present {
			return nil, true, nil
		}
		switch {
		case str(n.PowerState) == "power off" && str(n.TargetPowerState) == "":
			return &step{"DELETE", "/v1/nodes/" + n.UUID, nil}, false, nil
		case str(n.TargetPowerState) != "" || d.issued == "off":
			return nil, false, nil
		}
		d.issued = "off"
		return &step{"PUT", "/v1/nodes/" + n.UUID + "/states/power", map[string]any{"target": "power off"}}, false, nil
	}
	if !present {
		return nil, false, fmt.Errorf("node %s disappeared", d.name)
	}
	if str(n.TargetProvisionState) != "" {
		return nil, false, nil
	}
	key := n.ProvisionState
	switch n.ProvisionState {
	case "enroll":
		if d.issued == key {
			return nil, false, nil
		}
		d.issued = key
		return &step{"PUT", "/v1/nodes/" + n.UUID + "/states/provision", map[string]any{"target": "manage"}}, false, nil
	case "manageable":
		if n.InspectionFinishedAt == nil {
			if d.issued == "inspect" || *slots <= 0 {
				return nil, false, nil
			}
			*slots--
			d.issued = "inspect"
			return &step{"PUT", "/v1/nodes/" + n.UUID + "/states/provision", map[string]any{"target": "inspect"}}, false, nil
		}
		if d.issued == "provide" || *slots <= 0 {
			return nil, false, nil
		}
		*slots--
		d.issued = "provide"
		return &step{"PUT", "/v1/nodes/" + n.UUID + "/states/provision", map[string]any{"target": "provide"}}, false, nil
	case "available":
		if str(n.PowerState) == "power on" {
			return nil, true, nil
		}
		if str(n.TargetPowerState) != "" || d.issued == "on" {
			return nil, false, nil
		}
		d.issued = "on"
		return &step{"PUT", "/v1/nodes/" + n.UUID + "/states/power", map[string]any{"target": "power on"}}, false, nil
	case "verifying", "inspecting", "inspect wait", "cleaning", "clean wait":
		return nil, false, nil
	}
	return nil, false, fmt.Errorf("node %s in provision state %q: %s", d.name, n.ProvisionState, str(n.LastError))
}

// holds reports whether d holds a gate slot, given its node n in this
// round's list: from the inspect or provide request until the list shows
// the work ended. The list can predate the request's 202 (it still shows
// "manageable"), so the state alone let more than -gate nodes start (40
// at 500 hosts with a 5 s fake inspection).
func (d *driver) holds(n node) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	switch d.issued {
	case "inspect":
		return !(n.ProvisionState == "manageable" && n.InspectionFinishedAt != nil) && n.ProvisionState != "inspect failed"
	case "provide":
		return n.ProvisionState != "available" && n.ProvisionState != "clean failed"
	}
	return busyStates[n.ProvisionState]
}

// forget lets a node's action be sent again (after a 409: the node was
// locked).
func (d *driver) forget() {
	d.mu.Lock()
	d.issued = ""
	d.mu.Unlock()
}

func run(ctx context.Context, c *client, destroy bool) error {
	drivers := make([]*driver, *hosts)
	for i := range drivers {
		drivers[i] = &driver{name: fmt.Sprintf("%s-%d", *prefix, i)}
	}
	var wg sync.WaitGroup
	errs := make(chan error, len(drivers))
	if !destroy {
		for _, d := range drivers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				body := map[string]any{"name": d.name, "driver": "fake-hardware", "automated_clean": true,
					"extra": map[string]any{"labels": map[string]string{"pool": "floor"}}}
				if _, err := c.do(ctx, "POST", "/v1/nodes", body, nil); err != nil {
					errs <- err
				}
			}()
		}
		wg.Wait()
		select {
		case err := <-errs:
			return err
		default:
		}
	}
	tick := time.NewTicker(poll)
	defer tick.Stop()
	for {
		all, err := c.list(ctx)
		if err != nil {
			return err
		}
		pending, slots := 0, 1<<30
		if *gate > 0 {
			// A node holds a slot from the request that starts its work
			// until the list shows the work ended.
			slots = *gate
			for _, d := range drivers {
				if !d.done && d.holds(all[d.name]) {
					slots--
				}
			}
		}
		for _, d := range drivers {
			if d.done {
				continue
			}
			if d.busy.Load() {
				pending++
				continue
			}
			n, present := all[d.name]
			s, done, err := d.next(n, present, destroy, &slots)
			if err != nil {
				return err
			}
			if done {
				d.done = true
				continue
			}
			pending++
			if s == nil {
				continue
			}
			d.busy.Store(true)
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer d.busy.Store(false)
				code, err := c.do(ctx, s.method, s.path, s.body, nil)
				switch {
				case code == http.StatusConflict || code == http.StatusNotFound && s.method == "DELETE":
					d.forget()
				case err != nil:
					errs <- err
				}
			}()
		}
		select {
		case err := <-errs:
			return err
		default:
		}
		if pending == 0 {
			wg.Wait()
			return nil
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func main() {
	flag.Parse()
	if flag.NArg() != 1 || (flag.Arg(0) != "apply" && flag.Arg(0) != "destroy") {
		fmt.Fprintln(os.Stderr, "usage: floor [flags] apply|destroy")
		os.Exit(2)
	}
	tr := http.DefaultTransport.(*http.Transport).Clone() //nolint:forcetypeassert // the standard library's own type
	tr.MaxIdleConnsPerHost = inFlight
	c := &client{hc: &http.Client{Transport: tr, Timeout: time.Minute}, root: strings.TrimSuffix(*endpoint, "/"), sem: make(chan struct{}, inFlight)}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	start := time.Now()
	if err := run(ctx, c, flag.Arg(0) == "destroy"); err != nil {
		log.Fatalf("floor %s: %v", flag.Arg(0), err)
	}
	fmt.Printf("floor %s: %d hosts, %.1f s, %d requests\n", flag.Arg(0), *hosts, time.Since(start).Seconds(), c.requests.Load())
}
