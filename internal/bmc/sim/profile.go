package sim

import "fmt"

// Profile describes the hardware of one simulated system.
type Profile struct {
	Manufacturer string
	Model        string
	SerialNumber string
	SKU          string
	HostName     string
	// UUID of the system; DefaultProfile makes a distinct one per system.
	UUID string

	CPU CPU
	// RAMGiB is the total memory, reported in MemorySummary and split evenly
	// over DIMMs memory modules.
	RAMGiB int
	DIMMs  int

	NICs  []NIC
	Disks []Disk
	// Enclosure, when set, names a storage-enclosure chassis that holds the
	// disks, as iLO's DE00A000 does: contained by the system's chassis,
	// linked from its Storage's Links.Enclosures, not among its
	// Links.Chassis. Its id is "<system id>-<Enclosure>".
	Enclosure string

	// BIOS holds the BIOS attributes with their registry description; Value
	// is the current value the system boots with.
	BIOS []BiosAttribute
	// BIOSRegistry names the attribute registry (Bios.AttributeRegistry).
	BIOSRegistry string

	// BIOSRegistryOnly are attributes the registry describes that this
	// system's Bios lacks (a registry written for a family of platforms).
	BIOSRegistryOnly []BiosAttribute
	// BIOSDependencies are the registry's Dependencies: settings that other
	// settings' values make read-only or hidden. The BIOS refuses a PATCH
	// of a setting they lock.
	BIOSDependencies []BiosDependency

	// BIOSVersion and BMCVersion, when set, are the versions of the "BIOS"
	// and "BMC" firmware components; Firmware lists further components
	// (NICs, ..., or all of them, with Role saying which is the BIOS and
	// the BMC).
	BIOSVersion string
	BMCVersion  string
	Firmware    []Firmware

	// Dialect is how the BMC words its answers: DialectDMTF (default),
	// DialectILO, DialectIDRAC or DialectSupermicro.
	Dialect string

	// NoVirtualMedia makes a BMC without virtual media: its manager's
	// VirtualMedia collection is empty and the device URIs are not found.
	NoVirtualMedia bool
}

// CPU describes the processors: Count sockets of the same model.
type CPU struct {
	Count          int
	Model          string
	Manufacturer   string
	Arch           string // x86_64 or aarch64
	CoresPerSocket int
	ThreadsPerCore int
	SpeedMHz       int
}

// NIC is one Ethernet interface of the system.
type NIC struct {
	Name      string // also the resource Id, e.g. "eno1"
	MAC       string // lower-case colon notation
	SpeedMbps int
	LinkUp    bool
}

// Disk media types.
const (
	MediaHDD  = "HDD"
	MediaSSD  = "SSD"
	MediaNVMe = "NVME"
)

// Disk is one drive of the system.
type Disk struct {
	Name       string // also the resource Id, e.g. "Disk.0"
	SizeBytes  int64
	Model      string
	Vendor     string
	Serial     string
	Rotational bool
	MediaType  string // MediaHDD, MediaSSD or MediaNVMe
}

// BIOS attribute types, as named by the Redfish attribute registry.
const (
	AttrEnumeration = "Enumeration"
	AttrInteger     = "Integer"
	AttrString      = "String"
	AttrBoolean     = "Boolean"
)

// BiosAttribute is one BIOS setting and its registry entry.
type BiosAttribute struct {
	Name          string
	Type          string // AttrEnumeration, AttrInteger, AttrString or AttrBoolean
	Value         any    // current value: string, int (or float64 from JSON) or bool
	Default       any    // value after a BIOS reset; nil means the initial Value
	AllowedValues []string
	LowerBound    int64
	UpperBound    int64
	MinLength     int
	MaxLength     int
	ReadOnly      bool
	ResetRequired bool
}

// Firmware is one firmware component, a member of FirmwareInventory.
type Firmware struct {
	ID      string // e.g. "NIC.1"; "BIOS" and "BMC" are made from the versions
	Name    string
	Version string
	// Role is "BIOS" for the system's running BIOS image (its version is
	// the system's BiosVersion) and "BMC" for the manager's; "" otherwise.
	Role string
	// Related is the RelatedItem: a path with {system}, {manager},
	// {chassis} and {enclosure} standing for the system's resources (e.g.
	// "{chassis}/Drives/0"); "" is the system itself, "none" no RelatedItem.
	Related string
	// ReadOnly items are not Updateable.
	ReadOnly bool
	// Standby items are images the BMC keeps but does not run
	// (Status.State StandbySpare).
	Standby bool
}

