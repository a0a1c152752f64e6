package clients

import (
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/testenv"

	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/hashicorp/terraform-plugin-log/tflogtest"
)

// ctConfig is a Config for test servers: tiny backoffs, so retries and
// waits take milliseconds.
func ctConfig(endpoint string) Config {
	return Config{
		Endpoint:   endpoint,
		MinBackoff: time.Millisecond,
		MaxBackoff: 4 * time.Millisecond,
	}
}

// ctWriteRoot writes Ironic's GET /v1/ document for a server whose
// highest microversion is max.
func ctWriteRoot(w http.ResponseWriter, max string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set(headerMinVersion, "1.1")
	w.Header().Set(headerMaxVersion, max)
	fmt.Fprintf(w, `{"id": "v1", "media_types": {"base": "application/json"}, "version": {"id": "v1", "links": [], "status": "CURRENT", "min_version": "1.1", "version": %q}}`, max)
}

// ctIronic is a fake Ironic: root document, conductors (alive after
// aliveAfter polls), drivers, and a nodes list that records the
// microversion header.
type ctIronic struct {
	max            string
	aliveAfter     int32
	conductorPolls atomic.Int32
	driverPolls    atomic.Int32
	lastNodesMV    atomic.Value
}

func (f *ctIronic) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/":
		// Unversioned discovery document (gophercloud reads it when it
		// takes Ironic from a keystone catalog).
		_, _ = fmt.Fprintf(w, `{"name": "OpenStack Ironic API", "default_version": {"id": "v1", "status": "CURRENT", "min_version": "1.1", "version": %[1]q}, "versions": [{"id": "v1", "status": "CURRENT", "min_version": "1.1", "version": %[1]q}]}`, f.max)
	case "/v1/", "/v1":
		ctWriteRoot(w, f.max)
	case "/v1/conductors":
		n := f.conductorPolls.Add(1)
		if r.Header.Get("X-OpenStack-Ironic-API-Version") == "" {
			http.Error(w, "conductors need a microversion", http.StatusNotFound)
			return
		}
		_, _ = fmt.Fprintf(w, `{"conductors": [{"hostname": "c1", "conductor_group": "", "alive": %v}]}`, n > f.aliveAfter)
	case "/v1/drivers":
		n := f.driverPolls.Add(1)
		if n > f.aliveAfter {
			_, _ = w.Write([]byte(`{"drivers": [{"name": "fake-hardware"}]}`))
			return
		}
		_, _ = w.Write([]byte(`{"drivers": []}`))
	case "/v1/nodes":
		f.lastNodesMV.Store(r.Header.Get("X-OpenStack-Ironic-API-Version"))
		_, _ = w.Write([]byte(`{"nodes": []}`))
	default:
		http.NotFound(w, r)
	}
}

func TestMicroversionNegotiate(t *testing.T) {
	cases := []struct {
		min, max, pinned string
		want             string
		errHas           []string
	}{
		{"1.1", "1.82", "", "1.82", nil},
		{"1.1", "1.99", "", ClientMaxMicroversion, nil},
		{"1.1", "1.56", "", "1.56", nil},
		{"1.1", "1.82", "1.60", "1.60", nil},
		{"1.1", "1.82", "1.99", "", []string{"1.99", "1.82", "not supported"}},
		{"1.1", "1.82", "1.50", "", []string{"1.50", MinMicroversion}},
		{"1.1", "1.40", "", "", []string{"1.40", MinMicroversion}},
		{"1.1", "1.82", "abc", "", []string{"abc"}},
		{"1.1", "", "", "", []string{"invalid"}},
	}
	for _, tc := range cases {
		got, err := NegotiateMicroversion(tc.min, tc.max, tc.pinned)
		if tc.errHas == nil {
			if err != nil || got != tc.want {
				t.Errorf("Negotiate(%s,%s,%q) = %q, %v; want %q", tc.min, tc.max, tc.pinned, got, err, tc.want)
			}
			continue
		}
		if err == nil {
			t.Errorf("Negotiate(%s,%s,%q) = %q, want an error", tc.min, tc.max, tc.pinned, got)
			continue
		}
		for _, s := range tc.errHas {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("Negotiate(%s,%s,%q) error %q lacks %q", tc.min, tc.max, tc.pinned, err, s)
			}
		}
	}
	if CompareMicroversions("1.9", "1.10") >= 0 || CompareMicroversions("1.82", "1.82") != 0 || CompareMicroversions("2.0", "1.99") <= 0 {
		t.Fatal("CompareMicroversions compares strings, not numbers")
	}
}

