package sim

import (
	"net/http"
	"strings"
)

// This file is the simulated BMC's service root and collections (systems,
// managers, chassis) and its message and attribute registries; the
// UpdateService and tasks are in handlers_update.go.

const v1 = "/redfish/v1"

func (s *Server) routes() {
	m := http.NewServeMux()
	m.HandleFunc("GET /redfish", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, r, http.StatusOK, map[string]any{"v1": v1 + "/"})
	})
	m.HandleFunc("GET /redfish/v1", s.handleRoot)
	m.HandleFunc("GET /redfish/v1/odata", s.handleOData)

	m.HandleFunc("GET /redfish/v1/SessionService", s.handleSessionService)
	m.HandleFunc("GET /redfish/v1/SessionService/Sessions", s.handleSessions)
	m.HandleFunc("POST /redfish/v1/SessionService/Sessions", s.handleSessionCreate)
	m.HandleFunc("GET /redfish/v1/SessionService/Sessions/{sid}", s.handleSession)
	m.HandleFunc("DELETE /redfish/v1/SessionService/Sessions/{sid}", s.handleSessionDelete)

	m.HandleFunc("GET /redfish/v1/Systems", s.handleSystems)
	m.HandleFunc("GET /redfish/v1/Systems/{id}", s.handleSystem)
	m.HandleFunc("PATCH /redfish/v1/Systems/{id}", s.handleSystemPatch)
	m.HandleFunc("POST /redfish/v1/Systems/{id}/Actions/ComputerSystem.Reset", s.handleReset)
	m.HandleFunc("GET /redfish/v1/Systems/{id}/Processors", s.handleProcessors)
	m.HandleFunc("GET /redfish/v1/Systems/{id}/Processors/{item}", s.handleProcessor)
	m.HandleFunc("GET /redfish/v1/Systems/{id}/Memory", s.handleMemories)
	m.HandleFunc("GET /redfish/v1/Systems/{id}/Memory/{item}", s.handleMemory)
	m.HandleFunc("GET /redfish/v1/Systems/{id}/EthernetInterfaces", s.handleNICs)
	m.HandleFunc("GET /redfish/v1/Systems/{id}/EthernetInterfaces/{item}", s.handleNIC)
	m.HandleFunc("GET /redfish/v1/Systems/{id}/SimpleStorage", s.handleSimpleStorages)
	m.HandleFunc("GET /redfish/v1/Systems/{id}/SimpleStorage/{item}", s.handleSimpleStorage)
	m.HandleFunc("GET /redfish/v1/Systems/{id}/Storage", s.handleStorages)
	m.HandleFunc("GET /redfish/v1/Systems/{id}/Storage/{item}", s.handleStorage)
	m.HandleFunc("GET /redfish/v1/Systems/{id}/Storage/{item}/Drives/{drive}", s.handleDrive)
	m.HandleFunc("GET /redfish/v1/Systems/{id}/Bios", s.handleBios)
	m.HandleFunc("PATCH /redfish/v1/Systems/{id}/Bios", s.handleBiosPatch)
	m.HandleFunc("GET /redfish/v1/Systems/{id}/Bios/Settings", s.handleBiosSettings)
	m.HandleFunc("PATCH /redfish/v1/Systems/{id}/Bios/Settings", s.handleBiosPatch)
	m.HandleFunc("POST /redfish/v1/Systems/{id}/Bios/Actions/Bios.ResetBios", s.handleBiosReset)
	m.HandleFunc("POST /redfish/v1/Systems/{id}/Bios/Actions/Bios.ChangePassword", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	})

	m.HandleFunc("GET /redfish/v1/Managers", s.handleManagers)
	m.HandleFunc("GET /redfish/v1/Managers/{id}", s.handleManager)
	m.HandleFunc("POST /redfish/v1/Managers/{id}/Actions/Manager.Reset", s.handleManagerReset)
	m.HandleFunc("GET /redfish/v1/Managers/{id}/VirtualMedia", s.handleVirtualMedias)
	m.HandleFunc("GET /redfish/v1/Managers/{id}/VirtualMedia/{dev}", s.handleVirtualMedia)
	m.HandleFunc("PATCH /redfish/v1/Managers/{id}/VirtualMedia/{dev}", s.handleInsertMedia)
	m.HandleFunc("POST /redfish/v1/Managers/{id}/VirtualMedia/{dev}/Actions/VirtualMedia.InsertMedia", s.handleInsertMedia)
	m.HandleFunc("POST /redfish/v1/Managers/{id}/VirtualMedia/{dev}/Actions/VirtualMedia.EjectMedia", s.handleEjectMedia)

	m.HandleFunc("GET /redfish/v1/Chassis", s.handleChassisCollection)
	m.HandleFunc("GET /redfish/v1/Chassis/{id}", s.handleChassis)
	m.HandleFunc("GET /redfish/v1/Chassis/{id}/Thermal", s.handleThermal)
	m.HandleFunc("GET /redfish/v1/Chassis/{id}/Drives/{drive}", s.handleDrive)

	m.HandleFunc("GET /redfish/v1/Registries", s.handleRegistries)
	m.HandleFunc("GET /redfish/v1/Registries/{reg}", s.handleRegistryFile)
	m.HandleFunc("GET /redfish/v1/Registries/{reg}/{file}", s.handleRegistry)

	m.HandleFunc("GET /redfish/v1/UpdateService", s.handleUpdateService)
	m.HandleFunc("GET /redfish/v1/UpdateService/FirmwareInventory", s.handleFirmwareInventory)
	m.HandleFunc("GET /redfish/v1/UpdateService/FirmwareInventory/{fw}", s.handleFirmware)
	m.HandleFunc("POST /redfish/v1/UpdateService/Actions/UpdateService.SimpleUpdate", s.handleSimpleUpdate)
	m.HandleFunc("GET /redfish/v1/TaskService", s.handleTaskService)
	m.HandleFunc("GET /redfish/v1/TaskService/Tasks", s.handleTasks)
	m.HandleFunc("GET /redfish/v1/TaskService/Tasks/{tid}", s.handleTask)
	m.HandleFunc("GET /redfish/v1/TaskService/Tasks/{tid}/Monitor", s.handleTaskMonitor)
	s.mux = m
	s.admin = s.adminRoutes()
}

