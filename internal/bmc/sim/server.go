// Package sim is a Redfish BMC simulator: many systems on one listener (and
// optionally one listener per system), session and basic authentication,
// power, boot override, inventory, BIOS settings with a settings object and
// attribute registry, virtual media, firmware update with task monitors,
// fault injection through a Go API and an admin HTTP API under /sim/, and
// profiles shaped like HPE iLO, Dell iDRAC and Supermicro BMCs (Dialect*)
// besides the DMTF mockups' shapes.
//
// It is used in-process by tests and by cmd/bmcsim for tests that drive a
// separate Ironic process.
package sim

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/bmc/sim/agent"
)

// Options configure a Server.
type Options struct {
	// Addr is the shared listener's address; default 127.0.0.1:0.
	Addr string
	// TLS serves HTTPS with a self-signed certificate made in memory.
	TLS bool
	// PerSystemListeners gives every system a listener of its own besides the
	// shared one; on it the service root only shows that system and every
	// request is subject to that system's faults.
	PerSystemListeners bool
	// PerSystemPortBase is the port of system i's own listener (base+i) on
	// Addr's host; 0 picks free ports.
	PerSystemPortBase int
	// TaskPolls is how many polls a firmware update task answers "Running"
	// before it completes; default 2.
	TaskPolls int
	// TaskRetryAfter is the Retry-After (whole seconds) SimpleUpdate and a
	// running task's monitor answer with: how long a client waits between
	// polls. Default 1, the shortest Retry-After can say.
	TaskRetryAfter int
	// Logf, if set, receives one line per request.
	Logf func(format string, args ...any)
	// ProfileOffset shifts the hardware Start gives its systems: system i
	// gets DefaultProfile(ProfileOffset+i). Simulators whose hosts share
	// one Ironic need distinct offsets, since Ironic allows a MAC on one
	// port only.
	ProfileOffset int
	// Agent, if set, gives every system a simulated Ironic Python Agent
	// (package agent) that starts whenever the system powers on.
	Agent *agent.Config
	// VM, if set, makes every system a qemu machine instead (see
	// VMOptions); not with Agent.
	VM *VMOptions
	// Dialect picks the hardware Start gives its systems: ProfileFor(Dialect, i).
	Dialect string
}

// SystemConfig adds one system to a Server.
type SystemConfig struct {
	// ID is the system's Redfish Id (Systems/{ID}, Managers/{ID}, Chassis/{ID}).
	ID       string
	Username string
	Password string
	Profile  Profile
}

// Server is a simulated Redfish service. All its methods are safe for
// concurrent use.
type Server struct {
	opts Options

	mu       sync.Mutex
	systems  map[string]*system
	order    []string
	sessions map[string]*session // by token
	nextSess int
	tasks    map[string]*task
	nextTask int
	requests int64

	mux     *http.ServeMux
	admin   *http.ServeMux
	tlsCert *tls.Certificate
	certDER []byte

	started bool
	closed  bool
	done    chan struct{}
	main    *listener
}

type listener struct {
	srv *http.Server
	ln  net.Listener
	url string
}

// New makes a Server; add systems with AddSystem, then Start it.
func New(opts Options) *Server {
	if opts.Addr == "" {
		opts.Addr = "127.0.0.1:0"
	}
	if opts.TaskPolls <= 0 {
		opts.TaskPolls = 2
	}
	if opts.TaskRetryAfter <= 0 {
		opts.TaskRetryAfter = 1
	}
	s := &Server{
		opts:     opts,
		systems:  map[string]*system{},
		sessions: map[string]*session{},
		tasks:    map[string]*task{},
		done:     make(chan struct{}),
	}
	s.routes()
	return s
}

// Start creates a started Server with n systems "sys-0".."sys-{n-1}", each
// with ProfileFor(opts.Dialect, opts.ProfileOffset+i) (DefaultProfile
// unless a dialect is set) and the given credentials.
func Start(opts Options, n int, username, password string) (*Server, error) {
	s := New(opts)
	for i := range n {
		p, err := ProfileFor(opts.Dialect, opts.ProfileOffset+i)
		if err != nil {
			return nil, err
		}
		if err := s.AddSystem(SystemConfig{
			ID: fmt.Sprintf("sys-%d", i), Username: username, Password: password, Profile: p,
		}); err != nil {
			return nil, err
		}
	}
	if err := s.Start(); err != nil {
		return nil, err
	}
	return s, nil
}

