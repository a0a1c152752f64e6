package ironic

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/ironic/ironictest"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// The IP pool allocator (lifecycle.ClaimIP) on the fake Ironic's deploy
// templates: what each claim gets, in order, and what is left recorded.

type nopLog struct{}

func (nopLog) Log(context.Context, string, map[string]any) {}

func poolStoreOnFake(t *testing.T) (*IPPoolStore, *ironictest.Server) {
	t.Helper()
	p, srv := onFake(t)
	return NewIPPoolStore(p.sc).WithTemplatePageLimit(3), srv
}

// poolStep is one step of an allocator scenario: claim for an owner
// (want the address, or an error matching every part of wantErr), or
// release an owner's address.
type poolStep struct {
	claim, release string
	want           string
	wantErr        []string
}

func claimStep(owner, want string) poolStep { return poolStep{claim: owner, want: want} }
func failStep(owner string, wantErr ...string) poolStep {
	return poolStep{claim: owner, wantErr: wantErr}
}
func releaseStep(owner string) poolStep { return poolStep{release: owner} }

func TestFakeIPPoolAllocator(t *testing.T) {
	v4 := func(ranges ...lifecycle.IPRange) lifecycle.IPPoolSpec {
		return lifecycle.IPPoolSpec{Name: "r01", Ranges: ranges, Prefix: 24, Gateway: "10.0.0.1", DNSServers: []string{"10.0.0.53"}}
	}
	se := func(s, e string) lifecycle.IPRange { return lifecycle.IPRange{Start: s, End: e} }
	cases := []struct {
		name  string
		spec  lifecycle.IPPoolSpec
		steps []poolStep
	}{
		{"lowest free first, then exhausted with the owners named", v4(se("10.0.0.10", "10.0.0.12")), []poolStep{
			claimStep("a", "10.0.0.10"), claimStep("b", "10.0.0.11"), claimStep("c", "10.0.0.12"),
			failStep("d", "IP pool r01 is exhausted", `owner "d"`, "its ranges hold 3 addresses, and 3 are held by",
				"10.0.0.10 (a), 10.0.0.11 (b), 10.0.0.12 (c)"),
		}},
		{"an owner's second claim gets its address again", v4(se("10.0.0.10", "10.0.0.12")), []poolStep{
			claimStep("a", "10.0.0.10"), claimStep("a", "10.0.0.10"), claimStep("b", "10.0.0.11"),
		}},
		{"several ranges in address order, the gateway left out", v4(se("10.0.0.200", "10.0.0.200"), se("10.0.0.1", "10.0.0.2")), []poolStep{
			claimStep("a", "10.0.0.2"), claimStep("b", "10.0.0.200"), failStep("c", "hold 2 addresses, and 2 are held"),
		}},
		{"pre-allocations kept for their owners", func() lifecycle.IPPoolSpec {
			s := v4(se("10.0.0.10", "10.0.0.13"))
			s.PreAllocations = map[string]string{"p": "10.0.0.11", "outside": "10.0.0.99"}
			return s
		}(), []poolStep{
			claimStep("a", "10.0.0.10"), claimStep("b", "10.0.0.12"), claimStep("outside", "10.0.0.99"),
			claimStep("c", "10.0.0.13"), failStep("d", "exhausted", "hold 4 addresses, and 4 are held", "pre_allocations reserve the others for: 10.0.0.11 (p)"), claimStep("p", "10.0.0.11"),
		}},
		{"fragmentation after releases: freed addresses are reused lowest first", v4(se("10.0.0.10", "10.0.0.14")), []poolStep{
			claimStep("a", "10.0.0.10"), claimStep("b", "10.0.0.11"), claimStep("c", "10.0.0.12"),
			claimStep("d", "10.0.0.13"), claimStep("e", "10.0.0.14"),
			releaseStep("d"), releaseStep("b"),
			claimStep("f", "10.0.0.11"), claimStep("a", "10.0.0.10"), claimStep("g", "10.0.0.13"),
			failStep("h", "exhausted", "10.0.0.10 (a), 10.0.0.11 (f), 10.0.0.12 (c), 10.0.0.13 (g), 10.0.0.14 (e)"),
		}},
		{"subnet with exclusions: no network, broadcast, gateway or excluded address", v4(lifecycle.IPRange{
			Subnet: "10.0.0.0/29", Exclude: []string{"10.0.0.2", "10.0.0.4/31"}}), []poolStep{
			// .0 network, .1 gateway, .2 excluded, .4-.5 excluded, .7 broadcast.
			claimStep("a", "10.0.0.3"), claimStep("b", "10.0.0.6"), failStep("c", "hold 2 addresses, and 2 are held"),
		}},
		{"IPv6 subnet", lifecycle.IPPoolSpec{Name: "v6", Prefix: 64, Gateway: "fd00:10::1",
			Ranges: []lifecycle.IPRange{{Subnet: "fd00:10::/64", Exclude: []string{"fd00:10::3"}}}}, []poolStep{
			claimStep("a", "fd00:10::2"), claimStep("b", "fd00:10::4"), releaseStep("a"), claimStep("c", "fd00:10::2"),
		}},
		{"IPv6 range exhausted, its size exact", lifecycle.IPPoolSpec{Name: "v6-small", Prefix: 120,
			Ranges: []lifecycle.IPRange{{Start: "2001:db8::fe", End: "2001:db8::ff"}}}, []poolStep{
			claimStep("a", "2001:db8::fe"), claimStep("b", "2001:db8::ff"), failStep("c", "hold 2 addresses, and 2 are held", "2001:db8::fe (a)"),
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			store, srv := poolStoreOnFake(t)
			ctx := context.Background()
			if err := store.CreatePool(ctx, tc.spec); err != nil {
				t.Fatal(err)
			}
			held := map[string]lifecycle.IPClaim{}
			for i, st := range tc.steps {
				if st.release != "" {
					if err := lifecycle.ReleaseIP(ctx, store, held[st.release].ID); err != nil {
						t.Fatalf("step %d: release %s: %v", i, st.release, err)
					}
					delete(held, st.release)
					continue
				}
				c, err := lifecycle.ClaimIP(ctx, store, nopLog{}, tc.spec.Name, st.claim)
				if st.wantErr != nil {
					if err == nil {
						t.Fatalf("step %d: claim %s got %s, want an error", i, st.claim, c.Address)
					}
					for _, w := range st.wantErr {
						if !strings.Contains(err.Error(), w) {
							t.Fatalf("step %d: claim %s: error %q does not say %q", i, st.claim, err, w)
						}
					}
					continue
				}
				if err != nil || c.Address != st.want {
					t.Fatalf("step %d: claim %s = %q, %v; want %s", i, st.claim, c.Address, err, st.want)
				}
				if prev, ok := held[st.claim]; ok && prev.ID != c.ID {
					t.Fatalf("step %d: a second claim for %s made a second record (%s, then %s)", i, st.claim, prev.ID, c.ID)
				}
				if c.Prefix != tc.spec.Prefix || c.Gateway != tc.spec.Gateway || c.CIDR() != fmt.Sprintf("%s/%d", st.want, tc.spec.Prefix) {
					t.Fatalf("step %d: claim %+v does not carry the pool's network", i, c)
				}
				held[st.claim] = c
			}
			// What Ironic holds is exactly what the claims hold: one
			// template per address, named from pool and address.
			expectRecords(t, srv, tc.spec.Name, held)
		})
	}
}

