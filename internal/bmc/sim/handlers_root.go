package sim

import (
	"net/http"
	"path"
	"regexp"
	"strconv"
	"strings"
	"time"
)

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
	writeCollection(w, r, v1+"/Chassis", "#ChassisCollection.ChassisCollection",
		"Chassis Collection", s.memberURIs(r, v1+"/Chassis/"))
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

// --- update service and tasks ---

func fwURI(sys *system, comp string) string {
	return v1 + "/UpdateService/FirmwareInventory/" + sys.fwID(comp)
}

func (s *Server) handleUpdateService(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, r, http.StatusOK, map[string]any{
		"@odata.id":         v1 + "/UpdateService",
		"@odata.type":       "#UpdateService.v1_8_0.UpdateService",
		"Id":                "UpdateService",
		"Name":              "Update Service",
		"ServiceEnabled":    true,
		"Status":            status(),
		"FirmwareInventory": link(v1 + "/UpdateService/FirmwareInventory"),
		"Actions": map[string]any{"#UpdateService.SimpleUpdate": map[string]any{
			"target": v1 + "/UpdateService/Actions/UpdateService.SimpleUpdate",
			"TransferProtocol@Redfish.AllowableValues": []string{"HTTP", "HTTPS"},
		}},
	})
}

func (s *Server) handleFirmwareInventory(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	var members []string
	for _, sys := range s.visibleSystems(r) {
		for _, fw := range sys.fwItems {
			members = append(members, fwURI(sys, fw.ID))
		}
	}
	s.mu.Unlock()
	writeCollection(w, r, v1+"/UpdateService/FirmwareInventory",
		"#SoftwareInventoryCollection.SoftwareInventoryCollection", "Firmware Inventory", members)
}

// findFirmware resolves a FirmwareInventory member id (compared without
// case, as iLO's lower-case links ask for it); s.mu held.
func (s *Server) findFirmware(r *http.Request, fwID string) (*system, *Firmware) {
	for _, sys := range s.visibleSystems(r) {
		for i, fw := range sys.fwItems {
			if strings.EqualFold(fwID, sys.fwID(fw.ID)) {
				return sys, &sys.fwItems[i]
			}
		}
	}
	return nil, nil
}

// relatedURI expands a Firmware.Related path for sys.
func relatedURI(sys *system, related string) string {
	if related == "" {
		related = "{system}"
	}
	return strings.NewReplacer("{system}", sysURI(sys.id), "{manager}", v1+"/Managers/"+sys.id,
		"{chassis}", v1+"/Chassis/"+sys.id).Replace(related)
}

func (s *Server) handleFirmware(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	sys, fw := s.findFirmware(r, r.PathValue("fw"))
	var body map[string]any
	if sys != nil {
		name := fw.Name
		if name == "" {
			name = fw.ID
		}
		st := status()
		if fw.Standby {
			st["State"] = "StandbySpare"
		}
		body = map[string]any{
			"@odata.id":    fwURI(sys, fw.ID),
			"@odata.type":  "#SoftwareInventory.v1_4_0.SoftwareInventory",
			"Id":           sys.fwID(fw.ID),
			"Name":         name,
			"SoftwareId":   fw.ID,
			"Version":      sys.firmware[fw.ID],
			"Updateable":   !fw.ReadOnly,
			"Manufacturer": sys.profile.Manufacturer,
			"Status":       st,
		}
		if fw.Related != "none" {
			body["RelatedItem"] = links(relatedURI(sys, fw.Related))
			body["RelatedItem@odata.count"] = 1
		}
	}
	s.mu.Unlock()
	if sys == nil {
		writeError(w, http.StatusNotFound, "Base.1.8.ResourceMissingAtURI", "no such firmware component")
		return
	}
	writeJSON(w, r, http.StatusOK, body)
}

type task struct {
	id         string
	sys        string
	comp       string
	newVersion string
	image      string
	polls      int
	total      int    // polls answered Running before the end
	failure    string // the end is Exception with this message, if set
	atBoot     bool   // staged: Pending until the system boots again
	boot       int    // the system's boot count when the task started
	state      string // Running, Pending, Completed, Exception
	started    time.Time
}

var versionRE = regexp.MustCompile(`\d+(?:\.\d+)+`)

// nextVersion is the version an update to image installs: the last dotted
// number in the image URI, else current with its last number bumped.
func nextVersion(image, current string) string {
	if all := versionRE.FindAllString(image, -1); len(all) > 0 {
		return all[len(all)-1]
	}
	if loc := regexp.MustCompile(`\d+$`).FindStringIndex(current); loc != nil {
		n, _ := strconv.Atoi(current[loc[0]:])
		return current[:loc[0]] + strconv.Itoa(n+1)
	}
	return current + ".1"
}