func TestMicroversionConnect(t *testing.T) {
	f := &ctIronic{max: "1.82"}
	srv := httptest.NewServer(f)
	defer srv.Close()

	conn, err := Connect(context.Background(), ctConfig(srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	if conn.Microversion != "1.82" || conn.MaxMicroversion != "1.82" || conn.ServerMinMicroversion != "1.1" {
		t.Fatalf("conn = %+v", conn)
	}
	if !conn.Supports(MicroversionInventory) || conn.Supports(MicroversionFirmware) || conn.Supports(MicroversionDisablePowerOff) {
		t.Fatal("Supports disagrees with 1.82")
	}
	if err := conn.Require("firmware", MicroversionFirmware); err == nil || !strings.Contains(err.Error(), "1.86") {
		t.Fatalf("Require firmware: %v", err)
	}
	if _, err := conn.Client.Get(context.Background(), conn.Client.ServiceURL("nodes"), nil, nil); err != nil {
		t.Fatal(err)
	}
	if mv := f.lastNodesMV.Load(); mv != "1.82" {
		t.Fatalf("requests carry microversion %v, want 1.82", mv)
	}
	if c := conn.WithMicroversion("1.60"); c.Microversion != "1.60" || conn.Client.Microversion != "1.82" {
		t.Fatal("WithMicroversion changed the shared client")
	}

	pinned := ctConfig(srv.URL)
	pinned.Microversion = "1.60"
	if conn, err := Connect(context.Background(), pinned); err != nil || conn.Microversion != "1.60" || conn.Supports(61) {
		t.Fatalf("pinned 1.60: %+v, %v", conn, err)
	}
	pinned.Microversion = "1.99"
	if _, err := Connect(context.Background(), pinned); err == nil || !strings.Contains(err.Error(), "1.99") || !strings.Contains(err.Error(), "1.82") {
		t.Fatalf("pinned 1.99: %v", err)
	}

	old := httptest.NewServer(&ctIronic{max: "1.40"})
	defer old.Close()
	_, err = Connect(context.Background(), ctConfig(old.URL))
	if err == nil || !strings.Contains(err.Error(), "1.40") || !strings.Contains(err.Error(), MinMicroversion) {
		t.Fatalf("server max 1.40: %v", err)
	}
}

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

func ctPEM(typ string, der []byte) string {
	return string(pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}))
}

func TestTLSServerVerification(t *testing.T) {
	srv := httptest.NewTLSServer(&ctIronic{max: "1.82"})
	defer srv.Close()
	caPEM := ctPEM("CERTIFICATE", srv.Certificate().Raw)

	cfg := ctConfig(srv.URL)
	cfg.CACertPEM = caPEM
	if _, err := Connect(context.Background(), cfg); err != nil {
		t.Fatalf("with CA PEM: %v", err)
	}

	caFile := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caFile, []byte(caPEM), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg = ctConfig(srv.URL)
	cfg.CACertFile = caFile
	if _, err := Connect(context.Background(), cfg); err != nil {
		t.Fatalf("with CA file: %v", err)
	}

	// No CA: verification fails, and nothing falls back to insecure.
	cfg = ctConfig(srv.URL)
	_, err := Connect(context.Background(), cfg)
	if err == nil || !strings.Contains(err.Error(), "x509") || !strings.Contains(err.Error(), "TLS verification failed") {
		t.Fatalf("without CA: %v", err)
	}
	cfg.APIWaitTimeout = time.Hour // a certificate error is not waited on
	if _, err := Connect(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "x509") {
		t.Fatalf("without CA, waiting: %v", err)
	}

	cfg = ctConfig(srv.URL)
	cfg.Insecure = true
	if _, err := Connect(context.Background(), cfg); err != nil {
		t.Fatalf("insecure: %v", err)
	}

	cfg = ctConfig(srv.URL)
	cfg.CACertPEM = "not a certificate"
	if _, err := Connect(context.Background(), cfg); err == nil {
		t.Fatal("garbage CA accepted")
	}
}

