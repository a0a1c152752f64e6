package ironictest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"
)

// This file is the fake's routes and its node API: create, list, patch
// and delete nodes, maintenance, traits, validation and inventory, and the
// provision and power state machines. Ports are in ports.go, allocations
// in allocations.go, firmware, BIOS and servicing in firmware.go.

func (s *Server) routes() {
	root := func(w http.ResponseWriter, r *http.Request) {
		WriteJSON(w, http.StatusOK, map[string]any{
			"id":      "v1",
			"version": map[string]any{"id": "v1", "version": s.MaxMicroversion, "min_version": s.MinMicroversion, "status": "CURRENT"},
		})
	}
	s.mux.HandleFunc("GET /{$}", root)
	s.mux.HandleFunc("GET /v1", root)
	s.mux.HandleFunc("GET /v1/{$}", root)
	s.mux.HandleFunc("GET /v1/conductors", func(w http.ResponseWriter, r *http.Request) {
		WriteJSON(w, http.StatusOK, map[string]any{"conductors": []any{map[string]any{"hostname": "fake-conductor", "alive": true}}})
	})
	s.mux.HandleFunc("GET /v1/drivers", func(w http.ResponseWriter, r *http.Request) {
		list := []any{}
		for _, d := range s.Drivers {
			list = append(list, map[string]any{"name": d, "type": "dynamic"})
		}
		WriteJSON(w, http.StatusOK, map[string]any{"drivers": list})
	})

	s.mux.HandleFunc("POST /v1/nodes", s.createNode)
	s.mux.HandleFunc("GET /v1/nodes", s.listNodes)
	s.mux.HandleFunc("GET /v1/nodes/detail", s.listNodes)
	s.mux.HandleFunc("GET /v1/nodes/{id}", s.withNode(s.getNode))
	s.mux.HandleFunc("PATCH /v1/nodes/{id}", s.withNode(s.patchNode))
	s.mux.HandleFunc("DELETE /v1/nodes/{id}", s.withNode(s.deleteNode))
	s.mux.HandleFunc("PUT /v1/nodes/{id}/states/provision", s.withNode(s.provision))
	s.mux.HandleFunc("PUT /v1/nodes/{id}/states/power", s.withNode(s.power))
	s.mux.HandleFunc("PUT /v1/nodes/{id}/maintenance", s.withNode(s.maintenance(true)))
	s.mux.HandleFunc("DELETE /v1/nodes/{id}/maintenance", s.withNode(s.maintenance(false)))
	s.mux.HandleFunc("PUT /v1/nodes/{id}/traits", s.withNode(s.traits))
	s.mux.HandleFunc("GET /v1/nodes/{id}/validate", s.withNode(s.validateNode))
	s.mux.HandleFunc("GET /v1/nodes/{id}/inventory", s.withNode(s.getInventory))
	s.mux.HandleFunc("PUT /v1/nodes/{id}/management/boot_device", s.withNode(s.setBootDevice))
	s.firmwareRoutes()
	s.vmediaRoutes()

	s.mux.HandleFunc("POST /v1/ports", s.createPort)
	s.mux.HandleFunc("GET /v1/ports", s.listPorts)
	s.mux.HandleFunc("GET /v1/ports/detail", s.listPorts)
	s.mux.HandleFunc("PATCH /v1/ports/{id}", s.patchPort)
	s.portGroupRoutes()

	s.mux.HandleFunc("POST /v1/allocations", s.createAllocation)
	s.mux.HandleFunc("GET /v1/allocations", s.listAllocations)
	s.mux.HandleFunc("GET /v1/allocations/{id}", s.getAllocation)
	s.mux.HandleFunc("DELETE /v1/allocations/{id}", s.deleteAllocation)
	s.deployTemplateRoutes()
	s.historyRoutes()
	s.fleetRoutes()
}

// withNode resolves {id} (UUID or name) or answers 404 as Ironic does.
func (s *Server) withNode(h func(http.ResponseWriter, *http.Request, *nodes.Node)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id := r.PathValue("id")
		n := s.NodeByIdent(id)
		if n == nil {
			WriteError(w, http.StatusNotFound, fmt.Sprintf("Node %s could not be found.", id))
			return
		}
		h(w, r, n)
	}
}

