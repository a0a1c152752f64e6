package lifecycle

import (
	"context"
	"errors"
)

// Catalog is the read and claim side of the provisioner: what data sources
// and claims need beyond state transitions. internal/ironic implements it.
type Catalog interface {
	// Hosts lists every node with its state, labels, claim and a hardware
	// summary (from node properties and ports), in one pass over the list
	// API (detail, paginated).
	Hosts(ctx context.Context) ([]HostSummary, error)
	// Host returns one node by UUID or name; ErrNotRegistered (wrapped)
	// when there is none.
	Host(ctx context.Context, idOrName string) (HostSummary, error)
	// Hardware returns the inspected hardware of a node: from Ironic's
	// inventory API when it holds one (1.81+), else from the BMC over
	// Redfish when redfish is non-nil (Ironic masks the BMC password, so
	// the caller supplies the credentials), else from node properties and
	// ports. HardwareData.Source says which.
	Hardware(ctx context.Context, idOrName string, redfish *BMCAccess) (*HardwareData, error)
	// Claim creates an Ironic allocation restricted to candidates (node
	// UUIDs), trying them in the given order one at a time so placement
	// is deterministic, and waits until it is active or in error. Ironic
	// makes each allocation atomic: two claims never get the same node.
	// It returns ErrNoCapacity (wrapped) when no candidate could be taken.
	Claim(ctx context.Context, req ClaimRequest) (Allocation, error)
	// Allocation reads an allocation; ok is false when it no longer exists.
	Allocation(ctx context.Context, id string) (a Allocation, ok bool, err error)
	// Release deletes an allocation (a missing one counts as released).
	Release(ctx context.Context, id string) error
}

// ErrNoCapacity says that none of the candidate hosts could be claimed.
var ErrNoCapacity = errors.New("none of the candidate hosts could be claimed")

// HostSummary is one host as the data sources and claims see it.
type HostSummary struct {
	Observation
	// Hardware is a summary from node properties (cpus, memory_mb,
	// local_gb, cpu_arch) and ports (MACs); nil when unknown.
	Hardware *HardwareDetails
}

// ClaimRequest asks for one host among candidates.
type ClaimRequest struct {
	// Name is the allocation's name (unique in Ironic), e.g. the claim's.
	Name          string
	ResourceClass string
	Traits        []string
	// Candidates are node UUIDs in order of preference.
	Candidates []string
	// Extra is stored in the allocation's extra (e.g. who claimed it).
	Extra map[string]string
}

// Allocation is an Ironic allocation.
type Allocation struct {
	ID        string
	Name      string
	NodeID    string
	State     string // allocating, active, error
	LastError string
}

// HardwareData is BMO's HardwareData shape.
type HardwareData struct {
	// Source is "inventory", "redfish" or "properties".
	Source       string
	CPU          CPU
	RAMMebibytes int
	NICs         []HardwareNIC
	Storage      []Storage
	SystemVendor SystemVendor
	Firmware     Firmware
	Hostname     string
}

// CPU describes the host's processors.
type CPU struct {
	Arch           string
	Model          string
	ClockMegahertz float64
	Count          int
	Flags          []string
}

// HardwareNIC is one network interface.
type HardwareNIC struct {
	Name      string
	Model     string
	MAC       string
	IP        string
	SpeedGbps *int // nil when unknown
	PXE       bool
	VLANIDs   []int
	// LLDP is the switch port the last inspection heard on the NIC; nil
	// when none was heard or the source has no LLDP.
	LLDP *LLDPNeighbour
}

// Storage is one disk.
type Storage struct {
	Name               string
	Type               string // HDD, SSD, NVME
	SizeBytes          int64
	Vendor             string
	Model              string
	SerialNumber       string
	WWN                string
	WWNWithExtension   string
	WWNVendorExtension string
	HCTL               string
	Rotational         bool
}

// SystemVendor is the host's maker.
type SystemVendor struct {
	Manufacturer string
	ProductName  string
	SerialNumber string
}

// Firmware is the host's BIOS firmware.
type Firmware struct {
	BIOSVendor  string
	BIOSVersion string
	BIOSDate    string
}

// BMCHealthReader is a Catalog that reads a host's health from its BMC
// over Redfish, for an Ironic without node health (before API 1.109): the
// System's Status.HealthRollup ("OK", "Warning", "Critical"), which
// counts its components (drives, fans, ...), else its own Status.Health.
// Ironic masks the BMC password, so the caller gives the credentials.
// Each call connects to the BMC (the service root, then the System).
type BMCHealthReader interface {
	BMCHealth(ctx context.Context, idOrName string, redfish *BMCAccess) (string, error)
}

// Health values, as Ironic and Redfish spell them.
const (
	HealthOK       = "OK"
	HealthWarning  = "Warning"
	HealthCritical = "Critical"
)