func TestTLSClientCertificate(t *testing.T) {
	// A CA that signs the client certificate.
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test client CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caCert, _ := x509.ParseCertificate(caDER)
	clKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	clTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "terraform"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}, KeyUsage: x509.KeyUsageDigitalSignature,
	}
	clDER, err := x509.CreateCertificate(rand.Reader, clTmpl, caCert, &clKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, _ := x509.MarshalECPrivateKey(clKey)
	pool := x509.NewCertPool()
	pool.AddCert(caCert)

	var sawCN atomic.Value
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.TLS != nil && len(r.TLS.PeerCertificates) > 0 {
			sawCN.Store(r.TLS.PeerCertificates[0].Subject.CommonName)
		}
		(&ctIronic{max: "1.82"}).ServeHTTP(w, r)
	}))
	srv.TLS = &tls.Config{ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: pool}
	srv.StartTLS()
	defer srv.Close()
	serverCA := ctPEM("CERTIFICATE", srv.Certificate().Raw)

	cfg := ctConfig(srv.URL)
	cfg.CACertPEM = serverCA
	cfg.ClientCertPEM = ctPEM("CERTIFICATE", clDER)
	cfg.ClientKeyPEM = ctPEM("EC PRIVATE KEY", keyDER)
	if _, err := Connect(context.Background(), cfg); err != nil {
		t.Fatalf("with client cert: %v", err)
	}
	if sawCN.Load() != "terraform" {
		t.Fatalf("server saw client CN %v", sawCN.Load())
	}

	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "c.pem"), filepath.Join(dir, "k.pem")
	_ = os.WriteFile(certFile, []byte(cfg.ClientCertPEM), 0o600)
	_ = os.WriteFile(keyFile, []byte(cfg.ClientKeyPEM), 0o600)
	fcfg := ctConfig(srv.URL)
	fcfg.CACertPEM = serverCA
	fcfg.ClientCertFile, fcfg.ClientKeyFile = certFile, keyFile
	if _, err := Connect(context.Background(), fcfg); err != nil {
		t.Fatalf("with client cert files: %v", err)
	}

	nocert := ctConfig(srv.URL)
	nocert.CACertPEM = serverCA
	if _, err := Connect(context.Background(), nocert); err == nil {
		t.Fatal("server requiring a client cert accepted a client without one")
	}
	half := nocert
	half.ClientCertPEM = cfg.ClientCertPEM
	if _, err := Connect(context.Background(), half); err == nil || !strings.Contains(err.Error(), "key is missing") {
		t.Fatalf("cert without key: %v", err)
	}
	bad := half
	bad.ClientKeyPEM = "-----BEGIN EC PRIVATE KEY-----\nc2VjcmV0LWtleS1tYXRlcmlhbA==\n-----END EC PRIVATE KEY-----\n"
	if _, err := Connect(context.Background(), bad); err == nil || strings.Contains(err.Error(), "c2VjcmV0") {
		t.Fatalf("bad key: %v", err)
	}
}

// ctKeystone is a minimal Keystone v3: password auth returns token and a
// catalog that points at a fake Ironic, which requires the token. It
// records the last auth request body. tlsKeystone serves Keystone over TLS
// (Ironic stays plain HTTP).
type ctKeystone struct {
	Keystone, Ironic *httptest.Server
	authBody         sync.Map
}

func newCtKeystone(t *testing.T, token string, tlsKeystone bool) *ctKeystone {
	return newCtKeystoneCatalog(t, token, tlsKeystone, func(ironic string) string {
		return fmt.Sprintf(`{"id": "e1", "interface": "public", "region": "RegionOne", "region_id": "RegionOne", "url": %q},
				{"id": "e2", "interface": "internal", "region": "RegionOne", "region_id": "RegionOne", "url": "http://internal.invalid:6385"}`, ironic)
	})
}

