// lldp.go owns the switch wiring of an inspection: the raw LLDP TLVs the
// agent reports per NIC in its inventory (IPA's `interfaces[].lldp`, a
// list of [TLV type, hex-encoded value] pairs), parsed here so that the
// provider needs neither ironic-inspector's LLDP hooks nor Ironic's
// parse_lldp hook; the plugin data's raw and parsed LLDP are fallbacks.
package ironic

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// LLDP TLV types (IEEE 802.1AB) and the IEEE 802.1 organisationally
// specific TLVs the parser reads.
const (
	tlvChassisID   = 1
	tlvPortID      = 2
	tlvSystemName  = 5
	tlvOrgSpecific = 127

	dot1PortVLANID = 1 // 802.1Q port VLAN id (the untagged VLAN)
	dot1VLANName   = 3 // 802.1Q VLAN name (a VLAN on the port)
)

var ouiIEEE8021 = []byte{0x00, 0x80, 0xc2}

// parseLLDP reads the raw LLDP of one NIC as IPA reports it: a JSON list
// of [type, hex value] pairs, the value without the TLV header. Entries it
// cannot read (not a pair, a type that is not a TLV type, a value that is
// not hex, a TLV too short for its kind) are skipped and counted in bad;
// the first chassis id, port id and system name win. The neighbour is nil
// when the list says nothing the provider uses (null, [] or only other
// TLVs).
func parseLLDP(raw json.RawMessage) (n *lifecycle.LLDPNeighbour, bad int) {
	var entries []json.RawMessage
	if len(raw) == 0 || string(raw) == "null" {
		return nil, 0
	}
	if err := json.Unmarshal(raw, &entries); err != nil {
		return nil, 1
	}
	var out lifecycle.LLDPNeighbour
	var tagged []int
	untagged := 0
	for _, e := range entries {
		typ, v, ok := lldpEntry(e)
		if !ok {
			bad++
			continue
		}
		switch typ {
		case tlvChassisID, tlvPortID:
			id, ok := lldpID(typ, v)
			switch {
			case !ok:
				bad++
			case typ == tlvChassisID && out.SwitchChassisID == "":
				out.SwitchChassisID = id
			case typ == tlvPortID && out.SwitchPortID == "":
				out.SwitchPortID = id
			}
		case tlvSystemName:
			if s := lldpText(v); s == "" {
				bad++
			} else if out.SwitchSystemName == "" {
				out.SwitchSystemName = s
			}
		case tlvOrgSpecific:
			if len(v) < 4 {
				bad++
				continue
			}
			if !slices.Equal(v[:3], ouiIEEE8021) {
				continue // another organisation's TLV
			}
			switch v[3] {
			case dot1PortVLANID:
				if len(v) != 6 {
					bad++
				} else if untagged == 0 {
					untagged = int(binary.BigEndian.Uint16(v[4:6]))
				}
			case dot1VLANName:
				if len(v) < 7 || len(v) < 7+int(v[6]) {
					bad++
				} else {
					tagged = append(tagged, int(binary.BigEndian.Uint16(v[4:6])))
				}
			}
		}
	}
	for _, id := range append(tagged, untagged) {
		if id > 0 && id < 4095 && !slices.Contains(out.VLANIDs, id) {
			out.VLANIDs = append(out.VLANIDs, id)
		}
	}
	if out.SwitchChassisID == "" && out.SwitchPortID == "" && out.SwitchSystemName == "" && len(out.VLANIDs) == 0 {
		return nil, bad
	}
	return &out, bad
}

// lldpEntry reads one [type, hex value] pair.
func lldpEntry(e json.RawMessage) (typ int, v []byte, ok bool) {
	var pair []json.RawMessage
	if json.Unmarshal(e, &pair) != nil || len(pair) != 2 {
		return 0, nil, false
	}
	var t float64
	var s string
	if json.Unmarshal(pair[0], &t) != nil || json.Unmarshal(pair[1], &s) != nil || t != float64(int(t)) || t < 0 || t > 127 {
		return 0, nil, false
	}
	v, err := hex.DecodeString(s)
	if err != nil {
		return 0, nil, false
	}
	return int(t), v, true
}

// lldpID reads a chassis id or port id TLV: a subtype byte, then a MAC
// (chassis subtype 4, port subtype 3) written as Ironic writes MACs, a
// network address (chassis 5, port 4: address family 1 IPv4 or 2 IPv6,
// then the address), or text for the other subtypes (names, locally
// assigned ids).
func lldpID(typ int, v []byte) (string, bool) {
	if len(v) < 2 {
		return "", false
	}
	sub, body := v[0], v[1:]
	macSub, addrSub := byte(4), byte(5)
	if typ == tlvPortID {
		macSub, addrSub = 3, 4
	}
	switch sub {
	case macSub:
		if len(body) != 6 {
			return "", false
		}
		return net.HardwareAddr(body).String(), true
	case addrSub:
		switch {
		case body[0] == 1 && len(body) == 5, body[0] == 2 && len(body) == 17:
			return net.IP(body[1:]).String(), true
		}
		return "", false
	}
	s := lldpText(body)
	return s, s != ""
}

