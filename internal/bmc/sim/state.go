package sim

import (
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmc/sim/agent"
)

// Power states.
const (
	PowerOn  = "On"
	PowerOff = "Off"
)

// system is the mutable state of one simulated system; guarded by Server.mu.
type system struct {
	id       string
	index    int
	username string
	password string
	profile  Profile
	listener *listener
	agent    *agent.Agent // nil unless Options.Agent
	vm       *vmSystem    // nil unless Options.VM

	power       string
	boot        BootOverride
	biosCurrent map[string]any
	biosPending map[string]any
	firmware    map[string]string // component id -> version
	fwItems     []Firmware        // the inventory, in order
	media       map[string]*MediaState

	faults          Faults
	requests        int64
	resets          []string
	refusedResets   []string
	managerResets   []string
	sessionsCreated int
	sessionsDeleted int
	bootCount       int
	bootRequests    []BootOverride
	networkBoots    int
}

// BootOverride is the boot source override of a system.
type BootOverride struct {
	Target  string `json:"target"`
	Enabled string `json:"enabled"`
	Mode    string `json:"mode"`
}

// MediaState is one virtual media device of a system's manager.
type MediaState struct {
	Image          string `json:"image"`
	Inserted       bool   `json:"inserted"`
	WriteProtected bool   `json:"write_protected"`
}

// SystemState is what the simulator knows of a system, for tests to see
// what a client did.
type SystemState struct {
	ID           string                `json:"id"`
	PowerState   string                `json:"power_state"`
	Boot         BootOverride          `json:"boot"`
	BiosCurrent  map[string]any        `json:"bios_current"`
	BiosPending  map[string]any        `json:"bios_pending"`
	VirtualMedia map[string]MediaState `json:"virtual_media"`
	Firmware     map[string]string     `json:"firmware"`
	Requests     int64                 `json:"requests"`
	Resets       []string              `json:"resets"`
	// RefusedResets are the resets the dialect refused in the system's
	// power state (also in Resets).
	RefusedResets []string `json:"refused_resets,omitempty"`
	// ManagerResets are the ResetTypes of the Manager.Reset actions of
	// the system's manager (its BMC), in order.
	ManagerResets []string `json:"manager_resets,omitempty"`
	BootCount     int      `json:"boot_count"`
	// BootRequests are the boot overrides clients PATCHed, in order (what
	// was asked, whatever a power-on made of it since).
	BootRequests []BootOverride `json:"boot_requests,omitempty"`
	// NetworkBoots counts the power-ons that booted from the network
	// (override target Pxe): the agent's record says what they fetched.
	NetworkBoots    int    `json:"network_boots"`
	SessionsCreated int    `json:"sessions_created"`
	SessionsDeleted int    `json:"sessions_deleted"`
	ActiveSessions  int    `json:"active_sessions"`
	Faults          Faults `json:"faults"`
	// AgentURL is the callback URL of the system's simulated agent (empty
	// without Options.Agent); its record is at /sim/systems/{id}/agent.
	AgentURL string `json:"agent_url,omitempty"`
}

var allowedBootTargets = []string{"None", "Pxe", "Floppy", "Cd", "Usb", "Hdd", "BiosSetup", "Utilities", "Diags", "UefiTarget", "UefiHttp"}

var allowedBootEnabled = []string{"Disabled", "Once", "Continuous"}

var allowedBootModes = []string{"Legacy", "UEFI"}

var allowedResetTypes = []string{"On", "ForceOff", "GracefulShutdown", "GracefulRestart", "ForceRestart", "Nmi", "PushPowerButton", "PowerCycle"}

func newSystem(cfg SystemConfig, index int) *system {
	p := cfg.Profile
	p.normalize()
	sys := &system{
		id: cfg.ID, index: index, username: cfg.Username, password: cfg.Password, profile: p,
		power:       PowerOff,
		boot:        BootOverride{Target: "None", Enabled: "Disabled", Mode: "UEFI"},
		biosCurrent: map[string]any{},
		biosPending: map[string]any{},
		firmware:    map[string]string{},
		media: map[string]*MediaState{
			"Cd":     {WriteProtected: true},
			"Floppy": {WriteProtected: false},
		},
	}
	for _, a := range p.BIOS {
		sys.biosCurrent[a.Name] = normalizeValue(a.Value)
	}
	if p.Dialect == DialectDMTF || p.BIOSVersion != "" {
		sys.fwItems = append(sys.fwItems, Firmware{ID: "BIOS", Name: "System BIOS", Version: p.BIOSVersion, Role: "BIOS"})
	}
	if p.Dialect == DialectDMTF || p.BMCVersion != "" {
		sys.fwItems = append(sys.fwItems, Firmware{ID: "BMC", Name: "BMC Firmware", Version: p.BMCVersion, Role: "BMC", Related: "{manager}"})
	}
	sys.fwItems = append(sys.fwItems, p.Firmware...)
	for _, fw := range sys.fwItems {
		sys.firmware[fw.ID] = fw.Version
	}
	return sys
}