// newCtKeystoneCatalog is newCtKeystone with the baremetal endpoints of
// the catalog given by endpoints (the JSON list's items, for the fake
// Ironic's URL).
func newCtKeystoneCatalog(t *testing.T, token string, tlsKeystone bool, endpoints func(ironic string) string) *ctKeystone {
	t.Helper()
	k := &ctKeystone{}
	k.Ironic = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Auth-Token") != token {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		(&ctIronic{max: "1.82"}).ServeHTTP(w, r)
	}))
	t.Cleanup(k.Ironic.Close)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v3/auth/tokens" || r.Method != http.MethodPost {
			http.NotFound(w, r)
			return
		}
		var req map[string]any
		_ = json.NewDecoder(r.Body).Decode(&req)
		k.authBody.Store("req", req)
		w.Header().Set("X-Subject-Token", token)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		fmt.Fprintf(w, `{"token": {"expires_at": "2099-01-01T00:00:00.000000Z", "issued_at": "2026-01-01T00:00:00.000000Z",
			"methods": ["password"], "user": {"id": "u1", "name": "admin", "domain": {"id": "default", "name": "Default"}},
			"project": {"id": "p1", "name": "admin", "domain": {"id": "default", "name": "Default"}},
			"catalog": [{"type": "baremetal", "name": "ironic", "id": "s1", "endpoints": [%s]}]}}`, endpoints(k.Ironic.URL))
	})
	if tlsKeystone {
		k.Keystone = httptest.NewTLSServer(h)
	} else {
		k.Keystone = httptest.NewServer(h)
	}
	t.Cleanup(k.Keystone.Close)
	return k
}

// lastAuth is the JSON of the last auth request Keystone received.
func (k *ctKeystone) lastAuth() string {
	req, _ := k.authBody.Load("req")
	b, _ := json.Marshal(req)
	return string(b)
}