// expectRecords checks that the fake holds one address template per held
// claim and nothing else of pool, each named from pool and address.
func expectRecords(t *testing.T, srv *ironictest.Server, pool string, held map[string]lifecycle.IPClaim) {
	t.Helper()
	want := map[string]string{} // template name -> owner
	for owner, c := range held {
		want[AddressTemplateName(pool, netip.MustParseAddr(c.Address))] = owner
	}
	got := map[string]string{}
	for _, tpl := range srv.DeployTemplates() {
		rec, ok := tpl.Extra[extraAddress].(map[string]any)
		if !ok || rec["pool"] != pool {
			continue
		}
		if _, dup := got[tpl.Name]; dup {
			t.Fatalf("template %s twice", tpl.Name)
		}
		got[tpl.Name], _ = rec["owner"].(string)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("Ironic holds %v, the claims hold %v", got, want)
	}
}

func TestAddressTemplateNames(t *testing.T) {
	for _, c := range []struct{ pool, addr, want string }{
		{"r01", "10.0.0.5", "CUSTOM_IP4_10_0_0_5_R01"},
		{"rack-1", "192.168.111.20", "CUSTOM_IP4_192_168_111_20_RACK_1"},
		{"v6", "fd00::1", "CUSTOM_IP6_FD000000000000000000000000000001_V6"},
	} {
		if got := AddressTemplateName(c.pool, netip.MustParseAddr(c.addr)); got != c.want {
			t.Errorf("AddressTemplateName(%s, %s) = %s, want %s", c.pool, c.addr, got, c.want)
		}
	}
	if got := PoolTemplateName("rack-1"); got != "CUSTOM_IPPOOL_RACK_1" {
		t.Errorf("PoolTemplateName = %s", got)
	}
}

// raceStore records, right before the claim's first create, the same
// address for someone else, as a claim of another workspace would in the
// same instant.
type raceStore struct {
	*IPPoolStore
	intruder string
	once     sync.Once
}

