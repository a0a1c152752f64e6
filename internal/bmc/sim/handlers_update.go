package sim

import (
	"net/http"
	"path"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// This file is the simulated BMC's UpdateService: the firmware inventory,
// SimpleUpdate and the tasks that report an update's progress.

func fwURI(sys *system, comp string) string {
	return v1 + "/UpdateService/FirmwareInventory/" + sys.fwID(comp)
}

func (s *Server) handleUpdateService(w http.ResponseWriter, r *http.Request) {
	writeService(w, r, "UpdateService", "v1_8_0", "Update Service", map[string]any{
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

// targetSystem is the system a SimpleUpdate target names by its URI
// (/redfish/v1/Systems/ID), when the caller may see it; else nil.
func (s *Server) targetSystem(r *http.Request, target string) *system {
	// As the BMC's dialect spells it (iLO: lower case, a trailing slash).
	id, ok := strings.CutPrefix(canonicalPath(strings.TrimSuffix(target, "/")), v1+"/Systems/")
	if !ok || strings.Contains(id, "/") {
		return nil
	}
	for _, sys := range s.visibleSystems(r) {
		if strings.EqualFold(sys.id, id) {
			return sys
		}
	}
	return nil
}

// relatedURI expands a Firmware.Related path for sys.
func relatedURI(sys *system, related string) string {
	if related == "" {
		related = "{system}"
	}
	return strings.NewReplacer("{system}", sysURI(sys.id), "{manager}", v1+"/Managers/"+sys.id,
		"{chassis}", v1+"/Chassis/"+sys.id, "{enclosure}", v1+"/Chassis/"+sys.enclosureID()).Replace(related)
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
	// imageOf targets the item of sys the image is for: an update scoped
	// to a system, or aimed at one (Ironic 2025.1 names the System in
	// Targets when the service has several, as sushy-tools expects). A
	// real BMC reads the image's header; the simulator its file name: one
	// that says "bmc" is the BMC's, any other the BIOS's.
	imageOf := func(target *system) {
		sys = target
		role := "BIOS"
		if strings.Contains(strings.ToLower(path.Base(body.ImageURI)), "bmc") {
			role = "BMC"
		}
		for _, fw := range sys.fwItems {
			if fw.Role == role {
				comp = fw.ID
			}
		}
	}
	switch {
	case len(body.Targets) > 0 && s.targetSystem(r, body.Targets[0]) != nil:
		imageOf(s.targetSystem(r, body.Targets[0]))
	case len(body.Targets) > 0:
		var fw *Firmware
		if sys, fw = s.findFirmware(r, path.Base(strings.TrimSuffix(body.Targets[0], "/"))); fw != nil {
			comp = fw.ID
		}
	case scopeOf(r) != "":
		imageOf(s.systems[scopeOf(r)])
	case len(s.visibleSystems(r)) == 1:
		// A BMC of one system: an update without Targets is that
		// system's (Ironic names no target when the service lists one
		// System).
		imageOf(s.visibleSystems(r)[0])
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
	// The Location of an accepted asynchronous action is its task
	// monitor, which answers 202 until the task ends (Redfish's async
	// protocol; sushy, and so Ironic's firmware interface, polls it).
	w.Header().Set("Location", taskURI(t.id)+"/Monitor")
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
	writeService(w, r, "TaskService", "v1_1_5", "Task Service", map[string]any{
		"Tasks": link(v1 + "/TaskService/Tasks"),
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
