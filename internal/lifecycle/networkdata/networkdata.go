// Package networkdata renders OpenStack network_data.json from a
// Metal3DataTemplate-like description of links, networks and services, the
// way CAPM3's renderNetworkData does (cluster-api-provider-metal3
// baremetal/metal3data_manager.go). Static addresses are given literally
// here (CAPM3 takes them from IP pools); MAC addresses are given literally
// or looked up by NIC name in the host's inspected NICs.
package networkdata

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"regexp"
	"sort"
	"strings"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

const defaultMTU = 1500

var (
	// macRE is CAPM3's MAC check.
	macRE = regexp.MustCompile(`^([0-9A-Fa-f]{2}[:-]){5}([0-9A-Fa-f]{2})$`)

	ethernetTypes = []string{"bridge", "dvs", "hw_veb", "hyperv", "ovs", "phy", "tap", "vhostuser", "vif"}
	bondModes     = []string{"balance-rr", "active-backup", "balance-xor", "broadcast",
		"balance-tlb", "balance-alb", "802.3ad"}
	xmitHashPolicies = []string{"layer2", "layer2+3", "layer3+4", "encap2+3", "encap3+4", "vlan+srcmac"}
)

// renderer carries the state of one Render call.
type renderer struct {
	nics []lifecycle.NIC
	// anyNIC accepts every FromHostInterface name (Check: the host's NICs
	// are not known yet).
	anyNIC bool
	errs   []error
	kinds  map[string]string // link id -> "ethernet", "bond" or "vlan"
}

func (r *renderer) fail(format string, args ...any) {
	r.errs = append(r.errs, fmt.Errorf(format, args...))
}

// Render renders network_data.json as a JSON-ready object with "links",
// "networks" and "services" (each always present). Links come in CAPM3's
// order: bonds, then ethernets, then VLANs. nics are the host's inspected
// NICs, used for FromHostInterface. All problems are reported at once,
// joined; a missing NIC is a *MissingNICError (use errors.As).
func Render(t Template, nics []lifecycle.NIC) (map[string]any, error) {
	return render(t, nics, false)
}

func render(t Template, nics []lifecycle.NIC, anyNIC bool) (map[string]any, error) {
	r := &renderer{nics: nics, anyNIC: anyNIC, kinds: map[string]string{}}
	r.collectLinkIDs(t.Links)
	links := r.links(t.Links)
	networks := r.networks(t.Networks)
	services := make([]any, 0, len(t.Services.DNS))
	for _, dns := range t.Services.DNS {
		if _, err := netip.ParseAddr(dns); err != nil {
			r.fail("services: DNS server %q is not an IP address", dns)
			continue
		}
		services = append(services, dnsService(dns))
	}
	if len(r.errs) > 0 {
		return nil, errors.Join(r.errs...)
	}
	return map[string]any{
		"links":    links,
		"networks": networks,
		"services": services,
	}, nil
}

// Check reports every problem Render would, except NIC names: it needs no
// host, so a configuration can be checked before the host is inspected
// (at terraform validate). nil when the template is sound.
func Check(t Template) error {
	_, err := render(t, nil, true)
	return err
}

// RenderJSON is Render marshalled to JSON (object keys sorted, so the
// output is deterministic).
func RenderJSON(t Template, nics []lifecycle.NIC) ([]byte, error) {
	doc, err := Render(t, nics)
	if err != nil {
		return nil, err
	}
	return json.Marshal(doc)
}

func dnsService(addr string) map[string]any {
	return map[string]any{"type": "dns", "address": addr}
}

func (r *renderer) collectLinkIDs(l Links) {
	add := func(id, kind string) {
		switch {
		case id == "":
			r.fail("%s link has an empty id", article(kind))
		case r.kinds[id] != "":
			r.fail("duplicate link id %q: %s link reuses the id of %s link", id, article(kind), article(r.kinds[id]))
		default:
			r.kinds[id] = kind
		}
	}
	for _, e := range l.Ethernets {
		add(e.ID, "ethernet")
	}
	for _, b := range l.Bonds {
		add(b.ID, "bond")
	}
	for _, v := range l.VLANs {
		add(v.ID, "vlan")
	}
}

