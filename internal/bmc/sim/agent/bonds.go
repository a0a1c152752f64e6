package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// BondRecord is one bond link of a config drive's network_data.json, as
// the instance's cloud-init would build it on this machine: its members
// resolved to this machine's NICs by MAC.
type BondRecord struct {
	ID             string `json:"id"`
	Mode           string `json:"mode"`
	XmitHashPolicy string `json:"xmit_hash_policy,omitempty"`
	Miimon         any    `json:"miimon,omitempty"`
	// Members are the member links' ids, and MemberMACs their MACs (each
	// a NIC of this machine).
	Members    []string `json:"members"`
	MemberMACs []string `json:"member_macs"`
	// VLANs are the ids of the VLAN links on the bond.
	VLANs []string `json:"vlans,omitempty"`
}

// checkBonds checks the bond links of network_data (OpenStack's format)
// the way cloud-init needs them to build the bond: every bond_links entry
// names a physical link whose ethernet_mac_address is one of macs (the
// machine's NICs), and a bond has a mode. It returns the bonds it found and
// every problem, joined.
func checkBonds(networkData []byte, macs []string) ([]BondRecord, error) {
	var doc struct {
		Links []map[string]any `json:"links"`
	}
	if err := json.Unmarshal(networkData, &doc); err != nil {
		return nil, fmt.Errorf("network_data.json is not JSON: %w", err)
	}
	byID := map[string]map[string]any{}
	for _, l := range doc.Links {
		if id, _ := l["id"].(string); id != "" {
			byID[id] = l
		}
	}
	have := map[string]bool{}
	for _, m := range macs {
		have[strings.ToLower(m)] = true
	}
	var out []BondRecord
	var errs []error
	for _, l := range doc.Links {
		if l["type"] != "bond" {
			continue
		}
		b := BondRecord{Members: []string{}, MemberMACs: []string{}}
		b.ID, _ = l["id"].(string)
		b.Mode, _ = l["bond_mode"].(string)
		b.XmitHashPolicy, _ = l["bond_xmit_hash_policy"].(string)
		b.Miimon = l["bond_miimon"]
		if b.Mode == "" {
			errs = append(errs, fmt.Errorf("bond %q has no bond_mode", b.ID))
		}
		members, _ := l["bond_links"].([]any)
		if len(members) == 0 {
			errs = append(errs, fmt.Errorf("bond %q has no bond_links", b.ID))
		}
		for _, m := range members {
			id, _ := m.(string)
			link := byID[id]
			mac, _ := link["ethernet_mac_address"].(string)
			switch {
			case link == nil:
				errs = append(errs, fmt.Errorf("bond %q: member %q is not a link of network_data.json", b.ID, id))
				continue
			case link["type"] == "bond" || link["type"] == "vlan":
				errs = append(errs, fmt.Errorf("bond %q: member %q is a %v link, not a NIC", b.ID, id, link["type"]))
				continue
			case mac == "":
				errs = append(errs, fmt.Errorf("bond %q: member %q has no ethernet_mac_address to find its NIC by", b.ID, id))
				continue
			case !have[strings.ToLower(mac)]:
				errs = append(errs, fmt.Errorf("bond %q: member %q has MAC %s, which is none of this machine's NICs (%s)",
					b.ID, id, mac, strings.Join(macs, ", ")))
				continue
			}
			b.Members = append(b.Members, id)
			b.MemberMACs = append(b.MemberMACs, strings.ToLower(mac))
		}
		for _, v := range doc.Links {
			if v["type"] == "vlan" && v["vlan_link"] == b.ID {
				vid, _ := v["id"].(string)
				b.VLANs = append(b.VLANs, vid)
			}
		}
		slices.Sort(b.VLANs)
		out = append(out, b)
	}
	return out, errors.Join(errs...)
}