func (r *raceStore) CreateAddress(ctx context.Context, rec lifecycle.IPAddressRecord) (lifecycle.IPAddressRecord, error) {
	r.once.Do(func() {
		if _, err := r.IPPoolStore.CreateAddress(ctx, lifecycle.IPAddressRecord{Pool: rec.Pool, Address: rec.Address, Owner: r.intruder}); err != nil {
			panic(err)
		}
	})
	return r.IPPoolStore.CreateAddress(ctx, rec)
}

// A claim that loses the race for an address (Ironic answers 409 to the
// second template of the same name) takes the next one; the other claim
// keeps the address it won.
func TestFakeIPPoolRace409(t *testing.T) {
	store, srv := poolStoreOnFake(t)
	ctx := context.Background()
	spec := lifecycle.IPPoolSpec{Name: "race", Prefix: 24, Ranges: []lifecycle.IPRange{{Start: "10.1.0.10", End: "10.1.0.11"}}}
	if err := store.CreatePool(ctx, spec); err != nil {
		t.Fatal(err)
	}
	rs := &raceStore{IPPoolStore: store, intruder: "other-workspace"}
	c, err := lifecycle.ClaimIP(ctx, rs, nopLog{}, "race", "mine")
	if err != nil || c.Address != "10.1.0.11" {
		t.Fatalf("claim = %+v, %v; want 10.1.0.11 after losing 10.1.0.10", c, err)
	}
	conflicts := 0
	for _, r := range srv.Requests() {
		if r.Method == http.MethodPost && strings.HasSuffix(r.Path, "/deploy_templates") && r.Status == http.StatusConflict {
			conflicts++
		}
	}
	if conflicts != 1 {
		t.Fatalf("%d creates answered 409, want 1 (the lost race)", conflicts)
	}
	recs, err := store.Addresses(ctx, "race")
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(recs, func(i, j int) bool { return recs[i].Address < recs[j].Address })
	if len(recs) != 2 || recs[0].Owner != "other-workspace" || recs[1].Owner != "mine" {
		t.Fatalf("records %+v", recs)
	}
}

// Two claims for the same owner that race (the same owner key in two
// workspaces): the owner ends up with one address, the lowest.
func TestFakeIPPoolSameOwnerRace(t *testing.T) {
	store, srv := poolStoreOnFake(t)
	ctx := context.Background()
	spec := lifecycle.IPPoolSpec{Name: "twice", Prefix: 24, Ranges: []lifecycle.IPRange{{Start: "10.2.0.10", End: "10.2.0.20"}}}
	if err := store.CreatePool(ctx, spec); err != nil {
		t.Fatal(err)
	}
	rs := &raceStore{IPPoolStore: store, intruder: "same"}
	c, err := lifecycle.ClaimIP(ctx, rs, nopLog{}, "twice", "same")
	if err != nil || c.Address != "10.2.0.10" {
		t.Fatalf("claim = %+v, %v; want the lowest of the owner's addresses, 10.2.0.10", c, err)
	}
	recs, _ := store.Addresses(ctx, "twice")
	if len(recs) != 1 || recs[0].Address != "10.2.0.10" {
		t.Fatalf("records %+v: want one, 10.2.0.10 (10.2.0.11 released)", recs)
	}
	if n := srv.Count(http.MethodDelete, ""); n != 1 {
		t.Fatalf("%d deletes, want 1", n)
	}
}

// Concurrent claims through two stores (two provider processes, whose
// own claims take turns): every claim gets its own address, and the one
// past the size fails.
func TestFakeIPPoolConcurrentClaims(t *testing.T) {
	store, srv := poolStoreOnFake(t)
	ctx := context.Background()
	spec := lifecycle.IPPoolSpec{Name: "busy", Prefix: 24, Ranges: []lifecycle.IPRange{{Start: "10.3.0.1", End: "10.3.0.20"}}}
	if err := store.CreatePool(ctx, spec); err != nil {
		t.Fatal(err)
	}
	stores := []*IPPoolStore{store, NewIPPoolStore(store.sc)}
	var wg sync.WaitGroup
	results := make([]lifecycle.IPClaim, 21)
	errs := make([]error, 21)
	for i := range 21 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = lifecycle.ClaimIP(ctx, stores[i%2], nopLog{}, "busy", fmt.Sprintf("owner-%02d", i))
		}()
	}
	wg.Wait()
	seen := map[string]string{}
	failed := 0
	for i, c := range results {
		if errs[i] != nil {
			var ex *lifecycle.PoolExhaustedError
			if !errors.As(errs[i], &ex) || ex.Size != "20" || len(ex.Holders) != 20 {
				t.Fatalf("owner-%02d: %v", i, errs[i])
			}
			failed++
			continue
		}
		if other, dup := seen[c.Address]; dup {
			t.Fatalf("%s given to %s and owner-%02d", c.Address, other, i)
		}
		seen[c.Address] = fmt.Sprintf("owner-%02d", i)
	}
	if len(seen) != 20 || failed != 1 {
		t.Fatalf("%d distinct addresses, %d failures; want 20 and 1", len(seen), failed)
	}
	t.Logf("creates answered 409: %d", countStatus(srv, http.MethodPost, http.StatusConflict))
}

