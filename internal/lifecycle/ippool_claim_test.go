package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// rack is a pool of three addresses, .10 to .12, and a pre-allocation
// outside them.
var rack = IPPoolSpec{Name: "r01", Prefix: 24, Gateway: "10.0.0.1", DNSServers: []string{"10.0.0.53"},
	Ranges: []IPRange{{Start: "10.0.0.10", End: "10.0.0.12"}}, PreAllocations: map[string]string{"pre": "10.0.0.50"}}

func (v *poolView) claim(owner string) (IPClaim, error) {
	return ClaimIP(ctxBG, v, &logRec{}, rack.Name, owner)
}

// runFirst is a hook that runs fn before call k of its view.
func runFirst(k int, fn func()) func(int, string) error {
	return func(n int, _ string) error {
		if n == k {
			fn()
		}
		return nil
	}
}

// A second claimer (another workspace) that runs entirely before each of
// the first one's calls: of two owners each gets its own address, of the
// same owner both get the same one and one record remains.
func TestClaimIPSecondClaimerAtEachStep(t *testing.T) {
	const before, after = "10.0.0.10=b,10.0.0.11=a", "10.0.0.10=a,10.0.0.11=b"
	for _, c := range []struct {
		owner   string
		holders []string // when B runs before A's call k (index k-1): Pool, Addresses, CreateAddress, Addresses
	}{
		{"b", []string{before, before, before, after}},
		{"a", []string{"10.0.0.10=a", "10.0.0.10=a", "10.0.0.10=a", "10.0.0.10=a"}},
	} {
		for k, want := range c.holders {
			t.Run(fmt.Sprintf("owner %s before call %d", c.owner, k+1), func(t *testing.T) {
				d := newPoolData(rack)
				var b IPClaim
				var berr error
				a := &poolView{d: d, name: "A"}
				a.hook = runFirst(k+1, func() { b, berr = (&poolView{d: d, name: "B"}).claim(c.owner) })
				got, err := a.claim("a")
				if err != nil || berr != nil {
					t.Fatalf("A: %v, B: %v", err, berr)
				}
				if h := d.holders(); h != want || !strings.Contains(h, got.Address+"=a") || !strings.Contains(h, b.Address+"="+c.owner) {
					t.Errorf("A got %s, B %s, holders %s, want %s", got.Address, b.Address, h, want)
				}
				if got.Prefix != 24 || got.Gateway != "10.0.0.1" || (c.owner == "a") != (got.ID == b.ID) {
					t.Errorf("A %+v, B %+v", got, b)
				}
			})
		}
	}
}

// stepper runs two claimers (two workspaces) one store call at a time in
// the order a schedule gives: bit i of the schedule picks who makes the
// i-th call (0: A, 1: B); past the schedule, or when the one picked is
// done, the other goes on. Nothing runs unless the stepper lets it.
type stepper struct {
	ready [2]chan bool // true: at a call; false: done
	next  [2]chan struct{}
}

func (s *stepper) view(d *poolData, i int) *poolView {
	return &poolView{d: d, name: string(rune('A' + i)), hook: func(int, string) error {
		s.ready[i] <- true
		<-s.next[i]
		return nil
	}}
}

func interleave(d *poolData, owners [2]string, schedule, steps int) ([2]IPClaim, [2]error) {
	s := &stepper{}
	var got [2]IPClaim
	var errs [2]error
	for i := range 2 {
		s.ready[i], s.next[i] = make(chan bool), make(chan struct{})
		v := s.view(d, i)
		go func() {
			got[i], errs[i] = v.claim(owners[i])
			s.ready[i] <- false
		}()
	}
	waiting := [2]bool{<-s.ready[0], <-s.ready[1]}
	for step := 0; waiting[0] || waiting[1]; step++ {
		i := 0
		if step < steps {
			i = schedule >> step & 1
		}
		if !waiting[i] {
			i = 1 - i
		}
		s.next[i] <- struct{}{}
		waiting[i] = <-s.ready[i]
	}
	return got, errs
}

// Two workspaces' claims interleaved in every order of their first eight
// store calls: different owners never share an address and each holds one;
// the same owner ends up with one address that both claims return.
func TestClaimIPInterleavings(t *testing.T) {
	const steps = 8
	for _, owners := range [][2]string{{"a", "b"}, {"a", "a"}} {
		for schedule := range 1 << steps {
			d := newPoolData(rack)
			got, errs := interleave(d, owners, schedule, steps)
			if errs[0] != nil || errs[1] != nil {
				t.Fatalf("owners %v, schedule %08b: %v", owners, schedule, errs)
			}
			h := d.holders()
			same := owners[0] == owners[1]
			switch {
			case same && (got[0].ID != got[1].ID || got[0].Address != got[1].Address || h != got[0].Address+"="+owners[0]):
				t.Fatalf("same owner, schedule %08b: claims %v and %v, holders %s", schedule, got[0], got[1], h)
			case !same && (got[0].Address == got[1].Address || strings.Count(h, ",") != 1 ||
				!strings.Contains(h, got[0].Address+"=a") || !strings.Contains(h, got[1].Address+"=b")):
				t.Fatalf("two owners, schedule %08b: claims %v and %v, holders %s", schedule, got[0], got[1], h)
			}
		}
	}
}

