package lifecycle

import (
	"time"
)

// State is a BareMetalHost provisioning state, with BMO's names.
type State string

const (
	StateNone                    State = ""
	StateUnmanaged               State = "unmanaged"
	StateRegistering             State = "registering"
	StateInspecting              State = "inspecting"
	StatePreparing               State = "preparing"
	StateAvailable               State = "available"
	StateProvisioning            State = "provisioning"
	StateProvisioned             State = "provisioned"
	StateExternallyProvisioned   State = "externally provisioned"
	StateDeprovisioning          State = "deprovisioning"
	StatePoweringOffBeforeDelete State = "powering off before delete"
	StateDeleting                State = "deleting"
	// StateDeleted is not a BMO state: it marks a host whose node is gone
	// (BMO drops the finalizer and the object disappears).
	StateDeleted State = "deleted"
)

// ErrorType is BMO's status.errorType.
type ErrorType string

const (
	NoError                      ErrorType = ""
	RegistrationError            ErrorType = "registration error"
	InspectionError              ErrorType = "inspection error"
	PreparationError             ErrorType = "preparation error"
	ProvisioningError            ErrorType = "provisioning error"
	ProvisionedRegistrationError ErrorType = "provisioned registration error"
	PowerManagementError         ErrorType = "power management error"
	DetachError                  ErrorType = "detach error"
	ServicingError               ErrorType = "servicing error"
)

// OperationalStatus is BMO's status.operationalStatus.
type OperationalStatus string

const (
	OperationalOK         OperationalStatus = "OK"
	OperationalDiscovered OperationalStatus = "discovered"
	OperationalError      OperationalStatus = "error"
	OperationalDelayed    OperationalStatus = "delayed"
	OperationalDetached   OperationalStatus = "detached"
	OperationalServicing  OperationalStatus = "servicing"
)

// BootMode is the host's firmware boot mode.
type BootMode string

const (
	BootModeUEFI           BootMode = "UEFI"
	BootModeUEFISecureBoot BootMode = "UEFISecureBoot"
	BootModeLegacy         BootMode = "legacy"
)

// AutomatedCleaningMode is BMO's automatedCleaningMode, plus the disk
// erasure modes: express (Ironic's erase_devices_express) and full
// (erase_devices), run on deprovision and delete on top of the metadata
// cleaning.
const (
	CleaningMetadata = "metadata"
	CleaningDisabled = "disabled"
	CleaningExpress  = "express"
	CleaningFull     = "full"
)

// RootDeviceHints are BMO's root device hints (devicehints.go).
type RootDeviceHints struct {
	DeviceName         string
	HCTL               string
	Model              string
	Vendor             string
	SerialNumber       string
	MinSizeGigabytes   int
	WWN                string
	WWNWithExtension   string
	WWNVendorExtension string
	// Rotational is nil when unset.
	Rotational *bool
}

// IsZero reports whether no hint is set.
func (h *RootDeviceHints) IsZero() bool {
	return h == nil || *h == RootDeviceHints{}
}

// BMCAccess is what the provisioner needs to reach a host's BMC: the Ironic
// driver, the interfaces the address scheme implies, and driver_info
// (credentials included). internal/bmc builds it from a BMC address.
type BMCAccess struct {
	// Address is the BMC address as the user wrote it, for messages only.
	Address    string
	Driver     string
	Interfaces map[string]string // e.g. "boot_interface": "redfish-virtual-media"
	DriverInfo map[string]any
	// CredentialsVersion changes whenever the credentials or the address
	// change (a hash; never the password itself). The provisioner pushes
	// driver_info again when it differs from Status.GoodCredentials.
	CredentialsVersion string
	// NeedsMAC is true for drivers that always need a boot MAC (libvirt).
	NeedsMAC bool
	// VirtualMedia hosts are never held by the capacity gate.
	VirtualMedia bool
}

// HasCredentials reports whether a driver and driver_info are known.
func (b BMCAccess) HasCredentials() bool { return b.Driver != "" }

// Image is BMO's spec.image.
type Image struct {
	URL          string
	Checksum     string
	ChecksumType string // "", auto, md5, sha256, sha512
	Format       string // raw, qcow2, vdi, vmdk, live-iso
	// PullSecret is BMO's ociAuthSecretName as Ironic takes it
	// (instance_info.image_pull_secret): the registry's Docker config
	// `auth` value. Write-only: sent with the deploy, never read back,
	// logged or kept.
	PullSecret string
}