// roleVersion is the version of the firmware item with role ("BIOS" or
// "BMC"); s.mu held.
func (sys *system) roleVersion(role string) string {
	for _, fw := range sys.fwItems {
		if fw.Role == role {
			return sys.firmware[fw.ID]
		}
	}
	return ""
}

// enclosureID is the id of the system's storage-enclosure chassis, ""
// when its profile has none.
func (sys *system) enclosureID() string {
	if sys.profile.Enclosure == "" {
		return ""
	}
	return sys.id + "-" + sys.profile.Enclosure
}

// isEnclosure says whether chassis id is the system's storage enclosure.
func (sys *system) isEnclosure(id string) bool {
	return sys.profile.Enclosure != "" && strings.EqualFold(id, sys.enclosureID())
}

// fwID is the FirmwareInventory member id of component comp: prefixed with
// the system's id in the DMTF dialect (one inventory serves every system),
// the vendor's own id otherwise.
func (sys *system) fwID(comp string) string {
	if sys.profile.Dialect == DialectDMTF {
		return sys.id + "-" + comp
	}
	return comp
}

// locked says which dependency of the registry makes attribute name
// read-only or hidden with the current values overlaid with those of the
// same request ("" when none); s.mu held.
func (sys *system) locked(name string, with map[string]any) string {
	for _, d := range sys.profile.BIOSDependencies {
		if d.Attribute != name || len(d.When) == 0 {
			continue
		}
		holds := false
		for i, c := range d.When {
			cur, set := with[c.Attribute]
			if !set {
				cur = sys.biosCurrent[c.Attribute]
			}
			ok := compareBIOS(normalizeValue(cur), c.Condition, normalizeValue(c.Value))
			switch {
			case i == 0:
				holds = ok
			case strings.EqualFold(c.Terms, "OR"):
				holds = holds || ok
			default:
				holds = holds && ok
			}
		}
		if holds {
			c := d.When[0]
			return fmt.Sprintf("%s is %s while %s %s %v", name, d.Property, c.Attribute, c.Condition, c.Value)
		}
	}
	return ""
}

func compareBIOS(cur any, cond string, want any) bool {
	a, aNum := cur.(float64)
	b, bNum := want.(float64)
	if !aNum || !bNum {
		eq := fmt.Sprint(cur) == fmt.Sprint(want)
		switch cond {
		case "EQU":
			return eq
		case "NEQ":
			return !eq
		}
		return false
	}
	switch cond {
	case "EQU":
		return a == b
	case "NEQ":
		return a != b
	case "GTR":
		return a > b
	case "GEQ":
		return a >= b
	case "LSS":
		return a < b
	case "LEQ":
		return a <= b
	}
	return false
}

// normalizeValue turns Go ints into float64 so that values compare equal to
// the ones decoded from JSON.
func normalizeValue(v any) any {
	switch t := v.(type) {
	case int:
		return float64(t)
	case int64:
		return float64(t)
	}
	return v
}

func (sys *system) attribute(name string) (BiosAttribute, bool) {
	for _, a := range sys.profile.BIOS {
		if a.Name == name {
			return a, true
		}
	}
	return BiosAttribute{}, false
}

// reset carries out a ComputerSystem.Reset; s.mu held.
func (sys *system) reset(kind string) error {
	sys.resets = append(sys.resets, kind)
	if sys.faults.PowerStuck {
		return nil
	}
	switch kind {
	case "On":
		if sys.power == PowerOff {
			sys.powerOn()
		}
	case "ForceOff", "GracefulShutdown":
		sys.powerOff()
	case "ForceRestart", "GracefulRestart", "PowerCycle":
		sys.powerOn()
	case "PushPowerButton":
		if sys.power == PowerOn {
			sys.powerOff()
		} else {
			sys.powerOn()
		}
	case "Nmi":
	default:
		return fmt.Errorf("unsupported ResetType %q", kind)
	}
	return nil
}

