package lifecycle

import (
	"strings"
	"testing"
)

func TestCheckPool(t *testing.T) {
	base := func(mod func(*IPPoolSpec)) IPPoolSpec {
		s := IPPoolSpec{Name: "r01", Prefix: 24, Gateway: "10.0.0.1", DNSServers: []string{"10.0.0.53"},
			Ranges: []IPRange{{Start: "10.0.0.10", End: "10.0.0.20"}}}
		if mod != nil {
			mod(&s)
		}
		return s
	}
	cases := []struct {
		name  string
		spec  IPPoolSpec
		field string // "" : no problem
		want  string
	}{
		{"good", base(nil), "", ""},
		{"good v6 subnet", IPPoolSpec{Name: "v6", Prefix: 64, Gateway: "fd00::1", Ranges: []IPRange{{Subnet: "fd00::/64"}}}, "", ""},
		{"good two ranges and a pre-allocation outside them", base(func(s *IPPoolSpec) {
			s.Ranges = append(s.Ranges, IPRange{Subnet: "10.0.0.128/25", Exclude: []string{"10.0.0.200"}})
			s.PreAllocations = map[string]string{"host-a": "10.0.0.5"}
		}), "", ""},
		{"bad name", base(func(s *IPPoolSpec) { s.Name = "Rack_1" }), "name", `"Rack_1" is not a pool name`},
		{"start after end", base(func(s *IPPoolSpec) { s.Ranges[0].End = "10.0.0.5" }), "ranges[0].end", "end 10.0.0.5 is before start 10.0.0.10"},
		{"end outside the prefix", base(func(s *IPPoolSpec) { s.Ranges[0].End = "10.0.1.5" }), "ranges[0].end",
			"end 10.0.1.5 is outside the pool's network 10.0.0.0/24 (prefix 24 of ranges[0].start 10.0.0.10)"},
		{"gateway outside the prefix", base(func(s *IPPoolSpec) { s.Gateway = "10.0.1.1" }), "gateway",
			"gateway 10.0.1.1 is outside the pool's network 10.0.0.0/24"},
		{"overlapping ranges", base(func(s *IPPoolSpec) {
			s.Ranges = append(s.Ranges, IPRange{Start: "10.0.0.15", End: "10.0.0.30"})
		}), "ranges[1]", "range 10.0.0.15-10.0.0.30 overlaps ranges[0] (10.0.0.10-10.0.0.20)"},
		{"v4 and v6 in one range", base(func(s *IPPoolSpec) { s.Ranges[0].End = "fd00::20" }), "ranges[0].end",
			"start 10.0.0.10 is IPv4 but end fd00::20 is IPv6"},
		{"v6 range in a v4 pool", base(func(s *IPPoolSpec) {
			s.Ranges = append(s.Ranges, IPRange{Start: "fd00::1", End: "fd00::2"})
		}), "ranges[1].start", "start fd00::1 is IPv6 but the pool is IPv4"},
		{"prefix too long for v4", base(func(s *IPPoolSpec) { s.Prefix = 64 }), "prefix", "prefix 64 is out of range for an IPv4 pool (1-32"},
		{"not an address", base(func(s *IPPoolSpec) { s.Ranges[0].Start = "10.0.0.300" }), "ranges[0].start", `"10.0.0.300" is not an IP address`},
		{"start and subnet", base(func(s *IPPoolSpec) { s.Ranges[0].Subnet = "10.0.0.0/28" }), "ranges[0].subnet", "set either subnet"},
		{"subnet larger than the network", base(func(s *IPPoolSpec) { s.Ranges = []IPRange{{Subnet: "10.0.0.0/16"}} }), "ranges[0].subnet",
			"subnet 10.0.0.0/16 is larger than the pool's network 10.0.0.0/24"},
		{"exclusion outside its range", base(func(s *IPPoolSpec) { s.Ranges[0].Exclude = []string{"10.0.0.50"} }), "ranges[0].exclude[0]",
			"exclusion 10.0.0.50 is not in the range 10.0.0.10-10.0.0.20"},
		{"DNS server not an address", base(func(s *IPPoolSpec) { s.DNSServers = []string{"dns.local"} }), "dns_servers[0]", `"dns.local" is not an IP address`},
		{"pre-allocation outside", base(func(s *IPPoolSpec) { s.PreAllocations = map[string]string{"h": "10.9.0.1"} }), `pre_allocations["h"]`,
			"pre-allocated address 10.9.0.1 is outside"},
		{"pre-allocation twice", base(func(s *IPPoolSpec) { s.PreAllocations = map[string]string{"a": "10.0.0.12", "b": "10.0.0.12"} }),
			`pre_allocations["b"]`, `address 10.0.0.12 is pre-allocated to "a" already`},
		{"no ranges", base(func(s *IPPoolSpec) { s.Ranges = nil }), "ranges", "at least one range"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			probs := CheckPool(c.spec)
			if c.field == "" {
				if len(probs) > 0 {
					t.Fatalf("problems %v", probs)
				}
				return
			}
			for _, p := range probs {
				if p.Field.String() == c.field && strings.Contains(p.Msg, c.want) {
					return
				}
			}
			t.Fatalf("problems %v; want %s: %s", probs, c.field, c.want)
		})
	}
}

func TestPoolSize(t *testing.T) {
	for _, c := range []struct {
		spec IPPoolSpec
		want string
	}{
		{IPPoolSpec{Name: "a", Prefix: 24, Gateway: "10.0.0.1", Ranges: []IPRange{{Subnet: "10.0.0.0/24"}}}, "253"},
		{IPPoolSpec{Name: "b", Prefix: 24, Ranges: []IPRange{{Start: "10.0.0.1", End: "10.0.0.5", Exclude: []string{"10.0.0.2/31"}}}}, "3"},
		{IPPoolSpec{Name: "c", Prefix: 64, Gateway: "fd00::1", Ranges: []IPRange{{Subnet: "fd00::/64"}}}, "18446744073709551614"},
	} {
		p, err := CompilePool(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.Size().String(); got != c.want {
			t.Errorf("%s: size %s, want %s", c.spec.Name, got, c.want)
		}
	}
}

func TestStranded(t *testing.T) {
	recs := []IPAddressRecord{
		{ID: "1", Address: "10.0.0.10", Owner: "a"},
		{ID: "2", Address: "10.0.0.15", Owner: "b"},
		{ID: "3", Address: "10.0.0.5", Owner: "p"},
	}
	spec := IPPoolSpec{Name: "r", Prefix: 24, Ranges: []IPRange{{Start: "10.0.0.10", End: "10.0.0.12"}},
		PreAllocations: map[string]string{"p": "10.0.0.5", "q": "10.0.0.10"}}
	got, err := Stranded(spec, recs)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Owner != "a" || !strings.Contains(got[0].Reason, `pre-allocated to "q"`) ||
		got[1].Owner != "b" || !strings.Contains(got[1].Reason, "no longer in the pool's ranges") {
		t.Fatalf("stranded %+v", got)
	}
}
