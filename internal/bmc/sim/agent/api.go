package agent

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"
)

// Command is one command result as IPA reports it.
type Command struct {
	ID     string         `json:"id"`
	Name   string         `json:"command_name"`
	Params map[string]any `json:"command_params"`
	Status string         `json:"command_status"` // RUNNING, SUCCEEDED, FAILED
	Error  *CommandError  `json:"command_error"`
	Result any            `json:"command_result"`

	done chan struct{}
}

// CommandError is IPA's serialized exception.
type CommandError struct {
	Type    string `json:"type"`
	Code    int    `json:"code"`
	Message string `json:"message"`
	Details string `json:"details"`
}

func (e *CommandError) Error() string { return e.Message + ": " + e.Details }

// routes is IPA's API: the command list, one command, execute.
func (a *Agent) routes() http.Handler {
	m := http.NewServeMux()
	m.HandleFunc("GET /v1/commands", a.listCommands)
	m.HandleFunc("GET /v1/commands/{id}", a.getCommand)
	m.HandleFunc("POST /v1/commands", a.postCommand)
	m.HandleFunc("GET /v1/status", a.status)
	m.HandleFunc("GET /", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"name": "OpenStack Ironic Python Agent API (simulated)"})
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p := r.URL.Path; len(p) > 1 {
			r.URL.Path = strings.TrimRight(p, "/")
		}
		a.mu.Lock()
		up := a.boot != nil
		a.mu.Unlock()
		if !up {
			// The host is off or runs its instance: nothing listens.
			dropConnection(w)
			return
		}
		m.ServeHTTP(w, r)
	})
}

func (a *Agent) status(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"started_at": time.Now().Unix(), "version": Version})
}

func (a *Agent) listCommands(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	out := []Command{}
	if a.boot != nil {
		for _, c := range a.boot.commands {
			out = append(out, *c)
		}
	}
	a.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"commands": out})
}

func (a *Agent) getCommand(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	var found *Command
	if a.boot != nil {
		for _, c := range a.boot.commands {
			if c.ID == r.PathValue("id") {
				cp := *c
				found = &cp
			}
		}
	}
	a.mu.Unlock()
	if found == nil {
		fault(w, http.StatusNotFound, "Command not found")
		return
	}
	writeJSON(w, http.StatusOK, found)
}

func (a *Agent) postCommand(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Name   string         `json:"name"`
		Params map[string]any `json:"params"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		fault(w, http.StatusBadRequest, "Invalid request body: "+err.Error())
		return
	}
	ext, cmd, ok := strings.Cut(body.Name, ".")
	if !ok {
		fault(w, http.StatusBadRequest, "Invalid command: "+body.Name)
		return
	}
	h, sync := a.handler(ext, cmd)

	a.mu.Lock()
	b := a.boot
	if b == nil {
		a.mu.Unlock()
		dropConnection(w)
		return
	}
	a.rec.CommandLog = append(a.rec.CommandLog, body.Name)
	if b.token != "" && r.URL.Query().Get("agent_token") != b.token {
		a.rec.event("refused %s: wrong or missing agent token", body.Name)
		a.mu.Unlock()
		fault(w, http.StatusUnauthorized, "Unauthorized: invalid or missing agent token")
		return
	}
	if h == nil {
		a.mu.Unlock()
		fault(w, http.StatusBadRequest, "Invalid command: Unknown command: "+body.Name)
		return
	}
	if b.running {
		a.mu.Unlock()
		fault(w, http.StatusConflict, "Agent is busy executing a command")
		return
	}
	c := &Command{ID: newID(), Name: cmd, Params: body.Params, Status: "RUNNING", done: make(chan struct{})}
	b.commands = append(b.commands, c)
	b.running = true
	faults := a.faults
	a.rec.event("command %s", body.Name)
	a.mu.Unlock()

	exec := func() {
		var res any
		var err error
		if injected(faults, body.Name, cmd, body.Params) {
			msg := faults.FailMessage
			if msg == "" {
				msg = "injected fault: " + body.Name + " fails"
			}
			err = &CommandError{Type: "CommandExecutionError", Code: 500, Message: "Command execution failed", Details: msg}
		} else {
			res, err = h(b, body.Params)
		}
		a.finish(b, c, res, err)
	}
	if sync {
		exec()
	} else {
		go exec()
		if r.URL.Query().Get("wait") == "true" {
			select {
			case <-c.done:
			case <-r.Context().Done():
				return
			}
		}
	}
	a.mu.Lock()
	cp := *c
	a.mu.Unlock()
	writeJSON(w, http.StatusOK, cp)
}

// injected reports whether the FailCommand fault names this command, or
// the clean/deploy step it executes.
func injected(f Faults, full, cmd string, params map[string]any) bool {
	if f.FailCommand == "" {
		return false
	}
	if f.FailCommand == full || f.FailCommand == cmd {
		return true
	}
	if step, ok := params["step"].(map[string]any); ok {
		name, _ := step["step"].(string)
		iface, _ := step["interface"].(string)
		return f.FailCommand == name || f.FailCommand == iface+"."+name
	}
	return false
}

func (a *Agent) finish(b *boot, c *Command, res any, err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err != nil {
		ce, ok := err.(*CommandError)
		if !ok {
			ce = &CommandError{Type: "CommandExecutionError", Code: 500, Message: "Command execution failed", Details: err.Error()}
		}
		c.Status, c.Error = "FAILED", ce
		a.rec.event("command %s failed: %s", c.Name, ce.Details)
	} else {
		c.Status, c.Result = "SUCCEEDED", res
	}
	b.running = false
	close(c.done)
	b.forceHeartbeat()
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// fault is IPA's error body.
func fault(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{"faultcode": "Client", "faultstring": msg})
}

func dropConnection(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler)
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	_ = conn.Close()
}