func (s *Server) handleSimpleUpdate(w http.ResponseWriter, r *http.Request) {
	var body struct {
		ImageURI         string
		Targets          []string
		TransferProtocol string
	}
	if !readJSON(w, r, &body) {
		return
	}
	if body.ImageURI == "" {
		writeError(w, http.StatusBadRequest, "Base.1.8.ActionParameterMissing", "ImageURI is required")
		return
	}
	s.mu.Lock()
	var sys *system
	comp := ""
	switch {
	case len(body.Targets) > 0:
		var fw *Firmware
		if sys, fw = s.findFirmware(r, path.Base(strings.TrimSuffix(body.Targets[0], "/"))); fw != nil {
			comp = fw.ID
		}
	case scopeOf(r) != "":
		sys = s.systems[scopeOf(r)]
		for _, fw := range sys.fwItems {
			if fw.Role == "BIOS" {
				comp = fw.ID
			}
		}
	}
	if sys == nil {
		s.mu.Unlock()
		writeErrorArgs(w, http.StatusBadRequest, "Base.1.8.ActionParameterValueError",
			"Targets must name one FirmwareInventory member of this service", "Targets", "UpdateService.SimpleUpdate")
		return
	}
	if sys.faults.RefuseUpdates {
		s.mu.Unlock()
		refuseUpdate(w, sys.profile.Dialect)
		return
	}
	s.nextTask++
	t := &task{
		id: strconv.Itoa(s.nextTask), sys: sys.id, comp: comp, image: body.ImageURI,
		newVersion: nextVersion(body.ImageURI, sys.firmware[comp]), state: "Running", started: time.Now(),
		total: s.opts.TaskPolls, failure: sys.faults.UpdateFailure,
		atBoot: sys.faults.UpdateAtBoot, boot: sys.bootCount,
	}
	if sys.faults.UpdateTaskPolls > 0 {
		t.total = sys.faults.UpdateTaskPolls
	}
	s.tasks[t.id] = t
	tj := s.taskJSON(t)
	s.mu.Unlock()
	w.Header().Set("Location", taskURI(t.id))
	w.Header().Set("Retry-After", strconv.Itoa(s.opts.TaskRetryAfter))
	writeJSON(w, r, http.StatusAccepted, tj)
}

func taskURI(id string) string { return v1 + "/TaskService/Tasks/" + id }

// pollTask advances t by one poll, ending it after t.total polls
// (Options.TaskPolls, or the system's Faults.UpdateTaskPolls): Completed
// with the new version installed, or Exception when the system's
// Faults.UpdateFailure was set at SimpleUpdate; s.mu held.
func (s *Server) pollTask(t *task) {
	if t.state != "Running" && t.state != "Pending" {
		return
	}
	if t.polls < t.total {
		t.polls++
	}
	if t.polls < t.total {
		return
	}
	if t.failure != "" {
		t.state = "Exception"
		return
	}
	sys := s.systems[t.sys]
	if t.atBoot && (sys == nil || sys.bootCount == t.boot) {
		t.state = "Pending"
		return
	}
	t.state = "Completed"
	if sys != nil {
		sys.firmware[t.comp] = t.newVersion
		if t.atBoot && sys.faults.PowerOffAfterUpdate && sys.power == PowerOn {
			sys.powerOff()
		}
	}
}

func (s *Server) taskJSON(t *task) map[string]any {
	pct := 100
	taskStatus := "OK"
	msg := map[string]any{
		"MessageId": "Update.1.0.UpdateInProgress",
		"Message":   "Updating " + t.comp + " to " + t.newVersion + " from " + t.image,
	}
	switch t.state {
	case "Running":
		pct = 100 * t.polls / t.total
	case "Pending":
		pct = 100 * (t.total - 1) / t.total
		msg = map[string]any{
			"MessageId": "Update.1.0.AwaitToActivate",
			"Message":   "The image for " + t.comp + " is staged and applies at the next boot of " + t.sys,
		}
	case "Completed":
		msg = map[string]any{
			"MessageId": "Update.1.0.UpdateSuccessful",
			"Message":   "Updated " + t.comp + " to " + t.newVersion + " from " + t.image,
		}
	case "Exception":
		pct = 100 * t.polls / t.total
		taskStatus = "Critical"
		msg = map[string]any{"MessageId": "Update.1.0.ApplyFailed", "Message": t.failure, "Severity": "Critical"}
	}
	return map[string]any{
		"@odata.id":       taskURI(t.id),
		"@odata.type":     "#Task.v1_4_3.Task",
		"Id":              t.id,
		"Name":            "Firmware update " + t.sys + "-" + t.comp,
		"TaskState":       t.state,
		"TaskStatus":      taskStatus,
		"PercentComplete": pct,
		"StartTime":       t.started.UTC().Format(time.RFC3339),
		"TaskMonitor":     taskURI(t.id) + "/Monitor",
		"Messages":        []map[string]any{msg},
	}
}

func (s *Server) getTask(w http.ResponseWriter, r *http.Request) (map[string]any, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.tasks[r.PathValue("tid")]
	if t == nil {
		writeError(w, http.StatusNotFound, "Base.1.8.ResourceMissingAtURI", "no such task")
		return nil, false
	}
	s.pollTask(t)
	return s.taskJSON(t), t.state == "Running" || t.state == "Pending"
}

func (s *Server) handleTask(w http.ResponseWriter, r *http.Request) {
	if body, _ := s.getTask(w, r); body != nil {
		writeJSON(w, r, http.StatusOK, body)
	}
}

// handleTaskMonitor answers 202 while the task runs, then the task itself.
func (s *Server) handleTaskMonitor(w http.ResponseWriter, r *http.Request) {
	body, running := s.getTask(w, r)
	if body == nil {
		return
	}
	if running {
		w.Header().Set("Location", r.URL.Path)
		w.Header().Set("Retry-After", strconv.Itoa(s.opts.TaskRetryAfter))
		writeJSON(w, r, http.StatusAccepted, body)
		return
	}
	writeJSON(w, r, http.StatusOK, body)
}

func (s *Server) handleTaskService(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, r, http.StatusOK, map[string]any{
		"@odata.id":      v1 + "/TaskService",
		"@odata.type":    "#TaskService.v1_1_5.TaskService",
		"Id":             "TaskService",
		"Name":           "Task Service",
		"ServiceEnabled": true,
		"Status":         status(),
		"Tasks":          link(v1 + "/TaskService/Tasks"),
	})
}

func (s *Server) handleTasks(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	var members []string
	for _, id := range sortedKeys(s.tasks) {
		members = append(members, taskURI(id))
	}
	s.mu.Unlock()
	writeCollection(w, r, v1+"/TaskService/Tasks", "#TaskCollection.TaskCollection", "Tasks", members)
}
