// lldp.go owns the simulated switch wiring of a system's NICs: which
// switch port each NIC is cabled to, and the LLDP that port announces, as
// the agent reports it in its inventory (IPA's `interfaces[].lldp` when
// the ramdisk collects LLDP: [TLV type, hex-encoded value] pairs, the
// value without the TLV header). Tests re-cable a NIC between inspections.
package agent

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"net"
	"strings"
	"sync"
)

// SwitchPort is the switch port a NIC is cabled to, as it announces itself
// over LLDP.
type SwitchPort struct {
	// ChassisMAC is the switch's chassis id (subtype 4, MAC address).
	ChassisMAC string
	// PortID is the port's id (subtype 5, interface name), e.g.
	// "Ethernet1/12".
	PortID string
	// SystemName is the switch's system name; "" sends none.
	SystemName string
	// PortVLAN is the port's untagged VLAN (IEEE 802.1 port VLAN id TLV);
	// 0 sends none.
	PortVLAN int
	// VLANs are the VLANs on the port (one IEEE 802.1 VLAN name TLV each).
	VLANs []VLAN
}

// VLAN is one VLAN a switch port carries.
type VLAN struct {
	ID   int
	Name string
}

// LLDP TLV types (IEEE 802.1AB) the switch sends.
const (
	tlvEnd         = 0
	tlvChassisID   = 1
	tlvPortID      = 2
	tlvTTL         = 3
	tlvSystemName  = 5
	tlvOrgSpecific = 127
)

// TLVs is the LLDPDU the port sends, as IPA reports it: chassis id, port
// id, TTL, system name, the IEEE 802.1 port VLAN id and VLAN names, and
// the end TLV, each as [type, hex value].
func (p SwitchPort) TLVs() ([][2]any, error) {
	mac, err := net.ParseMAC(p.ChassisMAC)
	if err != nil || len(mac) != 6 {
		return nil, fmt.Errorf("switch chassis MAC %q is not a 6-byte MAC address", p.ChassisMAC)
	}
	if p.PortID == "" || len(p.PortID) > 255 {
		return nil, fmt.Errorf("switch port id %q: want 1 to 255 bytes", p.PortID)
	}
	if len(p.SystemName) > 255 {
		return nil, fmt.Errorf("switch system name %q is over 255 bytes", p.SystemName)
	}
	var out [][2]any
	add := func(typ int, v ...[]byte) {
		out = append(out, [2]any{typ, hex.EncodeToString(concat(v...))})
	}
	add(tlvChassisID, []byte{4}, mac)
	add(tlvPortID, []byte{5}, []byte(p.PortID))
	add(tlvTTL, u16(120))
	if p.SystemName != "" {
		add(tlvSystemName, []byte(p.SystemName))
	}
	dot1 := []byte{0x00, 0x80, 0xc2}
	if p.PortVLAN != 0 {
		if p.PortVLAN < 1 || p.PortVLAN > 4094 {
			return nil, fmt.Errorf("port VLAN %d is not a VLAN id (1-4094)", p.PortVLAN)
		}
		add(tlvOrgSpecific, dot1, []byte{1}, u16(p.PortVLAN))
	}
	for _, v := range p.VLANs {
		if v.ID < 1 || v.ID > 4094 || len(v.Name) > 32 {
			return nil, fmt.Errorf("VLAN %d %q: want an id 1-4094 and a name of at most 32 bytes", v.ID, v.Name)
		}
		add(tlvOrgSpecific, dot1, []byte{3}, u16(v.ID), []byte{byte(len(v.Name))}, []byte(v.Name))
	}
	add(tlvEnd)
	return out, nil
}

func u16(v int) []byte { return binary.BigEndian.AppendUint16(nil, uint16(v)) }

func concat(parts ...[]byte) []byte {
	var b []byte
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}

// cabling is the wiring of each agent's NICs, by lower-case MAC; an agent
// with an entry collects LLDP (IPA's ipa-collect-lldp), one without
// reports none, as IPA does by default.
var cabling = struct {
	sync.Mutex
	byAgent map[*Agent]map[string]SwitchPort
}{byAgent: map[*Agent]map[string]SwitchPort{}}

// Cable connects the NIC with MAC mac to port, or unplugs it from any
// LLDP-speaking switch when port is nil; the inventory the agent posts at
// its next inspection reports the new wiring.
func (a *Agent) Cable(mac string, port *SwitchPort) error {
	hw, err := net.ParseMAC(mac)
	if err != nil {
		return fmt.Errorf("cable NIC %q: %w", mac, err)
	}
	if port != nil {
		if _, err := port.TLVs(); err != nil {
			return fmt.Errorf("cable NIC %s: %w", mac, err)
		}
	}
	cabling.Lock()
	defer cabling.Unlock()
	next := cabling.byAgent[a]
	if next == nil {
		next = map[string]SwitchPort{}
		cabling.byAgent[a] = next
	}
	key := strings.ToLower(hw.String())
	if port == nil {
		delete(next, key)
		a.logf("NIC %s unplugged from its switch", key)
	} else {
		p := *port
		p.VLANs = append([]VLAN(nil), port.VLANs...)
		next[key] = p
		a.logf("NIC %s cabled to switch %s (%s) port %s", key, p.ChassisMAC, p.SystemName, p.PortID)
	}
	return nil
}

// withLLDP fills the inventory's LLDP from the agent's wiring: the TLVs of
// each cabled NIC, an empty list for the others (nothing heard), and
// nothing at all when the agent was never cabled.
func (a *Agent) withLLDP(inv *Inventory) {
	cabling.Lock()
	defer cabling.Unlock()
	wiring, ok := cabling.byAgent[a]
	if !ok {
		return
	}
	for i := range inv.Interfaces {
		tlvs := [][2]any{}
		if p, ok := wiring[strings.ToLower(inv.Interfaces[i].MACAddress)]; ok {
			tlvs, _ = p.TLVs() // checked by Cable
		}
		inv.Interfaces[i].LLDP = tlvs
	}
}
