// Package ironictest is an in-process fake Ironic API for hermetic tests, in
// the style of BMO's ironic testserver: an httptest.Server that keeps nodes,
// ports and allocations in memory, moves nodes through Ironic's provision
// and power state machines, answers with Ironic's status codes and error
// bodies (202, 204, 400, 404, 406 for microversions, 409 NodeLocked) and
// lets tests inject faults and read back every request.
//
// Transitions are two-step, as in Ironic: a verb moves the node into its
// working state (verifying, inspecting, cleaning, deploying, ...) with
// target_provision_state set, and the node reaches the end state on a later
// read of it (Settle, the default) or when the test calls Finish. FailNext
// makes the next completion of a verb land in its failed state with a
// last_error, as a conductor would.
//
// To add endpoints (firmware, servicing, lists), call HandleFunc with a
// Go 1.22 ServeMux pattern; handlers get microversion checks, faults and
// the request log for free, and use Lock, NodeByIdent, WriteJSON and
// WriteError.
package ironictest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/allocations"
	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"
	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/ports"
)

// DefaultDrivers are the hardware types the fake enables by default.
var DefaultDrivers = []string{"fake-hardware", "redfish", "ipmi", "idrac"}

// Microversions the fake speaks by default (Debian's Ironic 21.4).
const (
	DefaultMinMicroversion = "1.1"
	DefaultMaxMicroversion = "1.82"
	// OCIMaxMicroversion is Ironic 2025.1's (29.0) API maximum, the first
	// release with oci:// images and instance_info.image_pull_secret; set
	// MaxMicroversion to it to play that Ironic.
	OCIMaxMicroversion = "1.96"
)

// Request is one request the fake served (or refused).
type Request struct {
	Method       string
	Path         string
	Query        string
	Microversion string
	Body         string
	Status       int
	// RequestID is the OpenStack-Request-Id the fake answered with.
	RequestID string
}

func (r Request) String() string { return r.Method + " " + r.Path }

// Fault makes matching requests fail before the fake handles them.
type Fault struct {
	// Method ("" any) and PathSuffix ("" any) select requests; the path is
	// the URL path, e.g. /v1/nodes/<uuid>/states/provision.
	Method     string
	PathSuffix string
	// Times is how many matching requests fail (0: every one).
	Times int
	// Status and Message are the answer (Message becomes the faultstring).
	Status  int
	Message string
}

// Server is the fake Ironic. Use New; the zero value is not usable.
type Server struct {
	*httptest.Server
	t   testing.TB
	mux *http.ServeMux

	// Lock guards everything below; handlers added with HandleFunc run
	// with it held.
	Lock sync.Mutex

	MinMicroversion, MaxMicroversion string
	// Settle moves a working node to its end state when it is next read
	// (default true); false leaves it until Finish.
	Settle bool
	// WorkingReads keeps a running provision operation going for that
	// many API reads of its node before Settle completes it (0: the
	// first read), so that clients see its working state and step.
	WorkingReads int
	// AllocatingReads keeps a new allocation "allocating" for that many
	// reads before a node is picked (0: picked at once).
	AllocatingReads int
	// SoftPowerOffUnsupported makes "soft power off" a 400, as drivers
	// without soft power do.
	SoftPowerOffUnsupported bool
	// Drivers are the hardware types GET /v1/drivers lists (default
	// DefaultDrivers).
	Drivers []string
	// SelfParentingPatch plays Ironic 29.0.5's bug: every node PATCH that
	// does not set parent_node sets it to the node itself.
	SelfParentingPatch bool

	nodes       map[string]*nodes.Node // by UUID
	ports       map[string]*ports.Port
	portGroups  map[string]*PortGroup // by UUID (portgroups.go)
	allocations map[string]*allocations.Allocation
	inventory   map[string]json.RawMessage
	bios        map[string][]nodes.BIOSSetting
	firmware    map[string][]nodes.FirmwareComponent
	steps       map[string][][]map[string]any // node -> steps of each clean/service
	pendSteps   map[string][]map[string]any   // node -> steps of the running operation
	validate    map[string]map[string]string  // node -> interface -> failure reason
	failNext    map[string]string             // node -> last_error for the next completion
	pending     map[string]pending            // node -> end of its running operation
	pendingVerb map[string]string             // node -> the verb running
	allocating  map[string]int                // allocation -> reads before it settles
	templates   map[string]*DeployTemplate    // deploy templates by UUID (deploytemplates.go)
	runbooks    map[string]*Runbook           // runbooks by UUID (fleet.go)
	rules       map[string]*InspectionRule    // inspection rules by UUID (fleet.go)
	bootDevices map[string][]BootDevice       // node -> boot devices set (management.go)
	vmedia      map[string]Media              // node -> CD virtual media (vmedia.go)
	history     map[string][]HistoryEvent     // node -> its history (history.go)
	faults      []*Fault
	requests    []Request
	seq         int
	reqSeq      int
	reads       map[string]int // node -> API reads since its operation started (WorkingReads)
	now         func() time.Time
}

