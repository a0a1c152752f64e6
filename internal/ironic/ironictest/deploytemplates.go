package ironictest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// This file is the fake's deploy template API (1.55+), as Ironic 21.4
// answers it: names are custom traits (CUSTOM_[A-Z0-9_]+, at most 255
// characters) and unique (a second create of a name is 409 Conflict, which
// IP pools build on), steps are at least one, extra is any JSON object.
// Lists page by limit and marker (ordered by creation) with a next link,
// and take fields.

// DeployTemplate is one deploy template the fake keeps.
type DeployTemplate struct {
	UUID      string           `json:"uuid"`
	Name      string           `json:"name"`
	Extra     map[string]any   `json:"extra"`
	Steps     []map[string]any `json:"steps"`
	CreatedAt time.Time        `json:"created_at"`
	seq       int
}

var templateNameRE = regexp.MustCompile(`^CUSTOM_[A-Z0-9_]+$`)

func (s *Server) deployTemplateRoutes() {
	s.mux.HandleFunc("POST /v1/deploy_templates", s.createDeployTemplate)
	s.mux.HandleFunc("GET /v1/deploy_templates", s.listDeployTemplates)
	s.mux.HandleFunc("GET /v1/deploy_templates/{id}", s.withTemplate(func(w http.ResponseWriter, _ *http.Request, t *DeployTemplate) {
		WriteJSON(w, http.StatusOK, t)
	}))
	s.mux.HandleFunc("PATCH /v1/deploy_templates/{id}", s.withTemplate(s.patchDeployTemplate))
	s.mux.HandleFunc("DELETE /v1/deploy_templates/{id}", s.withTemplate(func(w http.ResponseWriter, _ *http.Request, t *DeployTemplate) {
		delete(s.templates, t.UUID)
		w.WriteHeader(http.StatusNoContent)
	}))
}

// DeployTemplates returns copies of the fake's deploy templates in
// creation order.
func (s *Server) DeployTemplates() []DeployTemplate {
	s.Lock.Lock()
	defer s.Lock.Unlock()
	return s.sortedTemplates()
}

func (s *Server) sortedTemplates() []DeployTemplate {
	out := make([]DeployTemplate, 0, len(s.templates))
	for _, t := range s.templates {
		out = append(out, *t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].seq < out[j].seq })
	return out
}

func (s *Server) templateByIdent(ident string) *DeployTemplate {
	return byIdent(s.templates, ident, func(t *DeployTemplate) string { return t.Name })
}

func (s *Server) withTemplate(h func(http.ResponseWriter, *http.Request, *DeployTemplate)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !s.requireMicroversion(w, r, "1.55") {
			return
		}
		t := s.templateByIdent(r.PathValue("id"))
		if t == nil {
			WriteError(w, http.StatusNotFound, fmt.Sprintf("Deploy template %s could not be found.", r.PathValue("id")))
			return
		}
		h(w, r, t)
	}
}

func (s *Server) createDeployTemplate(w http.ResponseWriter, r *http.Request) {
	if !s.requireMicroversion(w, r, "1.55") {
		return
	}
	var t DeployTemplate
	if !decode(w, r, &t) {
		return
	}
	switch {
	case !templateNameRE.MatchString(t.Name) || len(t.Name) > 255:
		WriteError(w, http.StatusBadRequest, fmt.Sprintf("Schema error for template: %q does not match '^CUSTOM_[A-Z0-9_]+$'", t.Name))
		return
	case len(t.Steps) == 0:
		WriteError(w, http.StatusBadRequest, "Schema error for template: [] is too short")
		return
	}
	for _, st := range t.Steps {
		for _, k := range []string{"interface", "step", "args", "priority"} {
			if _, ok := st[k]; !ok {
				WriteError(w, http.StatusBadRequest, fmt.Sprintf("Schema error for template: '%s' is a required property", k))
				return
			}
		}
	}
	if s.templateByIdent(t.Name) != nil {
		WriteError(w, http.StatusConflict, fmt.Sprintf("A deploy template with name %s already exists.", t.Name))
		return
	}
	if s.templates == nil {
		s.templates = map[string]*DeployTemplate{}
	}
	if t.Extra == nil {
		t.Extra = map[string]any{}
	}
	t.UUID = s.newUUID()
	t.seq = s.seq
	t.CreatedAt = s.now()
	s.templates[t.UUID] = &t
	WriteJSON(w, http.StatusCreated, t)
}

func (s *Server) listDeployTemplates(w http.ResponseWriter, r *http.Request) {
	if !s.requireMicroversion(w, r, "1.55") {
		return
	}
	q := r.URL.Query()
	all := s.sortedTemplates()
	if m := q.Get("marker"); m != "" {
		i := 0
		for i < len(all) && all[i].UUID != m {
			i++
		}
		if i == len(all) {
			WriteError(w, http.StatusBadRequest, fmt.Sprintf("Deploy template %s could not be found.", m))
			return
		}
		all = all[i+1:]
	}
	next := ""
	if l, err := strconv.Atoi(q.Get("limit")); err == nil && l > 0 && len(all) > l {
		all = all[:l]
		nq := r.URL.Query()
		nq.Set("marker", all[len(all)-1].UUID)
		next = s.URL + r.URL.Path + "?" + nq.Encode()
	}
	fields := strings.Split(q.Get("fields"), ",")
	out := make([]map[string]any, 0, len(all))
	for _, t := range all {
		b, _ := json.Marshal(t)
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		if q.Get("fields") != "" {
			kept := map[string]any{}
			for _, f := range fields {
				if v, ok := m[f]; ok {
					kept[f] = v
				}
			}
			m = kept
		}
		out = append(out, m)
	}
	body := map[string]any{"deploy_templates": out}
	if next != "" {
		body["next"] = next
	}
	WriteJSON(w, http.StatusOK, body)
}

// patchDeployTemplate applies add, replace and remove operations on
// /extra and /extra/<key> (what the provider sends).
func (s *Server) patchDeployTemplate(w http.ResponseWriter, r *http.Request, t *DeployTemplate) {
	var ops []struct {
		Op    string `json:"op"`
		Path  string `json:"path"`
		Value any    `json:"value"`
	}
	if !decode(w, r, &ops) {
		return
	}
	extra := map[string]any{}
	for k, v := range t.Extra {
		extra[k] = v
	}
	for _, op := range ops {
		switch {
		case op.Path == "/extra" && (op.Op == "add" || op.Op == "replace"):
			m, ok := op.Value.(map[string]any)
			if !ok {
				WriteError(w, http.StatusBadRequest, "extra must be an object")
				return
			}
			extra = m
		case strings.HasPrefix(op.Path, "/extra/") && (op.Op == "add" || op.Op == "replace"):
			extra[strings.TrimPrefix(op.Path, "/extra/")] = op.Value
		case strings.HasPrefix(op.Path, "/extra/") && op.Op == "remove":
			delete(extra, strings.TrimPrefix(op.Path, "/extra/"))
		default:
			WriteError(w, http.StatusBadRequest, fmt.Sprintf("the fake does not patch %s %s", op.Op, op.Path))
			return
		}
	}
	t.Extra = extra
	WriteJSON(w, http.StatusOK, t)
}