func (r *renderer) linkIDs(kinds ...string) []string {
	var ids []string
	for id, k := range r.kinds {
		for _, want := range kinds {
			if k == want {
				ids = append(ids, id)
			}
		}
	}
	sort.Strings(ids)
	if len(ids) == 0 {
		return []string{"none"}
	}
	return ids
}

func (r *renderer) mtu(link string, mtu int) int {
	if mtu == 0 {
		return defaultMTU
	}
	if mtu < 46 || mtu > 9000 {
		r.fail("link %q: MTU %d is out of range (46-9000)", link, mtu)
	}
	return mtu
}

// mac resolves a link's MAC address: literal, from a host NIC, or none ("").
func (r *renderer) mac(link, literal, fromNIC string) string {
	switch {
	case literal != "" && fromNIC != "":
		r.fail("link %q: set either a MAC address or a host interface, not both", link)
		return ""
	case literal != "":
		if !macRE.MatchString(literal) {
			r.fail("link %q: malformed MAC address %q (want six hex pairs, e.g. 52:54:00:12:34:56)", link, literal)
		}
		return literal
	case fromNIC != "" && r.anyNIC:
		return ""
	case fromNIC != "":
		names := make([]string, 0, len(r.nics))
		for _, n := range r.nics {
			if n.Name == fromNIC {
				if !macRE.MatchString(n.MAC) {
					r.fail("link %q: host NIC %q has a malformed MAC address %q", link, fromNIC, n.MAC)
				}
				return n.MAC
			}
			names = append(names, n.Name)
		}
		sort.Strings(names)
		r.errs = append(r.errs, &MissingNICError{Link: link, NIC: fromNIC, Available: names})
	}
	return ""
}

func (r *renderer) links(l Links) []any {
	out := []any{}

	memberOf := map[string]string{}
	for _, b := range l.Bonds {
		entry := map[string]any{
			"id":   b.ID,
			"type": "bond",
			"mtu":  r.mtu(b.ID, b.MTU),
		}
		if mac := r.mac(b.ID, b.MACAddress, b.FromHostInterface); mac != "" {
			entry["ethernet_mac_address"] = mac
		}
		if !contains(bondModes, b.Mode) {
			r.fail("bond %q: unknown bond mode %q (want one of %s)", b.ID, b.Mode, strings.Join(bondModes, ", "))
		}
		entry["bond_mode"] = b.Mode
		if b.XmitHashPolicy != "" {
			if !contains(xmitHashPolicies, b.XmitHashPolicy) {
				r.fail("bond %q: unknown transmit hash policy %q (want one of %s)",
					b.ID, b.XmitHashPolicy, strings.Join(xmitHashPolicies, ", "))
			}
			entry["bond_xmit_hash_policy"] = b.XmitHashPolicy
		}
		if b.Miimon != nil {
			if *b.Miimon < 0 {
				r.fail("bond %q: miimon %d is negative", b.ID, *b.Miimon)
			}
			entry["bond_miimon"] = *b.Miimon
		}
		if len(b.Links) == 0 {
			r.fail("bond %q has no member links", b.ID)
		}
		members := make([]any, 0, len(b.Links))
		seen := map[string]bool{}
		for _, m := range b.Links {
			switch {
			case r.kinds[m] != "ethernet":
				r.fail("bond %q: member %q is not an ethernet link (ethernet links: %s)",
					b.ID, m, strings.Join(r.linkIDs("ethernet"), ", "))
			case seen[m]:
				r.fail("bond %q lists member %q twice", b.ID, m)
			case memberOf[m] != "" && memberOf[m] != b.ID:
				r.fail("link %q is a member of two bonds: %q and %q", m, memberOf[m], b.ID)
			}
			seen[m] = true
			if memberOf[m] == "" {
				memberOf[m] = b.ID
			}
			members = append(members, m)
		}
		entry["bond_links"] = members
		keys := make([]string, 0, len(b.Parameters))
		for k := range b.Parameters {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			target := k
			if !strings.HasPrefix(target, "bond_") {
				target = "bond_" + k
			}
			if target == "bond_mode" || target == "bond_links" || target == "bond_xmit_hash_policy" || target == "bond_miimon" && b.Miimon != nil {
				r.fail("bond %q: parameter %q would override %s; use the structured field", b.ID, k, target)
				continue
			}
			entry[target] = b.Parameters[k]
		}
		out = append(out, entry)
	}

	for _, e := range l.Ethernets {
		typ := e.Type
		if typ == "" {
			typ = "phy"
		}
		if !contains(ethernetTypes, typ) {
			r.fail("ethernet %q: unknown link type %q (want one of %s)", e.ID, typ, strings.Join(ethernetTypes, ", "))
		}
		entry := map[string]any{
			"id":   e.ID,
			"type": typ,
			"mtu":  r.mtu(e.ID, e.MTU),
		}
		if e.MACAddress == "" && e.FromHostInterface == "" && e.Name == "" {
			r.fail("ethernet %q needs a MAC address, a host interface or a name", e.ID)
		}
		if mac := r.mac(e.ID, e.MACAddress, e.FromHostInterface); mac != "" {
			entry["ethernet_mac_address"] = mac
		}
		if e.Name != "" {
			entry["name"] = e.Name
		}
		out = append(out, entry)
	}

	for _, v := range l.VLANs {
		entry := map[string]any{
			"id":        v.ID,
			"type":      "vlan",
			"mtu":       r.mtu(v.ID, v.MTU),
			"vlan_id":   v.VLANID,
			"vlan_link": v.VLANLink,
		}
		if mac := r.mac(v.ID, v.MACAddress, v.FromHostInterface); mac != "" {
			entry["vlan_mac_address"] = mac
		}
		if v.VLANID < 1 || v.VLANID > 4094 {
			r.fail("vlan %q: VLAN id %d is out of range (1-4094)", v.ID, v.VLANID)
		}
		if k := r.kinds[v.VLANLink]; k != "ethernet" && k != "bond" {
			r.fail("vlan %q: vlan link %q is not an ethernet or bond link (candidates: %s)",
				v.ID, v.VLANLink, strings.Join(r.linkIDs("ethernet", "bond"), ", "))
		}
		out = append(out, entry)
	}
	return out
}

