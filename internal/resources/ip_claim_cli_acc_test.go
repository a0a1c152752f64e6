package resources_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/acctest"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// createPool records a pool directly (as another workspace would have)
// and removes it when the test ends.
func createPool(t *testing.T, spec lifecycle.IPPoolSpec) {
	t.Helper()
	s := ipStore(t)
	if err := s.CreatePool(context.Background(), spec); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.DeletePool(context.Background(), spec.Name) })
}

// TestAccIPClaim_forEachRemoveSecond: five hosts of a for_each map claim
// an address each; removing the second host from the map plans the
// destruction of its claim (and of what used its address) and nothing
// else: the other four claims and their users are unchanged, and keep
// their addresses. A host added later gets the freed address, lowest free
// first.
func TestAccIPClaim_forEachRemoveSecond(t *testing.T) {
	t.Parallel()
	pool := acctest.Name("acc-pool")
	cfg := func(hosts ...string) string {
		q := make([]string, len(hosts))
		for i, h := range hosts {
			q[i] = fmt.Sprintf("%q = { rack = \"r01\" }", h)
		}
		return poolHCL(pool, 92, 20, 29) + fmt.Sprintf(`
locals {
  hosts = { %s }
}

resource "baremetal_ip_claim" "host" {
  for_each = local.hosts
  pool     = baremetal_ip_pool.pool.name
  owner    = "cluster-a/${each.key}"
}

# What a deployment would take from the claim.
resource "terraform_data" "machine" {
  for_each = local.hosts
  input    = baremetal_ip_claim.host[each.key].cidr
}
`, strings.Join(q, ", "))
	}
	all := []string{"host-1", "host-2", "host-3", "host-4", "host-5"}
	kept := []string{"host-1", "host-3", "host-4", "host-5"}
	w := newCLIWorkspace(t, acctest.Endpoint(), cfg(all...))
	w.apply("five hosts")
	t.Cleanup(func() {
		if _, err := w.run("destroy", "-auto-approve", "-input=false", "-no-color"); err != nil {
			t.Errorf("destroy: %v", err)
		}
	})
	before := w.claimed()
	var addrs []string
	for _, a := range before {
		addrs = append(addrs, a)
	}
	sort.Strings(addrs)
	if len(before) != 5 || strings.Join(addrs, " ") != "10.92.0.20 10.92.0.21 10.92.0.22 10.92.0.23 10.92.0.24" {
		t.Fatalf("claims %v: want 10.92.0.20-24, once each", before)
	}
	t.Logf("five hosts: %v", before)
	w.planEmpty("after the first apply")

	w.write(cfg(kept...))
	actions := w.planActions("without host-2")
	want := map[string]string{`baremetal_ip_claim.host["host-2"]`: "delete", `terraform_data.machine["host-2"]`: "delete"}
	if fmt.Sprint(actions) != fmt.Sprint(want) {
		t.Fatalf("plan without host-2: %v; want only %v (no change to the other four)", actions, want)
	}
	t.Logf("plan without host-2: %v", actions)
	w.mustRun("apply the plan", "apply", "-input=false", "-no-color", "tfplan")
	after := w.claimed()
	for _, h := range kept {
		if o := "cluster-a/" + h; after[o] != before[o] {
			t.Fatalf("%s moved from %s to %s", h, before[o], after[o])
		}
	}
	expectOneEach(t, pool, after)

	w.write(cfg(append(kept, "host-6")...))
	actions = w.planActions("with host-6")
	want = map[string]string{`baremetal_ip_claim.host["host-6"]`: "create", `terraform_data.machine["host-6"]`: "create"}
	if fmt.Sprint(actions) != fmt.Sprint(want) {
		t.Fatalf("plan with host-6: %v; want only %v", actions, want)
	}
	w.mustRun("apply the plan", "apply", "-input=false", "-no-color", "tfplan")
	final := w.claimed()
	if final["cluster-a/host-6"] != before["cluster-a/host-2"] {
		t.Fatalf("host-6 got %s, want host-2's freed %s", final["cluster-a/host-6"], before["cluster-a/host-2"])
	}
	expectOneEach(t, pool, final)
	w.planEmpty("after adding host-6")
	w.destroy()
	expectOneEach(t, pool, map[string]string{})
}