func (s *Server) handleRoot(w http.ResponseWriter, r *http.Request) {
	uuid := "5e1f0000-0000-4000-8000-ffffffffffff"
	if scope := scopeOf(r); scope != "" {
		s.mu.Lock()
		uuid = s.systems[scope].profile.UUID
		s.mu.Unlock()
	}
	writeJSON(w, r, http.StatusOK, map[string]any{
		"@odata.id":      v1,
		"@odata.type":    "#ServiceRoot.v1_11_0.ServiceRoot",
		"Id":             "RootService",
		"Name":           "Simulated Redfish Service",
		"RedfishVersion": "1.11.0",
		"UUID":           uuid,
		"Vendor":         "Simulated",
		"Product":        "bmcsim",
		"Systems":        link(v1 + "/Systems"),
		"Managers":       link(v1 + "/Managers"),
		"Chassis":        link(v1 + "/Chassis"),
		"SessionService": link(v1 + "/SessionService"),
		"UpdateService":  link(v1 + "/UpdateService"),
		"TaskService":    link(v1 + "/TaskService"),
		"Registries":     link(v1 + "/Registries"),
		"Links":          map[string]any{"Sessions": link(v1 + "/SessionService/Sessions")},
		"ProtocolFeaturesSupported": map[string]any{
			"ExpandQuery": map[string]any{"ExpandAll": false, "Levels": false, "Links": false, "NoLinks": false},
		},
	})
}

