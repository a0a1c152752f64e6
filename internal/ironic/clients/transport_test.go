package clients

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/hashicorp/terraform-plugin-log/tflogtest"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/acctest/secretscan"
)

// Ironic's NodeLocked body: error_message holds a JSON document in a string.
const ctNodeLockedBody = `{"error_message": "{\"faultcode\": \"Client\", \"faultstring\": \"Node 1be26c0b-03f2-4d2e-ae87-c02d7f33c123 is locked by host conductor-1, please retry after the current operation is completed.\", \"debuginfo\": null}"}`

const ctAlreadyExistsBody = `{"error_message": "{\"faultcode\": \"Client\", \"faultstring\": \"A node with name node-0 already exists.\", \"debuginfo\": null}"}`

func ctResp(code int, body string) *http.Response {
	return &http.Response{
		StatusCode: code,
		Status:     http.StatusText(code),
		Header:     http.Header{},
		Body:       io.NopCloser(strings.NewReader(body)),
	}
}

func TestCheckRetryTable(t *testing.T) {
	connRefused := &url.Error{Op: "Get", URL: "http://127.0.0.1:1/v1/", Err: &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}}
	certErr := &url.Error{Op: "Get", URL: "https://127.0.0.1:1/v1/", Err: x509.UnknownAuthorityError{}}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()

	cases := []struct {
		name  string
		ctx   context.Context
		resp  *http.Response
		err   error
		retry bool
	}{
		{"connection refused", context.Background(), nil, connRefused, true},
		{"tls verification failure", context.Background(), nil, certErr, false},
		{"500", context.Background(), ctResp(500, `{}`), nil, true},
		{"501", context.Background(), ctResp(501, `{}`), nil, false},
		{"502", context.Background(), ctResp(502, `{}`), nil, true},
		{"503", context.Background(), ctResp(503, `{}`), nil, true},
		{"429", context.Background(), ctResp(429, `{}`), nil, true},
		{"409 NodeLocked", context.Background(), ctResp(409, ctNodeLockedBody), nil, true},
		{"409 NodeLocked as object", context.Background(), ctResp(409, `{"error_message": {"faultstring": "Node n1 is locked by host h1, please retry after the current operation is completed."}}`), nil, true},
		{"409 already exists", context.Background(), ctResp(409, ctAlreadyExistsBody), nil, false},
		{"409 not json", context.Background(), ctResp(409, `conflict`), nil, false},
		{"400", context.Background(), ctResp(400, `{}`), nil, false},
		{"404", context.Background(), ctResp(404, `{}`), nil, false},
		{"200", context.Background(), ctResp(200, `{}`), nil, false},
		{"ctx cancelled with 503", cancelled, ctResp(503, `{}`), nil, false},
		{"ctx cancelled with conn error", cancelled, nil, connRefused, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := CheckRetry(tc.ctx, tc.resp, tc.err)
			if got != tc.retry {
				t.Fatalf("CheckRetry = %v (err %v), want %v", got, err, tc.retry)
			}
			if tc.ctx.Err() != nil && !errors.Is(err, context.Canceled) {
				t.Fatalf("cancelled context: err = %v, want context.Canceled", err)
			}
		})
	}

	// The 409 body read to classify it is still there for the caller.
	r := ctResp(409, ctAlreadyExistsBody)
	if retry, _ := CheckRetry(context.Background(), r, nil); retry {
		t.Fatal("already exists retried")
	}
	b, _ := io.ReadAll(r.Body)
	if string(b) != ctAlreadyExistsBody {
		t.Fatalf("409 body not restored: %q", b)
	}
}

func TestCheckRetryNodeLockedMessage(t *testing.T) {
	for body, want := range map[string]bool{
		ctNodeLockedBody:    true,
		ctAlreadyExistsBody: false,
		`{"error_message": "{\"faultstring\": \"Node n1 is in maintenance\"}"}`: false,
		`NodeLocked`: true,
		``:           false,
	} {
		if got := IsNodeLockedMessage([]byte(body)); got != want {
			t.Errorf("IsNodeLockedMessage(%q) = %v, want %v", body, got, want)
		}
	}
}

