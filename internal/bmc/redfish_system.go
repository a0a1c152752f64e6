package bmc

import (
	"context"
	"fmt"
	"net/url"
	"sort"
	"strings"

	"github.com/stmcginnis/gofish"
	"github.com/stmcginnis/gofish/schemas"
)

// This file is the Systems service: the ComputerSystem a BMC manages, its
// identity and power state, processors, memory, Ethernet interfaces and
// drives, and the whole inventory read in one session (with the BIOS and
// the firmware of redfish_bios.go and redfish_firmware.go).

// SystemFacts are the identity and state of a computer system.
type SystemFacts struct {
	ID           string
	Manufacturer string
	Model        string
	SerialNumber string
	SKU          string
	BIOSVersion  string
	PowerState   string
	UUID         string
	HostName     string
}

// CPUInfo summarises the processors.
type CPUInfo struct {
	Count    int    // sockets
	Model    string // model of the first processor
	Arch     string // x86_64, aarch64, ppc64le, ... as Ironic names it
	SpeedMHz int
	Cores    int // total
	Threads  int // total
}

// NICInfo is one Ethernet interface.
type NICInfo struct {
	ID        string
	Name      string // as the BMC names it: may be empty (iLO) or the same for all (iDRAC)
	MAC       string // lower case
	SpeedMbps int    // 0 when the BMC does not say
	LinkUp    bool
}

// Drive types, as Metal3 names them.
const (
	DriveHDD  = "HDD"
	DriveSSD  = "SSD"
	DriveNVMe = "NVME"
)

// DriveInfo is one storage drive.
type DriveInfo struct {
	ID         string
	Name       string
	SizeBytes  int64
	Model      string
	Vendor     string
	Serial     string
	Rotational bool
	Type       string // DriveHDD, DriveSSD or DriveNVMe
}

// Inventory is everything ReadInventory learns about a system.
type Inventory struct {
	System    SystemFacts
	CPU       CPUInfo
	MemoryMiB int64
	NICs      []NICInfo
	Drives    []DriveInfo
	BIOS      BIOSInfo
	Firmware  []FirmwareComponent
}