func (s *Server) handleOData(w http.ResponseWriter, r *http.Request) {
	var values []map[string]any
	for _, n := range []string{"Systems", "Managers", "Chassis", "SessionService", "UpdateService", "TaskService", "Registries"} {
		values = append(values, map[string]any{"name": n, "kind": "Singleton", "url": v1 + "/" + n})
	}
	writeJSON(w, r, http.StatusOK, map[string]any{"@odata.context": v1 + "/$metadata", "value": values})
}

func (s *Server) memberURIs(r *http.Request, prefix string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, sys := range s.visibleSystems(r) {
		out = append(out, prefix+sys.id)
	}
	return out
}

func (s *Server) handleSystems(w http.ResponseWriter, r *http.Request) {
	writeCollection(w, r, v1+"/Systems", "#ComputerSystemCollection.ComputerSystemCollection",
		"Computer System Collection", s.memberURIs(r, v1+"/Systems/"))
}

func (s *Server) handleManagers(w http.ResponseWriter, r *http.Request) {
	writeCollection(w, r, v1+"/Managers", "#ManagerCollection.ManagerCollection",
		"Manager Collection", s.memberURIs(r, v1+"/Managers/"))
}

func (s *Server) handleChassisCollection(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	var members []string
	for _, sys := range s.visibleSystems(r) {
		members = append(members, v1+"/Chassis/"+sys.id)
		if e := sys.enclosureID(); e != "" {
			members = append(members, v1+"/Chassis/"+e)
		}
	}
	s.mu.Unlock()
	writeCollection(w, r, v1+"/Chassis", "#ChassisCollection.ChassisCollection", "Chassis Collection", members)
}

// --- attribute registries ---

// registryFor returns the first visible system using registry name; s.mu held.
func (s *Server) registryFor(r *http.Request, name string) *system {
	for _, sys := range s.visibleSystems(r) {
		if strings.EqualFold(sys.profile.BIOSRegistry, name) {
			return sys
		}
	}
	return nil
}

// servesILORegistry says whether the request sees an iLO-dialect system,
// whose BMC serves iLO's message registry; s.mu held.
func (s *Server) servesILORegistry(r *http.Request) bool {
	for _, sys := range s.visibleSystems(r) {
		if sys.profile.Dialect == DialectILO {
			return true
		}
	}
	return false
}

func (s *Server) handleRegistries(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	seen := map[string]bool{}
	var members []string
	for _, sys := range s.visibleSystems(r) {
		if name := sys.profile.BIOSRegistry; !seen[name] {
			seen[name] = true
			members = append(members, v1+"/Registries/"+name)
		}
	}
	if s.servesILORegistry(r) {
		members = append(members, v1+"/Registries/"+iloRegistry)
	}
	s.mu.Unlock()
	writeCollection(w, r, v1+"/Registries", "#MessageRegistryFileCollection.MessageRegistryFileCollection",
		"Registry File Collection", members)
}

func (s *Server) handleRegistryFile(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("reg")
	s.mu.Lock()
	sys := s.registryFor(r, name)
	ilo := strings.EqualFold(name, iloRegistry) && s.servesILORegistry(r)
	s.mu.Unlock()
	if ilo {
		writeJSON(w, r, http.StatusOK, map[string]any{
			"@odata.id":   v1 + "/Registries/" + iloRegistry,
			"@odata.type": "#MessageRegistryFile.v1_1_3.MessageRegistryFile",
			"Id":          iloRegistry,
			"Name":        "iLO Message Registry File",
			"Registry":    iloRegistry,
			"Languages":   []string{"en"},
			"Location": []map[string]any{{
				"Language": "en",
				"Uri":      v1 + "/Registries/" + iloRegistry + "/" + iloRegistry + ".json",
			}},
		})
		return
	}
	if sys == nil {
		writeError(w, http.StatusNotFound, "Base.1.8.ResourceMissingAtURI", "no such registry")
		return
	}
	name = sys.profile.BIOSRegistry
	writeJSON(w, r, http.StatusOK, map[string]any{
		"@odata.id":   v1 + "/Registries/" + name,
		"@odata.type": "#MessageRegistryFile.v1_1_3.MessageRegistryFile",
		"Id":          name,
		"Name":        "BIOS Attribute Registry File",
		"Registry":    name,
		"Languages":   []string{"en"},
		"Location": []map[string]any{{
			"Language": "en",
			"Uri":      v1 + "/Registries/" + name + "/" + name + ".json",
		}},
	})
}

