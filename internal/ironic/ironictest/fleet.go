package ironictest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"sort"
	"strings"
	"time"
)

// This file is the fake's runbook API (1.92+) and inspection rule API
// (1.96+), as Ironic 2025.1 answers them: runbook names are custom traits
// and unique, steps are at least one with an interface of the cleaning
// interfaces and an order, and each interface and step once; a node runs a
// runbook (provision target clean or service with "runbook") only when it
// carries the runbook's name as a trait (else 400). Inspection rules take
// Ironic 2025.1's operators (each also inverted with "!") and actions, at
// least one action, priority 0-9999 and phase "main"; a sensitive rule
// reads back with null conditions and actions, and stays sensitive.

// Runbook is one runbook the fake keeps.
type Runbook struct {
	UUID      string           `json:"uuid"`
	Name      string           `json:"name"`
	Steps     []map[string]any `json:"steps"`
	Public    bool             `json:"public"`
	Owner     *string          `json:"owner"`
	Extra     map[string]any   `json:"extra"`
	CreatedAt time.Time        `json:"created_at"`
	seq       int
}

// InspectionRule is one inspection rule the fake keeps.
type InspectionRule struct {
	UUID        string           `json:"uuid"`
	Description *string          `json:"description"`
	Phase       string           `json:"phase"`
	Priority    int              `json:"priority"`
	Sensitive   bool             `json:"sensitive"`
	Conditions  []map[string]any `json:"conditions"`
	Actions     []map[string]any `json:"actions"`
	CreatedAt   time.Time        `json:"created_at"`
}

var runbookInterfaces = []string{"vendor", "power", "management", "firmware", "deploy", "bios", "raid"}

// Ironic 2025.1's inspection rule operators and actions.
var (
	ruleOperators = []string{"eq", "lt", "gt", "is-empty", "in-net", "matches", "contains", "one-of", "is-none", "is-true", "is-false"}
	ruleActions   = []string{"fail", "set-attribute", "set-capability", "unset-capability", "extend-attribute", "add-trait",
		"remove-trait", "set-plugin-data", "extend-plugin-data", "unset-plugin-data", "log", "del-attribute",
		"set-port-attribute", "extend-port-attribute", "del-port-attribute"}
)

func (s *Server) fleetRoutes() {
	s.mux.HandleFunc("POST /v1/runbooks", s.createRunbook)
	s.mux.HandleFunc("GET /v1/runbooks/{id}", s.withRunbook(func(w http.ResponseWriter, _ *http.Request, rb *Runbook) {
		WriteJSON(w, http.StatusOK, rb)
	}))
	s.mux.HandleFunc("PATCH /v1/runbooks/{id}", s.withRunbook(s.patchRunbook))
	s.mux.HandleFunc("DELETE /v1/runbooks/{id}", s.withRunbook(func(w http.ResponseWriter, _ *http.Request, rb *Runbook) {
		delete(s.runbooks, rb.UUID)
		w.WriteHeader(http.StatusNoContent)
	}))
	s.mux.HandleFunc("POST /v1/inspection_rules", s.createRule)
	s.mux.HandleFunc("GET /v1/inspection_rules/{id}", s.withRule(func(w http.ResponseWriter, _ *http.Request, r *InspectionRule) {
		WriteJSON(w, http.StatusOK, r.read())
	}))
	s.mux.HandleFunc("PATCH /v1/inspection_rules/{id}", s.withRule(s.patchRule))
	s.mux.HandleFunc("DELETE /v1/inspection_rules/{id}", s.withRule(func(w http.ResponseWriter, _ *http.Request, r *InspectionRule) {
		delete(s.rules, r.UUID)
		w.WriteHeader(http.StatusNoContent)
	}))
}

// Runbooks returns copies of the fake's runbooks in creation order.
func (s *Server) Runbooks() []Runbook {
	s.Lock.Lock()
	defer s.Lock.Unlock()
	out := make([]Runbook, 0, len(s.runbooks))
	for _, rb := range s.runbooks {
		out = append(out, *rb)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].seq < out[j].seq })
	return out
}

// InspectionRules returns copies of the fake's inspection rules (with
// their conditions and actions, also of sensitive ones).
func (s *Server) InspectionRules() []InspectionRule {
	s.Lock.Lock()
	defer s.Lock.Unlock()
	out := make([]InspectionRule, 0, len(s.rules))
	for _, r := range s.rules {
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].UUID < out[j].UUID })
	return out
}

func (s *Server) runbookByIdent(ident string) *Runbook {
	return byIdent(s.runbooks, ident, func(rb *Runbook) string { return rb.Name })
}

func (s *Server) withRunbook(h func(http.ResponseWriter, *http.Request, *Runbook)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !s.requireMicroversion(w, r, "1.92") {
			return
		}
		rb := s.runbookByIdent(r.PathValue("id"))
		if rb == nil {
			WriteError(w, http.StatusNotFound, fmt.Sprintf("Runbook %s could not be found.", r.PathValue("id")))
			return
		}
		h(w, r, rb)
	}
}