// Claims of one pool in one process take turns: the second waits for the
// first to end before it calls the store, and gives up when its context
// ends while it waits.
func TestClaimIPSameProcessTakesTurns(t *testing.T) {
	d := newPoolData(rack)
	v := &poolView{d: d, name: "P"}
	done := make(chan error, 1)
	var second IPClaim
	var cancelled error
	v.hook = runFirst(2, func() {
		ctx, cancel := context.WithCancel(ctxBG)
		cancel()
		_, cancelled = ClaimIP(ctx, v, &logRec{}, rack.Name, "c")
		go func() {
			var err error
			second, err = v.claim("b")
			done <- err
		}()
	})
	first, err := v.claim("a")
	if err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if want := "claim from pool r01 for \"c\": waiting for this process's other claims: context canceled"; cancelled == nil || cancelled.Error() != want {
		t.Errorf("cancelled wait: %v", cancelled)
	}
	if first.Address != "10.0.0.10" || second.Address != "10.0.0.11" {
		t.Errorf("first %s, second %s", first.Address, second.Address)
	}
	if ops := strings.Join(d.ops, ","); ops != strings.Repeat("P:Pool,P:Addresses,P:CreateAddress,P:Addresses,", 2)[:len(ops)] || len(d.ops) != 8 {
		t.Errorf("calls %s: the claims interleaved", ops)
	}
}

// An apply killed before any of the claim's store calls, then run again:
// the owner ends up with exactly one address, the one an uninterrupted
// claim gives, and the run that finds its claim recorded creates nothing.
// The claim raced another claim for the same owner, so it writes three
// times (a create that loses, a create, the removal of the second address).
func TestClaimIPInterruptedAndResumed(t *testing.T) {
	const raceAt = 3 // before the first CreateAddress
	for k := 1; ; k++ {
		d := newPoolData(rack)
		d.add(rack.Name, "10.0.0.12", "other")
		v := &poolView{d: d, name: "killed"}
		v.hook = func(n int, _ string) error {
			if n == raceAt {
				d.add(rack.Name, "10.0.0.10", "a")
			}
			if n >= k {
				return errKilled
			}
			return nil
		}
		_, err := v.claim("a")
		calls := v.n
		if err != nil && !errors.Is(err, errKilled) {
			t.Fatalf("killed before call %d: %v", k, err)
		}
		resumed := &poolView{d: d, name: "resumed"}
		got, rerr := resumed.claim("a")
		if rerr != nil {
			t.Fatalf("killed before call %d, resumed: %v", k, rerr)
		}
		const want = "10.0.0.10=a,10.0.0.12=other"
		if h := d.holders(); h != want || got.Address != "10.0.0.10" {
			t.Fatalf("killed before call %d: resumed with %s, holders %s, want %s", k, got.Address, h, want)
		}
		if k >= raceAt && slices.Contains(d.ops[calls:], "resumed:CreateAddress") {
			t.Errorf("killed before call %d: the resumed claim created an address although the owner held one", k)
		}
		if err == nil {
			if calls != 6 {
				t.Fatalf("the claim made %d calls, want a create lost, a create and a removal", calls)
			}
			return
		}
	}
}

