package lifecycle

import (
	"fmt"
	"math/big"
	"net/netip"
	"regexp"
	"sort"
	"strings"
)

// IP pools: Metal3's IPPool, IPClaim and IPAddress (the ip-address-manager)
// without Kubernetes. A pool is a set of addresses of one network (one
// prefix): ranges given by start and end, or by a subnet with exclusions,
// minus the gateway; pre-allocations reserve an address for one owner key.
// A claim holds one address of a pool for one owner key, lowest free
// first. Where pools and claims are kept is the IPPoolStore's business
// (internal/ironic keeps them in Ironic); this file is the arithmetic and
// the rules, independent of the storage.

// IPPoolSpec is a pool's definition, as the baremetal_ip_pool resource and
// the store hold it. Addresses are strings as the user wrote them.
type IPPoolSpec struct {
	Name   string
	Ranges []IPRange
	// Prefix is the network's prefix length; every range, the gateway
	// and every pre-allocation lie in one network of that length.
	Prefix     int
	Gateway    string
	DNSServers []string
	// PreAllocations maps an owner key to the address reserved for it.
	PreAllocations map[string]string
}

// IPRange is one range of a pool: Start and End (inclusive), or Subnet
// (every address but the network address and, for IPv4, the broadcast
// address). Exclude takes addresses or CIDRs out of either form.
type IPRange struct {
	Start, End string
	Subnet     string
	Exclude    []string
}

// PoolField names the attribute a pool problem is about: Attr ("name",
// "ranges", "prefix", "gateway", "dns_servers", "pre_allocations"), the
// list Index (-1: none), the nested Sub attribute of a range ("start",
// "end", "subnet", "exclude"), its SubIndex (-1: none), and the map Key
// of a pre-allocation.
type PoolField struct {
	Attr     string
	Index    int
	Sub      string
	SubIndex int
	Key      string
}

func (f PoolField) String() string {
	s := f.Attr
	if f.Index >= 0 {
		s += fmt.Sprintf("[%d]", f.Index)
	}
	if f.Key != "" {
		s += fmt.Sprintf("[%q]", f.Key)
	}
	if f.Sub != "" {
		s += "." + f.Sub
	}
	if f.SubIndex >= 0 {
		s += fmt.Sprintf("[%d]", f.SubIndex)
	}
	return s
}

func field(attr string) PoolField { return PoolField{Attr: attr, Index: -1, SubIndex: -1} }
func rangeField(i int, sub string) PoolField {
	return PoolField{Attr: "ranges", Index: i, Sub: sub, SubIndex: -1}
}

// PoolProblem is one thing wrong with a pool's definition: the field and
// a message that names the bad value.
type PoolProblem struct {
	Field PoolField
	Msg   string
}

func (p PoolProblem) Error() string { return p.Field.String() + ": " + p.Msg }