// IsLiveISO reports whether the image boots as a live ISO (ramdisk deploy).
func (i *Image) IsLiveISO() bool { return i != nil && i.Format == "live-iso" }

// HostSpec is what the user asked for (BMO's BareMetalHost spec).
type HostSpec struct {
	Name                  string
	BMC                   BMCAccess
	Boot                  BootSpec // what the agent ramdisk boots with (boot.go)
	BootMACAddress        string
	BootMode              BootMode
	RootDeviceHints       *RootDeviceHints
	Online                bool
	ExternallyProvisioned bool
	InspectionDisabled    bool
	// Inspection is BMO's inspectionMode; it picks the inspect interface
	// on registration unless BMC.Interfaces names one.
	Inspection            InspectionMode
	AutomatedCleaningMode string
	Labels                map[string]string
	ResourceClass         string
	Traits                []string
	// KeepTraits leaves the node's traits as Ironic has them (the
	// configuration leaves traits unset): inspection rules, or an
	// operator, may set them. Traits is then not written.
	KeepTraits bool
	// KeepResourceClass writes ResourceClass when the node is created
	// only, and then leaves the node's (the configuration leaves
	// resource_class unset): an inspection rule may set it.
	KeepResourceClass bool
	ConductorGroup    string
	// Shard is Ironic's node shard (API 1.82); "" leaves it unset.
	Shard           string
	DisablePowerOff bool
	// Desired is where the host rests (desired.go); "" is available.
	Desired DesiredState

	// Image and the data below are set by a deployment (CAPM3 writes them
	// into the BMH; baremetal_deployment writes them here).
	Image        *Image
	CustomDeploy string
	UserData     string
	MetaData     map[string]any
	NetworkData  map[string]any
	// InstanceUUID is written to instance_info.instance_uuid (BMO: the BMH UID).
	InstanceUUID string

	// FirmwareSettings, when non-empty and different from what was last
	// applied (Status.AppliedFirmware), makes the host "unprepared": it goes
	// back through preparing, where they are sent as bios.apply_configuration.
	FirmwareSettings map[string]string
	// RAID is BMO's spec.raid, applied while preparing (target_raid_config
	// and raid clean steps ahead of the BIOS steps); nil leaves it alone.
	RAID *RAIDConfig
	// FirmwareReset asks for Ironic's bios.factory_reset step, once
	// (Status.FirmwareResetDone records it), ahead of the settings.
	FirmwareReset bool
	// FirmwareUpdates asks for Ironic's firmware.update step (API 1.86+),
	// once (Status.FirmwareUpdatesDone records it), after the BIOS steps
	// (BMO's order: RAID, BIOS, firmware).
	FirmwareUpdates []FirmwareUpdate
	// MaxProvisioningRetries is --max-provisioning-retries (default 5).
	MaxProvisioningRetries int
	// Steps are arbitrary Ironic steps to run once (the baremetal_host_steps
	// action): manual clean steps on an available or manageable host (it
	// goes through preparing, as for firmware settings), service steps on
	// a provisioned one. Status.StepsDone records them started. They run
	// after the firmware steps.
	Steps []ManualStep
	// OnlineSetting, when not "", is recorded on the node for the host
	// actions (OnlineSettingKey): what the baremetal_host's online is
	// configured to, "true", "false" or "unset" (OnlineSettingUnset).
	OnlineSetting string

	// RegisteredElsewhere says that another owner (the baremetal_host
	// resource) holds the node's registration: its BMC credentials,
	// labels and root device hints. A spec with it set only moves an
	// already registered node through states (a deployment and the
	// firmware settings do this): Register is not called, the root device
	// hints never send the host back through preparing, and only firmware
	// settings (or a factory reset) in this spec do. Metal3 has one object
	// per host; Terraform splits it into resources.
	RegisteredElsewhere bool
}

