package agent

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"
)

// Record is what an agent saw and did, kept across boots (Commands belong
// to the current boot), for tests to check what a host received.
type Record struct {
	CallbackURL      string  `json:"callback_url"`
	Boots            int     `json:"boots"`
	InstanceBoots    int     `json:"instance_boots"`
	Running          bool    `json:"running"`
	NodeUUID         string  `json:"node_uuid,omitempty"`
	Lookups          int     `json:"lookups"`
	Heartbeats       int     `json:"heartbeats"`
	HeartbeatErrors  int     `json:"heartbeat_errors"`
	HeartbeatTimeout float64 `json:"heartbeat_timeout,omitempty"`

	LastHeartbeatError string `json:"last_heartbeat_error,omitempty"`
	// Commands of the current boot, as Ironic sees them.
	Commands []Command `json:"commands"`
	// CommandLog names every command received, across boots.
	CommandLog []string `json:"command_log"`
	// CleanSteps and DeploySteps are the steps executed ("interface.step").
	CleanSteps []string `json:"clean_steps"`
	// ServiceSteps are the agent's service steps executed.
	ServiceSteps []string `json:"service_steps,omitempty"`
	DeploySteps  []string `json:"deploy_steps"`

	Image       *ImageRecord       `json:"image,omitempty"`
	ConfigDrive *ConfigDriveRecord `json:"config_drive,omitempty"`
	Bootloader  map[string]any     `json:"bootloader,omitempty"`
	RAID        map[string]any     `json:"raid,omitempty"`
	BIOS        map[string]any     `json:"bios,omitempty"`
	// ErasedMetadata counts erase_devices_metadata runs.
	ErasedMetadata int `json:"erased_metadata"`
	// DeployKernel is the deploy kernel (or ISO) of the last boot, ""
	// for the conductor's default, and DeployKernelArch its architecture;
	// BootRefused says why the last boot never reached Ironic (a kernel
	// of another architecture, no address on a DHCP-less network), and
	// BootNetworkData is the network_data a DHCP-less boot configured.
	DeployKernel     string          `json:"deploy_kernel,omitempty"`
	DeployKernelArch string          `json:"deploy_kernel_arch,omitempty"`
	BootRefused      string          `json:"boot_refused,omitempty"`
	BootNetworkData  json.RawMessage `json:"boot_network_data,omitempty"`
	// NetworkBoots are the boots from the network (netboot.go), in order.
	NetworkBoots []NetworkBoot `json:"network_boots,omitempty"`
	// Erasures are the erase steps run, one per disk, in order.
	Erasures      []Erasure `json:"erasures"`
	LogsCollected int       `json:"logs_collected"`
	// Inspection is the answer (inspector's or Ironic's) to the last inventory accepted
	// (it accepts one only while it inspects the node); InspectionRejected
	// counts the boots whose post it refused or that could not reach it.
	Inspection         *InspectionRecord `json:"inspection,omitempty"`
	InspectionRejected int               `json:"inspection_rejected"`
	Events             []string          `json:"events"`
}

// ImageRecord is the last image write_image was asked for.
type ImageRecord struct {
	URL string `json:"url"`
	// Algorithm and Expected are the checksum Ironic asked to verify;
	// Actual is what the download hashed to.
	Algorithm  string `json:"algorithm"`
	Expected   string `json:"expected"`
	Actual     string `json:"actual,omitempty"`
	Verdict    string `json:"verdict"` // "match", "mismatch" or "download failed"
	Bytes      int64  `json:"bytes"`
	DiskFormat string `json:"disk_format,omitempty"`
	// AuthScheme is the scheme of the Authorization header the download
	// carried from image_info.image_request_authorization ("Bearer" for
	// an oci:// image on Ironic 2025.1), never the credential; "" for none.
	AuthScheme string `json:"auth_scheme,omitempty"`
	Error      string `json:"error,omitempty"`
}

// ConfigDriveRecord is the decoded config drive of the last write_image.
type ConfigDriveRecord struct {
	Label       string          `json:"label,omitempty"`
	MetaData    json.RawMessage `json:"meta_data,omitempty"`
	UserData    string          `json:"user_data,omitempty"`
	NetworkData json.RawMessage `json:"network_data,omitempty"`
	// Bonds are the bond links of network_data.json as this machine
	// would build them (bonds.go).
	Bonds []BondRecord `json:"bonds,omitempty"`
	Files []string     `json:"files"`
	Error string       `json:"error,omitempty"`
}