// view is the node as the API shows it: settled if Settle is on, with
// passwords masked (Ironic never returns them).
func (s *Server) view(n *nodes.Node) nodes.Node {
	if s.Settle && s.settleNow(n) {
		s.complete(n)
	}
	v := *n
	if n.DriverInfo != nil {
		v.DriverInfo = map[string]any{}
		for k, val := range n.DriverInfo {
			if strings.Contains(k, "password") {
				val = "******"
			}
			v.DriverInfo[k] = val
		}
	}
	if n.InstanceInfo != nil {
		// Ironic masks instance_info secrets too (strutils.mask_dict_password:
		// image_pull_secret, image_request_authorization_secret).
		v.InstanceInfo = map[string]any{}
		for k, val := range n.InstanceInfo {
			if strings.Contains(k, "secret") || strings.Contains(k, "password") {
				val = "******"
			}
			v.InstanceInfo[k] = val
		}
	}
	return v
}

func (s *Server) getNode(w http.ResponseWriter, r *http.Request, n *nodes.Node) {
	WriteJSON(w, http.StatusOK, s.versioned(r, s.view(n)))
}

// versioned is a node view as the request's microversion shows it: no
// health before 1.109.
func (s *Server) versioned(r *http.Request, v nodes.Node) nodes.Node {
	if compare(s.microversion(r), "1.109") < 0 {
		v.Health = ""
	}
	return v
}

func (s *Server) listNodes(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	var out []nodes.Node
	for _, n := range s.nodes {
		if v := q.Get("provision_state"); v != "" && n.ProvisionState != v {
			continue
		}
		if v := q.Get("resource_class"); v != "" && n.ResourceClass != v {
			continue
		}
		if v := q.Get("maintenance"); v != "" && fmt.Sprint(n.Maintenance) != v {
			continue
		}
		out = append(out, s.versioned(r, s.view(n)))
	}
	slices.SortFunc(out, func(a, b nodes.Node) int { return strings.Compare(a.UUID, b.UUID) })
	WriteJSON(w, http.StatusOK, map[string]any{"nodes": out})
}

func (s *Server) createNode(w http.ResponseWriter, r *http.Request) {
	var n nodes.Node
	if !decode(w, r, &n) || !mandatory(w, "driver", n.Driver) {
		return
	}
	if n.Name != "" && s.NodeByIdent(n.Name) != nil {
		WriteError(w, http.StatusConflict, fmt.Sprintf("A node with name %s already exists.", n.Name))
		return
	}
	n.ProvisionState, n.PowerState = "enroll", "power off"
	if n.Properties == nil {
		n.Properties = map[string]any{}
	}
	if n.Extra == nil {
		n.Extra = map[string]any{}
	}
	n.UUID = s.newUUID()
	n.CreatedAt = s.now()
	s.nodes[n.UUID] = &n
	WriteJSON(w, http.StatusCreated, s.view(&n))
}

func (s *Server) locked(w http.ResponseWriter, n *nodes.Node) bool {
	if n.Reservation == "" {
		return false
	}
	WriteError(w, http.StatusConflict, fmt.Sprintf("Node %s is locked by host %s, please retry after the current operation is completed.", n.UUID, n.Reservation))
	return true
}

func (s *Server) patchNode(w http.ResponseWriter, r *http.Request, n *nodes.Node) {
	if s.locked(w, n) {
		return
	}
	var updated nodes.Node
	if !jsonPatch(w, r, n, &updated, nil) {
		return
	}
	updated.UpdatedAt = s.now()
	if s.SelfParentingPatch && updated.ParentNode == n.ParentNode {
		updated.ParentNode = n.UUID
	}
	*n = updated
	WriteJSON(w, http.StatusOK, s.view(n))
}

