package sim

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// render answers GET with the body build makes for the {id} system under
// the lock; build returns nil for a missing sub-resource (404).
func (s *Server) render(w http.ResponseWriter, r *http.Request, build func(sys *system) any) {
	s.mu.Lock()
	sys := s.lookup(w, r)
	if sys == nil {
		s.mu.Unlock()
		return
	}
	body := build(sys)
	s.mu.Unlock()
	if body == nil {
		writeError(w, http.StatusNotFound, "Base.1.8.ResourceMissingAtURI", "no such resource: "+r.URL.Path)
		return
	}
	writeJSON(w, r, http.StatusOK, body)
}

// change runs do under the lock for the {id} system of a request that
// changes it, after decoding the JSON body into body (none when nil); a
// malformed body (400) or a missing system (404) is answered here.
func (s *Server) change(w http.ResponseWriter, r *http.Request, body any, do func(sys *system)) {
	if body != nil && !readJSON(w, r, body) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if sys := s.lookup(w, r); sys != nil {
		do(sys)
	}
}

func sysURI(id string) string { return v1 + "/Systems/" + id }

func (s *Server) handleSystem(w http.ResponseWriter, r *http.Request) {
	s.render(w, r, func(sys *system) any {
		p := sys.profile
		u := sysURI(sys.id)
		return map[string]any{
			"@odata.id":    u,
			"@odata.type":  "#ComputerSystem.v1_13_0.ComputerSystem",
			"Id":           sys.id,
			"Name":         "System " + sys.id,
			"SystemType":   "Physical",
			"Manufacturer": p.Manufacturer,
			"Model":        p.Model,
			"SerialNumber": p.SerialNumber,
			"SKU":          p.SKU,
			"HostName":     p.HostName,
			"UUID":         p.UUID,
			"BiosVersion":  sys.roleVersion("BIOS"),
			"PowerState":   sys.power,
			"IndicatorLED": "Off",
			"Status":       rollupStatus(sys.faults),
			"Boot": map[string]any{
				"BootSourceOverrideTarget":                         sys.boot.Target,
				"BootSourceOverrideEnabled":                        sys.boot.Enabled,
				"BootSourceOverrideMode":                           sys.boot.Mode,
				"BootSourceOverrideTarget@Redfish.AllowableValues": allowedBootTargets,
				"BootSourceOverrideMode@Redfish.AllowableValues":   allowedBootModes,
			},
			"ProcessorSummary": map[string]any{
				"Count":                 p.CPU.Count,
				"Model":                 p.CPU.Model,
				"LogicalProcessorCount": p.CPU.Count * p.CPU.CoresPerSocket * p.CPU.ThreadsPerCore,
				"Status":                status(),
			},
			"MemorySummary": map[string]any{
				"TotalSystemMemoryGiB": p.RAMGiB,
				"Status":               status(),
			},
			"Processors":         link(u + "/Processors"),
			"Memory":             link(u + "/Memory"),
			"EthernetInterfaces": link(u + "/EthernetInterfaces"),
			"SimpleStorage":      link(u + "/SimpleStorage"),
			"Storage":            link(u + "/Storage"),
			"Bios":               link(u + "/Bios"),
			"Links": map[string]any{
				"Chassis":   links(v1 + "/Chassis/" + sys.id),
				"ManagedBy": links(v1 + "/Managers/" + sys.id),
			},
			"Actions": map[string]any{"#ComputerSystem.Reset": map[string]any{
				"target":                            u + "/Actions/ComputerSystem.Reset",
				"ResetType@Redfish.AllowableValues": allowedResetTypes,
			}},
		}
	})
}