func (r *renderer) networks(n Networks) []any {
	out := []any{}
	ids := map[string]bool{}
	header := func(id, link, typ string) map[string]any {
		switch {
		case id == "":
			r.fail("an %s network has an empty id", typ)
		case ids[id]:
			r.fail("duplicate network id %q", id)
		}
		ids[id] = true
		if r.kinds[link] == "" {
			r.fail("network %q: link %q matches no link id (links: %s)",
				id, link, strings.Join(r.linkIDs("ethernet", "bond", "vlan"), ", "))
		}
		return map[string]any{"id": id, "type": typ, "link": link}
	}

	static := func(nets []Network, v6 bool) {
		typ := "ipv4"
		if v6 {
			typ = "ipv6"
		}
		for _, nw := range nets {
			entry := header(nw.ID, nw.Link, typ)
			addr, prefix := r.address(nw, v6)
			entry["ip_address"] = addr
			entry["netmask"] = netmask(prefix, v6)
			gw := ""
			if nw.Gateway != "" {
				gw = r.ip(nw.ID, "gateway", nw.Gateway, v6)
				r.onLink(nw.ID, addr, prefix, gw, v6)
			}
			routes := nw.Routes
			if gw != "" && !hasDefaultRoute(routes) {
				def := "0.0.0.0"
				if v6 {
					def = "::"
				}
				routes = append(append([]Route(nil), routes...), Route{Network: def, Gateway: gw})
			}
			entry["routes"] = r.routes(nw.ID, routes, gw, v6)
			if len(nw.DNS) > 0 {
				services := make([]any, 0, len(nw.DNS))
				for _, dns := range nw.DNS {
					if _, err := netip.ParseAddr(dns); err != nil {
						r.fail("network %q: DNS server %q is not an IP address", nw.ID, dns)
						continue
					}
					services = append(services, dnsService(dns))
				}
				entry["services"] = services
			}
			out = append(out, entry)
		}
	}
	dynamic := func(nets []DHCPNetwork, typ string, v6 bool) {
		for _, nw := range nets {
			entry := header(nw.ID, nw.Link, typ)
			entry["routes"] = r.routes(nw.ID, nw.Routes, "", v6)
			out = append(out, entry)
		}
	}

	static(n.IPv4, false)
	static(n.IPv6, true)
	dynamic(n.IPv4DHCP, "ipv4_dhcp", false)
	dynamic(n.IPv6DHCP, "ipv6_dhcp", true)
	dynamic(n.IPv6SLAAC, "ipv6_slaac", true)
	return out
}