// jsonPatch reads the JSON patch in r's body and applies it to a copy of
// cur, each operation once allow (nil: none) has let its path through,
// then decodes the result into out. When it returns false it has answered
// w: 400 for a body or an operation that does not apply, else what allow
// answered.
func jsonPatch(w http.ResponseWriter, r *http.Request, cur, out any, allow func(path string) bool) bool {
	var ops []struct {
		Op    string `json:"op"`
		Path  string `json:"path"`
		Value any    `json:"value"`
	}
	if !decode(w, r, &ops) {
		return false
	}
	raw, _ := json.Marshal(cur)
	var doc map[string]any
	_ = json.Unmarshal(raw, &doc)
	for _, op := range ops {
		if allow != nil && !allow(op.Path) {
			return false
		}
		if err := applyPatch(doc, op.Op, op.Path, op.Value); err != nil {
			WriteError(w, http.StatusBadRequest, err.Error())
			return false
		}
	}
	raw, _ = json.Marshal(doc)
	if err := json.Unmarshal(raw, out); err != nil {
		WriteError(w, http.StatusBadRequest, err.Error())
		return false
	}
	return true
}

// applyPatch applies one JSON patch operation (add, replace, remove) to doc.
func applyPatch(doc map[string]any, op, path string, value any) error {
	parts := strings.Split(strings.TrimPrefix(path, "/"), "/")
	for i, p := range parts {
		parts[i] = strings.ReplaceAll(strings.ReplaceAll(p, "~1", "/"), "~0", "~")
	}
	m := doc
	for _, p := range parts[:len(parts)-1] {
		next, ok := m[p].(map[string]any)
		if !ok {
			if op == "remove" {
				return fmt.Errorf("can't remove non-existent object '%s'", p)
			}
			next = map[string]any{}
			m[p] = next
		}
		m = next
	}
	last := parts[len(parts)-1]
	switch op {
	case "add", "replace":
		m[last] = value
	case "remove":
		if _, ok := m[last]; !ok {
			return fmt.Errorf("can't remove non-existent object '%s'", last)
		}
		delete(m, last)
	default:
		return fmt.Errorf("unsupported patch operation %q", op)
	}
	return nil
}

// deleteAllowed are the provision states in which Ironic deletes a node
// that is not in maintenance.
var deleteAllowed = map[string]bool{"enroll": true, "manageable": true, "available": true, "adopt failed": true}

func (s *Server) deleteNode(w http.ResponseWriter, r *http.Request, n *nodes.Node) {
	if s.locked(w, n) {
		return
	}
	if !deleteAllowed[n.ProvisionState] && !n.Maintenance {
		WriteError(w, http.StatusConflict, fmt.Sprintf("Can not delete node %s while it is in provision state \"%s\". Valid provision states to start deletion are: ['available', 'enroll', 'manageable', 'adopt failed'], or set the node into maintenance mode", n.UUID, n.ProvisionState))
		return
	}
	if n.InstanceUUID != "" && !n.Maintenance {
		WriteError(w, http.StatusConflict, fmt.Sprintf("Node %s is associated with instance %s.", n.UUID, n.InstanceUUID))
		return
	}
	for id, p := range s.ports {
		if p.NodeUUID == n.UUID {
			delete(s.ports, id)
		}
	}
	for id, g := range s.portGroups {
		if g.NodeUUID == n.UUID {
			delete(s.portGroups, id)
		}
	}
	delete(s.nodes, n.UUID)
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) maintenance(on bool) func(http.ResponseWriter, *http.Request, *nodes.Node) {
	return func(w http.ResponseWriter, r *http.Request, n *nodes.Node) {
		var body struct {
			Reason string `json:"reason"`
		}
		if on && r.ContentLength != 0 && !decode(w, r, &body) {
			return
		}
		n.Maintenance, n.MaintenanceReason = on, body.Reason
		w.WriteHeader(http.StatusAccepted)
	}
}