// TestAccIPClaim_twoWorkspacesAtOnce: two terraform apply processes, in two
// working directories, each claim 10 addresses of one pool of 20 at the
// same moment: 20 distinct addresses, none held twice, every owner once.
// Five rounds (destroying both between rounds); each round's counts are
// logged, with how many creates lost a race (Ironic's 409).
func TestAccIPClaim_twoWorkspacesAtOnce(t *testing.T) {
	t.Parallel()
	pool := acctest.Name("acc-race")
	createPool(t, lifecycle.IPPoolSpec{Name: pool, Prefix: 24, Gateway: "10.93.0.254",
		Ranges: []lifecycle.IPRange{{Start: "10.93.0.1", End: "10.93.0.20"}}})
	owners := func(ws string) []string {
		var out []string
		for i := range 10 {
			out = append(out, fmt.Sprintf("%s-%02d", ws, i))
		}
		return out
	}
	ws := []*cliWorkspace{
		newCLIWorkspace(t, acctest.Endpoint(), ownersHCL(pool, owners("ws-a")...)),
		newCLIWorkspace(t, acctest.Endpoint(), ownersHCL(pool, owners("ws-b")...)),
	}
	for round := 1; round <= 5; round++ {
		for _, w := range ws {
			_ = os.Remove(filepath.Join(w.dir, "terraform.log"))
		}
		outs := make([]bytes.Buffer, len(ws))
		errs := make([]error, len(ws))
		var wg sync.WaitGroup
		start := time.Now()
		for i, w := range ws {
			cmd := w.command(applyArgs...)
			cmd.Stdout, cmd.Stderr = &outs[i], &outs[i]
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			wg.Add(1)
			go func() { defer wg.Done(); errs[i] = cmd.Wait() }()
		}
		wg.Wait()
		for i := range ws {
			if errs[i] != nil {
				t.Fatalf("round %d: apply in workspace %d: %v\n%s", round, i, errs[i], tailLines(outs[i].String(), 40))
			}
		}
		union := map[string]string{}
		held := map[string]string{}
		twice := 0
		for _, w := range ws {
			for owner, addr := range w.claimed() {
				union[owner] = addr
				if other, dup := held[addr]; dup {
					twice++
					t.Errorf("round %d: %s held by %s and %s", round, addr, other, owner)
				}
				held[addr] = owner
			}
		}
		lost := ws[0].logCount("address taken by a concurrent claim") + ws[1].logCount("address taken by a concurrent claim")
		t.Logf("round %d: %d claims, %d distinct addresses of 20, %d held twice, %d creates lost a race (409), %s",
			round, len(union), len(held), twice, lost, time.Since(start).Round(time.Millisecond))
		if len(union) != 20 || len(held) != 20 {
			t.Fatalf("round %d: %d claims with %d distinct addresses, want 20 and 20", round, len(union), len(held))
		}
		expectOneEach(t, pool, union)
		for _, w := range ws {
			w.destroy()
		}
		expectOneEach(t, pool, map[string]string{})
	}
}

// holdingProxy passes requests to Ironic, except that it holds back
// Ironic's answer to the hold-th address record it creates (the record is
// made; the provider never hears of it) and reports that on held.
type holdingProxy struct {
	*httptest.Server
	mu      sync.Mutex
	creates int
	hold    int
	held    chan string
	release chan struct{}
}

var errHeld = errors.New("answer held back")