func TestTransportBackoff(t *testing.T) {
	withHeader := func(v string) *http.Response {
		r := ctResp(503, "")
		r.Header.Set("Retry-After", v)
		return r
	}
	if d := RetryBackoff(time.Millisecond, 8*time.Millisecond, 0, withHeader("2")); d != 2*time.Second {
		t.Fatalf("Retry-After: 2 gave %v", d)
	}
	date := time.Now().Add(3 * time.Second).UTC().Format(http.TimeFormat)
	if d := RetryBackoff(time.Millisecond, 8*time.Millisecond, 0, withHeader(date)); d < time.Second || d > 3*time.Second {
		t.Fatalf("Retry-After date gave %v", d)
	}
	if d := RetryBackoff(time.Millisecond, 8*time.Millisecond, 0, withHeader("86400")); d != maxRetryAfter {
		t.Fatalf("huge Retry-After gave %v, want cap %v", d, maxRetryAfter)
	}
	for attempt := 0; attempt < 40; attempt++ {
		lo, hi := 10*time.Millisecond, 80*time.Millisecond
		base := lo << min(attempt, 3)
		d := RetryBackoff(lo, hi, attempt, nil)
		if d < base/2 || d > base || d > hi {
			t.Fatalf("attempt %d: backoff %v outside [%v, %v]", attempt, d, base/2, base)
		}
	}
}

// ctRecorder records the requests a test server received.
type ctRecorder struct {
	mu     sync.Mutex
	bodies map[string][]string // "METHOD path" -> bodies
}

func (r *ctRecorder) add(req *http.Request) string {
	b, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.bodies == nil {
		r.bodies = map[string][]string{}
	}
	k := req.Method + " " + req.URL.Path
	r.bodies[k] = append(r.bodies[k], string(b))
	return string(b)
}

func (r *ctRecorder) get(k string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.bodies[k]...)
}

