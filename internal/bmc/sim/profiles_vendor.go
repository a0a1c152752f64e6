package sim

import "fmt"

// This file holds hardware profiles shaped like three vendors' BMCs, from
// their public Redfish documentation: the simulator's own data, with the
// shapes that make a client written against the DMTF mockups fail (see the
// Dialect* constants for the wire shapes).

// ProfileFor returns the profile of a dialect: DefaultProfile for
// DialectDMTF, else ILOProfile, IDRACProfile or SupermicroProfile.
func ProfileFor(dialect string, i int) (Profile, error) {
	switch dialect {
	case DialectDMTF:
		return DefaultProfile(i), nil
	case DialectILO:
		return ILOProfile(i), nil
	case DialectIDRAC:
		return IDRACProfile(i), nil
	case DialectSupermicro:
		return SupermicroProfile(i), nil
	}
	return Profile{}, fmt.Errorf("sim: unknown dialect %q (want %q, %q or %q)", dialect, DialectILO, DialectIDRAC, DialectSupermicro)
}

func vendorMAC(i int, port byte) string {
	return fmt.Sprintf("52:54:01:%02x:%02x:%02x", byte(i>>8), byte(i), port)
}

// readOnlyUnlessCustom makes attr read-only while the profile attribute
// profile is not "Custom", as vendors' power and performance profiles do.
func readOnlyUnlessCustom(attr, profile string) BiosDependency {
	return BiosDependency{Attribute: attr, Property: "ReadOnly",
		When: []BiosCondition{{Attribute: profile, Condition: "NEQ", Value: "Custom"}}}
}

func enum(name string, value string, allowed ...string) BiosAttribute {
	return BiosAttribute{Name: name, Type: AttrEnumeration, Value: value, AllowedValues: allowed, ResetRequired: true}
}