// lldpText is a TLV's text, trimmed of spaces and NULs; invalid UTF-8
// becomes U+FFFD.
func lldpText(b []byte) string {
	s := string(b)
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	return strings.Trim(s, " \t\r\n\x00")
}

// neighbourFromParsed reads a parsed LLDP record of the plugin data
// (ironic-inspector's lldp_basic hook, Ironic's parse_lldp hook).
func neighbourFromParsed(l map[string]any) *lifecycle.LLDPNeighbour {
	str := func(k string) string { s, _ := l[k].(string); return strings.TrimSpace(s) }
	n := &lifecycle.LLDPNeighbour{
		SwitchChassisID:  strings.ToLower(str("switch_chassis_id")),
		SwitchPortID:     str("switch_port_id"),
		SwitchSystemName: str("switch_system_name"),
		VLANIDs:          lldpVLANs(l),
	}
	if _, err := net.ParseMAC(n.SwitchChassisID); err != nil {
		n.SwitchChassisID = str("switch_chassis_id") // not a MAC: as the switch wrote it
	}
	if n.SwitchChassisID == "" && n.SwitchPortID == "" && n.SwitchSystemName == "" && len(n.VLANIDs) == 0 {
		return nil
	}
	return n
}

// inventoryLLDP is the part of GET /v1/nodes/{id}/inventory that holds
// LLDP. The plugin data stays raw: a malformed part of it must not cost
// the inventory's own TLVs.
type inventoryLLDP struct {
	Inventory struct {
		Interfaces []struct {
			Name string          `json:"name"`
			MAC  string          `json:"mac_address"`
			LLDP json.RawMessage `json:"lldp"`
		} `json:"interfaces"`
	} `json:"inventory"`
	PluginData json.RawMessage `json:"plugin_data"`
}

// neighbours is the LLDP neighbour of each interface, by name: from the
// inventory's raw TLVs, else the plugin data's raw TLVs (lldp_raw), else
// its parsed LLDP (parsed_lldp). Interfaces without one are absent.
func (d *inventoryLLDP) neighbours(ctx context.Context, node string) map[string]*lifecycle.LLDPNeighbour {
	var pd struct {
		Raw    map[string]json.RawMessage `json:"lldp_raw"`
		Parsed map[string]json.RawMessage `json:"parsed_lldp"`
	}
	if len(d.PluginData) > 0 {
		_ = json.Unmarshal(d.PluginData, &pd) // unreadable plugin data: no fallback
	}
	out := map[string]*lifecycle.LLDPNeighbour{}
	for _, intf := range d.Inventory.Interfaces {
		n, bad := parseLLDP(intf.LLDP)
		if n == nil {
			var b int
			n, b = parseLLDP(pd.Raw[intf.Name])
			bad += b
		}
		if n == nil {
			var parsed map[string]any
			if json.Unmarshal(pd.Parsed[intf.Name], &parsed) == nil && parsed != nil {
				n = neighbourFromParsed(parsed)
			}
		}
		if bad > 0 {
			tflog.Debug(ctx, "skipped unreadable LLDP TLVs", map[string]any{"node": node, "interface": intf.Name, "skipped": bad})
		}
		if n != nil {
			out[intf.Name] = n
		}
	}
	return out
}

// LLDP reads the LLDP neighbours of the host's last inspection from
// Ironic's inventory, by MAC in lower case (lifecycle.LLDPReader);
// inspected is false when Ironic holds no inventory (or speaks no
// inventory API).
func (p *Provisioner) LLDP(ctx context.Context, h *lifecycle.Host) (map[string]lifecycle.LLDPNeighbour, bool, error) {
	node, err := p.current(ctx, h)
	if err != nil {
		return nil, false, err
	}
	r := nodes.GetInventory(ctx, p.sc, node.UUID)
	switch {
	case r.Err == nil:
	case isNotFound(r.Err) || gophercloud.ResponseCodeIs(r.Err, 406):
		return nil, false, nil
	default:
		return nil, false, fmt.Errorf("get inventory of node %s: %s%s", node.UUID, ironicError(r.Err), inventoryHint(r.Err))
	}
	var d inventoryLLDP
	if err := r.ExtractInto(&d); err != nil {
		return nil, false, fmt.Errorf("node %s: reading the inventory: %w", node.UUID, err)
	}
	byName := d.neighbours(ctx, node.UUID)
	out := map[string]lifecycle.LLDPNeighbour{}
	for _, intf := range d.Inventory.Interfaces {
		if n := byName[intf.Name]; n != nil && intf.MAC != "" {
			out[normalizeMAC(intf.MAC)] = *n
		}
	}
	return out, true, nil
}

// inventoryHint explains Ironic's failure to read an inventory when it
// holds more than one for the node: Ironic 21.4 with the database backend
// adds a row per in-band inspection, and its inventory API then fails.
func inventoryHint(err error) string {
	if gophercloud.ResponseCodeIs(err, 500) && strings.Contains(err.Error(), "Multiple rows were found") {
		return " (Ironic holds more than one stored inspection of this node and cannot pick one; " +
			"Ironic 21.4 keeps one node_inventory row per in-band inspection, so only the newest row may stay)"
	}
	return ""
}
