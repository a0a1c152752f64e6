package networkdata

import (
	"strings"
	"testing"
)

// A network's own DNS servers (from an IP pool or claim) are rendered as
// the network's services, as Nova renders a subnet's.
func TestRenderNetworkDNS(t *testing.T) {
	tmpl := Template{
		Links: Links{Ethernets: []Ethernet{{ID: "eno1", FromHostInterface: "eno1"}}},
		Networks: Networks{IPv4: []Network{{
			ID: "pool", Link: "eno1", Address: "10.0.0.10", Prefix: 24, Gateway: "10.0.0.1", DNS: []string{"10.0.0.53", "fd00::53"},
		}}},
	}
	assertJSON(t, tmpl, hostNICs, `{
	  "links": [{"id": "eno1", "type": "phy", "mtu": 1500, "ethernet_mac_address": "0c:c4:7a:00:00:01"}],
	  "networks": [
	    {"id": "pool", "type": "ipv4", "link": "eno1", "ip_address": "10.0.0.10", "netmask": "255.255.255.0",
	     "routes": [{"network": "0.0.0.0", "netmask": "0.0.0.0", "gateway": "10.0.0.1", "services": []}],
	     "services": [{"type": "dns", "address": "10.0.0.53"}, {"type": "dns", "address": "fd00::53"}]}
	  ],
	  "services": []
	}`)
	tmpl.Networks.IPv4[0].DNS = []string{"resolver"}
	if _, err := RenderJSON(tmpl, hostNICs); err == nil || !strings.Contains(err.Error(), `network "pool": DNS server "resolver" is not an IP address`) {
		t.Fatalf("bad DNS server: %v", err)
	}
}
