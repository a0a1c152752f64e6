package lifecycle

import (
	"fmt"
	"sort"
)

// FirmwareConfig is BMO's vendor-neutral spec.firmware: nil fields are
// left alone.
type FirmwareConfig struct {
	VirtualizationEnabled             *bool
	SimultaneousMultithreadingEnabled *bool
	SriovEnabled                      *bool
}

// IsZero reports whether no switch is set.
func (c *FirmwareConfig) IsZero() bool {
	return c == nil || (c.VirtualizationEnabled == nil && c.SimultaneousMultithreadingEnabled == nil && c.SriovEnabled == nil)
}

// vendorMapping is one BMC family's attribute names and values for the
// three switches (BMO's AccessDetails.BuildBIOSSettings).
type vendorMapping struct {
	vendor                string
	virtualization, smt   string
	sriov                 string
	trueValue, falseValue string
}

// firmwareMappings are BMO's per-driver mappings, keyed by Ironic driver:
// iDRAC (idrac.go), iLO 4 and 5 (ilo4.go, ilo5.go) and iRMC (irmc.go).
// Generic Redfish, IPMI and the rest refuse the switches, as BMO's
// drivers do ("firmware settings for redfish are not supported").
var firmwareMappings = map[string]vendorMapping{
	"idrac": {vendor: "iDRAC", virtualization: "ProcVirtualization", smt: "LogicalProc", sriov: "SriovGlobalEnable", trueValue: "Enabled", falseValue: "Disabled"},
	"ilo":   {vendor: "iLO 4", virtualization: "ProcVirtualization", smt: "ProcHyperthreading", sriov: "Sriov", trueValue: "Enabled", falseValue: "Disabled"},
	"ilo5":  {vendor: "iLO 5", virtualization: "ProcVirtualization", smt: "ProcHyperthreading", sriov: "Sriov", trueValue: "Enabled", falseValue: "Disabled"},
	"irmc":  {vendor: "iRMC", virtualization: "cpu_vt_enabled", smt: "hyper_threading_enabled", sriov: "single_root_io_virtualization_support_enabled", trueValue: "True", falseValue: "False"},
}

// FirmwareSwitch names one switch of FirmwareConfig (for messages and
// drift), with the vendor attribute it maps to.
type FirmwareSwitch struct {
	Switch    string // virtualization_enabled, ...
	Attribute string
	True      string
	False     string
}

// VendorFirmwareSwitches returns the vendor attribute of every switch for
// an Ironic driver; an error when the driver has no mapping.
func VendorFirmwareSwitches(driver string) ([]FirmwareSwitch, error) {
	m, ok := firmwareMappings[driver]
	if !ok {
		known := make([]string, 0, len(firmwareMappings))
		for d := range firmwareMappings {
			known = append(known, d)
		}
		sort.Strings(known)
		return nil, fmt.Errorf("firmware settings for the %q driver are not supported (the Bare Metal Operator maps them "+
			"for the Ironic drivers %v only): set the BIOS attributes in settings instead", driver, known)
	}
	return []FirmwareSwitch{
		{Switch: "virtualization_enabled", Attribute: m.virtualization, True: m.trueValue, False: m.falseValue},
		{Switch: "simultaneous_multithreading_enabled", Attribute: m.smt, True: m.trueValue, False: m.falseValue},
		{Switch: "sriov_enabled", Attribute: m.sriov, True: m.trueValue, False: m.falseValue},
	}, nil
}

// MergeFirmwareSettings maps cfg to the vendor's attribute names for the
// driver and merges them with settings. A setting that names the same
// attribute with another value is a conflict, reported as an error naming
// both. A zero cfg returns settings unchanged (whatever the driver).
func MergeFirmwareSettings(driver string, cfg *FirmwareConfig, settings map[string]string) (map[string]string, error) {
	out := cloneMap(settings)
	if cfg.IsZero() {
		return out, nil
	}
	switches, err := VendorFirmwareSwitches(driver)
	if err != nil {
		return nil, err
	}
	if out == nil {
		out = map[string]string{}
	}
	values := []*bool{cfg.VirtualizationEnabled, cfg.SimultaneousMultithreadingEnabled, cfg.SriovEnabled}
	for i, sw := range switches {
		if values[i] == nil {
			continue
		}
		v := sw.False
		if *values[i] {
			v = sw.True
		}
		if cur, ok := out[sw.Attribute]; ok && cur != v {
			return nil, fmt.Errorf("firmware.%s = %t maps to %s = %q on %s, but settings sets %s = %q: remove one of them",
				sw.Switch, *values[i], sw.Attribute, v, firmwareMappings[driver].vendor, sw.Attribute, cur)
		}
		out[sw.Attribute] = v
	}
	return out, nil
}
