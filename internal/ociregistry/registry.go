// Package ociregistry is a small private OCI registry for tests and the rig:
// go-containerregistry's in-memory registry behind token authentication as
// real registries (Docker Hub, Quay, Harbor, GHCR) do it. Every /v2/ request
// needs a bearer token; without one the answer is 401 with
// `WWW-Authenticate: Bearer realm=...,service=...,scope=...`. The realm
// (/token) exchanges HTTP Basic credentials for a token scoped to one
// repository's pull (and push) actions. It accepts the user and password,
// and also an empty user with the Docker config `auth` value
// (base64 "user:password") as password: the pre-shared secret form Ironic
// 2025.1 sends with a node's instance_info.image_pull_secret.
package ociregistry

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"maps"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/go-containerregistry/pkg/registry"
)

// Service is the service name in the challenge and the token request.
const Service = "ociregistry"

// tokenTTL is how long a token is valid (Docker Hub's default is 300 s).
const tokenTTL = 5 * time.Minute

// Registry is the authenticating registry.
type Registry struct {
	user, password string
	inner          http.Handler

	mu     sync.Mutex
	tokens map[string]grant
	// Denied counts the requests answered 401, for tests.
	denied int
	pulls  []Pull
	onPull func(Pull)
}

// OnPull calls f with every authenticated pull as it is logged (a
// command prints the registry's access log with it).
func (r *Registry) OnPull(f func(Pull)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.onPull = f
}

// grant is what a token allows, and whose credentials obtained it.
type grant struct {
	user    string // the account
	via     string // how the token was asked for: "password" or "pull secret"
	repo    string
	actions []string
	expires time.Time
}

// Pull is one authenticated GET of a manifest or blob, as a registry's
// access log records it: who (the account behind the bearer token, and
// which credential form obtained the token), what (repository, digest or
// tag) and how much was sent.
type Pull struct {
	Time       time.Time
	User       string // the account, "deployer"
	Via        string // "password" (user and password) or "pull secret" (empty user, the Docker config auth value)
	Repository string
	Kind       string // "blob" or "manifest"
	Reference  string // the digest ("sha256:...") or tag asked for
	Status     int
	Bytes      int64
	UserAgent  string
}

// String is the registry's log line of the pull.
func (p Pull) String() string {
	return fmt.Sprintf("%s ociregistry: authenticated pull: user=%q via=%q repository=%q %s=%s status=%d bytes=%d client=%q",
		p.Time.UTC().Format(time.RFC3339Nano), p.User, p.Via, p.Repository, p.Kind, p.Reference, p.Status, p.Bytes, p.UserAgent)
}

// Pulls is the log of authenticated pulls so far, oldest first.
func (r *Registry) Pulls() []Pull {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.pulls)
}

// New returns a registry whose only account is user/password.
func New(user, password string) *Registry {
	return &Registry{user: user, password: password, inner: registry.New(registry.Logger(log.New(io.Discard, "", 0))), tokens: map[string]grant{}}
}

// Auth is the Docker config `auth` value of the account: base64 of
// "user:password".
func (r *Registry) Auth() string {
	return base64.StdEncoding.EncodeToString([]byte(r.user + ":" + r.password))
}

// Denied is how many requests were refused with 401 so far.
func (r *Registry) Denied() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.denied
}

// ServeHTTP serves /token and, with a valid bearer token, /v2/.
func (r *Registry) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if req.URL.Path == "/token" {
		r.serveToken(w, req)
		return
	}
	if !strings.HasPrefix(req.URL.Path, "/v2") {
		http.NotFound(w, req)
		return
	}
	repo := repository(req.URL.Path)
	need := "pull"
	if req.Method != http.MethodGet && req.Method != http.MethodHead {
		need = "push"
	}
	g, ok := r.allowed(req.Header.Get("Authorization"), repo, need)
	if !ok {
		r.challenge(w, req, repo, need)
		return
	}
	kind, ref := pullTarget(req)
	if kind == "" {
		r.inner.ServeHTTP(w, req)
		return
	}
	// The answer is held until the pull is logged, so that a client that
	// has read it finds its pull in the log (the registry's images are
	// test-sized).
	rec := httptest.NewRecorder()
	r.inner.ServeHTTP(rec, req)
	n := int64(rec.Body.Len())
	if req.Method == http.MethodHead {
		n = 0
	}
	p := Pull{Time: time.Now(), User: g.user, Via: g.via, Repository: repo, Kind: kind, Reference: ref,
		Status: rec.Code, Bytes: n, UserAgent: req.UserAgent()}
	r.mu.Lock()
	r.pulls = append(r.pulls, p)
	f := r.onPull
	r.mu.Unlock()
	if f != nil {
		f(p)
	}
	maps.Copy(w.Header(), rec.Header())
	w.WriteHeader(rec.Code)
	_, _ = w.Write(rec.Body.Bytes())
}