// checkRunbook is the schema check of Ironic's runbook API.
func (s *Server) checkRunbook(rb *Runbook, self string) string {
	switch {
	case !templateNameRE.MatchString(rb.Name) || len(rb.Name) > 255:
		return fmt.Sprintf("Schema error for runbook: %q does not match '^CUSTOM_[A-Z0-9_]+$'", rb.Name)
	case len(rb.Steps) == 0:
		return "Schema error for runbook: [] is too short"
	case rb.Public && rb.Owner != nil && *rb.Owner != "":
		return "Cannot create a runbook that is both public and owned"
	}
	seen := map[string]bool{}
	for _, st := range rb.Steps {
		for _, k := range []string{"interface", "step", "order"} {
			if _, ok := st[k]; !ok {
				return fmt.Sprintf("Schema error for runbook: '%s' is a required property", k)
			}
		}
		iface, _ := st["interface"].(string)
		if !slices.Contains(runbookInterfaces, iface) {
			return fmt.Sprintf("Schema error for runbook: %q is not one of %q", iface, runbookInterfaces)
		}
		key := fmt.Sprint(st["interface"], ".", st["step"])
		if seen[key] {
			return "Duplicate deploy steps. A template cannot have multiple deploy steps with the same interface and step. Duplicates: " + key
		}
		seen[key] = true
		if st["args"] == nil {
			st["args"] = map[string]any{}
		}
	}
	if o := s.runbookByIdent(rb.Name); o != nil && o.UUID != self {
		return "conflict"
	}
	return ""
}

func (s *Server) createRunbook(w http.ResponseWriter, r *http.Request) {
	if !s.requireMicroversion(w, r, "1.92") {
		return
	}
	var rb Runbook
	if !decode(w, r, &rb) {
		return
	}
	switch msg := s.checkRunbook(&rb, ""); msg {
	case "":
	case "conflict":
		WriteError(w, http.StatusConflict, fmt.Sprintf("A runbook with name %s already exists.", rb.Name))
		return
	default:
		WriteError(w, http.StatusBadRequest, msg)
		return
	}
	if s.runbooks == nil {
		s.runbooks = map[string]*Runbook{}
	}
	if rb.Extra == nil {
		rb.Extra = map[string]any{}
	}
	rb.UUID = s.newUUID()
	rb.seq, rb.CreatedAt = s.seq, s.now()
	s.runbooks[rb.UUID] = &rb
	WriteJSON(w, http.StatusCreated, rb)
}

// patchRunbook applies replace operations on the runbook's top-level
// fields (what the provider sends).
func (s *Server) patchRunbook(w http.ResponseWriter, r *http.Request, rb *Runbook) {
	var ops []patchOp
	if !decode(w, r, &ops) {
		return
	}
	next := *rb
	// As Ironic: an owner patched with public true (or onto a public
	// runbook that stays public) is refused, and patching public (to
	// either value) clears the owner before the patch applies.
	var owner, public []any
	for _, op := range ops {
		switch op.Path {
		case "/owner":
			owner = append(owner, op.Value)
		case "/public":
			public = append(public, op.Value)
		}
	}
	if len(owner) > 0 && ((rb.Public && len(public) == 0) || (len(public) > 0 && public[0] == true)) {
		WriteError(w, http.StatusBadRequest, "There cannot be an owner for a public runbook")
		return
	}
	if len(public) > 0 {
		next.Owner = nil
	}
	for _, op := range ops {
		if op.Op != "replace" && op.Op != "add" {
			WriteError(w, http.StatusBadRequest, fmt.Sprintf("the fake does not patch %s %s", op.Op, op.Path))
			return
		}
		if !remarshal(w, op.Value, op.Path, map[string]any{
			"/name": &next.Name, "/steps": &next.Steps, "/public": &next.Public, "/owner": &next.Owner, "/extra": &next.Extra,
		}) {
			return
		}
	}
	switch msg := s.checkRunbook(&next, rb.UUID); msg {
	case "":
	case "conflict":
		WriteError(w, http.StatusConflict, fmt.Sprintf("A runbook with name %s already exists.", next.Name))
		return
	default:
		WriteError(w, http.StatusBadRequest, msg)
		return
	}
	*rb = next
	WriteJSON(w, http.StatusOK, rb)
}

// runbookSteps are the steps runbook ident gives a node's clean or service
// verb, or the error Ironic answers (400 when the node lacks the trait).
func (s *Server) runbookSteps(ident string, nodeTraits []string, node string) ([]map[string]any, int, string) {
	rb := s.runbookByIdent(ident)
	if rb == nil {
		return nil, http.StatusNotFound, fmt.Sprintf("Runbook %s could not be found.", ident)
	}
	if !slices.Contains(nodeTraits, rb.Name) {
		return nil, http.StatusBadRequest, fmt.Sprintf("This runbook has not been approved for use on this node %s. "+
			"Please ask an administrator to add it to your node traits.", node)
	}
	steps := make([]map[string]any, len(rb.Steps))
	for i, st := range rb.Steps {
		steps[i] = map[string]any{"interface": st["interface"], "step": st["step"], "args": st["args"], "order": st["order"]}
	}
	return steps, 0, ""
}

