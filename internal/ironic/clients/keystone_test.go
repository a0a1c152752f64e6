package clients

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/hashicorp/terraform-plugin-log/tflogtest"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/acctest/secretscan"
)

// This file tests keystone authentication against a fake Keystone v3:
// explicit credentials and clouds.yaml, the catalog lookup and token
// renewal.

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
	ctCheckKeystoneLog(t, logs.String(), password, token)
}

// ctCheckKeystoneLog checks that the log shows the keystone request but
// neither the password, the token nor the headers that carry it.
func ctCheckKeystoneLog(t *testing.T, out, password, token string) {
	t.Helper()
	secretscan.Captured(t, "the log", out, "/v3/auth/tokens")
	secretscan.Check(t, map[string]string{"password": password, "token": token,
		"X-Auth-Token header": "X-Auth-Token", "X-Subject-Token header": "X-Subject-Token"}, map[string]string{"the log": out})
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
	ctCheckKeystoneLog(t, logs.String(), password, token)

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
	secretscan.Check(t, map[string]string{"clouds.yaml password": password, "overriding password": "override-pw"},
		map[string]string{"the log": logs.String()})
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