// Every way a claim fails says which pool, owner and step.
func TestClaimIPFailures(t *testing.T) {
	full := func(d *poolData) {
		d.add(rack.Name, "10.0.0.10", "x")
		d.add(rack.Name, "10.0.0.11", "y")
		d.add(rack.Name, "10.0.0.12", "z")
	}
	failAt := func(op string, nth int) func(*poolView) {
		return func(v *poolView) {
			seen := 0
			v.hook = func(_ int, o string) error {
				if o == op {
					seen++
					if seen == nth {
						return errors.New("ironic down")
					}
				}
				return nil
			}
		}
	}
	for _, c := range []struct {
		name  string
		owner string
		data  func(*poolData)
		view  func(*poolView)
		want  string
	}{
		{name: "no owner", owner: "", want: "claim from pool r01: the owner key is empty"},
		{name: "no pool", owner: "a", data: func(d *poolData) { delete(d.pools, rack.Name) },
			want: "IP pool r01: no such IP pool (create it with baremetal_ip_pool"},
		{name: "pool not valid", owner: "a", data: func(d *poolData) { d.pools[rack.Name] = IPPoolSpec{Name: rack.Name, Prefix: 24} },
			want: "IP pool r01 as recorded is not valid: pool r01: ranges: a pool needs at least one range"},
		{name: "pool unreadable", owner: "a", view: failAt("Pool", 1), want: "reading IP pool r01: ironic down"},
		{name: "addresses unreadable", owner: "a", view: failAt("Addresses", 1),
			want: `claim from pool r01 for "a": listing its addresses: ironic down`},
		{name: "addresses unreadable after the create", owner: "a", view: failAt("Addresses", 2),
			want: `claim from pool r01 for "a": listing its addresses: ironic down`},
		{name: "create fails", owner: "a", view: failAt("CreateAddress", 1),
			want: `claim from pool r01 for "a": recording address 10.0.0.10: ironic down`},
		{name: "exhausted", owner: "a", data: full,
			want: `IP pool r01 is exhausted: no address left for owner "a"; its ranges hold 3 addresses, and 3 are held by: ` +
				`10.0.0.10 (x), 10.0.0.11 (y), 10.0.0.12 (z); pre_allocations reserve the others for: 10.0.0.50 (pre)`},
		{name: "pre-allocation held", owner: "pre", data: func(d *poolData) { d.add(rack.Name, "10.0.0.50", "intruder") },
			want: `claim from pool r01 for "pre": its pre-allocated address 10.0.0.50 is held by "intruder"`},
		{name: "every address lost, every round", owner: "a", view: func(v *poolView) { v.createExists = true },
			want: `claim from pool r01 for "a": gave up after 50 rounds of losing every free address to concurrent claims`},
		{name: "second address not removed", owner: "a",
			data: func(d *poolData) { d.add(rack.Name, "10.0.0.12", "a"); d.add(rack.Name, "10.0.0.11", "a") },
			view: failAt("DeleteAddress", 1),
			want: `pool r01: owner "a" holds 10.0.0.11 and 10.0.0.12; releasing 10.0.0.12: ironic down`},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := newPoolData(rack)
			if c.data != nil {
				c.data(d)
			}
			v := &poolView{d: d, name: "v"}
			if c.view != nil {
				c.view(v)
			}
			_, err := v.claim(c.owner)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err %v, want %q", err, c.want)
			}
		})
	}
}

// A claim takes the owner's pre-allocation, else the lowest free address
// not pre-allocated; an owner holding two (from raced claims) keeps the
// lowest.
func TestClaimIPChoice(t *testing.T) {
	for _, c := range []struct {
		name, owner string
		held        [][2]string // address, owner
		want        string
		holders     string
		reserved    string // an address of the range pre-allocated to "res"
	}{
		{"lowest", "a", nil, "10.0.0.10", "10.0.0.10=a", ""},
		{"a gap", "a", [][2]string{{"10.0.0.10", "x"}, {"10.0.0.12", "z"}}, "10.0.0.11", "10.0.0.10=x,10.0.0.11=a,10.0.0.12=z", ""},
		{"pre-allocation", "pre", nil, "10.0.0.50", "10.0.0.50=pre", ""},
		{"held twice: keeps the lowest", "a", [][2]string{{"10.0.0.12", "a"}, {"10.0.0.11", "a"}}, "10.0.0.11", "10.0.0.11=a", ""},
		{"another's pre-allocation skipped", "a", nil, "10.0.0.11", "10.0.0.11=a", "10.0.0.10"},
		{"its pre-allocation in the range", "res", [][2]string{{"10.0.0.11", "x"}}, "10.0.0.12", "10.0.0.11=x,10.0.0.12=res", "10.0.0.12"},
	} {
		t.Run(c.name, func(t *testing.T) {
			spec := rack
			if c.reserved != "" {
				spec.PreAllocations = map[string]string{"res": c.reserved}
			}
			d := newPoolData(spec)
			for _, h := range c.held {
				d.add(rack.Name, h[0], h[1])
			}
			got, err := (&poolView{d: d}).claim(c.owner)
			if err != nil || got.Address != c.want || got.CIDR() != c.want+"/24" || !slices.Equal(got.DNSServers, spec.DNSServers) {
				t.Fatalf("claim %+v, %v; want %s", got, err, c.want)
			}
			if h := d.holders(); h != c.holders {
				t.Errorf("holders %s, want %s", h, c.holders)
			}
		})
	}
}

// A claim whose own record was removed by a claim for the same owner (in
// favour of a lower address that is gone again) lists the pool again.
func TestClaimIPOwnRecordRemoved(t *testing.T) {
	d := newPoolData(rack)
	v := &poolView{d: d}
	v.hook = runFirst(4, func() { // after the create, before the list
		d.mu.Lock()
		d.recs = nil
		d.mu.Unlock()
	})
	got, err := v.claim("a")
	if err != nil || got.Address != "10.0.0.10" || d.holders() != "10.0.0.10=a" {
		t.Fatalf("claim %+v, %v, holders %s", got, err, d.holders())
	}
	if v.n != 7 {
		t.Errorf("%d calls, want a second round", v.n)
	}
}