// poolNameRE: a DNS label in lower case. The name is part of the Ironic
// names the store derives from it, and must map onto them one to one.
var poolNameRE = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$`)

// CheckPoolName accepts a pool name: lower-case letters, digits and
// dashes, 1 to 63 characters, starting and ending with a letter or digit.
func CheckPoolName(s string) error {
	if !poolNameRE.MatchString(s) {
		return fmt.Errorf("%q is not a pool name: use 1 to 63 lower-case letters, digits and dashes, starting and ending with a letter or digit (as a DNS label)", s)
	}
	return nil
}

// span is an inclusive interval of addresses of one family.
type span struct{ lo, hi netip.Addr }

func (s span) contains(a netip.Addr) bool { return s.lo.Compare(a) <= 0 && a.Compare(s.hi) <= 0 }
func (s span) overlaps(o span) bool {
	return s.lo.Compare(o.hi) <= 0 && o.lo.Compare(s.hi) <= 0
}
func (s span) String() string {
	if s.lo == s.hi {
		return s.lo.String()
	}
	return s.lo.String() + "-" + s.hi.String()
}

// prefixSpan is every address of p.
func prefixSpan(p netip.Prefix) span {
	p = p.Masked()
	lo := p.Addr()
	hi := lo
	bits := lo.BitLen()
	b := hi.AsSlice()
	for i := p.Bits(); i < bits; i++ {
		b[i/8] |= 1 << (7 - uint(i%8))
	}
	hi, _ = netip.AddrFromSlice(b)
	return span{lo, hi}
}

// parseIP parses an address without a zone, unmapping IPv4-in-IPv6.
func parseIP(s string) (netip.Addr, bool) {
	a, err := netip.ParseAddr(s)
	if err != nil || a.Zone() != "" {
		return netip.Addr{}, false
	}
	return a, true
}

func familyOf(a netip.Addr) string {
	if a.Is4() {
		return "IPv4"
	}
	return "IPv6"
}

// IPPool is a checked pool: its network and its allocatable intervals in
// order. Build one with CompilePool.
type IPPool struct {
	Spec    IPPoolSpec
	Network netip.Prefix
	// free are the allocatable addresses, disjoint and sorted: the ranges
	// minus exclusions and the gateway (pre-allocations are in free when a
	// range holds them; they are kept for their owner by Next).
	free     []span
	gateway  netip.Addr
	reserved map[netip.Addr]string // pre-allocated address -> owner
	byOwner  map[string]netip.Addr
}

// CheckPool returns every problem of spec, each naming its field and the
// bad value: the name, the prefix length, each range (start <= end, one
// family, inside the pool's network, no overlap with another range), the
// gateway (inside the network), DNS servers and pre-allocations (inside
// the network, one address per owner). The pool's network is the prefix
// applied to the first range (or, when that is not an address, the
// gateway).
func CheckPool(spec IPPoolSpec) []PoolProblem {
	_, probs := compile(spec, true)
	return probs
}

// CompilePool checks spec and returns the pool, or the problems joined.
func CompilePool(spec IPPoolSpec) (*IPPool, error) {
	p, probs := compile(spec, true)
	if len(probs) > 0 {
		msgs := make([]string, 0, len(probs))
		for _, pr := range probs {
			msgs = append(msgs, pr.Error())
		}
		return nil, fmt.Errorf("pool %s: %s", spec.Name, strings.Join(msgs, "; "))
	}
	return p, nil
}

// compile checks spec; with checkName the name is checked too.
func compile(spec IPPoolSpec, checkName bool) (*IPPool, []PoolProblem) {
	var probs []PoolProblem
	fail := func(f PoolField, format string, args ...any) {
		probs = append(probs, PoolProblem{Field: f, Msg: fmt.Sprintf(format, args...)})
	}
	if checkName {
		if err := CheckPoolName(spec.Name); err != nil {
			fail(field("name"), "%v", err)
		}
	}
	// The network: the prefix applied to the first address we can read.
	var anchor netip.Addr
	anchorWhat := ""
	if len(spec.Ranges) > 0 {
		r := spec.Ranges[0]
		if a, ok := parseIP(r.Start); ok && r.Subnet == "" {
			anchor, anchorWhat = a, "ranges[0].start"
		} else if pf, err := netip.ParsePrefix(r.Subnet); err == nil && r.Start == "" {
			anchor, anchorWhat = pf.Addr(), "ranges[0].subnet"
		}
	}
	if !anchor.IsValid() {
		if a, ok := parseIP(spec.Gateway); ok {
			anchor, anchorWhat = a, "gateway"
		}
	}
	var network netip.Prefix
	if anchor.IsValid() {
		if spec.Prefix < 1 || spec.Prefix > anchor.BitLen() {
			fail(field("prefix"), "prefix %d is out of range for an %s pool (1-%d; the family of %s %s)",
				spec.Prefix, familyOf(anchor), anchor.BitLen(), anchorWhat, anchor)
		} else {
			network = netip.PrefixFrom(anchor, spec.Prefix).Masked()
		}
	}
	// inNet checks that a belongs to the network.
	inNet := func(f PoolField, what string, a netip.Addr) bool {
		if !network.IsValid() {
			return true // reported already
		}
		if a.Is4() != network.Addr().Is4() {
			fail(f, "%s %s is %s but the pool is %s (%s %s)", what, a, familyOf(a), familyOf(network.Addr()), anchorWhat, anchor)
			return false
		}
		if !network.Contains(a) {
			fail(f, "%s %s is outside the pool's network %s (prefix %d of %s %s)", what, a, network, spec.Prefix, anchorWhat, anchor)
			return false
		}
		return true
	}

	if len(spec.Ranges) == 0 {
		fail(field("ranges"), "a pool needs at least one range (start and end, or subnet)")
	}
	type ranged struct {
		i int
		s span
	}
	var spans []ranged
	var exclusions []span
	for i, r := range spec.Ranges {
		var s span
		ok := true
		switch {
		case r.Subnet != "" && (r.Start != "" || r.End != ""):
			fail(rangeField(i, "subnet"), "set either subnet %q or start and end, not both", r.Subnet)
			ok = false
		case r.Subnet != "":
			pf, err := netip.ParsePrefix(r.Subnet)
			if err != nil || pf.Addr().Zone() != "" {
				fail(rangeField(i, "subnet"), "%q is not a CIDR such as 10.0.0.0/24", r.Subnet)
				ok = false
				break
			}
			pf = pf.Masked()
			if !inNet(rangeField(i, "subnet"), "subnet", pf.Addr()) {
				ok = false
				break
			}
			if network.IsValid() && pf.Bits() < network.Bits() {
				fail(rangeField(i, "subnet"), "subnet %s is larger than the pool's network %s", pf, network)
				ok = false
				break
			}
			s = prefixSpan(pf)
			// Leave out the network address and (IPv4) the broadcast
			// address, unless the subnet is that small.
			if pf.Bits() < pf.Addr().BitLen()-1 {
				s.lo = s.lo.Next()
				if pf.Addr().Is4() {
					s.hi = s.hi.Prev()
				}
			}
		default:
			start, okS := parseIP(r.Start)
			end, okE := parseIP(r.End)
			if !okS {
				fail(rangeField(i, "start"), "%q is not an IP address", r.Start)
			}
			if !okE {
				fail(rangeField(i, "end"), "%q is not an IP address", r.End)
			}
			if !okS || !okE {
				ok = false
				break
			}
			if start.Is4() != end.Is4() {
				fail(rangeField(i, "end"), "start %s is %s but end %s is %s: a range is of one family", start, familyOf(start), end, familyOf(end))
				ok = false
				break
			}
			if start.Compare(end) > 0 {
				fail(rangeField(i, "end"), "end %s is before start %s", end, start)
				ok = false
				break
			}
			okS = inNet(rangeField(i, "start"), "start", start)
			okE = inNet(rangeField(i, "end"), "end", end)
			if !okS || !okE {
				ok = false
				break
			}
			s = span{start, end}
		}
		for j, x := range r.Exclude {
			f := PoolField{Attr: "ranges", Index: i, Sub: "exclude", SubIndex: j}
			var xs span
			if strings.Contains(x, "/") {
				pf, err := netip.ParsePrefix(x)
				if err != nil || pf.Addr().Zone() != "" {
					fail(f, "%q is not an address or CIDR", x)
					continue
				}
				xs = prefixSpan(pf)
			} else {
				a, okA := parseIP(x)
				if !okA {
					fail(f, "%q is not an address or CIDR", x)
					continue
				}
				xs = span{a, a}
			}
			if ok && (xs.lo.Is4() != s.lo.Is4() || !s.overlaps(xs)) {
				fail(f, "exclusion %s is not in the range %s", x, s)
				continue
			}
			exclusions = append(exclusions, xs)
		}
		if ok {
			spans = append(spans, ranged{i, s})
		}
	}
	sort.Slice(spans, func(a, b int) bool { return spans[a].s.lo.Less(spans[b].s.lo) })
	for k := 1; k < len(spans); k++ {
		a, b := spans[k-1], spans[k]
		if a.s.overlaps(b.s) {
			first, second := a, b
			if first.i > second.i {
				first, second = second, first
			}
			fail(PoolField{Attr: "ranges", Index: second.i, SubIndex: -1},
				"range %s overlaps ranges[%d] (%s)", second.s, first.i, first.s)
		}
	}

	var gw netip.Addr
	if spec.Gateway != "" {
		a, ok := parseIP(spec.Gateway)
		switch {
		case !ok:
			fail(field("gateway"), "%q is not an IP address", spec.Gateway)
		case inNet(field("gateway"), "gateway", a):
			gw = a
			exclusions = append(exclusions, span{a, a})
		}
	}
	for i, d := range spec.DNSServers {
		if _, ok := parseIP(d); !ok {
			fail(PoolField{Attr: "dns_servers", Index: i, SubIndex: -1}, "%q is not an IP address", d)
		}
	}
	reserved := map[netip.Addr]string{}
	byOwner := map[string]netip.Addr{}
	for _, owner := range sortedKeys(spec.PreAllocations) {
		s := spec.PreAllocations[owner]
		f := PoolField{Attr: "pre_allocations", Index: -1, SubIndex: -1, Key: owner}
		a, ok := parseIP(s)
		if !ok {
			fail(f, "%q is not an IP address", s)
			continue
		}
		if owner == "" {
			fail(f, "the owner key is empty")
			continue
		}
		if !inNet(f, "pre-allocated address", a) {
			continue
		}
		if gw.IsValid() && a == gw {
			fail(f, "pre-allocated address %s is the gateway", a)
			continue
		}
		if other, dup := reserved[a]; dup {
			fail(f, "address %s is pre-allocated to %q already", a, other)
			continue
		}
		reserved[a] = owner
		byOwner[owner] = a
	}
	if len(probs) > 0 {
		return nil, probs
	}
	free := make([]span, 0, len(spans))
	for _, r := range spans {
		free = append(free, r.s)
	}
	free = subtract(free, exclusions)
	return &IPPool{Spec: spec, Network: network, free: free, gateway: gw, reserved: reserved, byOwner: byOwner}, nil
}

// subtract removes every exclusion from the sorted, disjoint spans.
func subtract(spans, excl []span) []span {
	sort.Slice(excl, func(a, b int) bool { return excl[a].lo.Less(excl[b].lo) })
	out := spans
	for _, x := range excl {
		var next []span
		for _, s := range out {
			if !s.overlaps(x) {
				next = append(next, s)
				continue
			}
			if s.lo.Less(x.lo) {
				next = append(next, span{s.lo, x.lo.Prev()})
			}
			if x.hi.Less(s.hi) {
				next = append(next, span{x.hi.Next(), s.hi})
			}
		}
		out = next
	}
	return out
}

// Size is how many addresses the ranges hold for allocation (exclusions
// and the gateway left out; pre-allocated addresses inside a range
// counted).
func (p *IPPool) Size() *big.Int {
	n := new(big.Int)
	for _, s := range p.free {
		d := new(big.Int).Sub(new(big.Int).SetBytes(s.hi.AsSlice()), new(big.Int).SetBytes(s.lo.AsSlice()))
		n.Add(n, d.Add(d, big.NewInt(1)))
	}
	return n
}

// inRanges reports whether a is one of the ranges' allocatable addresses.
func (p *IPPool) inRanges(a netip.Addr) bool {
	i := sort.Search(len(p.free), func(i int) bool { return a.Compare(p.free[i].hi) <= 0 })
	return i < len(p.free) && p.free[i].contains(a)
}

// Holds reports whether owner may hold a under this pool: a is owner's
// pre-allocation, or a range holds it and it is not pre-allocated to
// another owner. An allocation the pool does not hold is stranded.
func (p *IPPool) Holds(a netip.Addr, owner string) bool {
	if o, ok := p.reserved[a]; ok {
		return o == owner
	}
	return p.inRanges(a)
}

// PreAllocation returns owner's pre-allocated address, if any.
func (p *IPPool) PreAllocation(owner string) (netip.Addr, bool) {
	a, ok := p.byOwner[owner]
	return a, ok
}

// Next returns the address owner gets: its pre-allocation when it has one
// (ok false when another owner holds it), else the lowest address of the
// ranges that is neither taken nor pre-allocated to another owner (ok
// false when none is left).
func (p *IPPool) Next(taken map[netip.Addr]bool, owner string) (netip.Addr, bool) {
	if a, ok := p.byOwner[owner]; ok {
		return a, !taken[a]
	}
	for _, s := range p.free {
		for a := s.lo; ; a = a.Next() {
			if _, res := p.reserved[a]; !res && !taken[a] {
				return a, true
			}
			if a == s.hi {
				break
			}
		}
	}
	return netip.Addr{}, false
}

// unclaimedReservations lists the owners whose pre-allocated address is
// not taken, sorted.
func (p *IPPool) unclaimedReservations(taken map[netip.Addr]bool) []string {
	var out []string
	for a, owner := range p.reserved {
		if !taken[a] {
			out = append(out, fmt.Sprintf("%s (%s)", a, owner))
		}
	}
	sort.Strings(out)
	return out
}

// IPAddressRecord is one allocated address as the store keeps it.
type IPAddressRecord struct {
	// ID is the store's id of the record (an Ironic UUID).
	ID      string
	Pool    string
	Address string
	Owner   string
}

// IPClaim is one address held for one owner, with its pool's network
// settings: what baremetal_ip_claim exports.
type IPClaim struct {
	ID         string
	Pool       string
	Owner      string
	Address    string
	Prefix     int
	Gateway    string
	DNSServers []string
}

// CIDR is the address with its prefix length, e.g. 10.0.0.5/24.
func (c IPClaim) CIDR() string { return fmt.Sprintf("%s/%d", c.Address, c.Prefix) }

// claimOf is rec with spec's network settings.
func claimOf(rec IPAddressRecord, spec IPPoolSpec) IPClaim {
	a, ok := parseIP(rec.Address)
	addr := rec.Address
	if ok {
		addr = a.String()
	}
	return IPClaim{
		ID: rec.ID, Pool: rec.Pool, Owner: rec.Owner, Address: addr,
		Prefix: spec.Prefix, Gateway: spec.Gateway, DNSServers: append([]string(nil), spec.DNSServers...),
	}
}