// ILOProfile is a server behind an HPE iLO-like BMC (DialectILO): a
// FirmwareInventory of 23 items whose two drive items relate to the drives
// of the storage enclosure Chassis/{id}-DE00A000 (contained by the
// system's chassis, linked from its Storage), two system ROM images ("System ROM" runs,
// "Redundant System ROM" is the fallback), NICs without names whose speed
// is unknown until the link is up, drives without a manufacturer, and a
// BIOS attribute registry written for the platform family: larger than the
// system's Bios, with a workload profile that makes the power regulator
// read-only and SR-IOV tuning hidden while virtualization is off.
func ILOProfile(i int) Profile {
	return Profile{
		Dialect:      DialectILO,
		Manufacturer: "HPE",
		Model:        "ProLiant DL360 Gen10 Plus (simulated)",
		SerialNumber: fmt.Sprintf("SIMILO%05d", i),
		SKU:          "P55240-B21",
		HostName:     fmt.Sprintf("ilo-host-%d", i),
		UUID:         profileUUID(1, i),
		CPU:          twoSocketX86("Intel(R) Xeon(R) Gold 5318Y CPU @ 2.10GHz", "Intel(R) Corporation", 24, 2100),
		RAMGiB:       256, DIMMs: 8,
		NICs: []NIC{
			{Name: "1", MAC: vendorMAC(i, 1), SpeedMbps: 10000, LinkUp: true},
			{Name: "2", MAC: vendorMAC(i, 2)},
			{Name: "3", MAC: vendorMAC(i, 3)},
			{Name: "4", MAC: vendorMAC(i, 4)},
		},
		Disks: []Disk{
			{Name: "0", SizeBytes: 960_197_124_096, Model: "VK000960GWTTB", Serial: fmt.Sprintf("ILOSSD%05d0", i), MediaType: MediaSSD},
			{Name: "1", SizeBytes: 960_197_124_096, Model: "VK000960GWTTB", Serial: fmt.Sprintf("ILOSSD%05d1", i), MediaType: MediaSSD},
		},
		Enclosure:    "DE00A000",
		BIOSRegistry: "BiosAttributeRegistryU46.v1_2_34",
		BIOS: []BiosAttribute{
			enum("WorkloadProfile", "GeneralPowerEfficientCompute",
				"GeneralPowerEfficientCompute", "GeneralPeakFrequencyCompute", "Virtualization-MaxPerformance", "Custom"),
			enum("PowerRegulator", "DynamicPowerSavings", "DynamicPowerSavings", "StaticLowPower", "StaticHighPerf", "OsControl"),
			enum("ProcVirtualization", "Enabled", "Enabled", "Disabled"),
			enum("ProcHyperthreading", "Enabled", "Enabled", "Disabled"),
			enum("Sriov", "Enabled", "Enabled", "Disabled"),
			{Name: "IntelNicDmaChannels", Type: AttrEnumeration, Value: "Enabled", AllowedValues: []string{"Enabled", "Disabled"}},
			enum("BootMode", "Uefi", "Uefi", "LegacyBios"),
			{Name: "ServerAssetTag", Type: AttrString, Value: "", MaxLength: 32},
			{Name: "PowerOnDelay", Type: AttrEnumeration, Value: "NoDelay", AllowedValues: []string{"NoDelay", "Random", "15Second", "30Second"}},
			{Name: "SerialNumber", Type: AttrString, Value: fmt.Sprintf("SIMILO%05d", i), MaxLength: 16, ReadOnly: true},
		},
		BIOSRegistryOnly: []BiosAttribute{
			enum("ProcAmdIoVt", "Enabled", "Enabled", "Disabled"),
			enum("ProcSMT", "Enabled", "Enabled", "Disabled"),
			enum("NvmeRaid", "Disabled", "Enabled", "Disabled"),
			enum("Slot7NicBoot1", "NetworkBoot", "NetworkBoot", "Disabled"),
			enum("EmbSata3Aspm", "Disabled", "Disabled", "Enabled"),
			{Name: "CustomPostMessage", Type: AttrString, Value: "", MaxLength: 62},
		},
		BIOSDependencies: []BiosDependency{
			readOnlyUnlessCustom("PowerRegulator", "WorkloadProfile"),
			{Attribute: "IntelNicDmaChannels", Property: "Hidden",
				When: []BiosCondition{{Attribute: "ProcVirtualization", Condition: "EQU", Value: "Disabled"}}},
		},
		Firmware: []Firmware{
			{ID: "1", Name: "iLO 5", Version: "2.72 Sep 04 2022", Role: "BMC", Related: "{manager}"},
			{ID: "2", Name: "System ROM", Version: "U46 v1.64 (08/11/2022)", Role: "BIOS"},
			{ID: "3", Name: "Intelligent Platform Abstraction Data", Version: "11.2.0 Build 15", ReadOnly: true},
			{ID: "4", Name: "System Programmable Logic Device", Version: "0x31", Related: "{chassis}", ReadOnly: true},
			{ID: "5", Name: "Power Management Controller Firmware", Version: "1.0.8", Related: "{chassis}"},
			{ID: "6", Name: "Power Management Controller FW Bootloader", Version: "1.1", Related: "{chassis}", ReadOnly: true},
			{ID: "7", Name: "Redundant System ROM", Version: "U46 v1.60 (05/21/2022)"},
			{ID: "8", Name: "Intelligent Provisioning", Version: "3.72.8", Related: "none"},
			{ID: "9", Name: "Power Supply Firmware", Version: "1.00", Related: "{chassis}/Power#/PowerSupplies/0", ReadOnly: true},
			{ID: "10", Name: "Power Supply Firmware", Version: "1.00", Related: "{chassis}/Power#/PowerSupplies/1", ReadOnly: true},
			{ID: "11", Name: "Innovation Engine (IE) Firmware", Version: "0x0b", ReadOnly: true},
			{ID: "12", Name: "Server Platform Services (SPS) Firmware", Version: "6.0.4.72"},
			{ID: "13", Name: "Server Platform Services (SPS) Descriptor", Version: "1.2 0", ReadOnly: true},
			{ID: "14", Name: "Embedded Video Controller", Version: "2.5", Related: "none", ReadOnly: true},
			{ID: "15", Name: "Ethernet 10/25Gb 2-port SFP28 Adapter", Version: "20.21.27", Related: "{chassis}/NetworkAdapters/DE07A000"},
			{ID: "16", Name: "Ethernet 1Gb 4-port BASE-T Adapter", Version: "20.19.51", Related: "{chassis}/NetworkAdapters/DE081000"},
			{ID: "17", Name: "MR416i-a Gen10+", Version: "52.16.3-4455", Related: "{system}/Storage/1"},
			{ID: "18", Name: "Smart Storage Energy Pack 1 Firmware", Version: "0.70", Related: "{chassis}"},
			{ID: "19", Name: "8 SFF 12G x1SAS UBM2 BC BP", Version: "1.24", Related: "{chassis}", ReadOnly: true},
			{ID: "20", Name: "TPM Firmware", Version: "7.2.2.0", Related: "{system}", ReadOnly: true},
			{ID: "21", Name: "Drive", Version: "HPD4", Related: "{enclosure}/Drives/0"},
			{ID: "22", Name: "Drive", Version: "HPD4", Related: "{enclosure}/Drives/1"},
			{ID: "23", Name: "NVMe Backplane Firmware", Version: "1.20", Related: "{chassis}", ReadOnly: true},
		},
	}
}