// AddSystem adds a system; allowed before and after Start.
func (s *Server) AddSystem(cfg SystemConfig) error {
	if cfg.ID == "" || strings.ContainsAny(cfg.ID, "/?#% ") {
		return fmt.Errorf("sim: invalid system id %q", cfg.ID)
	}
	sys := newSystem(cfg, len(s.order))
	s.mu.Lock()
	if _, ok := s.systems[cfg.ID]; ok {
		s.mu.Unlock()
		return fmt.Errorf("sim: system %q already exists", cfg.ID)
	}
	if s.opts.Agent != nil {
		acfg := *s.opts.Agent
		if acfg.Logf == nil {
			acfg.Logf = s.opts.Logf
		}
		a, err := agent.New(acfg, cfg.ID, machine{s: s, id: cfg.ID})
		if err != nil {
			s.mu.Unlock()
			return err
		}
		sys.agent = a
	}
	if s.opts.VM != nil {
		v, err := s.newVM(sys)
		if err != nil {
			s.mu.Unlock()
			return err
		}
		sys.vm = v
	}
	s.systems[cfg.ID] = sys
	s.order = append(s.order, cfg.ID)
	started := s.started
	s.mu.Unlock()
	if started && s.opts.PerSystemListeners {
		return s.listenFor(sys)
	}
	return nil
}

// Start opens the listeners and serves in the background.
func (s *Server) Start() error {
	s.mu.Lock()
	if s.started {
		s.mu.Unlock()
		return errors.New("sim: already started")
	}
	s.started = true
	s.mu.Unlock()
	if s.opts.TLS {
		cert, der, err := selfSignedCert()
		if err != nil {
			return err
		}
		s.tlsCert, s.certDER = cert, der
	}
	l, err := s.serve(s.opts.Addr, s.handler(""))
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.main = l
	systems := s.sortedSystems()
	s.mu.Unlock()
	if s.opts.PerSystemListeners {
		for _, sys := range systems {
			if err := s.listenFor(sys); err != nil {
				_ = s.Close()
				return err
			}
		}
	}
	return nil
}

func (s *Server) listenFor(sys *system) error {
	host, _, err := net.SplitHostPort(s.opts.Addr)
	if err != nil {
		return fmt.Errorf("sim: bad address %q: %w", s.opts.Addr, err)
	}
	port := 0
	if s.opts.PerSystemPortBase > 0 {
		port = s.opts.PerSystemPortBase + sys.index
	}
	l, err := s.serve(net.JoinHostPort(host, strconv.Itoa(port)), s.handler(sys.id))
	if err != nil {
		return err
	}
	s.mu.Lock()
	sys.listener = l
	s.mu.Unlock()
	return nil
}

func (s *Server) serve(addr string, h http.Handler) (*listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("sim: listen on %s: %w", addr, err)
	}
	errLog := log.New(io.Discard, "", 0)
	if s.opts.Logf != nil {
		errLog = log.New(logfWriter(s.opts.Logf), "sim: ", 0)
	}
	srv := &http.Server{
		Handler:           h,
		ErrorLog:          errLog,
		ReadHeaderTimeout: 10 * time.Second,
		// HTTP/1.1 only, so that the unreachable fault can hijack connections.
		TLSNextProto: map[string]func(*http.Server, *tls.Conn, http.Handler){},
	}
	scheme := "http"
	if s.tlsCert != nil {
		srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{*s.tlsCert}, MinVersion: tls.VersionTLS12}
		ln = tls.NewListener(ln, srv.TLSConfig)
		scheme = "https"
	}
	go func() { _ = srv.Serve(ln) }()
	return &listener{srv: srv, ln: ln, url: scheme + "://" + ln.Addr().String()}, nil
}

// Close stops every listener and drops open connections.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	close(s.done)
	ls := []*listener{s.main}
	var agents []*agent.Agent
	var vms []*vmSystem
	for _, sys := range s.systems {
		ls = append(ls, sys.listener)
		if sys.agent != nil {
			agents = append(agents, sys.agent)
		}
		if sys.vm != nil {
			vms = append(vms, sys.vm)
		}
	}
	s.mu.Unlock()
	for _, a := range agents {
		_ = a.Close()
	}
	for _, v := range vms {
		v.close()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	for _, l := range ls {
		if l == nil {
			continue
		}
		if err := l.srv.Shutdown(ctx); err != nil {
			_ = l.srv.Close()
		}
	}
	return nil
}

// URL is the shared listener's base URL, e.g. http://127.0.0.1:8000.
func (s *Server) URL() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.main == nil {
		return ""
	}
	return s.main.url
}

// Endpoint is the base URL to reach system id: its own listener when it has
// one, else the shared listener.
func (s *Server) Endpoint(id string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sys := s.systems[id]; sys != nil && sys.listener != nil {
		return sys.listener.url
	}
	if s.main == nil {
		return ""
	}
	return s.main.url
}

// SystemURL is the full URL of system id's resource, e.g.
// http://127.0.0.1:8000/redfish/v1/Systems/sys-0.
func (s *Server) SystemURL(id string) string {
	return s.Endpoint(id) + "/redfish/v1/Systems/" + id
}

// SystemIDs lists the systems in the order they were added.
func (s *Server) SystemIDs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.order...)
}

// CertPool holds the self-signed certificate (nil without TLS), for clients
// that want to verify it.
func (s *Server) CertPool() *x509.CertPool {
	if s.certDER == nil {
		return nil
	}
	c, err := x509.ParseCertificate(s.certDER)
	if err != nil {
		return nil
	}
	p := x509.NewCertPool()
	p.AddCert(c)
	return p
}

