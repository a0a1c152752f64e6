package ironic

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"
	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/ports"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// This file is the host's port groups (bonds) over Ironic's /v1/portgroups.
// gophercloud's portgroups package has neither an update nor
// physical_network (API 1.102), so the calls are made here. A port joins a
// port group through its portgroup_uuid, a connectivity field: on an
// available or deployed node Ironic changes it only in maintenance (the
// same short maintenance as ports.go's).

// portGroup is an Ironic port group as the API shows it.
type portGroup struct {
	UUID            string         `json:"uuid"`
	Name            string         `json:"name"`
	Address         string         `json:"address"`
	NodeUUID        string         `json:"node_uuid"`
	Mode            string         `json:"mode"`
	Properties      map[string]any `json:"properties"`
	PhysicalNetwork *string        `json:"physical_network,omitempty"`
}

// nodePortGroups lists the node's port groups with every field.
func (p *Provisioner) nodePortGroups(ctx context.Context, nodeUUID string) ([]portGroup, error) {
	var out struct {
		PortGroups []portGroup `json:"portgroups"`
	}
	u := p.sc.ServiceURL("portgroups", "detail") + "?node=" + url.QueryEscape(nodeUUID)
	if _, err := p.sc.Get(ctx, u, &out, nil); err != nil {
		return nil, fmt.Errorf("list port groups of node %s: %s", nodeUUID, ironicError(err))
	}
	return out.PortGroups, nil
}

