package sim

import (
	"net/http"
)

// adminRoutes serve the test-control API on the shared listener, without
// authentication and untouched by faults:
//
//	GET    /sim/systems               ids and URLs of all systems
//	GET    /sim/systems/{id}          SystemState
//	GET    /sim/systems/{id}/faults   Faults
//	POST   /sim/systems/{id}/faults   replace Faults (JSON; also PUT)
//	DELETE /sim/systems/{id}/faults   clear Faults
//	POST   /sim/systems/{id}/power    {"state":"On"|"Off"}
//	PUT    /sim/systems/{id}/nics     replace the NICs (JSON list of NIC): a hardware change
//	GET    /sim/systems/{id}/agent    the simulated agent's agent.Record
//	GET    /sim/systems/{id}/agent/faults, POST/PUT (replace), DELETE (clear):
//	                                  agent.Faults
//	POST   /sim/systems/{id}/ipmi-chassis  ipmi_sim's chassis_control call
//	                                  ("get power boot", "set boot pxe"; ipmi.go)
func (s *Server) adminRoutes() *http.ServeMux {
	m := http.NewServeMux()
	m.HandleFunc("GET /sim/systems", s.adminSystems)
	m.HandleFunc("GET /sim/systems/{id}", s.adminState)
	m.HandleFunc("GET /sim/systems/{id}/faults", s.adminGetFaults)
	m.HandleFunc("POST /sim/systems/{id}/faults", s.adminSetFaults)
	m.HandleFunc("PUT /sim/systems/{id}/faults", s.adminSetFaults)
	m.HandleFunc("DELETE /sim/systems/{id}/faults", s.adminClearFaults)
	m.HandleFunc("POST /sim/systems/{id}/power", s.adminPower)
	m.HandleFunc("PUT /sim/systems/{id}/nics", s.adminNICs)
	m.HandleFunc("GET /sim/systems/{id}/agent", s.adminAgent)
	m.HandleFunc("/sim/systems/{id}/agent/faults", s.adminAgentFaults)
	m.HandleFunc("POST /sim/systems/{id}/ipmi-chassis", s.adminIPMIChassis)
	return m
}

// SystemInfo is one entry of GET /sim/systems.
type SystemInfo struct {
	ID        string `json:"id"`
	Endpoint  string `json:"endpoint"`
	SystemURL string `json:"system_url"`
}

func (s *Server) adminSystems(w http.ResponseWriter, r *http.Request) {
	var out []SystemInfo
	for _, id := range s.SystemIDs() {
		out = append(out, SystemInfo{ID: id, Endpoint: s.Endpoint(id), SystemURL: s.SystemURL(id)})
	}
	writeJSON(w, r, http.StatusOK, out)
}

func (s *Server) adminState(w http.ResponseWriter, r *http.Request) {
	st, err := s.State(r.PathValue("id"))
	if err != nil {
		writeError(w, http.StatusNotFound, "Base.1.8.ResourceMissingAtURI", err.Error())
		return
	}
	writeJSON(w, r, http.StatusOK, st)
}

func (s *Server) adminGetFaults(w http.ResponseWriter, r *http.Request) {
	st, err := s.State(r.PathValue("id"))
	if err != nil {
		writeError(w, http.StatusNotFound, "Base.1.8.ResourceMissingAtURI", err.Error())
		return
	}
	writeJSON(w, r, http.StatusOK, st.Faults)
}

func (s *Server) adminSetFaults(w http.ResponseWriter, r *http.Request) {
	var f Faults
	if !readJSON(w, r, &f) {
		return
	}
	if err := s.SetFaults(r.PathValue("id"), f); err != nil {
		writeError(w, http.StatusNotFound, "Base.1.8.ResourceMissingAtURI", err.Error())
		return
	}
	writeJSON(w, r, http.StatusOK, f)
}

func (s *Server) adminClearFaults(w http.ResponseWriter, r *http.Request) {
	if err := s.ClearFaults(r.PathValue("id")); err != nil {
		writeError(w, http.StatusNotFound, "Base.1.8.ResourceMissingAtURI", err.Error())
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) adminPower(w http.ResponseWriter, r *http.Request) {
	var body struct {
		State string `json:"state"`
	}
	if !readJSON(w, r, &body) {
		return
	}
	if err := s.SetPower(r.PathValue("id"), body.State); err != nil {
		writeError(w, http.StatusBadRequest, "Base.1.8.PropertyValueIncorrect", err.Error())
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) adminNICs(w http.ResponseWriter, r *http.Request) {
	var nics []NIC
	if !readJSON(w, r, &nics) {
		return
	}
	if err := s.SetNICs(r.PathValue("id"), nics); err != nil {
		writeError(w, http.StatusNotFound, "Base.1.8.ResourceMissingAtURI", err.Error())
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