func (s *Server) traits(w http.ResponseWriter, r *http.Request, n *nodes.Node) {
	if s.locked(w, n) {
		return
	}
	var body struct {
		Traits []string `json:"traits"`
	}
	if !decode(w, r, &body) {
		return
	}
	n.Traits = body.Traits
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) validateNode(w http.ResponseWriter, r *http.Request, n *nodes.Node) {
	out := map[string]any{}
	for _, iface := range []string{"boot", "console", "deploy", "inspect", "management", "network", "power", "raid", "rescue", "storage"} {
		if reason, bad := s.validate[n.UUID][iface]; bad {
			out[iface] = map[string]any{"result": false, "reason": reason}
		} else {
			out[iface] = map[string]any{"result": true}
		}
	}
	WriteJSON(w, http.StatusOK, out)
}

func (s *Server) getInventory(w http.ResponseWriter, r *http.Request, n *nodes.Node) {
	if !s.requireMicroversion(w, r, "1.81") {
		return
	}
	inv, ok := s.inventory[n.UUID]
	if !ok {
		WriteError(w, http.StatusNotFound, fmt.Sprintf("Inventory for node %s could not be found.", n.UUID))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(inv)
}

// ---------------------------------------------------------------------------
// Provision states

// transition is what a verb does from one state: the working state it
// enters (target_provision_state set), where it ends, and where it ends
// on failure. A transition with working == end is synchronous.
type transition struct{ working, target, end, fail string }

func transitionFor(state, verb string) (transition, bool) {
	sync := func(end string) transition { return transition{working: end, end: end} }
	switch verb {
	case "manage":
		switch state {
		case "enroll":
			return transition{"verifying", "manageable", "manageable", "enroll"}, true
		case "available", "inspect failed", "clean failed", "manageable":
			return sync("manageable"), true
		}
	case "inspect":
		if state == "manageable" || state == "inspect failed" {
			return transition{"inspecting", "manageable", "manageable", "inspect failed"}, true
		}
	case "clean":
		if state == "manageable" {
			return transition{"cleaning", "manageable", "manageable", "clean failed"}, true
		}
	case "provide":
		if state == "manageable" {
			return transition{"cleaning", "available", "available", "clean failed"}, true
		}
	case "active", "rebuild":
		if state == "available" || state == "deploy failed" || (verb == "rebuild" && state == "active") {
			return transition{"deploying", "active", "active", "deploy failed"}, true
		}
	case "deleted":
		switch state {
		case "active", "deploy failed", "error", "wait call-back", "service failed":
			return transition{"deleting", "available", "available", "error"}, true
		}
	case "adopt":
		if state == "manageable" || state == "adopt failed" {
			return transition{"adopting", "active", "active", "adopt failed"}, true
		}
	case "service":
		if state == "active" || state == "service failed" {
			return transition{"servicing", "active", "active", "service failed"}, true
		}
	case "abort":
		switch state {
		case "service failed":
			return sync("active"), true
		case "inspect wait":
			return sync("inspect failed"), true
		case "clean wait":
			return sync("clean failed"), true
		case "wait call-back":
			return sync("deploy failed"), true // API 1.110+ (provision checks)
		case "rescue wait":
			return sync("rescue failed"), true
		case "service wait":
			return sync("service failed"), true // API 1.87+
		}
	}
	return transition{}, false
}

// pending remembers what the node's running operation ends in.
type pending struct{ end, fail string }

func (s *Server) provision(w http.ResponseWriter, r *http.Request, n *nodes.Node) {
	if s.locked(w, n) {
		return
	}
	var body struct {
		Target       string           `json:"target"`
		CleanSteps   []map[string]any `json:"clean_steps"`
		ServiceSteps []map[string]any `json:"service_steps"`
		ConfigDrive  any              `json:"configdrive"`
		Runbook      string           `json:"runbook"`
	}
	if !decode(w, r, &body) {
		return
	}
	if body.Runbook != "" {
		if !s.requireMicroversion(w, r, "1.92") {
			return
		}
		if body.Target != "clean" && body.Target != "service" {
			WriteError(w, http.StatusBadRequest, `"runbooks" is only valid when setting target provision state to clean or service`)
			return
		}
		if len(body.CleanSteps) > 0 || len(body.ServiceSteps) > 0 {
			WriteError(w, http.StatusBadRequest, fmt.Sprintf(`Please provide either "%s_steps" or a runbook, but not both.`, body.Target))
			return
		}
		steps, status, msg := s.runbookSteps(body.Runbook, n.Traits, n.UUID)
		if status != 0 {
			WriteError(w, status, msg)
			return
		}
		if body.Target == "clean" {
			body.CleanSteps = steps
		} else {
			body.ServiceSteps = steps
		}
	}
	waiting := strings.HasSuffix(n.ProvisionState, " wait") || n.ProvisionState == "wait call-back"
	if n.TargetProvisionState != "" && !(body.Target == "abort" && waiting) {
		// (A node waiting for its agent holds no lock: abort ends the wait.)
		WriteError(w, http.StatusConflict, fmt.Sprintf("Node %s is locked by host fake-conductor, please retry after the current operation is completed.", n.UUID))
		return
	}
	tr, ok := transitionFor(n.ProvisionState, body.Target)
	if !ok {
		WriteError(w, http.StatusBadRequest, fmt.Sprintf("The requested action \"%s\" can not be performed on node \"%s\" while it is in state \"%s\".", body.Target, n.UUID, n.ProvisionState))
		return
	}
	if body.Target == "abort" && ((n.ProvisionState == "wait call-back" && compare(s.microversion(r), "1.110") < 0) ||
		(n.ProvisionState == "service wait" && compare(s.microversion(r), "1.87") < 0)) {
		WriteError(w, http.StatusBadRequest, fmt.Sprintf("The requested action \"abort\" can not be performed on node \"%s\" while it is in state \"%s\".", n.UUID, n.ProvisionState))
		return
	}
	if body.Target == "clean" && len(body.CleanSteps) == 0 {
		WriteError(w, http.StatusBadRequest, "clean_steps is required when setting target provision state to clean")
		return
	}
	if body.Target == "service" {
		if !s.requireMicroversion(w, r, "1.87") {
			return
		}
		if len(body.ServiceSteps) == 0 {
			WriteError(w, http.StatusBadRequest, "service_steps is required when setting target provision state to service")
			return
		}
	}
	if steps := append(body.CleanSteps, body.ServiceSteps...); len(steps) > 0 {
		for _, st := range steps {
			if st["interface"] == "firmware" && compare(s.microversion(r), "1.86") < 0 {
				WriteError(w, http.StatusBadRequest, "the firmware interface's steps need API version 1.86")
				return
			}
		}
		s.steps[n.UUID] = append(s.steps[n.UUID], steps)
		s.pendSteps[n.UUID] = steps
	}
	n.LastError = ""
	n.ProvisionState = tr.working
	n.ProvisionUpdatedAt = s.now()
	n.CleanStep, n.DeployStep, n.ServiceStep = nil, nil, nil
	if body.Target == "abort" {
		n.TargetProvisionState = ""
		delete(s.pending, n.UUID)
		delete(s.pendingVerb, n.UUID)
		delete(s.pendSteps, n.UUID)
		s.record(n, "ERROR", "provisioning", "Operation aborted by request", s.now())
		defer func() { n.LastError = "By request, the operation was aborted" }() // (Ironic 21.4: "By request, the clean operation was aborted")
	}
	if tr.working != tr.end {
		firstStep(n, body.Target, body.CleanSteps, body.ServiceSteps)
		n.TargetProvisionState = tr.target
		s.pending[n.UUID] = pending{end: tr.end, fail: tr.fail}
		s.pendingVerb[n.UUID] = body.Target
	}
	w.WriteHeader(http.StatusAccepted)
}

// firstStep shows the step a running verb starts with, as the conductor
// does in clean_step, deploy_step or service_step: the first step asked
// for, erase_devices_metadata for automated cleaning, deploy.deploy for a
// deployment. Tests move a node on to later steps with UpdateNode.
func firstStep(n *nodes.Node, verb string, clean, service []map[string]any) {
	step := func(steps []map[string]any) map[string]any {
		return map[string]any{"interface": steps[0]["interface"], "step": steps[0]["step"], "priority": 0, "args": map[string]any{}}
	}
	switch {
	case verb == "clean" && len(clean) > 0:
		n.CleanStep = step(clean)
	case verb == "service" && len(service) > 0:
		n.ServiceStep = step(service)
	case verb == "provide":
		n.CleanStep = map[string]any{"interface": "deploy", "step": "erase_devices_metadata", "priority": 99, "args": map[string]any{}}
	case verb == "active" || verb == "rebuild":
		n.DeployStep = map[string]any{"interface": "deploy", "step": "deploy", "priority": 100, "args": map[string]any{}}
	}
}

// complete finishes the node's running provision or power operation.
func (s *Server) complete(n *nodes.Node) {
	if n == nil {
		return
	}
	if p, ok := s.pending[n.UUID]; ok {
		verb := s.pendingVerb[n.UUID]
		delete(s.pending, n.UUID)
		delete(s.pendingVerb, n.UUID)
		n.TargetProvisionState = ""
		n.ProvisionUpdatedAt = s.now()
		// Ironic empties the step fields when the operation ends
		// (conductor utils: the error handlers and the last step).
		n.CleanStep, n.DeployStep, n.ServiceStep = map[string]any{}, map[string]any{}, map[string]any{}
		if msg, fail := s.failNext[n.UUID]; fail {
			delete(s.failNext, n.UUID)
			n.ProvisionState, n.LastError = p.fail, msg
			s.record(n, "ERROR", historyTypes[verb], msg, s.now())
		} else {
			n.ProvisionState = p.end
			s.succeeded(n, verb)
			s.applySteps(n, s.pendSteps[n.UUID])
		}
		delete(s.pendSteps, n.UUID)
	}
	if n.TargetPowerState != "" {
		target := n.TargetPowerState
		n.TargetPowerState = ""
		n.UpdatedAt = s.now().Add(time.Nanosecond) // a second save, as the conductor's
		if msg, fail := s.failNext[n.UUID]; fail {
			delete(s.failNext, n.UUID)
			n.LastError = msg
			return
		}
		switch target {
		case "power on", "rebooting", "soft rebooting":
			n.PowerState = "power on"
		default:
			n.PowerState = "power off"
		}
	}
}

// succeeded applies a verb's side effects on success.
func (s *Server) succeeded(n *nodes.Node, verb string) {
	now := s.now()
	switch verb {
	case "inspect":
		n.InspectionFinishedAt = &now
	case "active", "rebuild", "adopt":
		n.PowerState = "power on"
	case "deleted":
		n.PowerState = "power off"
		n.InstanceInfo = map[string]any{}
	}
}

func (s *Server) power(w http.ResponseWriter, r *http.Request, n *nodes.Node) {
	if s.locked(w, n) {
		return
	}
	var body struct {
		Target  string `json:"target"`
		Timeout int    `json:"timeout"`
	}
	if !decode(w, r, &body) {
		return
	}
	switch body.Target {
	case "power on", "power off", "rebooting", "soft power off", "soft rebooting":
	default:
		WriteError(w, http.StatusBadRequest, fmt.Sprintf("Invalid power state %q", body.Target))
		return
	}
	if s.SoftPowerOffUnsupported && strings.HasPrefix(body.Target, "soft") {
		WriteError(w, http.StatusBadRequest, fmt.Sprintf("The requested action \"%s\" is not supported by the power interface of node %s.", body.Target, n.UUID))
		return
	}
	// A node in a failed state keeps the target of the failed operation
	// with no task holding it: Ironic takes power requests there.
	failed := strings.HasSuffix(n.ProvisionState, " failed") || n.ProvisionState == "error"
	if (n.TargetProvisionState != "" && !failed) || n.TargetPowerState != "" {
		WriteError(w, http.StatusConflict, fmt.Sprintf("Node %s is locked by host fake-conductor, please retry after the current operation is completed.", n.UUID))
		return
	}
	n.LastError = ""
	n.TargetPowerState = body.Target
	n.UpdatedAt = s.now()
	w.WriteHeader(http.StatusAccepted)
}