// HostStatus is what the state machine knows (BMO's BareMetalHost status).
type HostStatus struct {
	// ID is the provisioner's id for the host (the Ironic node UUID).
	ID                string
	State             State
	OperationalStatus OperationalStatus
	ErrorType         ErrorType
	ErrorMessage      string
	ErrorCount        int
	PoweredOn         bool
	LastUpdated       time.Time
	// GoodCredentials is the BMCAccess.CredentialsVersion last registered.
	GoodCredentials string
	// ProvisioningFailCount and LastAttemptedImage drive the provisioning
	// retry limit; the count resets when the image changes.
	ProvisioningFailCount int
	LastAttemptedImage    string
	// DeployedImage is status.provisioning.image: what is on the disk.
	DeployedImage *Image
	// DeployedCustomDeploy is status.provisioning.customDeploy.method.
	DeployedCustomDeploy string
	// PreparedRootDeviceHints and AppliedFirmware record what the last
	// successful preparing applied (status.provisioning.rootDeviceHints,
	// HostFirmwareSettings status).
	PreparedRootDeviceHints *RootDeviceHints
	AppliedFirmware         map[string]string
	// PreparedRAID is the RAID configuration the last preparing applied.
	PreparedRAID *RAIDConfig
	// FirmwareResetDone records that the factory reset Spec.FirmwareReset
	// asked for has been started.
	FirmwareResetDone bool
	// FirmwareUpdatesDone records that the firmware.update step
	// Spec.FirmwareUpdates asked for has been started.
	FirmwareUpdatesDone bool
	// StepsDone records that Spec.Steps have been started.
	StepsDone bool
	// OperationHistory stamps when each state was entered (or, for the
	// state a wait started in, when the wait started).
	OperationHistory map[State]time.Time
	// HardwareDetails is what the last inspection returned (BMO's
	// status.hardware); nil until a host has been inspected.
	HardwareDetails *HardwareDetails
}

// Host is one BareMetalHost: spec, status, and whether a delete was asked.
type Host struct {
	Spec   HostSpec
	Status HostStatus
	// Deleting is BMO's deletion timestamp: terraform destroy sets it.
	Deleting bool
	// Detached is BMO's detached annotation; DetachForce its force flag.
	Detached    bool
	DetachForce bool
	// InspectRequested is BMO's inspect.metal3.io annotation: an available
	// host goes back to inspecting. The state machine clears it once the
	// inspection has started.
	InspectRequested bool
	// RebootRequested is BMO's reboot.metal3.io annotation: a powered-on
	// host is powered off (soft first, hard when the soft power off
	// fails or times out) and on again, in place. The state machine
	// clears it once the host is off. rebootHard records the fallback.
	RebootRequested bool
	rebootHard      bool
	// rebootForce: the next hard power off of the reboot is forced past
	// the node's last_error (see reboot).
	rebootForce bool
	// ForceDelete is baremetal_host delete_mode = "force" (BMO's forced
	// detachment, then delete): the delete skips power off and
	// deprovisioning, aborts the operation the node waits in where Ironic
	// allows it, and deletes the node in maintenance.
	ForceDelete bool
	// abortSent: a detach (or a force delete) sent Ironic's abort to end the wait the
	// node was in (abortThenDetach); the next passes detach once it ended.
	abortSent bool
	// powerHard makes a power off hard from the start (the host actions'
	// mode = "hard"), where the state machine goes soft first.
	powerHard bool
	// provided: in this state, Provide found the node available (automated
	// cleaning done), so the passes that follow (power) need no capacity
	// slot. Cleared on every state change.
	provided bool
}

// Result is what a Provisioner call returns (BMO's provisioner.Result):
// Dirty/RequeueAfter while work is in progress, ErrorMessage for a
// permanent failure (the caller maps it to its error type), and a Go error
// (returned beside the Result) for a transient failure.
type Result struct {
	Dirty        bool
	RequeueAfter time.Duration
	ErrorMessage string
	// Verb is the Ironic verb or call behind the result ("manage",
	// "inspect", "clean", "provide", "active", "deleted", "power off", ...),
	// and ProvisionState the Ironic provision state the node was in. Both
	// are for error messages and progress logs.
	Verb           string
	ProvisionState string
}

// HardwareDetails is a summary of inspected hardware (BMO's HardwareDetails),
// enough for claiming and for the data sources.
type HardwareDetails struct {
	CPUArch      string
	CPUCount     int
	RAMMebibytes int
	NICs         []NIC
	Storage      []Disk
	// NICsArePorts says the NICs were read from the node's Ironic ports
	// (no inventory): there is no port to add for them.
	NICsArePorts bool
}

// NIC is one inspected network interface.
type NIC struct {
	Name string
	MAC  string
	IP   string
	PXE  bool
}

// Disk is one inspected disk.
type Disk struct {
	Name      string
	SizeBytes int64
}

// PowerMode selects soft or hard power off.
type PowerMode string

const (
	PowerSoft PowerMode = "soft"
	PowerHard PowerMode = "hard"
)