// pullPath is /v2/<name>/(blobs|manifests)/<reference>.
var pullPath = regexp.MustCompile(`^/v2/.+?/(blobs|manifests)/([^/]+)$`)

// pullTarget is the kind ("blob" or "manifest") and reference of a GET
// that pulls content, or "" for anything else (HEAD, uploads, tag lists).
func pullTarget(req *http.Request) (kind, ref string) {
	if req.Method != http.MethodGet {
		return "", ""
	}
	m := pullPath.FindStringSubmatch(req.URL.Path)
	if m == nil {
		return "", ""
	}
	return strings.TrimSuffix(m[1], "s"), m[2]
}

// repoPath finds the repository name of /v2/<name>/(blobs|manifests|tags)/...
var repoPath = regexp.MustCompile(`^/v2/(.+?)/(blobs|manifests|tags|referrers)/`)

func repository(p string) string {
	if m := repoPath.FindStringSubmatch(p); m != nil {
		return m[1]
	}
	return ""
}

// allowed checks a bearer token: any valid token opens /v2/ itself, a
// repository needs the action on that repository. It returns the token's
// grant.
func (r *Registry) allowed(header, repo, action string) (grant, bool) {
	tok, ok := strings.CutPrefix(header, "Bearer ")
	if !ok {
		return grant{}, false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	g, ok := r.tokens[tok]
	if !ok || time.Now().After(g.expires) {
		return grant{}, false
	}
	return g, repo == "" || (g.repo == repo && slices.Contains(g.actions, action))
}

// challenge answers 401 with the bearer challenge that points at /token.
func (r *Registry) challenge(w http.ResponseWriter, req *http.Request, repo, action string) {
	r.mu.Lock()
	r.denied++
	r.mu.Unlock()
	c := fmt.Sprintf(`Bearer realm="%s",service="%s"`, realm(req), Service)
	if repo != "" {
		actions := "pull"
		if action == "push" {
			actions = "pull,push"
		}
		c += fmt.Sprintf(`,scope="repository:%s:%s"`, repo, actions)
	}
	w.Header().Set("WWW-Authenticate", c)
	writeError(w, http.StatusUnauthorized, "UNAUTHORIZED", "authentication required")
}

func realm(req *http.Request) string {
	scheme := "http"
	if req.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + req.Host + "/token"
}

// serveToken exchanges Basic credentials for a token (Docker's token
// authentication specification).
func (r *Registry) serveToken(w http.ResponseWriter, req *http.Request) {
	user, pass, ok := req.BasicAuth()
	if !ok || !r.credentialsMatch(user, pass) {
		r.mu.Lock()
		r.denied++
		r.mu.Unlock()
		w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Basic realm="%s"`, Service))
		writeError(w, http.StatusUnauthorized, "UNAUTHORIZED", "invalid username or password")
		return
	}
	g := grant{user: r.user, via: "password", expires: time.Now().Add(tokenTTL)}
	if user == "" {
		g.via = "pull secret"
	}
	// scope=repository:<name>:<actions>; several scopes are not needed here.
	if parts := strings.Split(req.URL.Query().Get("scope"), ":"); len(parts) == 3 && parts[0] == "repository" {
		g.repo = parts[1]
		for _, a := range strings.Split(parts[2], ",") {
			if a == "pull" || a == "push" {
				g.actions = append(g.actions, a)
			}
		}
	}
	raw := make([]byte, 24)
	_, _ = rand.Read(raw)
	tok := hex.EncodeToString(raw)
	r.mu.Lock()
	r.tokens[tok] = g
	r.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"token": tok, "access_token": tok, "expires_in": int(tokenTTL.Seconds()),
		"issued_at": time.Now().UTC().Format(time.RFC3339),
	})
}

// credentialsMatch accepts user/password, or an empty user with the
// Docker config auth value (Ironic's pre-shared secret).
func (r *Registry) credentialsMatch(user, pass string) bool {
	eq := func(a, b string) bool { return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }
	if user == "" {
		return eq(pass, r.Auth())
	}
	return eq(user, r.user) && eq(pass, r.password)
}

func writeError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"errors": []map[string]string{{"code": code, "message": msg}}})
}