func (s *Server) handleSystemPatch(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Boot *struct {
			BootSourceOverrideTarget  *string
			BootSourceOverrideEnabled *string
			BootSourceOverrideMode    *string
		}
	}
	s.change(w, r, &body, func(sys *system) {
		if b := body.Boot; b != nil {
			next := sys.boot
			for _, p := range []struct {
				name    string
				value   *string
				allowed []string
				into    *string
			}{
				{"BootSourceOverrideTarget", b.BootSourceOverrideTarget, allowedBootTargets, &next.Target},
				{"BootSourceOverrideEnabled", b.BootSourceOverrideEnabled, allowedBootEnabled, &next.Enabled},
				{"BootSourceOverrideMode", b.BootSourceOverrideMode, allowedBootModes, &next.Mode},
			} {
				if p.value == nil {
					continue
				}
				if !slices.Contains(p.allowed, *p.value) {
					writeError(w, http.StatusBadRequest, "Base.1.8.PropertyValueNotInList",
						fmt.Sprintf("%s %q is not one of %v", p.name, *p.value, p.allowed))
					return
				}
				*p.into = *p.value
			}
			sys.boot = next
			sys.bootRequests = append(sys.bootRequests, next)
		}
		w.WriteHeader(http.StatusNoContent)
	})
}

