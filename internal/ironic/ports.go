package ironic

import (
	"context"
	"fmt"
	"strings"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"
	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/ports"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// portsMaintenanceReason marks the short maintenance that a port change
// on an available or active node needs: Ironic only lets a port's
// pxe_enabled, physical_network and local_link_connection change while the
// node is enroll, inspecting, inspect wait or manageable, or in
// maintenance (conductor update_port).
const portsMaintenanceReason = "updating ports (terraform-provider-baremetal)"

// portStatesOpen are the provision states where Ironic lets a port's
// connectivity fields change without maintenance.
var portStatesOpen = map[string]bool{psEnroll: true, psInspecting: true, psInspectWait: true, psManageable: true}

// nodePorts lists the node's ports with every field.
func (p *Provisioner) nodePorts(ctx context.Context, nodeUUID string) ([]ports.Port, error) {
	pages, err := ports.ListDetail(p.sc, ports.ListOpts{NodeUUID: nodeUUID}).AllPages(ctx)
	if err != nil {
		return nil, fmt.Errorf("list ports of node %s: %s", nodeUUID, ironicError(err))
	}
	return ports.ExtractPorts(pages)
}

// Ports lists the ports of the host's node.
func (p *Provisioner) Ports(ctx context.Context, h *lifecycle.Host) ([]lifecycle.Port, error) {
	node, err := p.current(ctx, h)
	if err != nil {
		return nil, err
	}
	list, err := p.nodePorts(ctx, node.UUID)
	if err != nil {
		return nil, err
	}
	out := make([]lifecycle.Port, 0, len(list))
	for _, pt := range list {
		out = append(out, portOf(pt))
	}
	return out, nil
}

// portOf converts an Ironic port.
func portOf(pt ports.Port) lifecycle.Port {
	pxe, physnet := pt.PXEEnabled, pt.PhysicalNetwork
	out := lifecycle.Port{MAC: strings.ToLower(pt.Address), PXEEnabled: &pxe, PhysicalNetwork: &physnet}
	if len(pt.LocalLinkConnection) > 0 {
		str := func(k string) string { s, _ := pt.LocalLinkConnection[k].(string); return s }
		out.LocalLinkConnection = &lifecycle.LocalLink{SwitchID: str("switch_id"), PortID: str("port_id"), SwitchInfo: str("switch_info")}
	}
	return out
}

// linkMap is a local_link_connection as Ironic takes it.
func linkMap(l *lifecycle.LocalLink) map[string]any {
	m := map[string]any{"switch_id": l.SwitchID, "port_id": l.PortID}
	if l.SwitchInfo != "" {
		m["switch_info"] = l.SwitchInfo
	}
	return m
}

// portPatch is what to change on an existing port so that it has want's
// non-nil fields (MACs and switch ids compare without case, as Ironic
// stores them in lower case).
func portPatch(have ports.Port, want lifecycle.Port) ports.UpdateOpts {
	var patch ports.UpdateOpts
	if want.PXEEnabled != nil && *want.PXEEnabled != have.PXEEnabled {
		patch = append(patch, ports.UpdateOperation{Op: ports.ReplaceOp, Path: "/pxe_enabled", Value: *want.PXEEnabled})
	}
	if want.PhysicalNetwork != nil && *want.PhysicalNetwork != have.PhysicalNetwork {
		if *want.PhysicalNetwork == "" {
			patch = append(patch, ports.UpdateOperation{Op: ports.RemoveOp, Path: "/physical_network"})
		} else {
			patch = append(patch, ports.UpdateOperation{Op: ports.ReplaceOp, Path: "/physical_network", Value: *want.PhysicalNetwork})
		}
	}
	if l := want.LocalLinkConnection; l != nil {
		if !lifecycle.SameLink(portOf(have).LocalLinkConnection, l) {
			patch = append(patch, ports.UpdateOperation{Op: ports.ReplaceOp, Path: "/local_link_connection", Value: linkMap(l)})
		}
	}
	return patch
}

// SyncPorts creates the ports in want that the node lacks (pxe_enabled
// false unless want says otherwise: only the boot MAC's port, which
// Register creates, boots by PXE) and sets want's non-nil fields on the
// others. When a field has to change and Ironic would refuse it in the
// node's state, the node goes into maintenance (portsMaintenanceReason)
// for the change and out again; each of those steps returns Dirty, so the
// caller calls again until nothing is left to do. A detached node (in
// maintenance already) is changed as it is: only a host created detached
// gets here so (baremetal_host refuses a port change while it is detached,
// checkPortsDetached), and its maintenance is never ended.
func (p *Provisioner) SyncPorts(ctx context.Context, h *lifecycle.Host, want []lifecycle.Port) (lifecycle.Result, error) {
	node, err := p.current(ctx, h)
	if err != nil {
		return lifecycle.Result{Verb: "update ports"}, err
	}
	ps := node.ProvisionState
	have, err := p.nodePorts(ctx, node.UUID)
	if err != nil {
		return lifecycle.Result{Verb: "update ports", ProvisionState: ps}, err
	}
	byMAC := map[string]ports.Port{}
	for _, pt := range have {
		byMAC[strings.ToLower(pt.Address)] = pt
	}
	type update struct {
		port  ports.Port
		patch ports.UpdateOpts
	}
	var updates []update
	for _, w := range want {
		pt, ok := byMAC[strings.ToLower(w.MAC)]
		if !ok {
			if err := p.createPort(ctx, h, node, w); err != nil {
				return lifecycle.Result{Verb: "create port", ProvisionState: ps}, err
			}
			continue
		}
		if patch := portPatch(pt, w); len(patch) > 0 {
			updates = append(updates, update{pt, patch})
		}
	}
	ours := node.Maintenance && node.MaintenanceReason == portsMaintenanceReason
	if len(updates) == 0 {
		if ours {
			return p.setMaintenance(ctx, h, node, false, "")
		}
		return done("update ports", ps), nil
	}
	if !portStatesOpen[ps] && !node.Maintenance {
		if node.TargetProvisionState != "" {
			return p.continuing("update ports", ps, p.fastPoll), nil
		}
		logInfo(ctx, "maintenance on for a port change", h, node, "update ports")
		return p.setMaintenance(ctx, h, node, true, portsMaintenanceReason)
	}
	for _, u := range updates {
		logInfo(ctx, "updating port "+u.port.Address, h, node, "update ports")
		_, err := ports.Update(ctx, p.sc, u.port.UUID, u.patch).Extract()
		p.wrote(ctx, node.UUID)
		if err != nil {
			return lifecycle.Result{Verb: "update port", ProvisionState: ps},
				fmt.Errorf("update port %s of node %s: %s", u.port.Address, node.UUID, ironicError(err))
		}
	}
	if ours {
		return p.setMaintenance(ctx, h, node, false, "")
	}
	return p.continuing("update ports", ps, 0), nil
}

// createPort creates one port of the node.
func (p *Provisioner) createPort(ctx context.Context, h *lifecycle.Host, node *nodes.Node, w lifecycle.Port) error {
	pxe := w.PXEEnabled != nil && *w.PXEEnabled
	opts := ports.CreateOpts{NodeUUID: node.UUID, Address: strings.ToLower(w.MAC), PXEEnabled: &pxe}
	if w.PhysicalNetwork != nil {
		opts.PhysicalNetwork = *w.PhysicalNetwork
	}
	if w.LocalLinkConnection != nil {
		opts.LocalLinkConnection = linkMap(w.LocalLinkConnection)
	}
	logInfo(ctx, "creating port "+opts.Address, h, node, "create port")
	_, err := ports.Create(ctx, p.sc, opts).Extract()
	p.wrote(ctx, node.UUID)
	if err != nil {
		return fmt.Errorf("create port %s for node %s: %s", opts.Address, node.UUID, ironicError(err))
	}
	return nil
}