// BiosDependency is one entry of the registry's Dependencies: Attribute's
// Property ("ReadOnly", "Hidden" or "GrayOut") becomes true when the
// conditions hold (evaluated left to right, each joined to the ones
// before by its Terms, "AND" or "OR").
type BiosDependency struct {
	Attribute string
	Property  string
	When      []BiosCondition
}

// BiosCondition compares another setting's current value: Condition is
// EQU, NEQ, GTR, GEQ, LSS or LEQ.
type BiosCondition struct {
	Attribute string
	Condition string
	Value     any
	Terms     string
}

// DefaultProfile returns a plausible two-socket x86_64 server. Its MACs,
// serials and UUID are distinct for every i (0 <= i < 65536).
func DefaultProfile(i int) Profile {
	hi, lo := byte(i>>8), byte(i)
	mac := func(port byte) string {
		return fmt.Sprintf("52:54:00:%02x:%02x:%02x", hi, lo, port)
	}
	return Profile{
		Manufacturer: "Simulated Systems",
		Model:        "SIM-R640",
		SerialNumber: fmt.Sprintf("SIM%07d", i),
		SKU:          "SKU-R640",
		HostName:     fmt.Sprintf("sim-host-%d", i),
		UUID:         profileUUID(0, i),
		CPU:          twoSocketX86("Intel(R) Xeon(R) Gold 6230 CPU @ 2.10GHz", "Intel(R) Corporation", 20, 2100),
		RAMGiB:       128,
		DIMMs:        4,
		NICs: []NIC{
			{Name: "eno1", MAC: mac(1), SpeedMbps: 25000, LinkUp: true},
			{Name: "eno2", MAC: mac(2), SpeedMbps: 25000, LinkUp: true},
			{Name: "eno3", MAC: mac(3), SpeedMbps: 1000, LinkUp: false},
		},
		Disks: []Disk{
			{Name: "Disk.0", SizeBytes: 480_103_981_056, Model: "SIM SSD 480G", Vendor: "SimDisk",
				Serial: fmt.Sprintf("SSD%06d0", i), MediaType: MediaSSD},
			{Name: "Disk.1", SizeBytes: 1_920_383_410_176, Model: "SIM NVMe 1.92T", Vendor: "SimDisk",
				Serial: fmt.Sprintf("NVM%06d1", i), MediaType: MediaNVMe},
			{Name: "Disk.2", SizeBytes: 4_000_787_030_016, Model: "SIM HDD 4T", Vendor: "SimDisk",
				Serial: fmt.Sprintf("HDD%06d2", i), Rotational: true, MediaType: MediaHDD},
		},
		BIOS:         DefaultBIOS(),
		BIOSRegistry: "BiosAttributeRegistry.v1_0_0",
		BIOSVersion:  "2.10.2",
		BMCVersion:   "5.00.10.20",
		Firmware: []Firmware{
			{ID: "NIC.1", Name: "Simulated 25GbE NIC", Version: "21.5.9"},
		},
	}
}

// profileUUID is the UUID of profile i of a profile family (0 the default
// profile, 1 iLO, 2 iDRAC, 3 Supermicro): distinct for every family and i.
func profileUUID(family, i int) string {
	return fmt.Sprintf("5e1f%04x-0000-4000-8000-%012x", family, i)
}

// twoSocketX86 is the CPU of every simulated server: two x86_64 sockets
// with two threads per core.
func twoSocketX86(model, manufacturer string, coresPerSocket, speedMHz int) CPU {
	return CPU{
		Count: 2, Model: model, Manufacturer: manufacturer,
		Arch: "x86_64", CoresPerSocket: coresPerSocket, ThreadsPerCore: 2, SpeedMHz: speedMHz,
	}
}