func newHoldingProxy(t *testing.T, hold int) *holdingProxy {
	target, err := url.Parse(acctest.Endpoint())
	if err != nil {
		t.Fatal(err)
	}
	p := &holdingProxy{hold: hold, held: make(chan string, 1), release: make(chan struct{})}
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.ModifyResponse = func(resp *http.Response) error {
		if resp.Request.Method != http.MethodPost || !strings.HasSuffix(resp.Request.URL.Path, "/deploy_templates") ||
			resp.StatusCode != http.StatusCreated {
			return nil
		}
		body, err := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		resp.Body = io.NopCloser(bytes.NewReader(body))
		if err != nil {
			return err
		}
		var tpl struct {
			Name string `json:"name"`
		}
		_ = json.Unmarshal(body, &tpl)
		if !strings.HasPrefix(tpl.Name, "CUSTOM_IP4_") {
			return nil
		}
		p.mu.Lock()
		p.creates++
		n := p.creates
		p.mu.Unlock()
		if n != p.hold {
			return nil
		}
		p.held <- tpl.Name
		<-p.release
		return errHeld
	}
	rp.ErrorHandler = func(w http.ResponseWriter, r *http.Request, err error) {
		if errors.Is(err, errHeld) {
			panic(http.ErrAbortHandler) // the connection drops, no answer
		}
		http.Error(w, err.Error(), http.StatusBadGateway)
	}
	p.Server = httptest.NewServer(rp)
	t.Cleanup(func() {
		p.releaseHeld()
		p.Close()
	})
	return p
}

func (p *holdingProxy) releaseHeld() {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.release:
	default:
		close(p.release)
	}
}

// TestAccIPClaim_killedMidClaim: Terraform (with its provider) SIGKILLed
// while a claim is in flight: Ironic has recorded the address, the
// provider has not heard back, Terraform has saved nothing. The next apply
// finds that claim's address by its owner key: no address is held twice,
// none is leaked, and the interrupted owner keeps the address Ironic
// recorded for it.
func TestAccIPClaim_killedMidClaim(t *testing.T) {
	t.Parallel()
	pool := acctest.Name("acc-kill")
	createPool(t, lifecycle.IPPoolSpec{Name: pool, Prefix: 24, Ranges: []lifecycle.IPRange{{Start: "10.94.0.10", End: "10.94.0.29"}}})
	owners := []string{"k-0", "k-1", "k-2", "k-3", "k-4", "k-5"}
	proxy := newHoldingProxy(t, 3)
	w := newCLIWorkspace(t, proxy.URL, ownersHCL(pool, owners...))
	t.Cleanup(func() {
		if _, err := w.run("destroy", "-auto-approve", "-input=false", "-no-color"); err != nil {
			t.Errorf("destroy: %v", err)
		}
	})
	var out bytes.Buffer
	cmd := w.command(applyArgs...)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var name string
	select {
	case name = <-proxy.held:
	case <-time.After(3 * time.Minute):
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		t.Fatalf("no third address record within 3 minutes:\n%s", tailLines(out.String(), 40))
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	_ = cmd.Wait()
	proxy.releaseHeld()
	atKill := ipRecords(t, pool)
	inState := w.claimed()
	t.Logf("killed Terraform with the answer to %s held back; Ironic records %v; the state holds %d claims", name, atKill, len(inState))
	var interrupted, interruptedAddr string
	for owner, addrs := range atKill {
		for _, a := range addrs {
			if strings.HasPrefix(name, "CUSTOM_IP4_"+strings.ReplaceAll(a, ".", "_")+"_") {
				interrupted, interruptedAddr = owner, a
			}
		}
	}
	if interrupted == "" {
		t.Fatalf("the held record %s is not among Ironic's %v", name, atKill)
	}
	if _, ok := inState[interrupted]; ok {
		t.Fatalf("the state knows the interrupted claim of %s", interrupted)
	}

	w.apply("re-apply after SIGKILL")
	final := w.claimed()
	if len(final) != len(owners) {
		t.Fatalf("claims after re-apply: %v", final)
	}
	expectOneEach(t, pool, final)
	if final[interrupted] != interruptedAddr {
		t.Fatalf("the interrupted owner %s now holds %s, not the %s Ironic recorded for it", interrupted, final[interrupted], interruptedAddr)
	}
	for owner, addrs := range atKill {
		if final[owner] != addrs[0] {
			t.Fatalf("owner %s held %s at the kill, %s after", owner, addrs[0], final[owner])
		}
	}
	t.Logf("after re-apply: %v (%d claims, each once; nothing leaked)", final, len(final))
	w.planEmpty("after re-apply")
	w.destroy()
	expectOneEach(t, pool, map[string]string{})
}