// IDRACProfile is a server behind a Dell iDRAC-like BMC (DialectIDRAC):
// FirmwareInventory ids that say "Installed-" for what runs and
// "Previous-" for the rollback image of the BIOS and iDRAC, every NIC
// named "System Ethernet Interface", and a registry whose system profile
// makes the processor power settings read-only unless it is Custom.
func IDRACProfile(i int) Profile {
	raid := "{system}/Storage/1"
	return Profile{
		Dialect:      DialectIDRAC,
		Manufacturer: "Dell Inc.",
		Model:        "PowerEdge R650 (simulated)",
		SerialNumber: fmt.Sprintf("SIMDL%05d", i),
		SKU:          fmt.Sprintf("SVT%04d", i),
		HostName:     fmt.Sprintf("idrac-host-%d", i),
		UUID:         profileUUID(2, i),
		CPU:          twoSocketX86("Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz", "Intel", 32, 2000),
		RAMGiB:       512, DIMMs: 16,
		NICs: []NIC{
			{Name: "NIC.Integrated.1-1-1", MAC: vendorMAC(i, 1), SpeedMbps: 25000, LinkUp: true},
			{Name: "NIC.Integrated.1-2-1", MAC: vendorMAC(i, 2), SpeedMbps: 25000, LinkUp: true},
			{Name: "NIC.Embedded.1-1-1", MAC: vendorMAC(i, 3)},
		},
		Disks: []Disk{
			{Name: "Disk.Bay.0:Enclosure.Internal.0-1:RAID.Integrated.1-1", SizeBytes: 479_559_942_144, Model: "MZ7L3480HCHQAD3",
				Vendor: "SAMSUNG", Serial: fmt.Sprintf("S6KMNE0%05d", i), MediaType: MediaSSD},
			{Name: "Disk.Bay.1:Enclosure.Internal.0-1:RAID.Integrated.1-1", SizeBytes: 1_199_638_052_864, Model: "AL15SEB120N",
				Vendor: "TOSHIBA", Serial: fmt.Sprintf("X0R0A0%05d", i), Rotational: true, MediaType: MediaHDD},
		},
		BIOSRegistry: "BiosAttributeRegistry.v1_0_3",
		BIOS: []BiosAttribute{
			enum("SysProfile", "PerfPerWattOptimizedDapc", "PerfPerWattOptimizedDapc", "PerfPerWattOptimizedOs", "PerfOptimized", "Custom"),
			enum("ProcPwrPerf", "SysDbpm", "MaxPerf", "MinPwr", "SysDbpm", "OsDbpm"),
			enum("ProcCStates", "Enabled", "Enabled", "Disabled"),
			enum("ProcVirtualization", "Enabled", "Enabled", "Disabled"),
			enum("LogicalProc", "Enabled", "Enabled", "Disabled"),
			enum("SriovGlobalEnable", "Disabled", "Enabled", "Disabled"),
			enum("BootMode", "Uefi", "Uefi", "Bios"),
			{Name: "NumLock", Type: AttrEnumeration, Value: "On", AllowedValues: []string{"On", "Off"}},
			{Name: "AssetTag", Type: AttrString, Value: "", MaxLength: 63},
			{Name: "SystemServiceTag", Type: AttrString, Value: fmt.Sprintf("SVT%04d", i), MaxLength: 7, ReadOnly: true},
		},
		BIOSRegistryOnly: []BiosAttribute{
			enum("NvmeMode", "NonRaid", "NonRaid", "Raid"),
			enum("DellAutoDiscovery", "PlatformDefault", "PlatformDefault", "Enabled", "Disabled"),
			enum("PcieAspmL1", "Disabled", "Enabled", "Disabled"),
		},
		BIOSDependencies: []BiosDependency{
			readOnlyUnlessCustom("ProcPwrPerf", "SysProfile"),
			readOnlyUnlessCustom("ProcCStates", "SysProfile"),
		},
		Firmware: []Firmware{
			{ID: "Installed-159-1.8.2", Name: "BIOS", Version: "1.8.2", Role: "BIOS", Related: "none"},
			{ID: "Previous-159-1.6.5", Name: "BIOS", Version: "1.6.5", Related: "none"},
			{ID: "Installed-25227-6.10.30.00__iDRAC.Embedded.1-1", Name: "Integrated Dell Remote Access Controller",
				Version: "6.10.30.00", Role: "BMC", Related: "none"},
			{ID: "Previous-25227-6.00.30.00__iDRAC.Embedded.1-1", Name: "Integrated Dell Remote Access Controller",
				Version: "6.00.30.00", Related: "none"},
			{ID: "Installed-28897-6.10.30.00", Name: "Lifecycle Controller", Version: "6.10.30.00", Related: "none", ReadOnly: true},
			{ID: "Installed-101548-22.31.6__NIC.Integrated.1-1-1", Name: "Broadcom Adv. Dual 25Gb Ethernet",
				Version: "22.31.6", Related: "{chassis}/NetworkAdapters/NIC.Integrated.1"},
			{ID: "Installed-108255-52.16.1-4405__RAID.Integrated.1-1", Name: "PERC H755 Front", Version: "52.16.1-4405", Related: raid},
			{ID: "Installed-104620-HE55__Disk.Bay.0:Enclosure.Internal.0-1:RAID.Integrated.1-1", Name: "SSDR 480GB",
				Version: "HE55", Related: raid + "/Drives/Disk.Bay.0:Enclosure.Internal.0-1:RAID.Integrated.1-1"},
			{ID: "Installed-104620-ED01__Disk.Bay.1:Enclosure.Internal.0-1:RAID.Integrated.1-1", Name: "Disk 1 in Backplane 1",
				Version: "ED01", Related: raid + "/Drives/Disk.Bay.1:Enclosure.Internal.0-1:RAID.Integrated.1-1"},
			{ID: "Installed-0-00.1D.7D__PSU.Slot.1", Name: "PS1 Status", Version: "00.1D.7D",
				Related: "{chassis}/PowerSubsystem/PowerSupplies/PSU.Slot.1"},
			{ID: "Installed-0-00.1D.7D__PSU.Slot.2", Name: "PS2 Status", Version: "00.1D.7D",
				Related: "{chassis}/PowerSubsystem/PowerSupplies/PSU.Slot.2"},
			{ID: "Installed-27763-1.0.6", Name: "System CPLD", Version: "1.0.6", Related: "none"},
		},
	}
}