func (s *Server) handleRegistry(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("reg")
	s.mu.Lock()
	sys := s.registryFor(r, name)
	var body map[string]any
	switch {
	case strings.EqualFold(name, iloRegistry) && s.servesILORegistry(r):
		sys, body = &system{}, iloRegistryJSON(r.URL.Path)
	case sys != nil:
		body = registryJSON(sys, r.URL.Path)
	}
	s.mu.Unlock()
	if sys == nil {
		writeError(w, http.StatusNotFound, "Base.1.8.ResourceMissingAtURI", "no such registry")
		return
	}
	writeJSON(w, r, http.StatusOK, body)
}

func registryJSON(sys *system, uri string) map[string]any {
	var attrs []map[string]any
	for i, a := range append(append([]BiosAttribute(nil), sys.profile.BIOS...), sys.profile.BIOSRegistryOnly...) {
		current, ok := sys.biosCurrent[a.Name]
		if !ok {
			current = normalizeValue(a.Value)
		}
		e := map[string]any{
			"AttributeName": a.Name,
			"DisplayName":   a.Name,
			"DisplayOrder":  i,
			"Type":          a.Type,
			"ReadOnly":      a.ReadOnly,
			"ResetRequired": a.ResetRequired,
			"DefaultValue":  normalizeValue(a.defaultValue()),
			"CurrentValue":  current,
			"Hidden":        false,
			"Immutable":     a.ReadOnly,
			"MenuPath":      "./SystemSettings",
		}
		switch a.Type {
		case AttrEnumeration:
			var values []map[string]any
			for _, v := range a.AllowedValues {
				values = append(values, map[string]any{"ValueName": v, "ValueDisplayName": v})
			}
			e["Value"] = values
		case AttrInteger:
			e["LowerBound"] = a.LowerBound
			e["UpperBound"] = a.UpperBound
			e["ScalarIncrement"] = 1
		case AttrString:
			e["MinLength"] = a.MinLength
			e["MaxLength"] = a.MaxLength
		}
		attrs = append(attrs, e)
	}
	var deps []map[string]any
	for _, d := range sys.profile.BIOSDependencies {
		var from []map[string]any
		for i, c := range d.When {
			f := map[string]any{
				"MapFromAttribute": c.Attribute, "MapFromCondition": c.Condition,
				"MapFromProperty": "CurrentValue", "MapFromValue": c.Value,
			}
			if i > 0 {
				terms := c.Terms
				if terms == "" {
					terms = "AND"
				}
				f["MapTerms"] = terms
			}
			from = append(from, f)
		}
		deps = append(deps, map[string]any{
			"DependencyFor": d.Attribute,
			"Type":          "Map",
			"Dependency": map[string]any{
				"MapFrom": from, "MapToAttribute": d.Attribute, "MapToProperty": d.Property, "MapToValue": true,
			},
		})
	}
	entries := map[string]any{"Attributes": attrs}
	if len(deps) > 0 {
		entries["Dependencies"] = deps
	}
	name := sys.profile.BIOSRegistry
	return map[string]any{
		"@odata.id":       uri,
		"@odata.type":     "#AttributeRegistry.v1_3_6.AttributeRegistry",
		"Id":              name,
		"Name":            "BIOS Attribute Registry",
		"Language":        "en",
		"OwningEntity":    sys.profile.Manufacturer,
		"RegistryVersion": "1.0.0",
		"SupportedSystems": []map[string]any{{
			"ProductName": sys.profile.Model, "SystemId": sys.profile.Model, "FirmwareVersion": sys.roleVersion("BIOS"),
		}},
		"RegistryEntries": entries,
	}
}