func TestConnectKeystone(t *testing.T) {
	const password, token = "keystone-S3cret", "gAAAAAB-test-token-value"
	k := newCtKeystone(t, token, false)

	var logs bytes.Buffer
	ctx := tflogtest.RootLogger(context.Background(), &logs)
	cfg := ctConfig("")
	cfg.Auth = AuthKeystone
	cfg.AuthURL = k.Keystone.URL + "/v3/"
	cfg.Username, cfg.Password = "admin", password
	cfg.UserDomainName, cfg.ProjectName, cfg.ProjectDomainName = "Default", "admin", "Default"
	cfg.Region = "RegionOne"
	conn, err := Connect(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if conn.Microversion != "1.82" || conn.Endpoint != k.Ironic.URL+"/" || conn.Auth != AuthKeystone {
		t.Fatalf("conn = %+v", conn)
	}
	if _, err := conn.Client.Get(ctx, conn.Client.ServiceURL("nodes"), nil, nil); err != nil {
		t.Fatal(err)
	}
	if b := k.lastAuth(); !strings.Contains(b, `"name":"admin"`) || !strings.Contains(b, password) {
		t.Fatalf("keystone got %s", b)
	}
	out := logs.String()
	if !strings.Contains(out, "/v3/auth/tokens") {
		t.Fatalf("keystone request not logged:\n%s", out)
	}
	for _, secret := range []string{password, token, "X-Auth-Token", "X-Subject-Token"} {
		if strings.Contains(out, secret) {
			t.Fatalf("log carries %q:\n%s", secret, out)
		}
	}
}

// ctCloudsEnv clears the OS_* variables gophercloud's clouds.yaml parser
// reads, so the tests do not depend on the environment.
func ctCloudsEnv(t *testing.T) {
	for _, v := range []string{"OS_CLOUD", "OS_CLIENT_CONFIG_FILE", "OS_REGION_NAME", "OS_INTERFACE", "OS_CACERT", "OS_CERT", "OS_KEY"} {
		t.Setenv(v, "")
	}
}

func ctWriteClouds(t *testing.T, yaml string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "clouds.yaml")
	if err := os.WriteFile(p, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCloudsYAMLConnect(t *testing.T) {
	ctCloudsEnv(t)
	const password, token = "clouds-yaml-S3cret", "gAAAAAB-clouds-token"
	k := newCtKeystone(t, token, false)
	file := ctWriteClouds(t, fmt.Sprintf(`clouds:
  mycloud:
    auth:
      auth_url: %s/v3/
      username: admin
      password: %s
      project_name: admin
      user_domain_name: Default
      project_domain_name: Default
    region_name: RegionOne
    interface: public
  other:
    auth:
      auth_url: http://127.0.0.1:1/v3/
      username: nobody
      password: x
`, k.Keystone.URL, password))

	var logs bytes.Buffer
	ctx := tflogtest.RootLogger(context.Background(), &logs)
	cfg := ctConfig("")
	cfg.Cloud, cfg.CloudsFile = "mycloud", file
	conn, err := Connect(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if conn.Auth != AuthKeystone || conn.Endpoint != k.Ironic.URL+"/" || conn.Microversion != "1.82" {
		t.Fatalf("conn = %+v", conn)
	}
	if _, err := conn.Client.Get(ctx, conn.Client.ServiceURL("nodes"), nil, nil); err != nil {
		t.Fatalf("Ironic with the token: %v", err)
	}
	b := k.lastAuth()
	for _, want := range []string{`"name":"admin"`, password, `"project":{"domain":{"name":"Default"},"name":"admin"}`} {
		if !strings.Contains(b, want) {
			t.Fatalf("keystone got %s, lacks %s", b, want)
		}
	}
	out := logs.String()
	if !strings.Contains(out, "/v3/auth/tokens") {
		t.Fatalf("keystone request not logged:\n%s", out)
	}
	for _, secret := range []string{password, token, "X-Auth-Token", "X-Subject-Token"} {
		if strings.Contains(out, secret) {
			t.Fatalf("log carries %q:\n%s", secret, out)
		}
	}

	// Explicit fields override clouds.yaml.
	over := cfg
	over.Username, over.Password, over.ProjectName = "operator", "override-pw", "ops"
	if _, err := Connect(ctx, over); err != nil {
		t.Fatal(err)
	}
	b = k.lastAuth()
	if !strings.Contains(b, `"name":"operator"`) || !strings.Contains(b, "override-pw") || strings.Contains(b, password) ||
		!strings.Contains(b, `"project":{"domain":{"name":"Default"},"name":"ops"}`) {
		t.Fatalf("overridden auth: %s", b)
	}
	over = cfg
	over.Interface = "internal" // the catalog's internal endpoint does not resolve
	if _, err := Connect(ctx, over); err == nil || !strings.Contains(err.Error(), "internal.invalid") {
		t.Fatalf("interface override: %v", err)
	}
	over = cfg
	over.AuthURL = "http://127.0.0.1:1/v3/"
	if _, err := Connect(ctx, over); err == nil || !strings.Contains(err.Error(), "127.0.0.1:1") {
		t.Fatalf("auth_url override: %v", err)
	}

	// Unknown cloud, missing file: clear errors naming them.
	bad := cfg
	bad.Cloud = "no-such-cloud"
	if _, err := Connect(ctx, bad); err == nil || !strings.Contains(err.Error(), `"no-such-cloud"`) || !strings.Contains(err.Error(), "not found") {
		t.Fatalf("unknown cloud: %v", err)
	}
	bad = cfg
	bad.CloudsFile = filepath.Join(t.TempDir(), "missing.yaml")
	if _, err := Connect(ctx, bad); err == nil || !strings.Contains(err.Error(), `"mycloud"`) || !strings.Contains(err.Error(), bad.CloudsFile) {
		t.Fatalf("missing clouds file: %v", err)
	}
	if strings.Contains(logs.String(), password) || strings.Contains(logs.String(), "override-pw") {
		t.Fatalf("log carries a password:\n%s", logs.String())
	}
}

func TestCloudsYAMLTLS(t *testing.T) {
	ctCloudsEnv(t)
	const token = "gAAAAAB-tls-token"
	k := newCtKeystone(t, token, true)
	dir := t.TempDir()
	caFile := filepath.Join(dir, "ca.pem")
	caPEM := ctPEM("CERTIFICATE", k.Keystone.Certificate().Raw)
	if err := os.WriteFile(caFile, []byte(caPEM), 0o600); err != nil {
		t.Fatal(err)
	}
	cloud := func(extra string) string {
		return ctWriteClouds(t, fmt.Sprintf(`clouds:
  tls:
    auth:
      auth_url: %s/v3/
      username: admin
      password: pw
      project_name: admin
      user_domain_name: Default
%s`, k.Keystone.URL, extra))
	}
	connect := func(cfg Config) error {
		_, err := Connect(context.Background(), cfg)
		return err
	}

	// No CA anywhere: verification fails, nothing falls back to insecure.
	cfg := ctConfig("")
	cfg.Cloud, cfg.CloudsFile = "tls", cloud("")
	if err := connect(cfg); err == nil || !strings.Contains(err.Error(), "x509") {
		t.Fatalf("without CA: %v", err)
	}
	// The CA of clouds.yaml.
	cfg.CloudsFile = cloud("    cacert: " + caFile + "\n")
	if err := connect(cfg); err != nil {
		t.Fatalf("clouds.yaml cacert: %v", err)
	}
	// verify: true does not turn verification off.
	cfg.CloudsFile = cloud("    verify: true\n")
	if err := connect(cfg); err == nil || !strings.Contains(err.Error(), "x509") {
		t.Fatalf("verify true: %v", err)
	}
	// verify: false in clouds.yaml, or insecure in Config.
	cfg.CloudsFile = cloud("    verify: false\n")
	if err := connect(cfg); err != nil {
		t.Fatalf("verify false: %v", err)
	}
	cfg.CloudsFile = cloud("")
	cfg.Insecure = true
	if err := connect(cfg); err != nil {
		t.Fatalf("insecure: %v", err)
	}
	// Config's CA wins over clouds.yaml's (here a wrong one).
	// (httptest servers all share one certificate: make another CA.)
	otherKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	otherTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(3), Subject: pkix.Name{CommonName: "unrelated CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	otherDER, err := x509.CreateCertificate(rand.Reader, otherTmpl, otherTmpl, &otherKey.PublicKey, otherKey)
	if err != nil {
		t.Fatal(err)
	}
	wrongCA := filepath.Join(dir, "wrong.pem")
	if err := os.WriteFile(wrongCA, []byte(ctPEM("CERTIFICATE", otherDER)), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg = ctConfig("")
	cfg.Cloud, cfg.CloudsFile = "tls", cloud("    cacert: "+wrongCA+"\n")
	if err := connect(cfg); err == nil || !strings.Contains(err.Error(), "x509") {
		t.Fatalf("wrong clouds.yaml CA: %v", err)
	}
	cfg.CACertPEM = caPEM
	if err := connect(cfg); err != nil {
		t.Fatalf("Config CA over clouds.yaml CA: %v", err)
	}
}

// TestConnectRealIronic runs against the Ironic of the test rig (Debian's
// ironic 21.4, API max 1.82) when BAREMETAL_IRONIC_TESTS=1 asks for it.
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
	if conn.Microversion != "1.82" {
		t.Fatalf("negotiated %s with the real Ironic (max %s), want 1.82", conn.Microversion, conn.MaxMicroversion)
	}
	if !conn.Supports(MicroversionInventory) || conn.Supports(MicroversionServicing) {
		t.Fatal("Supports disagrees with 1.82")
	}
}

// Ironic comes from the catalog: the configured region and interface, by
// default public then internal; an explicit endpoint wins; a region
// without Ironic fails naming the region and the interfaces.
func TestConnectKeystoneCatalog(t *testing.T) {
	const token = "gAAAAAB-catalog-token"
	k := newCtKeystoneCatalog(t, token, false, func(ironic string) string {
		return fmt.Sprintf(`{"id": "e1", "interface": "public", "region_id": "RegionOne", "url": "http://public.invalid:6385"},
			{"id": "e2", "interface": "internal", "region_id": "RegionTwo", "url": %q},
			{"id": "e3", "interface": "admin", "region_id": "RegionOne", "url": "http://admin.invalid:6385/v1/"}`, ironic)
	})
	ctx := context.Background()
	cfg := ctConfig("")
	cfg.Auth, cfg.AuthURL, cfg.Username, cfg.Password = AuthKeystone, k.Keystone.URL+"/v3", "operator", "pw"

	// RegionTwo has only an internal endpoint: found by the default.
	cfg.Region = "RegionTwo"
	conn, err := Connect(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if conn.Endpoint != k.Ironic.URL+"/" {
		t.Fatalf("endpoint %s, want the internal one of RegionTwo %s", conn.Endpoint, k.Ironic.URL)
	}
	// public of RegionOne comes first without a region.
	cfg.Region = ""
	if _, err := Connect(ctx, cfg); err == nil || !strings.Contains(err.Error(), "public.invalid") {
		t.Fatalf("no region: %v", err)
	}
	// An explicit interface is the only one tried.
	cfg.Region, cfg.Interface = "RegionTwo", "public"
	_, err = Connect(ctx, cfg)
	if err == nil || !strings.Contains(err.Error(), `region "RegionTwo" with interface public;`) ||
		!strings.Contains(err.Error(), "RegionOne public, RegionTwo internal, RegionOne admin") {
		t.Fatalf("public in RegionTwo: %v", err)
	}
	cfg.Region, cfg.Interface = "RegionOne", "adminURL"
	if _, err := Connect(ctx, cfg); err == nil || !strings.Contains(err.Error(), "admin.invalid:6385/") {
		t.Fatalf("admin: %v", err)
	}
	cfg.Interface = "private"
	if _, err := Connect(ctx, cfg); err == nil || !strings.Contains(err.Error(), `invalid keystone interface "private"`) {
		t.Fatalf("bad interface: %v", err)
	}
	// A region without Ironic.
	cfg.Region, cfg.Interface = "RegionThree", ""
	_, err = Connect(ctx, cfg)
	if err == nil || !strings.Contains(err.Error(), `no Ironic (service type baremetal) endpoint in region "RegionThree" with interface public or internal`) {
		t.Fatalf("region without Ironic: %v", err)
	}
	// An explicit endpoint wins over the catalog.
	cfg.Endpoint = k.Ironic.URL + "/v1"
	if conn, err = Connect(ctx, cfg); err != nil || conn.Endpoint != k.Ironic.URL+"/" {
		t.Fatalf("explicit endpoint: %v %+v", err, conn)
	}
}

// The keystone credentials: domains by id, project by id or name (its
// domain defaulting to the user's), application credentials.
func TestConnectKeystoneCredentials(t *testing.T) {
	const token = "gAAAAAB-cred-token"
	k := newCtKeystone(t, token, false)
	ctx := context.Background()
	base := ctConfig("")
	base.Auth, base.AuthURL = AuthKeystone, k.Keystone.URL+"/v3"
	cases := []struct {
		name string
		edit func(*Config)
		want []string
		not  []string
	}{
		{"domains by id", func(c *Config) {
			c.Username, c.Password, c.UserDomainID, c.ProjectName, c.ProjectDomainID = "operator", "pw", "d1", "bm", "d2"
		}, []string{`"user":{"domain":{"id":"d1"},"name":"operator","password":"pw"}`, `"project":{"domain":{"id":"d2"},"name":"bm"}`}, nil},
		{"project domain defaults to the user's", func(c *Config) {
			c.Username, c.Password, c.UserDomainName, c.ProjectName = "operator", "pw", "infra", "bm"
		}, []string{`"user":{"domain":{"name":"infra"}`, `"project":{"domain":{"name":"infra"},"name":"bm"}`}, nil},
		{"no domain: Default", func(c *Config) {
			c.Username, c.Password, c.ProjectID = "operator", "pw", "p42"
		}, []string{`"user":{"domain":{"id":"default"}`, `"project":{"id":"p42"}`}, nil},
		{"application credential", func(c *Config) {
			c.ApplicationCredentialID, c.ApplicationCredentialSecret = "ac1", "acs"
		}, []string{`"methods":["application_credential"]`, `"application_credential":{"id":"ac1","secret":"acs"}`}, []string{"scope", "password"}},
	}
	for _, c := range cases {
		cfg := base
		c.edit(&cfg)
		if _, err := Connect(ctx, cfg); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		b := k.lastAuth()
		for _, w := range c.want {
			if !strings.Contains(b, w) {
				t.Errorf("%s: keystone got %s, lacks %s", c.name, b, w)
			}
		}
		for _, w := range c.not {
			if strings.Contains(b, w) {
				t.Errorf("%s: keystone got %s, has %s", c.name, b, w)
			}
		}
	}
	for _, c := range []struct {
		edit func(*Config)
		want string
	}{
		{func(c *Config) { c.AuthURL = "" }, "auth_url (OS_AUTH_URL)"},
		{func(c *Config) { c.Username = "x" }, "username and a password (OS_USERNAME, OS_PASSWORD)"},
		{func(c *Config) { c.ApplicationCredentialID = "x" }, "both application_credential_id and application_credential_secret"},
	} {
		cfg := base
		c.edit(&cfg)
		if _, err := Connect(ctx, cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("want %q, got %v", c.want, err)
		}
	}
}

// A token that expires is renewed: Ironic refuses it (401), the client
// authenticates again and repeats the request.
func TestConnectKeystoneReauth(t *testing.T) {
	var tokens atomic.Int32
	var current atomic.Value
	current.Store("")
	ironic := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/" && r.Header.Get("X-Auth-Token") != current.Load().(string) {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		(&ctIronic{max: "1.82"}).ServeHTTP(w, r)
	}))
	t.Cleanup(ironic.Close)
	keystone := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tok := fmt.Sprintf("token-%d", tokens.Add(1))
		current.Store(tok)
		w.Header().Set("X-Subject-Token", tok)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		fmt.Fprintf(w, `{"token": {"expires_at": "2099-01-01T00:00:00.000000Z", "methods": ["password"],
			"user": {"id": "u1", "name": "operator", "domain": {"id": "default"}},
			"catalog": [{"type": "baremetal", "id": "s1", "endpoints": [{"id": "e1", "interface": "public", "region_id": "R", "url": %q}]}]}}`, ironic.URL)
	}))
	t.Cleanup(keystone.Close)
	cfg := ctConfig("")
	cfg.Auth, cfg.AuthURL, cfg.Username, cfg.Password = AuthKeystone, keystone.URL+"/v3", "operator", "pw"
	ctx := context.Background()
	conn, err := Connect(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Client.Get(ctx, conn.Client.ServiceURL("nodes"), nil, nil); err != nil {
		t.Fatal(err)
	}
	current.Store("expired") // Keystone's tokens expire; Ironic refuses them
	if _, err := conn.Client.Get(ctx, conn.Client.ServiceURL("nodes"), nil, nil); err != nil {
		t.Fatalf("after expiry: %v", err)
	}
	if n := tokens.Load(); n != 2 {
		t.Fatalf("%d tokens issued, want 2 (one renewal)", n)
	}
}