// SupermicroProfile is a server behind a Supermicro-like BMC
// (DialectSupermicro): plain "BIOS" and "BMC" inventory items, error ids
// in Supermicro's "Base.v1_4_0.<key>" form, and a registry whose power
// technology setting locks the C-state control unless it is Custom.
func SupermicroProfile(i int) Profile {
	return Profile{
		Dialect:      DialectSupermicro,
		Manufacturer: "Supermicro",
		Model:        "SYS-120U-TNR (simulated)",
		SerialNumber: fmt.Sprintf("SIMSM%05d", i),
		SKU:          "Default string",
		HostName:     fmt.Sprintf("smc-host-%d", i),
		UUID:         profileUUID(3, i),
		CPU:          twoSocketX86("Intel(R) Xeon(R) Silver 4314 CPU @ 2.40GHz", "Intel(R) Corporation", 16, 2400),
		RAMGiB:       128, DIMMs: 8,
		NICs: []NIC{
			{Name: "1", MAC: vendorMAC(i, 1), SpeedMbps: 10000, LinkUp: true},
			{Name: "2", MAC: vendorMAC(i, 2), SpeedMbps: 10000},
		},
		Disks: []Disk{
			{Name: "Disk.0", SizeBytes: 960_197_124_096, Model: "SAMSUNG MZQL2960HCJR-00A07", Vendor: "Samsung",
				Serial: fmt.Sprintf("S64FNE0%05d", i), MediaType: MediaNVMe},
		},
		BIOSRegistry: "BiosAttributeRegistry.1.0.0",
		BIOS: []BiosAttribute{
			enum("PowerTechnology", "EnergyEfficient", "Disable", "EnergyEfficient", "Custom"),
			enum("CStateControl", "Autonomous", "Autonomous", "Legacy", "Disable"),
			enum("HyperThreading", "Enable", "Enable", "Disable"),
			enum("IntelVirtualizationTechnology", "Enable", "Enable", "Disable"),
			enum("SRIOVSupport", "Enable", "Enable", "Disable"),
			enum("BootModeSelect", "UEFI", "LEGACY", "UEFI", "DUAL"),
			{Name: "QuietBoot", Type: AttrBoolean, Value: true},
			{Name: "WatchDogTimeout", Type: AttrInteger, Value: 5, LowerBound: 1, UpperBound: 30},
		},
		BIOSRegistryOnly: []BiosAttribute{
			enum("AMDSEVSupport", "Disable", "Enable", "Disable"),
			enum("VMDSupport", "Disable", "Enable", "Disable"),
		},
		BIOSDependencies: []BiosDependency{
			readOnlyUnlessCustom("CStateControl", "PowerTechnology"),
		},
		Firmware: []Firmware{
			{ID: "BMC", Name: "BMC", Version: "01.01.06", Role: "BMC", Related: "none"},
			{ID: "BIOS", Name: "BIOS", Version: "1.4a", Role: "BIOS", Related: "none"},
			{ID: "CPLD_Motherboard", Name: "CPLD Motherboard", Version: "F1.73.DC", Related: "none", ReadOnly: true},
			{ID: "NIC1", Name: "AOC-STG-i2T", Version: "8.50", Related: "{chassis}/NetworkAdapters/1"},
		},
	}
}