// New starts a fake Ironic and closes it when the test ends.
func New(t testing.TB) *Server {
	s := &Server{
		t:               t,
		mux:             http.NewServeMux(),
		MinMicroversion: DefaultMinMicroversion,
		MaxMicroversion: DefaultMaxMicroversion,
		Settle:          true,
		Drivers:         append([]string(nil), DefaultDrivers...),
		vmedia:          map[string]Media{},
		nodes:           map[string]*nodes.Node{},
		ports:           map[string]*ports.Port{},
		portGroups:      map[string]*PortGroup{},
		allocations:     map[string]*allocations.Allocation{},
		inventory:       map[string]json.RawMessage{},
		bios:            map[string][]nodes.BIOSSetting{},
		firmware:        map[string][]nodes.FirmwareComponent{},
		steps:           map[string][][]map[string]any{},
		pendSteps:       map[string][]map[string]any{},
		validate:        map[string]map[string]string{},
		failNext:        map[string]string{},
		pending:         map[string]pending{},
		pendingVerb:     map[string]string{},
		allocating:      map[string]int{},
		history:         map[string][]HistoryEvent{},
		reads:           map[string]int{},
		now:             time.Now,
	}
	s.routes()
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// Endpoint is the API root to configure clients with (no /v1).
func (s *Server) Endpoint() string { return s.URL }

// HandleFunc adds (or overrides nothing: patterns must be new) a route.
// The handler runs with s.Lock held.
func (s *Server) HandleFunc(pattern string, h http.HandlerFunc) { s.mux.HandleFunc(pattern, h) }

// AddFault queues a fault; faults are matched in the order added.
func (s *Server) AddFault(f Fault) {
	s.Lock.Lock()
	defer s.Lock.Unlock()
	s.faults = append(s.faults, &f)
}

// NodeLocked makes the next times matching requests answer 409 NodeLocked,
// as Ironic does while a conductor holds the node.
func (s *Server) NodeLocked(method, pathSuffix string, times int) {
	s.AddFault(Fault{Method: method, PathSuffix: pathSuffix, Times: times, Status: http.StatusConflict,
		Message: "Node is locked by host conductor-1, please retry after the current operation is completed."})
}

// Requests returns a copy of the request log.
func (s *Server) Requests() []Request {
	s.Lock.Lock()
	defer s.Lock.Unlock()
	return append([]Request(nil), s.requests...)
}

// Calls returns "METHOD /path" of every request except GETs, in order:
// the writes a test usually asserts on.
func (s *Server) Calls() []string {
	var out []string
	for _, r := range s.Requests() {
		if r.Method != http.MethodGet {
			out = append(out, r.Method+" "+strings.TrimPrefix(r.Path, "/v1"))
		}
	}
	return out
}

// Count returns how many requests had this method and path suffix.
func (s *Server) Count(method, pathSuffix string) int {
	n := 0
	for _, r := range s.Requests() {
		if r.Method == method && strings.HasSuffix(r.Path, pathSuffix) {
			n++
		}
	}
	return n
}

// ResetRequests empties the request log.
func (s *Server) ResetRequests() {
	s.Lock.Lock()
	defer s.Lock.Unlock()
	s.requests = nil
}

func (s *Server) newUUID() string {
	s.seq++
	return fmt.Sprintf("00000000-0000-4000-8000-%012d", s.seq)
}

// AddNode stores n (a UUID is made up when empty) and returns its UUID.
func (s *Server) AddNode(n nodes.Node) string {
	s.Lock.Lock()
	defer s.Lock.Unlock()
	if n.UUID == "" {
		n.UUID = s.newUUID()
	}
	if n.ProvisionState == "" {
		n.ProvisionState = "enroll"
	}
	if n.PowerState == "" {
		n.PowerState = "power off"
	}
	if n.Properties == nil {
		n.Properties = map[string]any{}
	}
	if n.Extra == nil {
		n.Extra = map[string]any{}
	}
	n.CreatedAt = s.now()
	s.nodes[n.UUID] = &n
	return n.UUID
}

// Node returns a copy of the node with this UUID or name (a read: with
// Settle on, a running operation completes first).
func (s *Server) Node(ident string) (nodes.Node, bool) {
	s.Lock.Lock()
	defer s.Lock.Unlock()
	n := s.NodeByIdent(ident)
	if n == nil {
		return nodes.Node{}, false
	}
	if s.Settle {
		s.complete(n) // a read, as through the API
	}
	return *n, true
}

// settleNow counts an API read of n and says whether its running
// operation may complete (WorkingReads); call with s.Lock held.
func (s *Server) settleNow(n *nodes.Node) bool {
	if _, ok := s.pending[n.UUID]; !ok || s.WorkingReads <= 0 {
		delete(s.reads, n.UUID)
		return true
	}
	s.reads[n.UUID]++
	if s.reads[n.UUID] <= s.WorkingReads {
		return false
	}
	delete(s.reads, n.UUID)
	return true
}

// MustNode is Node that fails the test when there is no such node.
func (s *Server) MustNode(ident string) nodes.Node {
	s.t.Helper()
	n, ok := s.Node(ident)
	if !ok {
		s.t.Fatalf("ironictest: no node %q", ident)
	}
	return n
}

// NodeCount is the number of nodes.
func (s *Server) NodeCount() int {
	s.Lock.Lock()
	defer s.Lock.Unlock()
	return len(s.nodes)
}

// UpdateNode changes a node in place (the test's view of a conductor or an
// operator acting behind the provider's back).
func (s *Server) UpdateNode(ident string, f func(n *nodes.Node)) {
	s.t.Helper()
	s.Lock.Lock()
	defer s.Lock.Unlock()
	n := s.NodeByIdent(ident)
	if n == nil {
		s.t.Fatalf("ironictest: no node %q", ident)
	}
	f(n)
}

// NodeByIdent finds a node by UUID or name; call with s.Lock held.
func (s *Server) NodeByIdent(ident string) *nodes.Node {
	return byIdent(s.nodes, ident, func(n *nodes.Node) string { return n.Name })
}

// byIdent is the object of byUUID whose UUID, or else whose name, is
// ident (nil for none), as Ironic looks up a node, an allocation or a
// deploy template by either.
func byIdent[T any](byUUID map[string]*T, ident string, name func(*T) string) *T {
	if o, ok := byUUID[ident]; ok {
		return o
	}
	for _, o := range byUUID {
		if n := name(o); n != "" && n == ident {
			return o
		}
	}
	return nil
}

// SetInventory stores the inspection inventory GET /inventory returns.
func (s *Server) SetInventory(ident string, inventoryAndPluginData any) {
	b, err := json.Marshal(inventoryAndPluginData)
	if err != nil {
		s.t.Fatal(err)
	}
	s.Lock.Lock()
	defer s.Lock.Unlock()
	s.inventory[s.NodeByIdent(ident).UUID] = b
}

// SetBIOS stores the node's BIOS settings.
func (s *Server) SetBIOS(ident string, settings []nodes.BIOSSetting) {
	s.Lock.Lock()
	defer s.Lock.Unlock()
	s.bios[s.NodeByIdent(ident).UUID] = settings
}

// SetValidation makes GET /validate report iface as failing with reason.
func (s *Server) SetValidation(ident, iface, reason string) {
	s.Lock.Lock()
	defer s.Lock.Unlock()
	u := s.NodeByIdent(ident).UUID
	if s.validate[u] == nil {
		s.validate[u] = map[string]string{}
	}
	s.validate[u][iface] = reason
}

// FailNext makes the node's running (or next) operation end in its failed
// state with lastError.
func (s *Server) FailNext(ident, lastError string) {
	s.Lock.Lock()
	defer s.Lock.Unlock()
	s.failNext[s.NodeByIdent(ident).UUID] = lastError
}

// Finish completes the node's running operation (with Settle off).
func (s *Server) Finish(ident string) {
	s.Lock.Lock()
	defer s.Lock.Unlock()
	s.complete(s.NodeByIdent(ident))
}

// Ports returns copies of all ports, by address.
func (s *Server) Ports() []ports.Port {
	s.Lock.Lock()
	defer s.Lock.Unlock()
	var out []ports.Port
	for _, p := range s.ports {
		out = append(out, *p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Address < out[j].Address })
	return out
}

// AddPort stores a port for a node and returns its UUID.
func (s *Server) AddPort(nodeIdent, mac string) string {
	s.Lock.Lock()
	defer s.Lock.Unlock()
	p := &ports.Port{UUID: s.newUUID(), Address: strings.ToLower(mac), NodeUUID: s.NodeByIdent(nodeIdent).UUID}
	s.ports[p.UUID] = p
	return p.UUID
}

// Allocations returns copies of all allocations.
func (s *Server) Allocations() []allocations.Allocation {
	s.Lock.Lock()
	defer s.Lock.Unlock()
	var out []allocations.Allocation
	for _, a := range s.allocations {
		out = append(out, *a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// ---------------------------------------------------------------------------
// HTTP plumbing

// WriteJSON writes v with status.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if v != nil {
		_ = json.NewEncoder(w).Encode(v)
	}
}

// WriteError writes Ironic's error body: error_message is a JSON string
// holding faultstring, as the real API sends it.
func WriteError(w http.ResponseWriter, status int, msg string) {
	inner, _ := json.Marshal(map[string]any{"faultstring": msg, "faultcode": "Client", "debuginfo": nil})
	WriteJSON(w, status, map[string]string{"error_message": string(inner)})
}

type recorder struct {
	http.ResponseWriter
	status int
}

func (r *recorder) WriteHeader(code int) {
	r.status = code
	r.ResponseWriter.WriteHeader(code)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	_ = r.Body.Close()
	r.Body = io.NopCloser(strings.NewReader(string(body)))
	mv := r.Header.Get("X-OpenStack-Ironic-API-Version")
	rec := &recorder{ResponseWriter: w, status: http.StatusOK}

	s.Lock.Lock()
	s.reqSeq++ // a request id as oslo.middleware names every request (not from seq: tests know the UUIDs)
	reqID := fmt.Sprintf("req-00000000-0000-4000-9000-%012d", s.reqSeq)
	defer func() {
		s.requests = append(s.requests, Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery,
			Microversion: mv, Body: string(body), Status: rec.status, RequestID: reqID})
		s.Lock.Unlock()
	}()
	w.Header().Set("OpenStack-Request-Id", reqID) // Ironic 21.4's header (not oslo's X-OpenStack-Request-Id)
	w.Header().Set("X-OpenStack-Ironic-API-Minimum-Version", s.MinMicroversion)
	w.Header().Set("X-OpenStack-Ironic-API-Maximum-Version", s.MaxMicroversion)
	if mv != "" && mv != "latest" && (compare(mv, s.MinMicroversion) < 0 || compare(mv, s.MaxMicroversion) > 0) {
		WriteError(rec, http.StatusNotAcceptable, fmt.Sprintf("Version %s was requested but the minor version is not supported by this service. The supported version range is: [%s, %s].", mv, s.MinMicroversion, s.MaxMicroversion))
		return
	}
	for _, f := range s.faults {
		if f.Times < 0 || (f.Method != "" && f.Method != r.Method) || (f.PathSuffix != "" && !strings.HasSuffix(r.URL.Path, f.PathSuffix)) {
			continue
		}
		if f.Times > 0 {
			f.Times--
			if f.Times == 0 {
				f.Times = -1 // used up
			}
		}
		WriteError(rec, f.Status, f.Message)
		return
	}
	s.mux.ServeHTTP(rec, r)
}

// compare compares "1.x" microversions.
func compare(a, b string) int {
	minor := func(v string) int {
		_, m, _ := strings.Cut(v, ".")
		n, _ := strconv.Atoi(m)
		return n
	}
	return minor(a) - minor(b)
}

// microversion is the request's microversion ("1.1" when none was sent,
// as Ironic assumes).
func (s *Server) microversion(r *http.Request) string {
	mv := r.Header.Get("X-OpenStack-Ironic-API-Version")
	switch mv {
	case "":
		return s.MinMicroversion
	case "latest":
		return s.MaxMicroversion
	}
	return mv
}

// requireMicroversion answers 406 (as Ironic does for a resource newer
// than the request) when the request's microversion is older than minor.
func (s *Server) requireMicroversion(w http.ResponseWriter, r *http.Request, min string) bool {
	if compare(s.microversion(r), min) < 0 {
		WriteError(w, http.StatusNotAcceptable, fmt.Sprintf("the resource needs API version %s, the request asked for %s", min, s.microversion(r)))
		return false
	}
	return true
}

func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	if err := json.NewDecoder(r.Body).Decode(v); err != nil {
		WriteError(w, http.StatusBadRequest, "Invalid request body: "+err.Error())
		return false
	}
	return true
}

// mandatory answers 400 with Ironic's words when the required field is
// empty (false then).
func mandatory(w http.ResponseWriter, field, value string) bool {
	if value == "" {
		WriteError(w, http.StatusBadRequest, "Invalid input for field/attribute "+field+". Mandatory field missing.")
		return false
	}
	return true
}