// Reading claims back: by record id (gone, or replaced out of band, reads
// as not ok), by owner, and the address network data renders.
func TestIPClaimReads(t *testing.T) {
	d := newPoolData(rack)
	rec := d.add(rack.Name, "10.0.0.11", "a")
	d.add("other", "10.0.0.10", "a")
	v := &poolView{d: d}
	for _, c := range []struct {
		id, pool, owner string
		ok              bool
	}{
		{rec.ID, rack.Name, "a", true},
		{rec.ID, rack.Name, "b", false},
		{rec.ID, "other", "a", false},
		{"gone", rack.Name, "a", false},
	} {
		got, ok, err := RefreshIPClaim(ctxBG, v, c.id, c.pool, c.owner)
		if err != nil || ok != c.ok || (ok && (got.Address != "10.0.0.11" || got.Gateway != "10.0.0.1")) {
			t.Errorf("refresh %v: %+v %v %v", c, got, ok, err)
		}
	}
	if c, ok, err := FindIPClaim(ctxBG, v, rack.Name, "a"); err != nil || !ok || c.ID != rec.ID {
		t.Errorf("find: %+v %v %v", c, ok, err)
	}
	if _, ok, err := FindIPClaim(ctxBG, v, rack.Name, "b"); err != nil || ok {
		t.Errorf("find of an owner without: %v %v", ok, err)
	}
	if c, err := PoolAddress(ctxBG, v, rack.Name, "pre"); err != nil || c.Address != "10.0.0.50" || c.ID != "" {
		t.Errorf("pre-allocated address: %+v %v", c, err)
	}
	if c, err := PoolAddress(ctxBG, v, rack.Name, "a"); err != nil || c.ID != rec.ID {
		t.Errorf("claimed address: %+v %v", c, err)
	}
	if _, err := PoolAddress(ctxBG, v, rack.Name, "b"); err == nil || !strings.Contains(err.Error(),
		`owner "b" holds no address of IP pool r01: claim one with a baremetal_ip_claim`) {
		t.Errorf("no address: %v", err)
	}

	if err := ReleaseIP(ctxBG, v, rec.ID); err != nil || strings.Contains(d.holders(), "=a,") {
		t.Errorf("release: %v, holders %s", err, d.holders())
	}
	if err := ReleaseIP(ctxBG, v, rec.ID); err != nil {
		t.Errorf("release of a released address: %v", err)
	}

	// Without the pool's definition.
	rec = d.add(rack.Name, "10.0.0.12", "c")
	delete(d.pools, rack.Name)
	if got, ok, err := RefreshIPClaim(ctxBG, v, rec.ID, rack.Name, "c"); err != nil || !ok || got.Address != "10.0.0.12" || got.Prefix != 0 {
		t.Errorf("refresh without the pool: %+v %v %v", got, ok, err)
	}
	for name, err := range map[string]error{
		"find":     second(FindIPClaim(ctxBG, v, rack.Name, "c")),
		"address":  second2(PoolAddress(ctxBG, v, rack.Name, "c")),
		"settings": second2(PoolSettings(ctxBG, v, rack.Name)),
	} {
		if !errors.Is(err, ErrPoolNotFound) {
			t.Errorf("%s without the pool: %v", name, err)
		}
	}

	v.hook = func(int, string) error { return errors.New("ironic down") }
	for name, err := range map[string]error{
		"find":     second(FindIPClaim(ctxBG, v, rack.Name, "c")),
		"settings": second2(PoolSettings(ctxBG, v, rack.Name)),
	} {
		if err == nil || !strings.Contains(err.Error(), "reading IP pool r01: ironic down") {
			t.Errorf("%s unreadable: %v", name, err)
		}
	}
}

func second[A, B any](_ A, _ B, err error) error { return err }
func second2[A any](_ A, err error) error        { return err }

// The exhaustion error lists at most 50 holders.
func TestPoolExhaustedErrorBounded(t *testing.T) {
	e := &PoolExhaustedError{Pool: "p", Size: "60", Owner: "o"}
	for i := range 60 {
		e.Holders = append(e.Holders, IPAddressRecord{Address: fmt.Sprintf("10.0.0.%d", i), Owner: "x"})
	}
	msg := e.Error()
	if !strings.Contains(msg, "60 are held by") || !strings.HasSuffix(msg, "10.0.0.49 (x), and 10 more") || strings.Contains(msg, "pre_allocations") {
		t.Errorf("message %q", msg)
	}
}
