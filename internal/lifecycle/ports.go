package lifecycle

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// Port is one Ironic port of a host, by MAC (BMO registers the boot MAC
// and every inspected NIC as ports). A nil field is left as Ironic has it.
type Port struct {
	MAC                 string
	PXEEnabled          *bool
	PhysicalNetwork     *string
	LocalLinkConnection *LocalLink
	// LocalLinkFromLLDP takes LocalLinkConnection from the LLDP the last
	// inspection heard on the NIC (ResolveLLDPPorts fills it in).
	LocalLinkFromLLDP bool
}

// LocalLink is a port's local_link_connection: the switch port the NIC is
// cabled to, for network-aware Ironic deployments.
type LocalLink struct {
	SwitchID   string
	PortID     string
	SwitchInfo string
}

// SameLink says whether two local_link_connections name the same switch
// port (switch ids compare without case, as Ironic stores them in lower
// case); two nils are the same.
func SameLink(a, b *LocalLink) bool {
	if a == nil || b == nil {
		return a == b
	}
	return strings.EqualFold(a.SwitchID, b.SwitchID) && a.PortID == b.PortID && a.SwitchInfo == b.SwitchInfo
}

// PortManager is the part of a Provisioner that handles ports; the Ironic
// provisioner implements it.
type PortManager interface {
	// Ports lists the ports of the host's node.
	Ports(ctx context.Context, h *Host) ([]Port, error)
	// SyncPorts creates the ports in want that the node lacks and sets the
	// non-nil fields of each on Ironic's port; other ports stay.
	SyncPorts(ctx context.Context, h *Host, want []Port) (Result, error)
}

// DesiredPorts is what the host's ports should be: every NIC the last
// inspection found (BMO registers them as ports), and the ports the user
// configured, whose settings win. MACs compare without case. A MAC
// configured twice is an error naming it.
func DesiredPorts(h *Host, configured []Port) ([]Port, error) {
	var out []Port
	index := map[string]int{}
	for _, p := range configured {
		mac := strings.ToLower(p.MAC)
		if _, dup := index[mac]; dup {
			return nil, fmt.Errorf("port %s is configured twice", p.MAC)
		}
		p.MAC = mac
		index[mac] = len(out)
		out = append(out, p)
	}
	if d := h.Status.HardwareDetails; d != nil && !d.NICsArePorts {
		for _, nic := range d.NICs {
			mac := strings.ToLower(nic.MAC)
			if _, ok := index[mac]; ok || mac == "" {
				continue
			}
			index[mac] = len(out)
			out = append(out, Port{MAC: mac})
		}
	}
	slices.SortFunc(out, func(a, b Port) int { return strings.Compare(a.MAC, b.MAC) })
	return out, nil
}

// SyncPorts makes the host's Ironic ports what DesiredPorts says (a port
// taking its local_link_connection from LLDP gets the one the last
// inspection heard: ResolveLLDPPorts), waiting while Ironic works (a port
// change can need the node's maintenance mode for a moment). Failures
// come back as a *HostError.
func (m *Machine) SyncPorts(ctx context.Context, h *Host, configured []Port) error {
	pm, ok := m.Prov.(PortManager)
	if !ok {
		return nil
	}
	configured, err := m.resolveLLDPPorts(ctx, h, configured)
	if err != nil {
		return m.hostError(h, StepResult{}, err)
	}
	want, err := DesiredPorts(h, configured)
	if err != nil {
		return m.hostError(h, StepResult{}, err)
	}
	if len(want) == 0 {
		return nil
	}
	for range maxPortRounds {
		res, err := pm.SyncPorts(ctx, h, want)
		r := StepResult{Result: res}
		switch {
		case err != nil:
			return m.hostError(h, r, fmt.Errorf("setting the ports: %w", err))
		case res.ErrorMessage != "":
			return m.hostError(h, r, fmt.Errorf("setting the ports: %s", res.ErrorMessage))
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
	return m.hostError(h, StepResult{}, fmt.Errorf("setting the ports: still changing after %d rounds", maxPortRounds))
}

// maxPortRounds bounds SyncPorts: a port change takes at most a
// maintenance on, the changes, a maintenance off and a last look; the rest
// are waits for a busy node.
const maxPortRounds = 100

// ObservePorts reads the host's ports (nil when the provisioner has none).
func (m *Machine) ObservePorts(ctx context.Context, h *Host) ([]Port, error) {
	pm, ok := m.Prov.(PortManager)
	if !ok {
		return nil, nil
	}
	ps, err := pm.Ports(ctx, h)
	if err != nil {
		return nil, m.hostError(h, StepResult{}, fmt.Errorf("reading the ports: %w", err))
	}
	return ps, nil
}
