package clients

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-log/tflogtest"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/testenv"
)

// This file tests Connect without keystone: endpoint forms, http_basic,
// failing at once, and the wait for the API and a live conductor.

func TestConnectEndpointForms(t *testing.T) {
	srv := httptest.NewServer(&ctIronic{max: "1.82"})
	defer srv.Close()
	for _, ep := range []string{srv.URL, srv.URL + "/", srv.URL + "/v1", srv.URL + "/v1/"} {
		conn, err := Connect(context.Background(), ctConfig(ep))
		if err != nil {
			t.Fatalf("%s: %v", ep, err)
		}
		if got, want := conn.Client.ServiceURL("nodes"), srv.URL+"/v1/nodes"; got != want {
			t.Fatalf("%s: ServiceURL = %s, want %s", ep, got, want)
		}
		if conn.Endpoint != srv.URL+"/" {
			t.Fatalf("%s: Endpoint = %s", ep, conn.Endpoint)
		}
	}
	for _, bad := range []string{"127.0.0.1:6385", "ftp://x/", "http://"} {
		if _, err := Connect(context.Background(), ctConfig(bad)); err == nil {
			t.Fatalf("%q accepted", bad)
		}
	}
	if _, err := Connect(context.Background(), Config{Auth: "kerberos"}); err == nil || !strings.Contains(err.Error(), "kerberos") {
		t.Fatalf("unknown auth: %v", err)
	}
}

func TestConnectUnreachableFailsAtOnce(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	u := srv.URL
	srv.Close()
	cfg := ctConfig(u)
	cfg.MinBackoff, cfg.MaxBackoff = time.Hour, time.Hour // a retry would hang the test
	start := time.Now()
	_, err := Connect(context.Background(), cfg)
	if err == nil || !strings.Contains(err.Error(), "could not reach Ironic at "+u+"/") {
		t.Fatalf("err = %v", err)
	}
	if time.Since(start) > 30*time.Second {
		t.Fatal("unreachable Ironic was retried")
	}
}

func TestConnectHTTPBasicSendsAuthorization(t *testing.T) {
	var seen atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, pass, ok := r.BasicAuth()
		seen.Store(fmt.Sprint(user, ":", pass, ":", ok))
		if !ok || user != "admin" || pass != "pw" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		(&ctIronic{max: "1.82"}).ServeHTTP(w, r)
	}))
	defer srv.Close()
	cfg := ctConfig(srv.URL)
	cfg.Auth, cfg.Username, cfg.Password = AuthHTTPBasic, "admin", "pw"
	cfg.UserAgent = "terraform-provider-baremetal/test"
	conn, err := Connect(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if conn.Auth != AuthHTTPBasic || seen.Load() != "admin:pw:true" {
		t.Fatalf("auth %s, server saw %v", conn.Auth, seen.Load())
	}
	cfg.Password = "wrong"
	if _, err := Connect(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "401") || strings.Contains(err.Error(), "wrong") {
		t.Fatalf("wrong password: %v", err)
	}
	cfg.Password = ""
	if _, err := Connect(context.Background(), cfg); err == nil {
		t.Fatal("http_basic without password accepted")
	}
}

// ctFlakyListener closes the first n connections it accepts, so the
// client sees connection errors until the "API has started".
type ctFlakyListener struct {
	net.Listener
	n int32
}

func (l *ctFlakyListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if atomic.AddInt32(&l.n, -1) >= 0 {
			_ = c.Close()
			continue
		}
		return c, nil
	}
}

func TestAPIWaitServerStartsAnswering(t *testing.T) {
	f := &ctIronic{max: "1.82", aliveAfter: 2}
	srv := httptest.NewUnstartedServer(f)
	srv.Listener = &ctFlakyListener{Listener: srv.Listener, n: 3}
	srv.Start()
	defer srv.Close()

	var logs bytes.Buffer
	ctx := tflogtest.RootLogger(context.Background(), &logs)
	cfg := ctConfig(srv.URL)
	cfg.APIWaitTimeout = time.Minute
	conn, err := Connect(ctx, cfg)
	if err != nil {
		t.Fatalf("Connect: %v\n%s", err, logs.String())
	}
	if conn.Microversion != "1.82" {
		t.Fatalf("microversion %s", conn.Microversion)
	}
	if got := f.conductorPolls.Load(); got != 3 {
		t.Fatalf("conductor polls = %d, want 3", got)
	}
	if !strings.Contains(logs.String(), "waiting for the Ironic API and a live conductor") ||
		!strings.Contains(logs.String(), `"waited"`) {
		t.Fatalf("no wait progress logged:\n%s", logs.String())
	}
}