// propertyString is a port group property as baremetal_host shows it: a
// string as it is, anything else as JSON.
func propertyString(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// portGroupOf converts an Ironic port group with its member ports.
func portGroupOf(nodeName string, g portGroup, members []ports.Port) lifecycle.PortGroup {
	addr, mode := strings.ToLower(g.Address), g.Mode
	out := lifecycle.PortGroup{Name: lifecycle.PortGroupName(nodeName, g.Name), Address: &addr, Mode: &mode, PhysicalNetwork: g.PhysicalNetwork}
	if g.Name == "" {
		out.Name = g.UUID
	}
	out.Properties = map[string]string{}
	for k, v := range g.Properties {
		out.Properties[k] = propertyString(v)
	}
	for _, pt := range members {
		if pt.PortGroupUUID == g.UUID {
			out.Ports = append(out.Ports, strings.ToLower(pt.Address))
		}
	}
	slices.Sort(out.Ports)
	return out
}

// PortGroups lists the port groups of the host's node with their members.
func (p *Provisioner) PortGroups(ctx context.Context, h *lifecycle.Host) ([]lifecycle.PortGroup, error) {
	node, err := p.current(ctx, h)
	if err != nil {
		return nil, err
	}
	groups, err := p.nodePortGroups(ctx, node.UUID)
	if err != nil || len(groups) == 0 {
		return nil, err
	}
	list, err := p.nodePorts(ctx, node.UUID)
	if err != nil {
		return nil, err
	}
	out := make([]lifecycle.PortGroup, 0, len(groups))
	for _, g := range groups {
		out = append(out, portGroupOf(node.Name, g, list))
	}
	return out, nil
}

// portGroupPatch is what to change on an existing port group so that it
// has want's non-nil fields.
func portGroupPatch(have portGroup, want lifecycle.PortGroup) []map[string]any {
	var patch []map[string]any
	set := func(path string, v any) {
		patch = append(patch, map[string]any{"op": "add", "path": path, "value": v})
	}
	if want.Address != nil && !strings.EqualFold(*want.Address, have.Address) {
		if *want.Address == "" {
			patch = append(patch, map[string]any{"op": "remove", "path": "/address"})
		} else {
			set("/address", strings.ToLower(*want.Address))
		}
	}
	if want.Mode != nil && *want.Mode != have.Mode {
		set("/mode", *want.Mode)
	}
	if want.Properties != nil {
		haveProps := map[string]string{}
		for k, v := range have.Properties {
			haveProps[k] = propertyString(v)
		}
		if !maps.Equal(haveProps, want.Properties) {
			set("/properties", want.Properties)
		}
	}
	if want.PhysicalNetwork != nil && *want.PhysicalNetwork != strOr(have.PhysicalNetwork) {
		set("/physical_network", *want.PhysicalNetwork)
	}
	return patch
}

func strOr(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// SyncPortGroups makes one step towards want and remove (see
// lifecycle.PortGroupManager), returning Dirty until nothing is left: it
// creates the missing port groups and patches the others (Ironic allows
// both in any state but inspecting), then moves ports in and out of them
// (in a maintenance window on an available or active node, as SyncPorts
// does), then deletes the port groups to remove, which by then have no
// ports. A port group's physical_network needs API 1.102.
func (p *Provisioner) SyncPortGroups(ctx context.Context, h *lifecycle.Host, want []lifecycle.PortGroup, remove []string) (lifecycle.Result, error) {
	const verb = "update port groups"
	for _, w := range want {
		if err := p.api().Require(lifecycle.FeaturePortGroupPhysnet, "port_groups.physical_network"); w.PhysicalNetwork != nil && err != nil {
			return lifecycle.Result{Verb: verb}, err
		}
	}
	node, err := p.current(ctx, h)
	if err != nil {
		return lifecycle.Result{Verb: verb}, err
	}
	ps := node.ProvisionState
	if ps == psInspecting {
		return p.continuing(verb, ps, p.fastPoll), nil
	}
	fail := func(v string, err error) (lifecycle.Result, error) {
		return lifecycle.Result{Verb: v, ProvisionState: ps}, err
	}
	groups, err := p.nodePortGroups(ctx, node.UUID)
	if err != nil {
		return fail(verb, err)
	}
	byName := map[string]portGroup{}
	for _, g := range groups {
		byName[g.Name] = g
	}
	wrote := false
	for _, w := range want {
		name := lifecycle.PortGroupIronicName(node.Name, w.Name)
		g, ok := byName[name]
		if !ok {
			if err := p.createPortGroup(ctx, h, node, name, w); err != nil {
				return fail("create port group", err)
			}
			wrote = true
			continue
		}
		if patch := portGroupPatch(g, w); len(patch) > 0 {
			logInfo(ctx, "updating port group "+name, h, node, "update port group")
			_, err := p.sc.Patch(ctx, p.sc.ServiceURL("portgroups", g.UUID), patch, nil, &gophercloud.RequestOpts{OkCodes: []int{200}})
			p.wrote(ctx, node.UUID)
			if err != nil {
				return fail("update port group", fmt.Errorf("update port group %s of node %s: %s", name, node.UUID, ironicError(err)))
			}
			wrote = true
		}
	}
	if wrote {
		return p.continuing(verb, ps, 0), nil
	}

	// Membership: each port's portgroup_uuid.
	managed := map[string]bool{} // UUIDs of the groups want or remove name
	target := map[string]string{}
	for _, w := range want {
		g := byName[lifecycle.PortGroupIronicName(node.Name, w.Name)]
		managed[g.UUID] = true
		for _, mac := range w.Ports {
			target[mac] = g.UUID
		}
	}
	var gone []portGroup
	for _, name := range remove {
		if g, ok := byName[lifecycle.PortGroupIronicName(node.Name, name)]; ok {
			managed[g.UUID] = true
			gone = append(gone, g)
		}
	}
	list, err := p.nodePorts(ctx, node.UUID)
	if err != nil {
		return fail(verb, err)
	}
	type move struct {
		port ports.Port
		to   string
	}
	var moves []move
	seen := map[string]bool{}
	for _, pt := range list {
		mac := strings.ToLower(pt.Address)
		seen[mac] = true
		to, wanted := target[mac]
		switch {
		case wanted && pt.PortGroupUUID != to:
			moves = append(moves, move{pt, to})
		case !wanted && pt.PortGroupUUID != "" && managed[pt.PortGroupUUID]:
			moves = append(moves, move{pt, ""})
		}
	}
	for mac := range target {
		if !seen[mac] {
			return fail(verb, fmt.Errorf("node %s has no port %s to put in a port group", node.UUID, mac))
		}
	}
	ours := node.Maintenance && node.MaintenanceReason == portsMaintenanceReason
	if len(moves) > 0 {
		if !portStatesOpen[ps] && !node.Maintenance {
			if node.TargetProvisionState != "" {
				return p.continuing(verb, ps, p.fastPoll), nil
			}
			logInfo(ctx, "maintenance on for a port group change", h, node, verb)
			return p.setMaintenance(ctx, h, node, true, portsMaintenanceReason)
		}
		for _, m := range moves {
			op := ports.UpdateOperation{Op: ports.AddOp, Path: "/portgroup_uuid", Value: m.to}
			if m.to == "" {
				op = ports.UpdateOperation{Op: ports.RemoveOp, Path: "/portgroup_uuid"}
			}
			logInfo(ctx, "moving port "+m.port.Address+" to port group "+m.to, h, node, "update port")
			_, err := ports.Update(ctx, p.sc, m.port.UUID, ports.UpdateOpts{op}).Extract()
			p.wrote(ctx, node.UUID)
			if err != nil {
				return fail("update port", fmt.Errorf("update port %s of node %s: %s", m.port.Address, node.UUID, ironicError(err)))
			}
		}
		return p.continuing(verb, ps, 0), nil
	}
	for _, g := range gone {
		logInfo(ctx, "deleting port group "+g.Name, h, node, "delete port group")
		_, err := p.sc.Delete(ctx, p.sc.ServiceURL("portgroups", g.UUID), nil)
		p.wrote(ctx, node.UUID)
		if err != nil && !isNotFound(err) {
			return fail("delete port group", fmt.Errorf("delete port group %s of node %s: %s", g.Name, node.UUID, ironicError(err)))
		}
	}
	if len(gone) > 0 {
		return p.continuing(verb, ps, 0), nil
	}
	if ours {
		return p.setMaintenance(ctx, h, node, false, "")
	}
	return done(verb, ps), nil
}

// createPortGroup creates one port group of the node, named name in Ironic.
func (p *Provisioner) createPortGroup(ctx context.Context, h *lifecycle.Host, node *nodes.Node, name string, w lifecycle.PortGroup) error {
	body := map[string]any{"node_uuid": node.UUID, "name": name}
	if w.Address != nil && *w.Address != "" {
		body["address"] = strings.ToLower(*w.Address)
	}
	if w.Mode != nil {
		body["mode"] = *w.Mode
	}
	if w.Properties != nil {
		body["properties"] = w.Properties
	}
	if w.PhysicalNetwork != nil {
		body["physical_network"] = *w.PhysicalNetwork
	}
	logInfo(ctx, "creating port group "+name, h, node, "create port group")
	_, err := p.sc.Post(ctx, p.sc.ServiceURL("portgroups"), body, nil, &gophercloud.RequestOpts{OkCodes: []int{201}})
	p.wrote(ctx, node.UUID)
	if err != nil {
		return fmt.Errorf("create port group %s for node %s: %s", name, node.UUID, ironicError(err))
	}
	return nil
}