// TestConnWritesInFlight: a write counts from when it is sent until it is
// answered, a read never, and the count comes back to zero.
func TestConnWritesInFlight(t *testing.T) {
	f := &ctIronic{max: "1.82"}
	release := make(chan struct{})
	arrived := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPut {
			arrived <- struct{}{}
			<-release
			w.WriteHeader(http.StatusAccepted)
			return
		}
		f.ServeHTTP(w, r)
	}))
	defer srv.Close()
	conn, err := Connect(context.Background(), ctConfig(srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	if n := conn.WritesInFlight(); n != 0 {
		t.Fatalf("after connecting (reads only): %d writes in flight, want 0", n)
	}
	done := make(chan error, 1)
	go func() {
		_, err := conn.Client.Put(context.Background(), conn.Client.ServiceURL("nodes", "n1", "states", "power"),
			map[string]string{"target": "power off"}, nil, &gophercloud.RequestOpts{OkCodes: []int{http.StatusAccepted}})
		done <- err
	}()
	<-arrived
	if n := conn.WritesInFlight(); n != 1 {
		t.Errorf("while Ironic holds the PUT: %d writes in flight, want 1", n)
	}
	if _, err := conn.Client.Get(context.Background(), conn.Client.ServiceURL("nodes"), nil, nil); err != nil {
		t.Fatal(err)
	}
	if n := conn.WritesInFlight(); n != 1 {
		t.Errorf("after a read beside it: %d writes in flight, want 1", n)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := conn.WritesInFlight(); n != 0 {
		t.Fatalf("after the PUT was answered: %d writes in flight, want 0", n)
	}
	if n := (&Conn{}).WritesInFlight(); n != -1 {
		t.Fatalf("a Conn without the counting transport: %d, want -1", n)
	}
}