// DefaultBIOS returns a small BIOS attribute set with one attribute of each
// type and a read-only one.
func DefaultBIOS() []BiosAttribute {
	return []BiosAttribute{
		{Name: "BootMode", Type: AttrEnumeration, Value: "Uefi", AllowedValues: []string{"Uefi", "Bios"}, ResetRequired: true},
		{Name: "ProcVirtualization", Type: AttrEnumeration, Value: "Enabled", AllowedValues: []string{"Enabled", "Disabled"}, ResetRequired: true},
		{Name: "LogicalProc", Type: AttrEnumeration, Value: "Enabled", AllowedValues: []string{"Enabled", "Disabled"}, ResetRequired: true},
		{Name: "SriovGlobalEnable", Type: AttrBoolean, Value: false, ResetRequired: true},
		{Name: "NumLock", Type: AttrEnumeration, Value: "On", AllowedValues: []string{"On", "Off"}},
		{Name: "PxeRetryCount", Type: AttrInteger, Value: 3, LowerBound: 0, UpperBound: 10},
		{Name: "AssetTag", Type: AttrString, Value: "", MinLength: 0, MaxLength: 32},
		{Name: "SystemServiceTag", Type: AttrString, Value: "SIMTAG", MaxLength: 16, ReadOnly: true},
	}
}

func (p *Profile) normalize() {
	if p.CPU.Count <= 0 {
		p.CPU.Count = 1
	}
	if p.CPU.Arch == "" {
		p.CPU.Arch = "x86_64"
	}
	if p.CPU.CoresPerSocket <= 0 {
		p.CPU.CoresPerSocket = 1
	}
	if p.CPU.ThreadsPerCore <= 0 {
		p.CPU.ThreadsPerCore = 1
	}
	if p.DIMMs <= 0 {
		p.DIMMs = 1
	}
	if p.BIOSRegistry == "" {
		p.BIOSRegistry = "BiosAttributeRegistry.v1_0_0"
	}
}

// cpuArchRedfish maps an arch name to Redfish ProcessorArchitecture and
// InstructionSet.
func cpuArchRedfish(arch string) (string, string) {
	switch arch {
	case "aarch64", "arm64":
		return "ARM", "ARM-A64"
	case "ppc64le", "ppc64":
		return "Power", "PowerISA"
	case "i686", "x86":
		return "x86", "x86"
	default:
		return "x86", "x86-64"
	}
}

func (a BiosAttribute) defaultValue() any {
	if a.Default != nil {
		return a.Default
	}
	return a.Value
}

// validate checks v against the registry entry.
func (a BiosAttribute) validate(v any) error {
	if a.ReadOnly {
		return fmt.Errorf("attribute %s is read-only", a.Name)
	}
	switch a.Type {
	case AttrEnumeration:
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("attribute %s needs a string value", a.Name)
		}
		for _, allowed := range a.AllowedValues {
			if s == allowed {
				return nil
			}
		}
		return fmt.Errorf("value %q is not allowed for attribute %s (allowed: %v)", s, a.Name, a.AllowedValues)
	case AttrInteger:
		var n int64
		switch t := v.(type) {
		case float64:
			if t != float64(int64(t)) {
				return fmt.Errorf("attribute %s needs an integer value", a.Name)
			}
			n = int64(t)
		case int:
			n = int64(t)
		case int64:
			n = t
		default:
			return fmt.Errorf("attribute %s needs an integer value", a.Name)
		}
		if n < a.LowerBound || (a.UpperBound > a.LowerBound && n > a.UpperBound) {
			return fmt.Errorf("value %d is out of bounds [%d, %d] for attribute %s", n, a.LowerBound, a.UpperBound, a.Name)
		}
	case AttrString:
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("attribute %s needs a string value", a.Name)
		}
		if len(s) < a.MinLength || (a.MaxLength > 0 && len(s) > a.MaxLength) {
			return fmt.Errorf("length of value for attribute %s must be in [%d, %d]", a.Name, a.MinLength, a.MaxLength)
		}
	case AttrBoolean:
		if _, ok := v.(bool); !ok {
			return fmt.Errorf("attribute %s needs a boolean value", a.Name)
		}
	}
	return nil
}
