// lldp.go owns the switch wiring the host's inspection heard over LLDP and
// the ports that take their local_link_connection from it.
package lifecycle

import (
	"context"
	"fmt"
	"net"
	"strings"
)

// LLDPNeighbour is what the switch port a NIC is cabled to announced over
// LLDP, as the last inspection recorded it.
type LLDPNeighbour struct {
	// SwitchChassisID is the switch's chassis id: a MAC address in lower
	// case when the switch sends one (the usual case), else its text.
	SwitchChassisID string
	// SwitchPortID is the switch port's id, e.g. "Ethernet1/12".
	SwitchPortID string
	// SwitchSystemName is the switch's system name (its host name).
	SwitchSystemName string
	// VLANIDs are the VLANs the port announced: the tagged ones (802.1Q
	// VLAN name TLVs) in order, then the untagged port VLAN id.
	VLANIDs []int
}

// LocalLink is the local_link_connection the neighbour gives a port:
// switch_id the chassis MAC, port_id the switch port, switch_info the
// system name. Ironic takes only a MAC (or an OpenFlow datapath id) as
// switch_id, so a chassis id of another kind is an error.
func (n LLDPNeighbour) LocalLink() (*LocalLink, error) {
	if mac, err := net.ParseMAC(n.SwitchChassisID); err != nil || len(mac) != 6 {
		return nil, fmt.Errorf("the switch's LLDP chassis id %q is not a MAC address, and Ironic's local_link_connection.switch_id needs one", n.SwitchChassisID)
	}
	if n.SwitchPortID == "" {
		return nil, fmt.Errorf("the switch (chassis %s) announced no port id over LLDP", n.SwitchChassisID)
	}
	return &LocalLink{SwitchID: strings.ToLower(n.SwitchChassisID), PortID: n.SwitchPortID, SwitchInfo: n.SwitchSystemName}, nil
}

// LLDPReader is the part of a Provisioner that reads the LLDP of the
// host's last inspection; the Ironic provisioner implements it.
type LLDPReader interface {
	// LLDP returns the neighbour of each NIC the last inspection heard one
	// on, by MAC in lower case; inspected is false when Ironic holds no
	// inspection inventory for the host.
	LLDP(ctx context.Context, h *Host) (byMAC map[string]LLDPNeighbour, inspected bool, err error)
}

// ResolveLLDPPorts fills the local_link_connection of each port that takes
// it from LLDP (LocalLinkFromLLDP) with what the last inspection heard on
// that NIC. Errors name the port and say what is missing: an inventory, a
// neighbour on the NIC, or a usable chassis or port id.
func ResolveLLDPPorts(configured []Port, heard map[string]LLDPNeighbour, inspected bool) ([]Port, error) {
	out := make([]Port, 0, len(configured))
	for _, p := range configured {
		if p.LocalLinkFromLLDP {
			link, err := lldpLink(p, heard, inspected)
			if err != nil {
				return nil, err
			}
			p.LocalLinkConnection = link
		}
		out = append(out, p)
	}
	return out, nil
}

func lldpLink(p Port, heard map[string]LLDPNeighbour, inspected bool) (*LocalLink, error) {
	const what = "local_link_connection_from_lldp"
	switch {
	case p.LocalLinkConnection != nil:
		return nil, fmt.Errorf("port %s: %s and local_link_connection are both set; keep one", p.MAC, what)
	case !inspected:
		return nil, fmt.Errorf("port %s: %s needs the host's inspection inventory, and Ironic holds none "+
			"(in-band inspection by an agent that collects LLDP stores one)", p.MAC, what)
	}
	n, ok := heard[strings.ToLower(p.MAC)]
	if !ok {
		return nil, fmt.Errorf("port %s: %s is set, but the last inspection heard no LLDP from a switch on that NIC "+
			"(check its cabling and the switch's LLDP, then inspect again, or set local_link_connection by hand)", p.MAC, what)
	}
	link, err := n.LocalLink()
	if err != nil {
		return nil, fmt.Errorf("port %s: %s: %w", p.MAC, what, err)
	}
	return link, nil
}

// resolveLLDPPorts is ResolveLLDPPorts with the provisioner's LLDP, read
// only when a port asks for it.
func (m *Machine) resolveLLDPPorts(ctx context.Context, h *Host, configured []Port) ([]Port, error) {
	heard, inspected, asked, err := m.lldpFor(ctx, h, configured)
	if err != nil || !asked {
		return configured, err
	}
	return ResolveLLDPPorts(configured, heard, inspected)
}

// LLDPLinks is, for each configured port that takes its
// local_link_connection from LLDP, the one the last inspection gives it
// (nil when it heard no usable neighbour on the NIC), by MAC in lower
// case: what Read compares Ironic's port with. inspected is false when
// there is nothing to compare with (no inventory, or no port asks).
func (m *Machine) LLDPLinks(ctx context.Context, h *Host, configured []Port) (links map[string]*LocalLink, inspected bool, err error) {
	heard, inspected, asked, err := m.lldpFor(ctx, h, configured)
	if err != nil || !asked || !inspected {
		return nil, false, err
	}
	links = map[string]*LocalLink{}
	for _, p := range configured {
		if !p.LocalLinkFromLLDP {
			continue
		}
		mac := strings.ToLower(p.MAC)
		links[mac] = nil
		if n, ok := heard[mac]; ok {
			if l, err := n.LocalLink(); err == nil {
				links[mac] = l
			}
		}
	}
	return links, true, nil
}

// lldpFor reads the host's LLDP when a configured port takes its link from
// it (asked); a provisioner without LLDP reads as not inspected.
func (m *Machine) lldpFor(ctx context.Context, h *Host, configured []Port) (heard map[string]LLDPNeighbour, inspected, asked bool, err error) {
	for _, p := range configured {
		asked = asked || p.LocalLinkFromLLDP
	}
	if !asked {
		return nil, false, false, nil
	}
	r, ok := m.Prov.(LLDPReader)
	if !ok {
		return nil, false, true, nil
	}
	heard, inspected, err = r.LLDP(ctx, h)
	if err != nil {
		return nil, false, true, fmt.Errorf("reading the LLDP of the last inspection: %w", err)
	}
	return heard, inspected, true, nil
}
