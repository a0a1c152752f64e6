package lifecycle

import (
	"fmt"
	"reflect"
	"slices"
)

// RAIDConfig is BMO's spec.raid: hardware or software volumes. A nil
// *RAIDConfig leaves the disks alone; one without volumes deletes the
// existing RAID configuration.
type RAIDConfig struct {
	HardwareVolumes []HardwareRAIDVolume
	SoftwareVolumes []SoftwareRAIDVolume
}

// HardwareRAIDVolume is BMO's HardwareRAIDVolume (an Ironic logical disk).
type HardwareRAIDVolume struct {
	// SizeGigabytes 0 means all the space left ("MAX").
	SizeGigabytes int
	Level         string
	Name          string
	// Rotational nil: any disk type; true: hdd; false: ssd.
	Rotational            *bool
	NumberOfPhysicalDisks int
	Controller            string
	PhysicalDisks         []string
}

// SoftwareRAIDVolume is BMO's SoftwareRAIDVolume: Ironic's software RAID
// (controller "software") on the disks the hints select.
type SoftwareRAIDVolume struct {
	SizeGigabytes int
	Level         string
	PhysicalDisks []RootDeviceHints
}

var (
	hardwareRAIDLevels = []string{"0", "1", "2", "5", "6", "1+0", "5+0", "6+0"}
	softwareRAIDLevels = []string{"0", "1", "1+0"}
)

// ValidateRAID is BMO's RAID validation: hardware and software volumes
// are exclusive; levels come from the allowed lists; sizes and disk counts
// are positive; physical disks of a hardware volume need its controller;
// the first software volume is RAID-1, and there are at most two (Ironic's
// software RAID). raidInterface, when known, must support the kind asked
// for (BMO: "no-raid" none, "agent" software only, the others hardware
// only). Errors name the volume ("raid.hardware_volumes[0]").
func ValidateRAID(r *RAIDConfig, raidInterface string) []error {
	if r == nil {
		return nil
	}
	var errs []error
	bad := func(where string, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", where, fmt.Sprintf(format, args...)))
	}
	hw, sw := len(r.HardwareVolumes) > 0, len(r.SoftwareVolumes) > 0
	if hw && sw {
		bad("raid", "hardware_volumes and software_volumes cannot both be set")
	}
	switch {
	case raidInterface == "no-raid" && (hw || sw):
		bad("raid", "the host's raid interface is \"no-raid\": its driver does not support RAID")
	case raidInterface == "agent" && hw:
		bad("raid.hardware_volumes", "the host's raid interface is \"agent\", which only builds software RAID")
	case raidInterface != "" && raidInterface != "agent" && sw:
		bad("raid.software_volumes", "software RAID needs the \"agent\" raid interface (an agent ramdisk builds it); the host's is %q", raidInterface)
	}
	for i, v := range r.HardwareVolumes {
		where := fmt.Sprintf("raid.hardware_volumes[%d]", i)
		if !slices.Contains(hardwareRAIDLevels, v.Level) {
			bad(where, "level %q is not one of %v", v.Level, hardwareRAIDLevels)
		}
		if v.SizeGigabytes < 0 {
			bad(where, "size_gigabytes %d must be positive (or unset for all the space left)", v.SizeGigabytes)
		}
		if v.NumberOfPhysicalDisks < 0 {
			bad(where, "number_of_physical_disks %d must be positive", v.NumberOfPhysicalDisks)
		}
		if len(v.PhysicalDisks) > 0 && v.Controller == "" {
			bad(where, "physical_disks needs controller")
		}
	}
	if len(r.SoftwareVolumes) > 2 {
		bad("raid.software_volumes", "at most 2 software RAID volumes, got %d", len(r.SoftwareVolumes))
	}
	for i, v := range r.SoftwareVolumes {
		where := fmt.Sprintf("raid.software_volumes[%d]", i)
		if !slices.Contains(softwareRAIDLevels, v.Level) {
			bad(where, "level %q is not one of %v", v.Level, softwareRAIDLevels)
		}
		if i == 0 && v.Level != "1" && slices.Contains(softwareRAIDLevels, v.Level) {
			bad(where, "the first software RAID volume must be RAID-1 (level \"1\"), got %q", v.Level)
		}
		if v.SizeGigabytes < 0 {
			bad(where, "size_gigabytes %d must be positive (or unset for all the space left)", v.SizeGigabytes)
		}
	}
	return errs
}

// RAIDEqual compares two RAID configurations (nil differs from empty).
func RAIDEqual(a, b *RAIDConfig) bool {
	if a == nil || b == nil {
		return a == b
	}
	norm := func(r *RAIDConfig) RAIDConfig {
		c := *r
		if len(c.HardwareVolumes) == 0 {
			c.HardwareVolumes = nil
		}
		if len(c.SoftwareVolumes) == 0 {
			c.SoftwareVolumes = nil
		}
		return c
	}
	return reflect.DeepEqual(norm(a), norm(b))
}

// CloneRAID deep-copies r.
func CloneRAID(r *RAIDConfig) *RAIDConfig {
	if r == nil {
		return nil
	}
	c := &RAIDConfig{}
	for _, v := range r.HardwareVolumes {
		v.PhysicalDisks = slices.Clone(v.PhysicalDisks)
		if v.Rotational != nil {
			rot := *v.Rotational
			v.Rotational = &rot
		}
		c.HardwareVolumes = append(c.HardwareVolumes, v)
	}
	for _, v := range r.SoftwareVolumes {
		v.PhysicalDisks = slices.Clone(v.PhysicalDisks)
		c.SoftwareVolumes = append(c.SoftwareVolumes, v)
	}
	return c
}

// raidPending reports whether the RAID configuration differs from what
// preparing last applied.
func raidPending(h *Host) bool {
	return h.Spec.RAID != nil && !RAIDEqual(h.Spec.RAID, h.Status.PreparedRAID)
}

// RAIDPending is raidPending for provisioners: whether Prepare must apply
// the RAID configuration.
func RAIDPending(h *Host) bool { return raidPending(h) }