// ReadInventory reads facts, processors, memory, NICs, drives, BIOS
// attributes with their registry and the firmware inventory in one session.
func ReadInventory(ctx context.Context, cfg RedfishConfig, systemID string) (*Inventory, error) {
	c, err := ConnectRedfish(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	return c.Inventory(systemID)
}

// Inventory reads everything about systemID.
func (c *RedfishClient) Inventory(systemID string) (*Inventory, error) {
	sys, err := c.system(systemID)
	if err != nil {
		return nil, err
	}
	inv := &Inventory{System: systemFacts(sys)}
	if inv.CPU, err = c.cpus(sys); err != nil {
		return nil, err
	}
	if inv.MemoryMiB, err = c.memoryMiB(sys); err != nil {
		return nil, err
	}
	if inv.NICs, err = c.nics(sys); err != nil {
		return nil, err
	}
	if inv.Drives, err = c.drives(sys); err != nil {
		return nil, err
	}
	if inv.BIOS, err = c.bios(sys); err != nil {
		return nil, err
	}
	if inv.Firmware, err = c.firmware(sys); err != nil {
		return nil, err
	}
	return inv, nil
}

// SystemFacts reads the identity and power state of systemID.
func (c *RedfishClient) SystemFacts(systemID string) (SystemFacts, error) {
	sys, err := c.system(systemID)
	if err != nil {
		return SystemFacts{}, err
	}
	return systemFacts(sys), nil
}

// ReadHealth reads the health of systemID: its Status.HealthRollup (the
// system and what it contains: drives, fans, ...), else its own
// Status.Health when the BMC gives no rollup; "" when it says neither.
// Two requests: the service root (the connection) and the System.
func ReadHealth(ctx context.Context, cfg RedfishConfig, systemID string) (string, error) {
	c, err := ConnectRedfish(ctx, cfg)
	if err != nil {
		return "", err
	}
	defer c.Close()
	sys, err := c.system(systemID)
	if err != nil {
		return "", err
	}
	if h := string(sys.Status.HealthRollup); h != "" {
		return h, nil
	}
	return string(sys.Status.Health), nil
}

// system reads the ComputerSystem; systemID is an Id, a
// /redfish/v1/Systems/{id} path, or empty for the only system.
func (c *RedfishClient) system(systemID string) (*schemas.ComputerSystem, error) {
	if systemID == "" {
		systems, err := c.api.Service.Systems()
		if err != nil {
			return nil, c.wrap("list systems", err)
		}
		if len(systems) != 1 {
			return nil, &RedfishError{Endpoint: c.endpoint, Op: "list systems", Kind: ErrNotFound,
				Detail: fmt.Sprintf("the BMC has %d systems; say which one", len(systems))}
		}
		return systems[0], nil
	}
	uri := systemID
	if !strings.HasPrefix(uri, "/") {
		uri = "/redfish/v1/Systems/" + url.PathEscape(systemID)
	}
	sys, err := schemas.GetComputerSystem(c.api, uri)
	if err != nil {
		return nil, c.wrap("read system "+systemID, err)
	}
	return sys, nil
}

func systemFacts(sys *schemas.ComputerSystem) SystemFacts {
	return SystemFacts{
		ID: sys.ID, Manufacturer: sys.Manufacturer, Model: sys.Model, SerialNumber: sys.SerialNumber,
		SKU: sys.SKU, BIOSVersion: sys.BiosVersion, PowerState: string(sys.PowerState),
		UUID: sys.UUID, HostName: sys.HostName,
	}
}

func (c *RedfishClient) cpus(sys *schemas.ComputerSystem) (CPUInfo, error) {
	procs, err := sys.Processors()
	if err != nil {
		return CPUInfo{}, c.wrap("read processors of "+sys.ID, err)
	}
	var info CPUInfo
	for _, p := range procs {
		if p.ProcessorType != "" && p.ProcessorType != schemas.CPUProcessorType {
			continue
		}
		info.Count++
		if info.Model == "" {
			info.Model = strings.TrimSpace(p.Model)
			info.Arch = cpuArch(string(p.ProcessorArchitecture), string(p.InstructionSet))
			switch {
			case p.MaxSpeedMHz != nil:
				info.SpeedMHz = *p.MaxSpeedMHz
			case p.OperatingSpeedMHz != nil:
				info.SpeedMHz = *p.OperatingSpeedMHz
			}
		}
		info.Cores += gofish.Deref(p.TotalCores)
		info.Threads += gofish.Deref(p.TotalThreads)
	}
	if info.Count == 0 {
		info.Count = int(gofish.Deref(sys.ProcessorSummary.Count))
		info.Model = sys.ProcessorSummary.Model
		info.Cores = int(gofish.Deref(sys.ProcessorSummary.CoreCount))
		info.Threads = int(gofish.Deref(sys.ProcessorSummary.LogicalProcessorCount))
	}
	return info, nil
}

// cpuArch names a Redfish architecture and instruction set as Ironic does.
func cpuArch(arch, isa string) string {
	switch isa {
	case "x86-64":
		return "x86_64"
	case "x86":
		return "i686"
	case "ARM-A64":
		return "aarch64"
	case "ARM-A32":
		return "arm"
	case "PowerISA":
		return "ppc64le"
	}
	switch arch {
	case "x86":
		return "x86_64"
	case "ARM":
		return "aarch64"
	case "Power":
		return "ppc64le"
	}
	return strings.ToLower(arch)
}

func (c *RedfishClient) memoryMiB(sys *schemas.ComputerSystem) (int64, error) {
	if gib := sys.MemorySummary.TotalSystemMemoryGiB; gib != nil && *gib > 0 {
		return int64(*gib * 1024), nil
	}
	mems, err := sys.Memory()
	if err != nil {
		return 0, c.wrap("read memory of "+sys.ID, err)
	}
	var total int64
	for _, m := range mems {
		total += int64(gofish.Deref(m.CapacityMiB))
	}
	return total, nil
}

func (c *RedfishClient) nics(sys *schemas.ComputerSystem) ([]NICInfo, error) {
	eths, err := sys.EthernetInterfaces()
	if err != nil {
		return nil, c.wrap("read Ethernet interfaces of "+sys.ID, err)
	}
	out := make([]NICInfo, 0, len(eths))
	for _, e := range eths {
		mac := e.MACAddress
		if mac == "" {
			mac = e.PermanentMACAddress
		}
		out = append(out, NICInfo{
			ID: e.ID, Name: e.Name, MAC: strings.ToLower(mac),
			SpeedMbps: gofish.Deref(e.SpeedMbps),
			LinkUp:    e.LinkStatus == schemas.LinkUpLinkStatus,
		})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

func (c *RedfishClient) drives(sys *schemas.ComputerSystem) ([]DriveInfo, error) {
	storages, err := sys.Storage()
	if err != nil {
		return nil, c.wrap("read storage of "+sys.ID, err)
	}
	var out []DriveInfo
	for _, st := range storages {
		drives, err := st.Drives()
		if err != nil {
			return nil, c.wrap("read drives of "+sys.ID, err)
		}
		for _, d := range drives {
			out = append(out, driveInfo(d))
		}
	}
	if len(out) == 0 {
		simple, err := sys.SimpleStorage()
		if err != nil {
			return nil, c.wrap("read simple storage of "+sys.ID, err)
		}
		for _, ss := range simple {
			for _, dev := range ss.Devices {
				out = append(out, DriveInfo{
					ID: dev.Name, Name: dev.Name, SizeBytes: int64(gofish.Deref(dev.CapacityBytes)),
					Model: dev.Model, Vendor: dev.Manufacturer,
				})
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

func driveInfo(d *schemas.Drive) DriveInfo {
	info := DriveInfo{
		ID: d.ID, Name: d.Name, SizeBytes: int64(gofish.Deref(d.CapacityBytes)),
		Model: d.Model, Vendor: d.Manufacturer, Serial: d.SerialNumber,
		Rotational: d.MediaType == schemas.HDDMediaType || gofish.Deref(d.RotationSpeedRPM) > 0,
	}
	switch {
	case d.Protocol == schemas.NVMeProtocol:
		info.Type = DriveNVMe
	case d.MediaType == schemas.SSDMediaType:
		info.Type = DriveSSD
	case info.Rotational:
		info.Type = DriveHDD
	}
	return info
}