// powerOn boots the system: pending BIOS settings take effect, as on a real
// BMC. A boot override applies to this boot; a one-time one (Enabled
// Once) is then spent, and Enabled goes back to Disabled as the Redfish
// spec says. Target Pxe boots from the network: the agent then starts
// only if iPXE finds its config (agent.PowerOnNetwork).
func (sys *system) powerOn() {
	sys.power = PowerOn
	sys.bootCount++
	maps.Copy(sys.biosCurrent, sys.biosPending)
	clear(sys.biosPending)
	network := sys.boot.Target == "Pxe" && sys.boot.Enabled != "Disabled"
	if sys.boot.Enabled == "Once" {
		sys.boot.Enabled = "Disabled"
	}
	if network {
		sys.networkBoots++
	}
	switch {
	case sys.vm != nil:
		sys.vm.powerOn(sys)
	case sys.agent == nil:
	case network:
		sys.agent.PowerOnNetwork()
	default:
		sys.agent.PowerOn()
	}
}

// powerOff turns the system off; its agent, if it ran one, is gone.
func (sys *system) powerOff() {
	sys.power = PowerOff
	if sys.agent != nil {
		sys.agent.PowerOff()
	}
	if sys.vm != nil {
		sys.vm.powerOff()
	}
}

func (sys *system) snapshot(activeSessions int) SystemState {
	st := SystemState{
		ID: sys.id, PowerState: sys.power, Boot: sys.boot,
		BiosCurrent: maps.Clone(sys.biosCurrent), BiosPending: maps.Clone(sys.biosPending),
		VirtualMedia: map[string]MediaState{}, Firmware: maps.Clone(sys.firmware),
		Requests: sys.requests, Resets: append([]string(nil), sys.resets...), BootCount: sys.bootCount,
		BootRequests: append([]BootOverride(nil), sys.bootRequests...), NetworkBoots: sys.networkBoots,
		RefusedResets:   append([]string(nil), sys.refusedResets...),
		ManagerResets:   append([]string(nil), sys.managerResets...),
		SessionsCreated: sys.sessionsCreated, SessionsDeleted: sys.sessionsDeleted, ActiveSessions: activeSessions,
		Faults: sys.faults,
	}
	if sys.agent != nil {
		st.AgentURL = sys.agent.URL()
	}
	for k, m := range sys.media {
		st.VirtualMedia[k] = *m
	}
	return st
}

// State returns the state of system id.
func (s *Server) State(id string) (SystemState, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sys := s.systems[id]
	if sys == nil {
		return SystemState{}, fmt.Errorf("sim: no system %q", id)
	}
	return sys.snapshot(s.activeSessionsFor(id)), nil
}

// SetFaults replaces the faults of system id.
func (s *Server) SetFaults(id string, f Faults) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	sys := s.systems[id]
	if sys == nil {
		return fmt.Errorf("sim: no system %q", id)
	}
	sys.faults = f
	return nil
}

// SetNICs replaces the NICs of system id, as a hardware change would:
// Redfish's EthernetInterfaces and the simulated agent's inventory show
// the new ones from then on. MACs are stored in lower case.
func (s *Server) SetNICs(id string, nics []NIC) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	sys := s.systems[id]
	if sys == nil {
		return fmt.Errorf("sim: no system %q", id)
	}
	out := make([]NIC, len(nics))
	for i, n := range nics {
		n.MAC = strings.ToLower(n.MAC)
		out[i] = n
	}
	sys.profile.NICs = out
	return nil
}

// ClearFaults makes system id healthy again.
func (s *Server) ClearFaults(id string) error { return s.SetFaults(id, Faults{}) }

// SetPower sets the power state of system id directly (PowerOn applies
// pending BIOS settings like a boot does).
func (s *Server) SetPower(id, state string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	sys := s.systems[id]
	if sys == nil {
		return fmt.Errorf("sim: no system %q", id)
	}
	switch state {
	case PowerOn:
		if sys.power != PowerOn {
			sys.powerOn()
		}
	case PowerOff:
		if sys.power != PowerOff {
			sys.powerOff()
		}
	default:
		return fmt.Errorf("sim: power state must be On or Off, not %q", state)
	}
	return nil
}

// SetCredentials changes the credentials system id accepts.
func (s *Server) SetCredentials(id, username, password string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	sys := s.systems[id]
	if sys == nil {
		return fmt.Errorf("sim: no system %q", id)
	}
	sys.username, sys.password = username, password
	return nil
}

// session is one Redfish session; systems are those whose credentials it
// was created with.
type session struct {
	id       string
	token    string
	username string
	systems  []string
	created  time.Time
}
