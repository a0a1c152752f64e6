package lifecycle

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// PortGroup is one Ironic port group (a bond) of a host: its member ports,
// by MAC, join it through their portgroup_uuid. Name is the bond's name on
// the host ("bond0"); the provisioner stores it in Ironic under a name of
// its own, unique across nodes (PortGroupIronicName). A nil field, or nil
// Properties, is left as Ironic has it.
type PortGroup struct {
	Name            string
	Address         *string
	Mode            *string
	Properties      map[string]string
	PhysicalNetwork *string
	// Ports are the members' MACs, lower case, sorted.
	Ports []string
}

// BondModes are the Linux bonding modes a port group's mode may be (what
// Ironic passes to Neutron and the instance's network configuration).
var BondModes = []string{"balance-rr", "active-backup", "balance-xor", "broadcast", "802.3ad", "balance-tlb", "balance-alb"}

// PortGroupIronicName is the name of host's port group name in Ironic:
// Ironic's port group names are unique across all nodes, so the bond's name
// ("bond0") is prefixed with the node's ("worker-0.bond0").
func PortGroupIronicName(host, name string) string { return host + "." + name }

// PortGroupName is the bond's name of an Ironic port group named ironic on
// node host: without the host's prefix, or as it is when it has none (a
// port group created outside this provider).
func PortGroupName(host, ironic string) string {
	if n, ok := strings.CutPrefix(ironic, host+"."); ok && n != "" {
		return n
	}
	return ironic
}

// PortGroupManager is the part of a Provisioner that handles port groups;
// the Ironic provisioner implements it.
type PortGroupManager interface {
	// PortGroups lists the port groups of the host's node with their
	// members.
	PortGroups(ctx context.Context, h *Host) ([]PortGroup, error)
	// SyncPortGroups creates the port groups of want that the node lacks,
	// sets the non-nil fields of each, makes their member ports exactly
	// Ports, and deletes the port groups named in remove (after their
	// ports leave them). Other port groups stay.
	SyncPortGroups(ctx context.Context, h *Host, want []PortGroup, remove []string) (Result, error)
}

// NormalizePortGroups lower-cases and sorts the member MACs and checks
// that no name or MAC repeats, and that every member is one of ports (the
// MACs of the host's configured ports); errors name the group.
func NormalizePortGroups(groups []PortGroup, ports []string) ([]PortGroup, error) {
	known := map[string]bool{}
	for _, p := range ports {
		known[strings.ToLower(p)] = true
	}
	names, member := map[string]bool{}, map[string]string{}
	out := make([]PortGroup, 0, len(groups))
	for _, g := range groups {
		if names[g.Name] {
			return nil, fmt.Errorf("port group %q is configured twice", g.Name)
		}
		names[g.Name] = true
		if g.Mode != nil && !slices.Contains(BondModes, *g.Mode) {
			return nil, fmt.Errorf("port group %q: unknown bond mode %q (want one of %s)", g.Name, *g.Mode, strings.Join(BondModes, ", "))
		}
		macs := make([]string, 0, len(g.Ports))
		for _, mac := range g.Ports {
			mac = strings.ToLower(mac)
			switch {
			case ports != nil && !known[mac]:
				return nil, fmt.Errorf("port group %q: member %s is not one of the host's ports; add it to ports", g.Name, mac)
			case member[mac] != "" && member[mac] != g.Name:
				return nil, fmt.Errorf("port %s is a member of two port groups: %q and %q", mac, member[mac], g.Name)
			}
			member[mac] = g.Name
			if !slices.Contains(macs, mac) {
				macs = append(macs, mac)
			}
		}
		slices.Sort(macs)
		g.Ports = macs
		out = append(out, g)
	}
	slices.SortFunc(out, func(a, b PortGroup) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// SyncPortGroups makes the host's Ironic port groups what want says and
// deletes those named in remove (ones the configuration listed before and
// no longer does), waiting while Ironic works: moving a port in or out of
// a port group needs the node's maintenance mode for a moment on an
// available or deployed node, as a port's other connectivity fields do.
// Failures come back as a *HostError.
func (m *Machine) SyncPortGroups(ctx context.Context, h *Host, want []PortGroup, remove []string) error {
	pm, ok := m.Prov.(PortGroupManager)
	if !ok || len(want) == 0 && len(remove) == 0 {
		return nil
	}
	want, err := NormalizePortGroups(want, nil)
	if err != nil {
		return m.hostError(h, StepResult{}, err)
	}
	for range maxPortRounds {
		res, err := pm.SyncPortGroups(ctx, h, want, remove)
		r := StepResult{Result: res}
		switch {
		case err != nil:
			return m.hostError(h, r, fmt.Errorf("setting the port groups: %w", err))
		case res.ErrorMessage != "":
			return m.hostError(h, r, fmt.Errorf("setting the port groups: %s", res.ErrorMessage))
		case !res.Dirty:
			return nil
		}
		if res.RequeueAfter == 0 {
			continue
		}
		if err := m.waiter().Wait(ctx, h.Status.ID, res.RequeueAfter); err != nil {
			return m.waitError(h, r, m.now(), err)
		}
	}
	return m.hostError(h, StepResult{}, fmt.Errorf("setting the port groups: still changing after %d rounds", maxPortRounds))
}

// ObservePortGroups reads the host's port groups (nil when the provisioner
// has none).
func (m *Machine) ObservePortGroups(ctx context.Context, h *Host) ([]PortGroup, error) {
	pm, ok := m.Prov.(PortGroupManager)
	if !ok {
		return nil, nil
	}
	gs, err := pm.PortGroups(ctx, h)
	if err != nil {
		return nil, m.hostError(h, StepResult{}, fmt.Errorf("reading the port groups: %w", err))
	}
	return gs, nil
}