func TestTransportRetries503BurstResendsBody(t *testing.T) {
	var rec ctRecorder
	var failures sync.Map // "METHOD path" -> *int32 (remaining 503s)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/" {
			ctWriteRoot(w, "1.82")
			return
		}
		rec.add(r)
		n, _ := failures.LoadOrStore(r.Method+" "+r.URL.Path, new(int32))
		if atomic.AddInt32(n.(*int32), 1) <= 3 {
			w.Header().Set("Retry-After", "0")
			http.Error(w, `{"error_message": "busy"}`, http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"uuid": "n1"}`))
	}))
	defer srv.Close()

	conn, err := Connect(context.Background(), ctConfig(srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if _, err := conn.Client.Post(context.Background(), conn.Client.ServiceURL("nodes"),
		map[string]any{"name": "node-0", "driver": "fake-hardware"}, &out, &gophercloud.RequestOpts{OkCodes: []int{200}}); err != nil {
		t.Fatalf("POST after 503 burst: %v", err)
	}
	patch := []map[string]any{{"op": "replace", "path": "/extra/a", "value": "b"}}
	if _, err := conn.Client.Patch(context.Background(), conn.Client.ServiceURL("nodes", "n1"), patch, &out, &gophercloud.RequestOpts{OkCodes: []int{200}}); err != nil {
		t.Fatalf("PATCH after 503 burst: %v", err)
	}
	for _, k := range []string{"POST /v1/nodes", "PATCH /v1/nodes/n1"} {
		bodies := rec.get(k)
		if len(bodies) != 4 {
			t.Fatalf("%s: %d attempts, want 4", k, len(bodies))
		}
		for i, b := range bodies {
			if b == "" || b != bodies[0] {
				t.Fatalf("%s attempt %d body %q, first %q", k, i+1, b, bodies[0])
			}
		}
	}
}

func TestTransportNodeLockedRetriedThenSuccess(t *testing.T) {
	var patches, posts int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/v1/":
			ctWriteRoot(w, "1.82")
		case r.Method == http.MethodPatch:
			if atomic.AddInt32(&patches, 1) <= 2 {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusConflict)
				_, _ = w.Write([]byte(ctNodeLockedBody))
				return
			}
			_, _ = w.Write([]byte(`{"uuid": "n1"}`))
		case r.Method == http.MethodPost:
			atomic.AddInt32(&posts, 1)
			w.WriteHeader(http.StatusConflict)
			_, _ = w.Write([]byte(ctAlreadyExistsBody))
		}
	}))
	defer srv.Close()
	conn, err := Connect(context.Background(), ctConfig(srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	patch := []map[string]any{{"op": "add", "path": "/extra/a", "value": "b"}}
	if _, err := conn.Client.Patch(context.Background(), conn.Client.ServiceURL("nodes", "n1"), patch, &out, &gophercloud.RequestOpts{OkCodes: []int{200}}); err != nil {
		t.Fatalf("PATCH: %v", err)
	}
	if patches != 3 {
		t.Fatalf("PATCH attempts = %d, want 3", patches)
	}
	_, err = conn.Client.Post(context.Background(), conn.Client.ServiceURL("nodes"), map[string]any{"name": "node-0"}, &out, nil)
	if !gophercloud.ResponseCodeIs(err, http.StatusConflict) || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("POST err = %v, want the 409 with Ironic's message", err)
	}
	if posts != 1 {
		t.Fatalf("409 already exists was sent %d times, want 1", posts)
	}
}

func TestTransportRetriesAreBounded(t *testing.T) {
	var n int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/" {
			ctWriteRoot(w, "1.82")
			return
		}
		atomic.AddInt32(&n, 1)
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = w.Write([]byte(`{"error_message": "{\"faultstring\": \"database is locked up\"}"}`))
	}))
	defer srv.Close()
	cfg := ctConfig(srv.URL)
	cfg.MaxRetries = 2
	conn, err := Connect(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	_, err = conn.Client.Get(context.Background(), conn.Client.ServiceURL("nodes"), nil, nil)
	if !gophercloud.ResponseCodeIs(err, 500) || !strings.Contains(err.Error(), "database is locked up") {
		t.Fatalf("err = %v, want a 500 with Ironic's message", err)
	}
	if n != 3 {
		t.Fatalf("attempts = %d, want 3 (1 + MaxRetries)", n)
	}
}

func TestTransportContextCancelStopsRetrying(t *testing.T) {
	hit := make(chan struct{}, 16)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/" {
			ctWriteRoot(w, "1.82")
			return
		}
		hit <- struct{}{}
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	cfg := ctConfig(srv.URL)
	cfg.MinBackoff, cfg.MaxBackoff = time.Hour, time.Hour
	conn, err := Connect(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-hit; cancel() }()
	start := time.Now()
	_, err = conn.Client.Get(ctx, conn.Client.ServiceURL("nodes"), nil, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if time.Since(start) > 30*time.Second {
		t.Fatal("cancel did not stop the backoff")
	}
}

func TestTransportLogsNeverCarrySecrets(t *testing.T) {
	const user, pass = "ironic-user", "s3cr3t-P@ssw0rd"
	token := base64.StdEncoding.EncodeToString([]byte(user + ":" + pass))
	var n int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Basic "+token {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		if r.URL.Path == "/v1/" {
			ctWriteRoot(w, "1.82")
			return
		}
		if atomic.AddInt32(&n, 1) == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte(`{"nodes": []}`))
	}))
	defer srv.Close()

	var logs bytes.Buffer
	ctx := tflogtest.RootLogger(context.Background(), &logs)
	cfg := ctConfig(srv.URL)
	cfg.Auth, cfg.Username, cfg.Password = AuthHTTPBasic, user, pass
	conn, err := Connect(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Client.Post(ctx, conn.Client.ServiceURL("nodes"), map[string]any{"driver_info": map[string]any{"redfish_password": pass}}, nil, &gophercloud.RequestOpts{OkCodes: []int{200}}); err != nil {
		t.Fatal(err)
	}
	out := logs.String()
	secretscan.Captured(t, "the log", out, "Ironic API request", "retrying Ironic API request", `"path":"/v1/nodes"`, `"status":503`)
	secretscan.Check(t, map[string]string{"password": pass, "basic auth token": token, "Authorization header": "Authorization",
		"basic auth scheme": "Basic ", "redfish_password key": "redfish_password"}, map[string]string{"the log": out})
}