// Handler serves the shared listener's routes (Redfish and /sim/ admin), for
// use with httptest.
func (s *Server) Handler() http.Handler { return s.handler("") }

// Requests is the number of requests served on all listeners.
func (s *Server) Requests() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests
}

type logfWriter func(format string, args ...any)

func (f logfWriter) Write(p []byte) (int, error) {
	f("%s", strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

type scopeKey struct{}

// handler serves every listener; scope is the system id of a per-system
// listener, "" for the shared one.
func (s *Server) handler(scope string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p := r.URL.Path; len(p) > 1 && strings.HasSuffix(p, "/") {
			r.URL.Path = strings.TrimRight(p, "/")
		}
		r.URL.Path = canonicalPath(r.URL.Path)
		s.mu.Lock()
		s.requests++
		s.mu.Unlock()
		if s.opts.Logf != nil {
			s.opts.Logf("sim: %s %s %s", scope, r.Method, r.URL.Path)
		}
		if scope == "" && strings.HasPrefix(r.URL.Path, "/sim/") {
			s.admin.ServeHTTP(w, r)
			return
		}
		sys, ok := s.systemForRequest(scope, r.URL.Path)
		dialect := s.dialectFor(scope, sys)
		w = dialectWriter{ResponseWriter: w, dialect: dialect}
		if !ok {
			writeError(w, http.StatusNotFound, "Base.1.8.ResourceMissingAtURI", "no such resource: "+r.URL.Path)
			return
		}
		if sys != nil && s.applyFaults(w, r, sys) {
			return
		}
		if !s.authorize(w, r, scope, sys) {
			return
		}
		ctx := context.WithValue(r.Context(), scopeKey{}, scope)
		r = r.WithContext(context.WithValue(ctx, dialectKey{}, dialect))
		w.Header().Set("OData-Version", "4.0")
		s.mux.ServeHTTP(w, r)
	})
}

// systemForRequest finds the system a request is addressed to: the
// listener's own system, or the one a /Systems, /Managers or /Chassis path
// names. ok is false when the path names a system this listener does not
// serve.
func (s *Server) systemForRequest(scope, path string) (*system, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	named := ""
	for _, prefix := range []string{"/redfish/v1/Systems/", "/redfish/v1/Managers/", "/redfish/v1/Chassis/"} {
		if rest, ok := strings.CutPrefix(path, prefix); ok {
			named, _, _ = strings.Cut(rest, "/")
			break
		}
	}
	sys := s.namedSystem(path, named)
	if scope != "" {
		if named != "" && (sys == nil || sys.id != scope) {
			return nil, false
		}
		return s.systems[scope], true
	}
	if named == "" {
		return nil, true
	}
	return sys, sys != nil
}

// namedSystem is the system that id in path names: the system of that id,
// or for a chassis path also the system whose storage enclosure it is;
// s.mu held.
func (s *Server) namedSystem(path, id string) *system {
	if sys := s.findSystem(id); sys != nil || !strings.HasPrefix(path, v1+"/Chassis/") {
		return sys
	}
	for _, sid := range s.order {
		if s.systems[sid].isEnclosure(id) {
			return s.systems[sid]
		}
	}
	return nil
}

// findSystem is the system with id, compared without case as a client
// following lower-case links asks for it; s.mu held.
func (s *Server) findSystem(id string) *system {
	if sys := s.systems[id]; sys != nil {
		return sys
	}
	for _, sid := range s.order {
		if strings.EqualFold(sid, id) {
			return s.systems[sid]
		}
	}
	return nil
}

// dialectFor is the dialect of the system a request is addressed to, else
// of the listener's own system, else of the first system: a real BMC
// speaks one dialect for all it serves.
func (s *Server) dialectFor(scope string, sys *system) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case sys != nil:
		return sys.profile.Dialect
	case scope != "" && s.systems[scope] != nil:
		return s.systems[scope].profile.Dialect
	case len(s.order) > 0:
		return s.systems[s.order[0]].profile.Dialect
	}
	return DialectDMTF
}

func scopeOf(r *http.Request) string {
	v, _ := r.Context().Value(scopeKey{}).(string)
	return v
}

// visibleSystems are the systems a request may see, in order; s.mu held.
func (s *Server) visibleSystems(r *http.Request) []*system {
	if scope := scopeOf(r); scope != "" {
		return []*system{s.systems[scope]}
	}
	return s.sortedSystems()
}

// sortedSystems returns systems in the order they were added; s.mu held.
func (s *Server) sortedSystems() []*system {
	out := make([]*system, 0, len(s.order))
	for _, id := range s.order {
		out = append(out, s.systems[id])
	}
	return out
}

// lookup returns the system of the {id} path value (of a chassis path,
// also the system whose storage enclosure it is); s.mu held.
func (s *Server) lookup(w http.ResponseWriter, r *http.Request) *system {
	sys := s.namedSystem(r.URL.Path, r.PathValue("id"))
	if sys == nil {
		writeError(w, http.StatusNotFound, "Base.1.8.ResourceMissingAtURI", "no such system: "+r.PathValue("id"))
	}
	return sys
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