func hasDefaultRoute(routes []Route) bool {
	for _, rt := range routes {
		if rt.Prefix == 0 {
			return true
		}
	}
	return false
}

func family(v6 bool) string {
	if v6 {
		return "IPv6"
	}
	return "IPv4"
}

func maxPrefix(v6 bool) int {
	if v6 {
		return 128
	}
	return 32
}

// ip parses an address of the network's family and returns it in canonical
// form ("" when invalid, after recording the error).
func (r *renderer) ip(network, what, s string, v6 bool) string {
	a, err := netip.ParseAddr(s)
	if err != nil || a.Zone() != "" || a.Is6() != v6 {
		r.fail("network %q: %s %q is not an %s address", network, what, s, family(v6))
		return ""
	}
	return a.String()
}

// address returns a static network's address and prefix length.
func (r *renderer) address(nw Network, v6 bool) (string, int) {
	addr, prefix := nw.Address, nw.Prefix
	if a, p, ok := strings.Cut(addr, "/"); ok {
		pfx, err := netip.ParsePrefix(addr)
		switch {
		case err != nil:
			r.fail("network %q: address %q is not an %s address/prefix", nw.ID, addr, family(v6))
			return "", prefix
		case prefix != 0 && prefix != pfx.Bits():
			r.fail("network %q: address %q has prefix /%s but the prefix is %d", nw.ID, addr, p, prefix)
		}
		addr, prefix = a, pfx.Bits()
	}
	out := r.ip(nw.ID, "address", addr, v6)
	if prefix < 1 || prefix > maxPrefix(v6) {
		r.fail("network %q: prefix %d is out of range (1-%d)", nw.ID, prefix, maxPrefix(v6))
	}
	return out, prefix
}

// onLink checks that a network's gateway is inside its subnet (a host
// cannot reach a gateway off its link).
func (r *renderer) onLink(network, addr string, prefix int, gw string, v6 bool) {
	if addr == "" || gw == "" || prefix < 1 || prefix > maxPrefix(v6) {
		return // reported already
	}
	subnet := netip.PrefixFrom(netip.MustParseAddr(addr), prefix).Masked()
	if !subnet.Contains(netip.MustParseAddr(gw)) {
		r.fail("network %q: gateway %q is outside the subnet %s of address %s/%d", network, gw, subnet, addr, prefix)
	}
}

// netmask renders a prefix as CAPM3's translateMask does: dotted for IPv4,
// an IPv6 address for IPv6 ("ffff:ffff:ffff:ffff::" for /64).
func netmask(prefix int, v6 bool) string {
	if prefix < 0 || prefix > maxPrefix(v6) {
		return ""
	}
	return net.IP(net.CIDRMask(prefix, maxPrefix(v6))).String()
}

func (r *renderer) routes(network string, routes []Route, defaultGateway string, v6 bool) []any {
	out := make([]any, 0, len(routes))
	for _, rt := range routes {
		dest := r.ip(network, "route network", rt.Network, v6)
		if rt.Prefix < 0 || rt.Prefix > maxPrefix(v6) {
			r.fail("network %q: route %s/%d: prefix is out of range (0-%d)", network, rt.Network, rt.Prefix, maxPrefix(v6))
		}
		entry := map[string]any{
			"network": dest,
			"netmask": netmask(rt.Prefix, v6),
		}
		gw := defaultGateway
		if rt.Gateway != "" {
			gw = r.ip(network, "route gateway", rt.Gateway, v6)
		}
		if gw != "" {
			entry["gateway"] = gw
		}
		services := make([]any, 0, len(rt.DNS))
		for _, dns := range rt.DNS {
			if _, err := netip.ParseAddr(dns); err != nil {
				r.fail("network %q: route %s/%d: DNS server %q is not an IP address", network, rt.Network, rt.Prefix, dns)
				continue
			}
			services = append(services, dnsService(dns))
		}
		entry["services"] = services
		out = append(out, entry)
	}
	return out
}

func article(kind string) string {
	if kind == "ethernet" {
		return "an " + kind
	}
	return "a " + kind
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