func (s *Server) handleReset(w http.ResponseWriter, r *http.Request) {
	var body struct{ ResetType string }
	s.change(w, r, &body, func(sys *system) {
		if body.ResetType == "" {
			body.ResetType = "On"
		}
		if !sys.faults.PowerStuck && refuseReset(w, sys.profile.Dialect, body.ResetType, sys.power) {
			sys.resets = append(sys.resets, body.ResetType)
			sys.refusedResets = append(sys.refusedResets, body.ResetType)
			return
		}
		if err := sys.reset(body.ResetType); err != nil {
			writeError(w, http.StatusBadRequest, "Base.1.8.ActionParameterNotSupported", err.Error())
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
}

// --- processors and memory ---

// numbered is the index of the item named prefix+i (i < n, compared without
// case), -1 when there is none: processors are CPU0.., DIMMs DIMM0...
func numbered(item, prefix string, n int) int {
	for i := range n {
		if strings.EqualFold(item, prefix+strconv.Itoa(i)) {
			return i
		}
	}
	return -1
}

// numberedCollection is the system's collection kind of the items prefix+0
// to prefix+(n-1).
func numberedCollection(sys *system, kind, prefix string, n int, odataType, name string) any {
	u := sysURI(sys.id) + "/" + kind
	var members []string
	for i := range n {
		members = append(members, u+"/"+prefix+strconv.Itoa(i))
	}
	return collectionJSON(u, odataType, name, members)
}

func (s *Server) handleProcessors(w http.ResponseWriter, r *http.Request) {
	s.render(w, r, func(sys *system) any {
		return numberedCollection(sys, "Processors", "CPU", sys.profile.CPU.Count, "#ProcessorCollection.ProcessorCollection", "Processors")
	})
}

func (s *Server) handleProcessor(w http.ResponseWriter, r *http.Request) {
	s.render(w, r, func(sys *system) any {
		c := sys.profile.CPU
		idx := numbered(r.PathValue("item"), "CPU", c.Count)
		if idx < 0 {
			return nil
		}
		arch, isa := cpuArchRedfish(c.Arch)
		return map[string]any{
			"@odata.id":             fmt.Sprintf("%s/Processors/CPU%d", sysURI(sys.id), idx),
			"@odata.type":           "#Processor.v1_10_0.Processor",
			"Id":                    fmt.Sprintf("CPU%d", idx),
			"Name":                  fmt.Sprintf("Processor %d", idx),
			"Socket":                fmt.Sprintf("CPU %d", idx),
			"ProcessorType":         "CPU",
			"ProcessorArchitecture": arch,
			"InstructionSet":        isa,
			"Manufacturer":          c.Manufacturer,
			"Model":                 c.Model,
			"MaxSpeedMHz":           c.SpeedMHz,
			"OperatingSpeedMHz":     c.SpeedMHz,
			"TotalCores":            c.CoresPerSocket,
			"TotalEnabledCores":     c.CoresPerSocket,
			"TotalThreads":          c.CoresPerSocket * c.ThreadsPerCore,
			"Status":                status(),
		}
	})
}

func (s *Server) handleMemories(w http.ResponseWriter, r *http.Request) {
	s.render(w, r, func(sys *system) any {
		return numberedCollection(sys, "Memory", "DIMM", sys.profile.DIMMs, "#MemoryCollection.MemoryCollection", "Memory")
	})
}

func (s *Server) handleMemory(w http.ResponseWriter, r *http.Request) {
	s.render(w, r, func(sys *system) any {
		p := sys.profile
		idx := numbered(r.PathValue("item"), "DIMM", p.DIMMs)
		if idx < 0 {
			return nil
		}
		return map[string]any{
			"@odata.id":         fmt.Sprintf("%s/Memory/DIMM%d", sysURI(sys.id), idx),
			"@odata.type":       "#Memory.v1_9_0.Memory",
			"Id":                fmt.Sprintf("DIMM%d", idx),
			"Name":              fmt.Sprintf("DIMM %d", idx),
			"MemoryDeviceType":  "DDR4",
			"MemoryType":        "DRAM",
			"CapacityMiB":       p.RAMGiB * 1024 / p.DIMMs,
			"OperatingSpeedMhz": 2933,
			"Manufacturer":      "SimMemory",
			"SerialNumber":      fmt.Sprintf("%s-DIMM%d", p.SerialNumber, idx),
			"DeviceLocator":     fmt.Sprintf("DIMM_%c1", 'A'+idx%26),
			"Status":            status(),
		}
	})
}

// --- Ethernet interfaces ---

func (s *Server) handleNICs(w http.ResponseWriter, r *http.Request) {
	s.render(w, r, func(sys *system) any {
		var members []string
		for _, n := range sys.profile.NICs {
			members = append(members, sysURI(sys.id)+"/EthernetInterfaces/"+n.Name)
		}
		return collectionJSON(sysURI(sys.id)+"/EthernetInterfaces",
			"#EthernetInterfaceCollection.EthernetInterfaceCollection", "Ethernet Interfaces", members)
	})
}

func (s *Server) handleNIC(w http.ResponseWriter, r *http.Request) {
	s.render(w, r, func(sys *system) any {
		for _, n := range sys.profile.NICs {
			if !strings.EqualFold(n.Name, r.PathValue("item")) {
				continue
			}
			linkStatus := "LinkDown"
			if n.LinkUp {
				linkStatus = "LinkUp"
			}
			var speed any // unknown: null, as BMCs say it
			if n.SpeedMbps > 0 {
				speed = n.SpeedMbps
			}
			return map[string]any{
				"@odata.id":           sysURI(sys.id) + "/EthernetInterfaces/" + n.Name,
				"@odata.type":         "#EthernetInterface.v1_6_0.EthernetInterface",
				"Id":                  n.Name,
				"Name":                nicName(sys.profile.Dialect, n.Name),
				"MACAddress":          n.MAC,
				"PermanentMACAddress": n.MAC,
				"SpeedMbps":           speed,
				"LinkStatus":          linkStatus,
				"InterfaceEnabled":    true,
				"FullDuplex":          true,
				"AutoNeg":             true,
				"Status":              status(),
			}
		}
		return nil
	})
}

// --- storage ---

// storageCollection is the system's collection of kind (SimpleStorage or
// Storage): one controller, "1".
func storageCollection(sys *system, kind, name string) any {
	u := sysURI(sys.id) + "/" + kind
	return collectionJSON(u, "#"+kind+"Collection."+kind+"Collection", name, []string{u + "/1"})
}

// renderController answers GET of a storage collection's {item}: build's
// body for the one controller, "1", else 404.
func (s *Server) renderController(w http.ResponseWriter, r *http.Request, build func(sys *system) any) {
	s.render(w, r, func(sys *system) any {
		if r.PathValue("item") != "1" {
			return nil
		}
		return build(sys)
	})
}

func (s *Server) handleSimpleStorages(w http.ResponseWriter, r *http.Request) {
	s.render(w, r, func(sys *system) any { return storageCollection(sys, "SimpleStorage", "Simple Storage Collection") })
}

func (s *Server) handleSimpleStorage(w http.ResponseWriter, r *http.Request) {
	s.renderController(w, r, func(sys *system) any {
		var devices []map[string]any
		for _, d := range sys.profile.Disks {
			devices = append(devices, map[string]any{
				"Name": d.Name, "Model": d.Model, "Manufacturer": d.Vendor,
				"CapacityBytes": d.SizeBytes, "Status": status(),
			})
		}
		return map[string]any{
			"@odata.id":   sysURI(sys.id) + "/SimpleStorage/1",
			"@odata.type": "#SimpleStorage.v1_2_0.SimpleStorage",
			"Id":          "1",
			"Name":        "Simple Storage Controller",
			"Devices":     devices,
			"Status":      status(),
		}
	})
}

func (s *Server) handleStorages(w http.ResponseWriter, r *http.Request) {
	s.render(w, r, func(sys *system) any { return storageCollection(sys, "Storage", "Storage Collection") })
}

func (s *Server) handleStorage(w http.ResponseWriter, r *http.Request) {
	s.renderController(w, r, func(sys *system) any {
		u := sysURI(sys.id) + "/Storage/1"
		var drives []string
		for _, d := range sys.profile.Disks {
			drives = append(drives, u+"/Drives/"+d.Name)
		}
		body := map[string]any{
			"@odata.id":                      u,
			"@odata.type":                    "#Storage.v1_8_0.Storage",
			"Id":                             "1",
			"Name":                           "Storage Controller",
			"Drives":                         links(drives...),
			"Drives@odata.count":             len(drives),
			"Status":                         status(),
			"StorageControllers":             []map[string]any{{"@odata.id": u + "#/StorageControllers/0", "MemberId": "0", "Name": "Simulated HBA", "Status": status(), "SupportedDeviceProtocols": []string{"SATA", "SAS", "NVMe"}}},
			"StorageControllers@odata.count": 1,
		}
		if e := sys.enclosureID(); e != "" {
			body["Links"] = map[string]any{"Enclosures": links(v1 + "/Chassis/" + e)}
		}
		return body
	})
}

func (s *Server) handleDrive(w http.ResponseWriter, r *http.Request) {
	s.render(w, r, func(sys *system) any {
		if item := r.PathValue("item"); item != "1" && item != "" {
			return nil
		}
		for _, d := range sys.profile.Disks {
			if !strings.EqualFold(d.Name, r.PathValue("drive")) {
				continue
			}
			media, protocol := "SSD", "SATA"
			switch d.MediaType {
			case MediaHDD:
				media, protocol = "HDD", "SAS"
			case MediaNVMe:
				protocol = "NVMe"
			}
			uri := sysURI(sys.id) + "/Storage/1/Drives/" + d.Name
			if r.PathValue("item") == "" { // a chassis' drive, as iLO links them
				uri = v1 + "/Chassis/" + sys.id + "/Drives/" + d.Name
				if sys.isEnclosure(r.PathValue("id")) {
					uri = v1 + "/Chassis/" + sys.enclosureID() + "/Drives/" + d.Name
				}
			}
			body := map[string]any{
				"@odata.id":     uri,
				"@odata.type":   "#Drive.v1_9_0.Drive",
				"Id":            d.Name,
				"Name":          d.Name,
				"CapacityBytes": d.SizeBytes,
				"Model":         d.Model,
				"SerialNumber":  d.Serial,
				"MediaType":     media,
				"Protocol":      protocol,
				"Status":        statusOf(sys.faults.driveHealth(d.Name)),
			}
			if d.Rotational {
				body["RotationSpeedRPM"] = 7200
			}
			if d.Vendor != "" {
				body["Manufacturer"] = d.Vendor
			}
			return body
		}
		return nil
	})
}

func collectionJSON(uri, odataType, name string, members []string) map[string]any {
	return map[string]any{
		"@odata.id":           uri,
		"@odata.type":         odataType,
		"Name":                name,
		"Members":             links(members...),
		"Members@odata.count": len(members),
	}
}