// Erasure is one erase step run on one disk.
type Erasure struct {
	Step string `json:"step"` // erase_devices_metadata, erase_devices_express, erase_devices
	Disk string `json:"disk"`
}

// ErasedWith lists the disks step erased (each once).
func (r Record) ErasedWith(step string) []string {
	var disks []string
	for _, e := range r.Erasures {
		if e.Step == step && !slices.Contains(disks, e.Disk) {
			disks = append(disks, e.Disk)
		}
	}
	return disks
}

// InspectionRecord is the last post to ironic-inspector or Ironic's built-in inspection.
type InspectionRecord struct {
	Status int    `json:"status"`
	Answer string `json:"answer"`
	Error  string `json:"error,omitempty"`
}

func (r *Record) event(format string, args ...any) {
	r.Events = append(r.Events, time.Now().UTC().Format("15:04:05.000")+" "+fmt.Sprintf(format, args...))
	if len(r.Events) > 200 {
		r.Events = r.Events[len(r.Events)-200:]
	}
}

// Faults are agent misbehaviours, set per system.
type Faults struct {
	// HeartbeatStopped: the agent stops heartbeating (Ironic's callback
	// timeout then fails the deploy or cleaning).
	HeartbeatStopped bool `json:"heartbeat_stopped,omitempty"`
	// FailCommand fails every command, or clean/deploy step, with this
	// name ("clean.execute_clean_step", "write_image", "erase_devices_metadata")
	// with FailMessage.
	FailCommand string `json:"fail_command,omitempty"`
	FailMessage string `json:"fail_message,omitempty"`
	// DownloadDelay slows image downloads; DownloadFail makes them fail.
	DownloadDelay time.Duration `json:"-"`
	DownloadFail  bool          `json:"download_fail,omitempty"`
}

type faultsJSON struct {
	HeartbeatStopped bool   `json:"heartbeat_stopped,omitempty"`
	FailCommand      string `json:"fail_command,omitempty"`
	FailMessage      string `json:"fail_message,omitempty"`
	DownloadDelayMS  int64  `json:"download_delay_ms,omitempty"`
	DownloadFail     bool   `json:"download_fail,omitempty"`
}

// MarshalJSON writes DownloadDelay as download_delay_ms.
func (f Faults) MarshalJSON() ([]byte, error) {
	return json.Marshal(faultsJSON{f.HeartbeatStopped, f.FailCommand, f.FailMessage, f.DownloadDelay.Milliseconds(), f.DownloadFail})
}

// UnmarshalJSON reads DownloadDelay from download_delay_ms.
func (f *Faults) UnmarshalJSON(b []byte) error {
	var j faultsJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*f = Faults{j.HeartbeatStopped, j.FailCommand, j.FailMessage, time.Duration(j.DownloadDelayMS) * time.Millisecond, j.DownloadFail}
	return nil
}

// Record returns a copy of what the agent saw.
func (a *Agent) Record() Record {
	a.mu.Lock()
	defer a.mu.Unlock()
	r := a.rec
	r.Running = a.boot != nil
	r.Commands = nil
	if a.boot != nil {
		for _, c := range a.boot.commands {
			r.Commands = append(r.Commands, *c)
		}
	}
	r.CommandLog = slices.Clone(r.CommandLog)
	r.CleanSteps = slices.Clone(r.CleanSteps)
	r.ServiceSteps = slices.Clone(r.ServiceSteps)
	r.DeploySteps = slices.Clone(r.DeploySteps)
	r.Erasures = slices.Clone(r.Erasures)
	r.NetworkBoots = slices.Clone(r.NetworkBoots)
	r.Events = slices.Clone(r.Events)
	return r
}

// SetFaults replaces the agent's faults.
func (a *Agent) SetFaults(f Faults) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.faults = f
	a.rec.event("faults set: %+v", f)
}

// Faults returns the agent's faults.
func (a *Agent) Faults() Faults {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.faults
}
