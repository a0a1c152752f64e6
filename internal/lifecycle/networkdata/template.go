package networkdata

import (
	"fmt"
	"strings"
)

// This file is the template a caller fills in (links, networks, routes,
// services, as Metal3DataTemplate's networkData) and the error for a NIC
// the host does not have; networkdata.go renders and checks it.

// Template is the networkData part of a Metal3DataTemplate.
type Template struct {
	Links    Links
	Networks Networks
	Services Services
}

// Links are the layer-2 interfaces. Link ids are unique across all three
// kinds; networks, bonds and VLANs refer to links by id.
type Links struct {
	Ethernets []Ethernet
	Bonds     []Bond
	VLANs     []VLAN
}

// Ethernet is a physical (or virtual) interface.
type Ethernet struct {
	// Type is the OpenStack link type: "phy" (the default), "bridge",
	// "dvs", "hw_veb", "hyperv", "ovs", "tap", "vhostuser" or "vif".
	Type string
	// ID is the link id other entries refer to.
	ID string
	// MTU defaults to 1500; it must be 46 to 9000 (CAPM3's limits).
	MTU int
	// MACAddress is a literal MAC address. At most one of MACAddress and
	// FromHostInterface may be set.
	MACAddress string
	// FromHostInterface is the name of an inspected NIC whose MAC is used.
	FromHostInterface string
	// Name optionally renames the interface (rendered as "name"; cloud-init
	// renames the NIC it finds by MAC). An ethernet needs a MAC or a name.
	Name string
}

// Bond is a bonded interface.
type Bond struct {
	ID  string
	MTU int
	// MACAddress or FromHostInterface optionally set the bond's MAC.
	MACAddress        string
	FromHostInterface string
	// Mode is the bonding mode: balance-rr, active-backup, balance-xor,
	// broadcast, balance-tlb, balance-alb or 802.3ad.
	Mode string
	// XmitHashPolicy is optional: layer2, layer2+3, layer3+4, encap2+3,
	// encap3+4 or vlan+srcmac.
	XmitHashPolicy string
	// Miimon is the MII link monitoring interval in milliseconds (nil:
	// unset), rendered as bond_miimon.
	Miimon *int
	// Parameters are further bonding options, rendered as "bond_<key>"
	// (a key that already starts with "bond_" is not prefixed again). They
	// may not override bond_mode, bond_links, bond_xmit_hash_policy or,
	// when Miimon is set, bond_miimon.
	Parameters map[string]any
	// Links are the ids of the member ethernet links.
	Links []string
}

// VLAN is a tagged interface on another link.
type VLAN struct {
	ID  string
	MTU int
	// MACAddress or FromHostInterface optionally set vlan_mac_address.
	MACAddress        string
	FromHostInterface string
	// VLANID is the 802.1Q tag, 1 to 4094.
	VLANID int
	// VLANLink is the id of the ethernet or bond link the VLAN sits on.
	VLANLink string
}

// Networks are the layer-3 configurations, each on one link.
type Networks struct {
	IPv4      []Network
	IPv6      []Network
	IPv4DHCP  []DHCPNetwork
	IPv6DHCP  []DHCPNetwork
	IPv6SLAAC []DHCPNetwork
}

// Network is a statically addressed network.
type Network struct {
	// ID is the network id (unique across all networks).
	ID string
	// Link is the id of the link the network is on.
	Link string
	// Address is the host's address ("10.0.0.5"), or address/prefix
	// ("10.0.0.5/24") when Prefix is zero.
	Address string
	// Prefix is the prefix length (1-32 for IPv4, 1-128 for IPv6).
	Prefix int
	// Gateway is optional. When set, routes without a gateway use it, and
	// a default route (0.0.0.0/0 or ::/0) through it is added unless
	// Routes already has one.
	Gateway string
	Routes  []Route
	// DNS servers of the network, rendered as the network's services
	// (as Nova renders a subnet's DNS servers); none: no services key.
	DNS []string
}

// DHCPNetwork is a network addressed by DHCP (or SLAAC).
type DHCPNetwork struct {
	ID     string
	Link   string
	Routes []Route
}

// Route is a static route. Prefix 0 is the default route.
type Route struct {
	Network string
	Prefix  int
	// Gateway is the next hop; empty means the network's gateway (none for
	// DHCP networks: the key is then omitted).
	Gateway string
	// DNS servers rendered as the route's services.
	DNS []string
}

// Services are global services.
type Services struct {
	DNS []string
}

// MissingNICError is returned (inside the joined error) when a link takes
// its MAC from a NIC the host does not have. CAPM3 retries in that case:
// the template may be right and the inspection data stale or missing.
type MissingNICError struct {
	// Link is the id of the link that names the NIC.
	Link string
	// NIC is the missing NIC name.
	NIC string
	// Available are the names of the host's NICs, sorted.
	Available []string
}

func (e *MissingNICError) Error() string {
	if len(e.Available) == 0 {
		return fmt.Sprintf("link %q: the host has no NIC named %q: no NICs are known for the host "+
			"(has it been inspected?)", e.Link, e.NIC)
	}
	return fmt.Sprintf("link %q: the host has no NIC named %q; the host has NICs: %s",
		e.Link, e.NIC, strings.Join(e.Available, ", "))
}
