package ironictest

import (
	"fmt"
	"net/http"
	"regexp"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"
)

// Firmware features of the fake: BIOS settings with their registry fields
// (GET /bios?detail=True, API 1.74+), firmware components (GET /firmware and
// the firmware.update step, 1.86+), target_raid_config (PUT /states/raid) and
// servicing (the "service" verb on an active node, 1.87+).
//
// Steps sent with "clean" or "service" are recorded (Steps) and, when the
// operation succeeds, applied as a conductor would: bios.apply_configuration
// changes the named settings, firmware.update installs each component's new
// version (the last dotted number in its URL).

// SetFirmware stores the node's firmware components (GET /firmware).
func (s *Server) SetFirmware(ident string, comps []nodes.FirmwareComponent) {
	s.Lock.Lock()
	defer s.Lock.Unlock()
	s.firmware[s.NodeByIdent(ident).UUID] = comps
}

// Firmware returns a copy of the node's firmware components.
func (s *Server) Firmware(ident string) []nodes.FirmwareComponent {
	s.Lock.Lock()
	defer s.Lock.Unlock()
	return append([]nodes.FirmwareComponent(nil), s.firmware[s.NodeByIdent(ident).UUID]...)
}

// BIOS returns a copy of the node's BIOS settings.
func (s *Server) BIOS(ident string) []nodes.BIOSSetting {
	s.Lock.Lock()
	defer s.Lock.Unlock()
	return append([]nodes.BIOSSetting(nil), s.bios[s.NodeByIdent(ident).UUID]...)
}

// Steps returns the clean or service steps of every "clean" and "service"
// verb sent for the node, in order.
func (s *Server) Steps(ident string) [][]map[string]any {
	s.Lock.Lock()
	defer s.Lock.Unlock()
	return append([][]map[string]any(nil), s.steps[s.NodeByIdent(ident).UUID]...)
}

func (s *Server) firmwareRoutes() {
	s.mux.HandleFunc("GET /v1/nodes/{id}/bios", s.withNode(s.getBIOS))
	s.mux.HandleFunc("GET /v1/nodes/{id}/firmware", s.withNode(func(w http.ResponseWriter, r *http.Request, n *nodes.Node) {
		if !s.requireMicroversion(w, r, "1.86") {
			return
		}
		list := s.firmware[n.UUID]
		if list == nil {
			list = []nodes.FirmwareComponent{}
		}
		WriteJSON(w, http.StatusOK, map[string]any{"firmware": list})
	}))
	s.mux.HandleFunc("PUT /v1/nodes/{id}/states/raid", s.withNode(func(w http.ResponseWriter, r *http.Request, n *nodes.Node) {
		var body map[string]any
		if !decode(w, r, &body) {
			return
		}
		n.TargetRAIDConfig = body
		w.WriteHeader(http.StatusNoContent)
	}))
}

// getBIOS answers with names and values, plus the registry fields when
// asked for detail at 1.74+.
func (s *Server) getBIOS(w http.ResponseWriter, r *http.Request, n *nodes.Node) {
	detail := r.URL.Query().Get("detail")
	if (detail == "True" || detail == "true") && !s.requireMicroversion(w, r, "1.74") {
		return
	}
	out := []nodes.BIOSSetting{}
	for _, b := range s.bios[n.UUID] {
		if detail != "True" && detail != "true" {
			b = nodes.BIOSSetting{Name: b.Name, Value: b.Value}
		}
		out = append(out, b)
	}
	WriteJSON(w, http.StatusOK, map[string]any{"bios": out})
}

var fwVersionRE = regexp.MustCompile(`\d+(?:\.\d+)+`)

// applySteps runs the steps of a successful clean or service; s.Lock held.
func (s *Server) applySteps(n *nodes.Node, steps []map[string]any) {
	for _, st := range steps {
		args, _ := st["args"].(map[string]any)
		settings, _ := args["settings"].([]any)
		switch fmt.Sprint(st["interface"], ".", st["step"]) {
		case "bios.apply_configuration":
			for _, raw := range settings {
				m, _ := raw.(map[string]any)
				name, value := fmt.Sprint(m["name"]), fmt.Sprint(m["value"])
				found := false
				for i := range s.bios[n.UUID] {
					if s.bios[n.UUID][i].Name == name {
						s.bios[n.UUID][i].Value, found = value, true
					}
				}
				if !found {
					s.bios[n.UUID] = append(s.bios[n.UUID], nodes.BIOSSetting{Name: name, Value: value})
				}
			}
		case "firmware.update":
			for _, raw := range settings {
				m, _ := raw.(map[string]any)
				comp, url := fmt.Sprint(m["component"]), fmt.Sprint(m["url"])
				v := url
				if all := fwVersionRE.FindAllString(url, -1); len(all) > 0 {
					v = all[len(all)-1]
				}
				for i := range s.firmware[n.UUID] {
					if c := &s.firmware[n.UUID][i]; c.Component == comp {
						c.CurrentVersion, c.LastVersionFlashed = v, v
					}
				}
			}
		}
	}
}
