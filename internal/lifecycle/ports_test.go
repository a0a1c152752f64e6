package lifecycle

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestDesiredPorts(t *testing.T) {
	pxe := true
	for _, tc := range []struct {
		name       string
		nics       []string
		configured []Port
		want       string // MAC:managed, sorted
		err        string
	}{
		{name: "nothing", want: ""},
		{name: "inspected NICs become ports", nics: []string{"52:54:00:00:00:02", "52:54:00:00:00:01"},
			want: "52:54:00:00:00:01:-,52:54:00:00:00:02:-"},
		{name: "configured settings win over the inspected NIC, MACs without case",
			nics:       []string{"52:54:00:00:00:01", "52:54:00:00:00:02"},
			configured: []Port{{MAC: "52:54:00:00:00:0A"}, {MAC: "52:54:00:00:00:01", PXEEnabled: &pxe}},
			want:       "52:54:00:00:00:01:pxe,52:54:00:00:00:02:-,52:54:00:00:00:0a:-"},
		{name: "NICs read from the ports add nothing", nics: []string{"ports", "52:54:00:00:00:01"}, want: ""},
		{name: "a MAC configured twice", configured: []Port{{MAC: "52:54:00:00:00:01"}, {MAC: "52:54:00:00:00:01"}},
			err: "port 52:54:00:00:00:01 is configured twice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHost(StateAvailable)
			if tc.nics != nil {
				h.Status.HardwareDetails = &HardwareDetails{}
				for _, m := range tc.nics {
					if m == "ports" {
						h.Status.HardwareDetails.NICsArePorts = true
						continue
					}
					h.Status.HardwareDetails.NICs = append(h.Status.HardwareDetails.NICs, NIC{MAC: m})
				}
			}
			got, err := DesiredPorts(h, tc.configured)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			var parts []string
			for _, p := range got {
				flag := "-"
				if p.PXEEnabled != nil {
					flag = "pxe"
				}
				parts = append(parts, p.MAC+":"+flag)
			}
			if s := strings.Join(parts, ","); s != tc.want {
				t.Errorf("got %s, want %s", s, tc.want)
			}
		})
	}
}

// portProv is fakeProv with Ironic's ports (SyncPorts answers from its
// script), and, as lldpProv, the LLDP of the last inspection.
type portProv struct {
	*fakeProv
	current  []Port
	portsErr error
	synced   [][]Port
}

func (p *portProv) Ports(context.Context, *Host) ([]Port, error) {
	p.next(provCall{Method: "Ports"})
	return p.current, p.portsErr
}

func (p *portProv) SyncPorts(_ context.Context, h *Host, want []Port) (Result, error) {
	p.synced = append(p.synced, want)
	return p.call(provCall{Method: "SyncPorts", Host: h.Spec.Name})
}

type lldpProv struct {
	*portProv
	heard     map[string]LLDPNeighbour
	inspected bool
	err       error
}

func (p *lldpProv) LLDP(context.Context, *Host) (map[string]LLDPNeighbour, bool, error) {
	p.next(provCall{Method: "LLDP"})
	return p.heard, p.inspected, p.err
}

var (
	nic1     = "52:54:00:00:00:01"
	leaf     = LLDPNeighbour{SwitchChassisID: "64:64:9B:31:12:00", SwitchPortID: "Ethernet1/3", SwitchSystemName: "leaf-1"}
	leafLink = "64:64:9b:31:12:00/Ethernet1/3/leaf-1"
	fromLLDP = []Port{{MAC: nic1, LocalLinkFromLLDP: true}}
)

// portEnv is a Machine over prov ("ports": portProv, "lldp": lldpProv that
// heard leaf on nic1, "lldp none": lldpProv without inventory, "": plain
// fakeProv) and a host whose inspection found nic1.
func portEnv(kind string, replies ...provReply) (*testEnv, *portProv, *Host) {
	e := newEnv()
	pp := &portProv{fakeProv: e.prov}
	switch kind {
	case "ports":
		e.m.Prov = pp
	case "lldp", "lldp none", "lldp fails":
		lp := &lldpProv{portProv: pp, heard: map[string]LLDPNeighbour{nic1: leaf}, inspected: kind == "lldp"}
		if kind == "lldp fails" {
			lp.err = errors.New("HTTP 503")
		}
		e.m.Prov = lp
	}
	e.prov.on("SyncPorts", replies...)
	h := newHost(StateAvailable)
	h.Status.HardwareDetails = &HardwareDetails{NICs: []NIC{{MAC: strings.ToUpper(nic1)}}}
	return e, pp, h
}

func linkString(l *LocalLink) string {
	if l == nil {
		return "-"
	}
	return l.SwitchID + "/" + l.PortID + "/" + l.SwitchInfo
}

