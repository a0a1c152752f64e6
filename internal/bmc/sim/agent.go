package sim

import (
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"strings"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmc/sim/agent"
)

// machine is a system as its agent sees it.
type machine struct {
	s  *Server
	id string
}

func (m machine) MACs() []string {
	m.s.mu.Lock()
	defer m.s.mu.Unlock()
	var out []string
	if sys := m.s.systems[m.id]; sys != nil {
		for _, n := range sys.profile.NICs {
			out = append(out, n.MAC)
		}
	}
	return out
}

func (m machine) PowerOff() { _ = m.s.SetPower(m.id, PowerOff) }

func (m machine) Reboot() {
	m.s.mu.Lock()
	defer m.s.mu.Unlock()
	if sys := m.s.systems[m.id]; sys != nil {
		_ = sys.reset("ForceRestart")
	}
}

// SetPendingBIOS validates the settings against the attribute registry and
// stores them as pending, as a PATCH of Bios/Settings does.
func (m machine) SetPendingBIOS(settings map[string]any) error {
	m.s.mu.Lock()
	defer m.s.mu.Unlock()
	sys := m.s.systems[m.id]
	if sys == nil {
		return fmt.Errorf("no system %s", m.id)
	}
	for _, name := range sortedKeys(settings) {
		attr, ok := sys.attribute(name)
		if !ok {
			return fmt.Errorf("unknown BIOS attribute %s", name)
		}
		if err := attr.validate(settings[name]); err != nil {
			return err
		}
	}
	maps.Copy(sys.biosPending, settings)
	return nil
}

// Inventory is the profile as IPA would find it: NICs by their names with
// MACs, disks as /dev/sdX (NVMe as /dev/nvmeXn1), CPU, memory, DMI data.
func (m machine) Inventory() agent.Inventory {
	m.s.mu.Lock()
	defer m.s.mu.Unlock()
	sys := m.s.systems[m.id]
	if sys == nil {
		return agent.Inventory{}
	}
	p := sys.profile
	inv := agent.Inventory{
		CPU: agent.CPU{
			ModelName: p.CPU.Model, Frequency: fmt.Sprintf("%d.0000", p.CPU.SpeedMHz),
			Count: p.CPU.Count * p.CPU.CoresPerSocket * p.CPU.ThreadsPerCore, Architecture: p.CPU.Arch,
			Flags: []string{"fpu", "vme", "de", "pse", "tsc", "msr", "pae", "mce", "vmx", "sse4_2", "avx2"}, SocketCount: p.CPU.Count,
		},
		Memory:       agent.Memory{Total: int64(p.RAMGiB)<<30 - 512<<20, PhysicalMB: p.RAMGiB * 1024},
		BMCAddress:   "127.0.0.1",
		BMCV6Address: "::/0",
		SystemVendor: agent.SystemVendor{
			ProductName: p.Model, SerialNumber: p.SerialNumber, Manufacturer: p.Manufacturer,
			Firmware: agent.Firmware{Vendor: p.Manufacturer, Version: sys.roleVersion("BIOS"), BuildDate: "01/01/2026"},
		},
		Boot:     agent.Boot{CurrentBootMode: "uefi"},
		Hostname: p.HostName,
	}
	if sys.boot.Mode == "Legacy" {
		inv.Boot.CurrentBootMode = "bios"
	}
	for i, n := range p.NICs {
		nic := agent.Interface{Name: n.Name, MACAddress: n.MAC, HasCarrier: n.LinkUp, Vendor: "0x8086", Product: "0x1572", SpeedMbps: n.SpeedMbps}
		if n.LinkUp {
			ip := fmt.Sprintf("192.0.2.%d", 10+i)
			nic.IPv4Address = &ip
		}
		inv.Interfaces = append(inv.Interfaces, nic)
		if i == 0 {
			inv.Boot.PXEInterface = n.MAC
		}
	}
	sd, nvme := 0, 0
	for _, d := range p.Disks {
		name := fmt.Sprintf("/dev/sd%c", 'a'+sd)
		if d.MediaType == MediaNVMe {
			name = fmt.Sprintf("/dev/nvme%dn1", nvme)
			nvme++
		} else {
			sd++
		}
		inv.Disks = append(inv.Disks, agent.Disk{
			Name: name, Model: d.Model, Size: d.SizeBytes, Rotational: d.Rotational, Serial: d.Serial, Vendor: d.Vendor,
			ByPath: "/dev/disk/by-path/pci-0000:00:1f.2-" + strings.ToLower(d.Name),
		})
	}
	return inv
}

// Agent returns the simulated agent of system id (nil without
// Options.Agent).
func (s *Server) Agent(id string) *agent.Agent {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sys := s.systems[id]; sys != nil {
		return sys.agent
	}
	return nil
}

// AgentRecord returns what system id's agent received.
func (s *Server) AgentRecord(id string) (agent.Record, error) {
	a := s.Agent(id)
	if a == nil {
		return agent.Record{}, errNoAgent(id)
	}
	return a.Record(), nil
}

func errNoAgent(id string) error {
	return errors.New("sim: system " + url.PathEscape(id) + " has no agent (the simulator runs without -ironic)")
}

func (s *Server) adminAgent(w http.ResponseWriter, r *http.Request) {
	rec, err := s.AgentRecord(r.PathValue("id"))
	if err != nil {
		writeError(w, http.StatusNotFound, "Base.1.8.ResourceMissingAtURI", err.Error())
		return
	}
	writeJSON(w, r, http.StatusOK, rec)
}

func (s *Server) adminAgentFaults(w http.ResponseWriter, r *http.Request) {
	a := s.Agent(r.PathValue("id"))
	if a == nil {
		writeError(w, http.StatusNotFound, "Base.1.8.ResourceMissingAtURI", errNoAgent(r.PathValue("id")).Error())
		return
	}
	switch r.Method {
	case http.MethodGet:
		writeJSON(w, r, http.StatusOK, a.Faults())
	case http.MethodDelete:
		a.SetFaults(agent.Faults{})
		w.WriteHeader(http.StatusNoContent)
	default:
		var f agent.Faults
		if !readJSON(w, r, &f) {
			return
		}
		a.SetFaults(f)
		writeJSON(w, r, http.StatusOK, f)
	}
}