func TestAPIWaitConductorAliveAfterPolls(t *testing.T) {
	f := &ctIronic{max: "1.82", aliveAfter: 4}
	srv := httptest.NewServer(f)
	defer srv.Close()
	cfg := ctConfig(srv.URL)
	cfg.APIWaitTimeout = time.Minute
	if _, err := Connect(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	if got := f.conductorPolls.Load(); got != 5 {
		t.Fatalf("conductor polls = %d, want 5", got)
	}

	// Before 1.49 there is no conductors API: non-empty drivers count.
	old := &ctIronic{max: "1.46", aliveAfter: 2}
	osrv := httptest.NewServer(old)
	defer osrv.Close()
	cfg = ctConfig(osrv.URL)
	cfg.APIWaitTimeout = time.Minute
	_, err := Connect(context.Background(), cfg)
	if old.driverPolls.Load() != 3 || old.conductorPolls.Load() != 0 {
		t.Fatalf("drivers polls %d, conductors polls %d", old.driverPolls.Load(), old.conductorPolls.Load())
	}
	if err == nil || !strings.Contains(err.Error(), MinMicroversion) {
		t.Fatalf("1.46 after wait: %v", err)
	}
}

func TestAPIWaitTimeoutIsClearError(t *testing.T) {
	f := &ctIronic{max: "1.82", aliveAfter: 1 << 30}
	srv := httptest.NewServer(f)
	defer srv.Close()
	cfg := ctConfig(srv.URL)
	cfg.APIWaitTimeout = 150 * time.Millisecond
	start := time.Now()
	_, err := Connect(context.Background(), cfg)
	if err == nil || !strings.Contains(err.Error(), "could not reach Ironic at "+srv.URL) ||
		!strings.Contains(err.Error(), "150ms") || !strings.Contains(err.Error(), "no conductor is alive") {
		t.Fatalf("err = %v", err)
	}
	if time.Since(start) > 30*time.Second {
		t.Fatal("wait overran its timeout")
	}

	// Unreachable for the whole wait.
	gone := httptest.NewServer(http.NotFoundHandler())
	u := gone.URL
	gone.Close()
	cfg = ctConfig(u)
	cfg.APIWaitTimeout = 100 * time.Millisecond
	if _, err := Connect(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "could not reach Ironic at "+u) {
		t.Fatalf("err = %v", err)
	}
}

func TestAPIWaitStopsOnPermanentErrorAndContext(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
	}))
	defer srv.Close()
	cfg := ctConfig(srv.URL)
	cfg.Auth, cfg.Username, cfg.Password = AuthHTTPBasic, "u", "p"
	cfg.APIWaitTimeout = time.Hour
	start := time.Now()
	if _, err := Connect(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "401") {
		t.Fatalf("err = %v", err)
	}
	if time.Since(start) > 30*time.Second {
		t.Fatal("a 401 was waited on")
	}

	f := &ctIronic{max: "1.82", aliveAfter: 1 << 30}
	srv2 := httptest.NewServer(f)
	defer srv2.Close()
	cfg = ctConfig(srv2.URL)
	cfg.APIWaitTimeout = time.Hour
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for f.conductorPolls.Load() < 2 {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	if _, err := Connect(ctx, cfg); err == nil || !strings.Contains(err.Error(), "context canceled") {
		t.Fatalf("err = %v", err)
	}
}

// TestConnectRealIronic runs against the Ironic of the test rig (Ironic
// 21.4, API max 1.82, or 2025.1, 1.96) when BAREMETAL_IRONIC_TESTS=1 asks
// for it: the provider negotiates the server's maximum.
func TestConnectRealIronic(t *testing.T) {
	ep := testenv.RequireIronic(t)
	if err := testenv.WaitForIronic(ep, time.Minute); err != nil {
		t.Fatalf("%s=1 but no Ironic answers at %s: %v", testenv.IronicVar, ep, err)
	}

	cfg := Config{Endpoint: ep, APIWaitTimeout: 30 * time.Second}
	conn, err := Connect(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if conn.Microversion != conn.MaxMicroversion {
		t.Fatalf("negotiated %s with the real Ironic, want its maximum %s", conn.Microversion, conn.MaxMicroversion)
	}
	if !conn.Has(lifecycle.FeatureInventory) || conn.Has(lifecycle.FeatureServicing) != (conn.Microversion != "1.82") {
		t.Fatalf("Has disagrees with %s", conn.Microversion)
	}
}