func countStatus(srv *ironictest.Server, method string, status int) int {
	n := 0
	for _, r := range srv.Requests() {
		if r.Method == method && r.Status == status {
			n++
		}
	}
	return n
}

// A claim interrupted after Ironic recorded its address (the apply was
// killed before Terraform saved it) finds that address again: no second
// record.
func TestFakeIPPoolInterruptedClaimFoundAgain(t *testing.T) {
	store, srv := poolStoreOnFake(t)
	ctx := context.Background()
	spec := lifecycle.IPPoolSpec{Name: "again", Prefix: 24, Ranges: []lifecycle.IPRange{{Start: "10.4.0.10", End: "10.4.0.20"}}}
	if err := store.CreatePool(ctx, spec); err != nil {
		t.Fatal(err)
	}
	orphan, err := store.CreateAddress(ctx, lifecycle.IPAddressRecord{Pool: "again", Address: "10.4.0.15", Owner: "host-a"})
	if err != nil {
		t.Fatal(err)
	}
	srv.ResetRequests()
	c, err := lifecycle.ClaimIP(ctx, store, nopLog{}, "again", "host-a")
	if err != nil || c.ID != orphan.ID || c.Address != "10.4.0.15" {
		t.Fatalf("claim = %+v, %v; want the interrupted claim's record %+v", c, err, orphan)
	}
	if calls := srv.Calls(); len(calls) != 0 {
		t.Fatalf("writes %v, want none", calls)
	}
}

// Pool definitions round-trip; a second pool of the same name is refused;
// templates of other tools are ignored.
func TestFakeIPPoolRecords(t *testing.T) {
	store, srv := poolStoreOnFake(t)
	ctx := context.Background()
	spec := lifecycle.IPPoolSpec{Name: "rt", Prefix: 24, Gateway: "10.5.0.1", DNSServers: []string{"10.5.0.53"},
		Ranges:         []lifecycle.IPRange{{Start: "10.5.0.10", End: "10.5.0.20"}, {Subnet: "10.5.0.128/26", Exclude: []string{"10.5.0.130"}}},
		PreAllocations: map[string]string{"x": "10.5.0.99"}}
	if err := store.CreatePool(ctx, spec); err != nil {
		t.Fatal(err)
	}
	if err := store.CreatePool(ctx, spec); !errors.Is(err, lifecycle.ErrIPRecordExists) {
		t.Fatalf("second CreatePool: %v, want ErrIPRecordExists", err)
	}
	got, ok, err := store.Pool(ctx, "rt")
	if err != nil || !ok || fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", spec) {
		t.Fatalf("Pool = %+v %v %v, want %+v", got, ok, err, spec)
	}
	spec.Gateway = "10.5.0.254"
	if err := store.UpdatePool(ctx, spec); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := store.Pool(ctx, "rt"); got.Gateway != "10.5.0.254" {
		t.Fatalf("after update: %+v", got)
	}
	// Someone else's template, and one whose name does not match its
	// record: neither is an address of the pool.
	for _, body := range []string{
		`{"name":"CUSTOM_RAID_1","steps":[{"interface":"raid","step":"create_configuration","args":{},"priority":10}]}`,
		`{"name":"CUSTOM_IP4_10_5_0_11_OTHER","extra":{"baremetal_ip_address":{"pool":"rt","address":"10.5.0.11","owner":"forged"}},"steps":[{"interface":"deploy","step":"x","args":{},"priority":0}]}`,
	} {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/v1/deploy_templates", strings.NewReader(body))
		req.Header.Set("X-OpenStack-Ironic-API-Version", "1.82")
		resp, err := http.DefaultClient.Do(req)
		if err != nil || resp.StatusCode != http.StatusCreated {
			t.Fatalf("create %s: %v %v", body, resp, err)
		}
		_ = resp.Body.Close()
	}
	if recs, err := store.Addresses(ctx, "rt"); err != nil || len(recs) != 0 {
		t.Fatalf("Addresses = %+v, %v; want none", recs, err)
	}
	if err := store.DeletePool(ctx, "rt"); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := store.Pool(ctx, "rt"); ok || err != nil {
		t.Fatalf("after delete: %v %v", ok, err)
	}
	if err := store.DeletePool(ctx, "rt"); err != nil {
		t.Fatalf("deleting a missing pool: %v", err)
	}
}