func (s *Server) withRule(h func(http.ResponseWriter, *http.Request, *InspectionRule)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !s.requireMicroversion(w, r, "1.96") {
			return
		}
		rule := s.rules[r.PathValue("id")]
		if rule == nil {
			WriteError(w, http.StatusNotFound, fmt.Sprintf("Inspection rule %s could not be found.", r.PathValue("id")))
			return
		}
		h(w, r, rule)
	}
}

// read is the rule as Ironic answers it: a sensitive rule without its
// conditions and actions.
func (r *InspectionRule) read() InspectionRule {
	out := *r
	if out.Sensitive {
		out.Conditions, out.Actions = nil, nil
	}
	return out
}

// checkRule is Ironic's validate_rule.
func checkRule(r *InspectionRule) string {
	var errs []string
	if r.Phase == "" {
		r.Phase = "main"
	}
	if r.Phase != "main" {
		errs = append(errs, fmt.Sprintf("Invalid phase: %s. Valid phases are: main", r.Phase))
	}
	if r.Priority < 0 || r.Priority > 9999 {
		errs = append(errs, "Priority must be between 0 and 9999 for user-defined rules.")
	}
	if len(r.Actions) == 0 {
		errs = append(errs, "Validation failed for inspection rule: [] is too short")
	}
	for _, c := range r.Conditions {
		op, _ := c["op"].(string)
		if !slices.Contains(ruleOperators, strings.TrimPrefix(op, "!")) {
			errs = append(errs, "Unsupported condition operator: "+op)
		}
		if _, ok := c["args"]; !ok {
			errs = append(errs, "Validation failed for inspection rule: 'args' is a required property")
		}
	}
	for _, a := range r.Actions {
		op, _ := a["op"].(string)
		if !slices.Contains(ruleActions, op) {
			errs = append(errs, "Unsupported action operator: "+op)
		}
		if _, ok := a["args"]; !ok {
			errs = append(errs, "Validation failed for inspection rule: 'args' is a required property")
		}
	}
	switch len(errs) {
	case 0:
		return ""
	case 1:
		return errs[0]
	}
	return "Multiple validation errors occurred: " + strings.Join(errs, "; ")
}

func (s *Server) createRule(w http.ResponseWriter, r *http.Request) {
	if !s.requireMicroversion(w, r, "1.96") {
		return
	}
	var rule InspectionRule
	if !decode(w, r, &rule) {
		return
	}
	if msg := checkRule(&rule); msg != "" {
		WriteError(w, http.StatusBadRequest, msg)
		return
	}
	if s.rules == nil {
		s.rules = map[string]*InspectionRule{}
	}
	if rule.Conditions == nil {
		rule.Conditions = []map[string]any{}
	}
	rule.UUID, rule.CreatedAt = s.newUUID(), s.now()
	s.rules[rule.UUID] = &rule
	WriteJSON(w, http.StatusCreated, rule.read())
}

func (s *Server) patchRule(w http.ResponseWriter, r *http.Request, rule *InspectionRule) {
	var ops []patchOp
	if !decode(w, r, &ops) {
		return
	}
	next := *rule
	for _, op := range ops {
		if op.Op != "replace" && op.Op != "add" {
			WriteError(w, http.StatusBadRequest, fmt.Sprintf("the fake does not patch %s %s", op.Op, op.Path))
			return
		}
		if op.Path == "/sensitive" && op.Value == false && rule.Sensitive {
			WriteError(w, http.StatusBadRequest, "Inspection rules cannot have the sensitive flag unset.")
			return
		}
		if !remarshal(w, op.Value, op.Path, map[string]any{
			"/description": &next.Description, "/phase": &next.Phase, "/priority": &next.Priority, "/sensitive": &next.Sensitive,
			"/conditions": &next.Conditions, "/actions": &next.Actions,
		}) {
			return
		}
	}
	if msg := checkRule(&next); msg != "" {
		WriteError(w, http.StatusBadRequest, msg)
		return
	}
	*rule = next
	WriteJSON(w, http.StatusOK, rule.read())
}

type patchOp struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	Value any    `json:"value"`
}

// remarshal stores v into the field of fields that path names.
func remarshal(w http.ResponseWriter, v any, path string, fields map[string]any) bool {
	dst, ok := fields[path]
	if !ok {
		WriteError(w, http.StatusBadRequest, fmt.Sprintf("the fake does not patch %s", path))
		return false
	}
	rv := reflect.ValueOf(dst).Elem()
	rv.Set(reflect.Zero(rv.Type()))
	b, err := json.Marshal(v)
	if err == nil {
		err = json.Unmarshal(b, dst)
	}
	if err != nil {
		WriteError(w, http.StatusBadRequest, fmt.Sprintf("%s: %v", path, err))
		return false
	}
	return true
}