// SyncPorts sends the desired ports (LLDP links resolved) until Ironic is
// done, waiting as it asks, and fails with what went wrong.
func TestSyncPorts(t *testing.T) {
	dirty := func(d time.Duration) provReply { return provReply{res: Result{Dirty: true, RequeueAfter: d}} }
	always := make([]provReply, maxPortRounds)
	for i := range always {
		always[i] = dirty(0)
	}
	for _, c := range []struct {
		name       string
		prov       string
		configured []Port
		noNICs     bool
		replies    []provReply
		deadline   time.Duration
		want       string // a part of the error
		syncs      int
		waits      string
		link       string // of the port sent
	}{
		{name: "no port manager", prov: ""},
		{name: "nothing to send", prov: "ports", noNICs: true},
		{name: "done at once", prov: "ports", syncs: 1, link: "-"},
		{name: "busy, then done", prov: "ports", replies: []provReply{dirty(2 * time.Second), dirty(0)}, syncs: 3, waits: "[2s]", link: "-"},
		{name: "fails", prov: "ports", replies: []provReply{{err: errors.New("HTTP 409")}}, syncs: 1, want: "setting the ports: HTTP 409"},
		{name: "refused", prov: "ports", replies: []provReply{{res: Result{ErrorMessage: "MAC in use"}}}, syncs: 1, want: "setting the ports: MAC in use"},
		{name: "never done", prov: "ports", replies: always, syncs: maxPortRounds, want: "setting the ports: still changing after 100 rounds"},
		{name: "out of time", prov: "ports", replies: []provReply{dirty(time.Minute)}, deadline: time.Second, syncs: 1, waits: "[1m0s]",
			want: "context deadline exceeded"},
		{name: "configured twice", prov: "ports", configured: []Port{{MAC: nic1}, {MAC: strings.ToUpper(nic1)}},
			want: "port 52:54:00:00:00:01 is configured twice"},
		{name: "link from LLDP", prov: "lldp", configured: fromLLDP, syncs: 1, link: leafLink},
		{name: "LLDP without inventory", prov: "lldp none", configured: fromLLDP, want: "needs the host's inspection inventory"},
		{name: "LLDP unreadable", prov: "lldp fails", configured: fromLLDP, want: "reading the LLDP of the last inspection: HTTP 503"},
		{name: "no LLDP reader", prov: "ports", configured: fromLLDP, want: "needs the host's inspection inventory"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e, pp, h := portEnv(c.prov, c.replies...)
			if c.noNICs {
				h.Status.HardwareDetails = nil
			}
			if c.deadline > 0 {
				e.wait.deadline = testEpoch.Add(c.deadline)
			}
			err := e.m.SyncPorts(ctxBG, h, c.configured)
			if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
				t.Fatalf("err %v, want %q", err, c.want)
			}
			var he *HostError
			if err != nil && (!errors.As(err, &he) || he.Host != "host-0") {
				t.Errorf("err %T, want a *HostError naming the host", err)
			}
			if len(pp.synced) != c.syncs || fmt.Sprint(e.wait.waits) != cmp.Or(c.waits, "[]") {
				t.Fatalf("syncs %d, waits %v", len(pp.synced), e.wait.waits)
			}
			if c.link != "" && (len(pp.synced[0]) != 1 || pp.synced[0][0].MAC != nic1 || linkString(pp.synced[0][0].LocalLinkConnection) != c.link) {
				t.Errorf("sent %+v, want %s with link %s", pp.synced[0], nic1, c.link)
			}
		})
	}
}

// ObservePorts reads Ironic's ports, when the provisioner has them.
func TestObservePorts(t *testing.T) {
	e, pp, h := portEnv("ports")
	pp.current = []Port{{MAC: nic1}}
	if ps, err := e.m.ObservePorts(ctxBG, h); err != nil || len(ps) != 1 {
		t.Errorf("ports %v, %v", ps, err)
	}
	pp.portsErr = errors.New("HTTP 500")
	if _, err := e.m.ObservePorts(ctxBG, h); err == nil || !strings.Contains(err.Error(), `host "host-0" (node node-1): state "available": reading the ports: HTTP 500`) {
		t.Errorf("unreadable: %v", err)
	}
	e, _, h = portEnv("")
	if ps, err := e.m.ObservePorts(ctxBG, h); ps != nil || err != nil || e.prov.methods() != "" {
		t.Errorf("no port manager: %v %v, calls %s", ps, err, e.prov.methods())
	}
}

// LLDPLinks is the link each LLDP port gets from the last inspection (nil
// when nothing usable was heard on its NIC), read only when a port asks.
func TestLLDPLinks(t *testing.T) {
	other, bad := "52:54:00:00:00:02", "52:54:00:00:00:03"
	configured := []Port{{MAC: strings.ToUpper(nic1), LocalLinkFromLLDP: true}, {MAC: other, LocalLinkFromLLDP: true},
		{MAC: bad, LocalLinkFromLLDP: true}, {MAC: "52:54:00:00:00:04"}}
	for _, c := range []struct {
		prov       string
		configured []Port
		want       string
		inspected  bool
		err        string
		calls      string
	}{
		{prov: "lldp", configured: configured, inspected: true, calls: "LLDP",
			want: "52:54:00:00:00:01=" + leafLink + " 52:54:00:00:00:02=- 52:54:00:00:00:03=-"},
		{prov: "lldp", configured: []Port{{MAC: nic1}}, calls: ""},
		{prov: "lldp none", configured: configured, calls: "LLDP"},
		{prov: "lldp fails", configured: configured, calls: "LLDP", err: "reading the LLDP of the last inspection: HTTP 503"},
		{prov: "ports", configured: configured, calls: ""},
	} {
		t.Run(c.prov+" "+c.calls, func(t *testing.T) {
			e, _, h := portEnv(c.prov)
			if lp, ok := e.m.Prov.(*lldpProv); ok {
				lp.heard[bad] = LLDPNeighbour{SwitchChassisID: "leaf-3", SwitchPortID: "1"}
			}
			links, inspected, err := e.m.LLDPLinks(ctxBG, h, c.configured)
			if (err == nil) != (c.err == "") || (err != nil && !strings.Contains(err.Error(), c.err)) {
				t.Fatalf("err %v, want %q", err, c.err)
			}
			var got []string
			for _, mac := range slices.Sorted(maps.Keys(links)) {
				got = append(got, mac+"="+linkString(links[mac]))
			}
			if strings.Join(got, " ") != c.want || inspected != c.inspected || e.prov.methods() != c.calls {
				t.Errorf("links %v, inspected %v, calls %q", got, inspected, e.prov.methods())
			}
		})
	}
}
