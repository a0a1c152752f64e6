package clients

import (
	"cmp"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/httpbasic"
	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/noauth"
	"github.com/gophercloud/gophercloud/v2/openstack/config"
	"github.com/gophercloud/gophercloud/v2/openstack/config/clouds"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/tokens"
	"github.com/gophercloud/gophercloud/v2/openstack/utils"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/tlsverify"
)

// DefaultEndpoint is the Ironic API used when Config.Endpoint is empty (and
// auth is not keystone, where the service catalog names it).
const DefaultEndpoint = "http://127.0.0.1:6385"

// Authentication strategies (Config.Auth).
const (
	AuthNoAuth    = "noauth"
	AuthHTTPBasic = "http_basic"
	AuthKeystone  = "keystone"
)

// API microversions.
const (
	// MinMicroversion is the oldest Ironic API this provider works with:
	// 1.56 accepts the config drive as JSON (user, meta and network data).
	MinMicroversion = "1.56"
	// ClientMaxMicroversion is the newest Ironic API this provider knows.
	ClientMaxMicroversion = "1.95"
)

// Minor versions (of API 1.x) that gate features; use with Conn.Supports.
const (
	MicroversionConductors      = 49 // GET /v1/conductors
	MicroversionAllocations     = 52 // allocation API
	MicroversionConfigDriveJSON = 56 // config drive as a JSON object
	MicroversionInventory       = 81 // GET /v1/nodes/{id}/inventory
	MicroversionShard           = 82 // node shard
	MicroversionFirmware        = 86 // firmware interface and components
	MicroversionServicing       = 87 // service provision verb
	MicroversionDisablePowerOff = 95 // node disable_power_off
)

const (
	headerMinVersion = "X-OpenStack-Ironic-API-Minimum-Version"
	headerMaxVersion = "X-OpenStack-Ironic-API-Maximum-Version"

	// maxWaitPoll bounds the pause between two polls of the API wait.
	maxWaitPoll = 10 * time.Second
)

// Config says how to reach Ironic.
type Config struct {
	// Endpoint is the Ironic API URL, with or without the trailing /v1.
	// Empty means DefaultEndpoint, except with keystone auth, where empty
	// means the endpoint from the service catalog (then a set Endpoint
	// overrides the catalog).
	Endpoint string

	// Auth is AuthNoAuth (default), AuthHTTPBasic or AuthKeystone. Empty
	// means keystone when Cloud or AuthURL is set, else noauth.
	Auth string

	// Username and Password are the http_basic credentials, and the
	// keystone user's credentials (overriding clouds.yaml when set).
	Username string
	Password string

	// Keystone: Cloud names an entry of clouds.yaml (found in the standard
	// places, or in CloudsFile). Without Cloud, the explicit fields below
	// are used; with Cloud, those that are set override clouds.yaml. The
	// provider fills unset fields from the OS_* variables, as the
	// OpenStack CLI does; Connect reads no OS_* variable itself except
	// those gophercloud's clouds.yaml parser reads (OS_CLOUD,
	// OS_CLIENT_CONFIG_FILE, OS_REGION_NAME, OS_INTERFACE) when Cloud is
	// set.
	Cloud             string
	CloudsFile        string
	AuthURL           string
	UserDomainName    string
	UserDomainID      string
	ProjectName       string
	ProjectID         string
	ProjectDomainName string
	ProjectDomainID   string
	// ApplicationCredentialID and ApplicationCredentialSecret authenticate
	// instead of a user and password (the credential carries its project).
	ApplicationCredentialID     string
	ApplicationCredentialSecret string
	// Region and Interface select Ironic's endpoint (service type
	// baremetal) in the catalog. Interface is public, internal or admin;
	// empty means public, else internal.
	Region    string
	Interface string

	// TLS. CACertFile/CACertPEM replace the system roots when set.
	// Insecure skips certificate verification; it is never turned on
	// implicitly.
	CACertFile     string
	CACertPEM      string
	ClientCertFile string
	ClientCertPEM  string
	ClientKeyFile  string
	ClientKeyPEM   string
	Insecure       bool

	// Microversion pins the API microversion ("1.82"); empty negotiates
	// the highest one both sides support.
	Microversion string

	// APIWaitTimeout, when > 0, makes Connect wait up to that long for the
	// API to answer and a conductor to be alive. 0 fails at once when
	// Ironic cannot be reached.
	APIWaitTimeout time.Duration

	// MaxRetries bounds the retries of one request (0 means
	// DefaultMaxRetries, negative means none). MinBackoff/MaxBackoff bound
	// the jittered exponential backoff (defaults 1s and 30s).
	// RequestTimeout bounds one attempt (0 means DefaultRequestTimeout,
	// negative means none).
	MaxRetries     int
	MinBackoff     time.Duration
	MaxBackoff     time.Duration
	RequestTimeout time.Duration

	// UserAgent is put in front of gophercloud's User-Agent.
	UserAgent string
}

// Conn is a connection to Ironic with a negotiated microversion.
type Conn struct {
	// Client sends requests at Microversion through the retrying transport.
	Client *gophercloud.ServiceClient
	// Endpoint is the Ironic API root used (credentials redacted).
	Endpoint string
	// Auth is the authentication strategy in use.
	Auth string
	// Microversion is the negotiated (or pinned) microversion.
	Microversion string
	// MaxMicroversion and ServerMinMicroversion are the server's range.
	MaxMicroversion       string
	ServerMinMicroversion string

	minor  int
	writes *atomic.Int64
}

// WritesInFlight is how many requests other than reads the connection has
// sent and not yet had answered (retries included), or -1 when its
// transport does not count them.
func (c *Conn) WritesInFlight() int {
	if c.writes == nil {
		return -1
	}
	return int(c.writes.Load())
}

// Supports tells whether the connection's microversion is at least 1.minor.
func (c *Conn) Supports(minor int) bool {
	return c != nil && c.minor >= minor
}

// Require returns a clear error when the negotiated microversion is older
// than 1.minor, naming the feature that needs it.
func (c *Conn) Require(feature string, minor int) error {
	if c.Supports(minor) {
		return nil
	}
	cur := ""
	if c != nil {
		cur = c.Microversion
	}
	return fmt.Errorf("%s needs Ironic API microversion 1.%d or later, but the connection uses %s (server maximum %s)",
		feature, minor, cur, c.MaxMicroversion)
}

// WithMicroversion returns a copy of the service client that sends the
// given microversion (same transport, auth and endpoint).
func (c *Conn) WithMicroversion(v string) *gophercloud.ServiceClient {
	sc := *c.Client
	sc.Microversion = v
	return &sc
}

// CompareMicroversions compares two "X.Y" microversions like strings.Compare.
// A malformed version compares lower than any valid one.
func CompareMicroversions(a, b string) int {
	am, an, aerr := utils.ParseMicroversion(a)
	bm, bn, berr := utils.ParseMicroversion(b)
	switch {
	case aerr != nil && berr != nil:
		return 0
	case aerr != nil:
		return -1
	case berr != nil:
		return 1
	}
	if am != bm {
		if am < bm {
			return -1
		}
		return 1
	}
	switch {
	case an < bn:
		return -1
	case an > bn:
		return 1
	}
	return 0
}

// NegotiateMicroversion picks the microversion to use given the server's
// range: the pinned one if the server supports it, else the highest both
// this client (ClientMaxMicroversion) and the server support. Either must
// be at least MinMicroversion.
func NegotiateMicroversion(serverMin, serverMax, pinned string) (string, error) {
	if _, _, err := utils.ParseMicroversion(serverMax); err != nil {
		//nolint:staticcheck // ST1005: starts with a proper noun
		return "", fmt.Errorf("Ironic reported an invalid maximum API microversion %q", serverMax)
	}
	if serverMin == "" {
		serverMin = "1.1"
	}
	if pinned != "" {
		if _, _, err := utils.ParseMicroversion(pinned); err != nil {
			return "", fmt.Errorf("invalid microversion %q: want the form 1.NN", pinned)
		}
		if CompareMicroversions(pinned, MinMicroversion) < 0 {
			return "", fmt.Errorf("microversion %s is older than %s, the oldest this provider supports (config drive as JSON)", pinned, MinMicroversion)
		}
		if CompareMicroversions(pinned, serverMin) < 0 || CompareMicroversions(pinned, serverMax) > 0 {
			return "", fmt.Errorf("the pinned microversion %s is not supported by this Ironic, which supports %s to %s", pinned, serverMin, serverMax)
		}
		return pinned, nil
	}
	chosen := serverMax
	if CompareMicroversions(chosen, ClientMaxMicroversion) > 0 {
		chosen = ClientMaxMicroversion
	}
	if CompareMicroversions(chosen, MinMicroversion) < 0 {
		return "", fmt.Errorf("this Ironic supports API microversions up to %s, but this provider needs at least %s (config drive as JSON); upgrade Ironic", serverMax, MinMicroversion)
	}
	if CompareMicroversions(chosen, serverMin) < 0 {
		return "", fmt.Errorf("this Ironic requires API microversion %s or later, newer than %s, the newest this provider knows", serverMin, ClientMaxMicroversion)
	}
	return chosen, nil
}

// configError marks errors in the configuration: never retried.
type configError struct{ msg string }

func (e *configError) Error() string { return e.msg }

func cfgErr(format string, args ...any) error {
	return &configError{msg: fmt.Sprintf(format, args...)}
}

// normalizeEndpoint returns the API root with a trailing slash and without
// /v1, e.g. "http://127.0.0.1:6385/".
func normalizeEndpoint(ep string) (string, error) {
	ep = strings.TrimSpace(ep)
	u, err := url.Parse(ep)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", cfgErr("invalid Ironic endpoint %q: want http(s)://host:port, optionally ending in /v1", redact(ep))
	}
	u.RawQuery, u.Fragment = "", ""
	p := strings.TrimRight(u.Path, "/")
	p = strings.TrimSuffix(p, "/v1")
	u.Path = p + "/"
	u.RawPath = ""
	return u.String(), nil
}

// redact removes a password from a URL for messages.
func redact(s string) string {
	if u, err := url.Parse(s); err == nil {
		return u.Redacted()
	}
	return s
}

func (c Config) authStrategy() (string, error) {
	a := strings.ToLower(strings.TrimSpace(c.Auth))
	switch a {
	case "":
		if c.Cloud != "" || c.AuthURL != "" {
			return AuthKeystone, nil
		}
		return AuthNoAuth, nil
	case AuthNoAuth, AuthHTTPBasic, AuthKeystone:
		return a, nil
	case "basic", "http-basic", "httpbasic":
		return AuthHTTPBasic, nil
	}
	return "", cfgErr("unknown Ironic auth strategy %q: want %s, %s or %s", c.Auth, AuthNoAuth, AuthHTTPBasic, AuthKeystone)
}

// Connect builds a client for Ironic, checks that the API answers (waiting
// up to cfg.APIWaitTimeout for the API and a live conductor when it is set)
// and negotiates the API microversion.
func Connect(ctx context.Context, cfg Config) (*Conn, error) {
	auth, err := cfg.authStrategy()
	if err != nil {
		return nil, err
	}
	if cfg.Microversion != "" {
		if _, _, err := utils.ParseMicroversion(cfg.Microversion); err != nil {
			return nil, cfgErr("invalid microversion %q: want the form 1.NN", cfg.Microversion)
		}
	}
	root := ""
	if cfg.Endpoint != "" || auth != AuthKeystone {
		ep := cfg.Endpoint
		if ep == "" {
			ep = DefaultEndpoint
		}
		if root, err = normalizeEndpoint(ep); err != nil {
			return nil, err
		}
	}
	if cfg.Insecure {
		tflog.Warn(ctx, "TLS certificate verification of the Ironic API is disabled (insecure = true)")
	}

	// build creates the service client. For keystone it authenticates, so
	// it runs inside the API wait when there is one.
	var build func(ctx context.Context) (*gophercloud.ServiceClient, error)
	switch auth {
	case AuthNoAuth, AuthHTTPBasic:
		hc, err := NewHTTPClient(cfg)
		if err != nil {
			return nil, err
		}
		var sc *gophercloud.ServiceClient
		if auth == AuthNoAuth {
			sc, err = noauth.NewBareMetalNoAuth(noauth.EndpointOpts{IronicEndpoint: root + "v1/"})
		} else {
			if cfg.Username == "" || cfg.Password == "" {
				return nil, cfgErr("http_basic auth needs a username and a password")
			}
			sc, err = httpbasic.NewBareMetalHTTPBasic(httpbasic.EndpointOpts{
				IronicEndpoint: root + "v1/", IronicUser: cfg.Username, IronicUserPassword: cfg.Password,
			})
		}
		if err != nil {
			return nil, err
		}
		sc.HTTPClient = *hc
		if cfg.UserAgent != "" {
			sc.UserAgent.Prepend(cfg.UserAgent)
		}
		build = func(context.Context) (*gophercloud.ServiceClient, error) { return sc, nil }
	case AuthKeystone:
		build, err = keystoneBuilder(ctx, cfg, root)
		if err != nil {
			return nil, err
		}
	}

	displayRoot := redact(root)
	if displayRoot == "" {
		displayRoot = "the endpoint from the service catalog"
	}

	var sc *gophercloud.ServiceClient
	var serverMin, serverMax string
	attempt := func(ctx context.Context, wantConductor bool) error {
		if sc == nil {
			c, err := build(ctx)
			if err != nil {
				return &authError{err}
			}
			sc = c
			displayRoot = redact(apiRoot(sc))
		}
		mn, mx, err := probeVersions(ctx, sc)
		if err != nil {
			return err
		}
		serverMin, serverMax = mn, mx
		if wantConductor {
			return checkConductor(ctx, sc, mx)
		}
		return nil
	}

	if cfg.APIWaitTimeout > 0 {
		if err := waitForIronic(ctx, cfg, func() string { return displayRoot }, attempt); err != nil {
			return nil, err
		}
	} else if err := attempt(withRetryMode(ctx, retryNoConnErrors), false); err != nil {
		return nil, explainConnectError(displayRoot, err)
	}

	chosen, err := NegotiateMicroversion(serverMin, serverMax, cfg.Microversion)
	if err != nil {
		//nolint:staticcheck // ST1005: starts with a proper noun
		return nil, fmt.Errorf("Ironic at %s: %w", displayRoot, err)
	}
	_, minor, _ := utils.ParseMicroversion(chosen)
	sc.Microversion = chosen
	tflog.Debug(ctx, "connected to Ironic", map[string]any{
		"endpoint":         displayRoot,
		"auth":             auth,
		"microversion":     chosen,
		"max_microversion": serverMax,
	})
	return &Conn{
		Client:                sc,
		Endpoint:              displayRoot,
		Auth:                  auth,
		Microversion:          chosen,
		MaxMicroversion:       serverMax,
		ServerMinMicroversion: serverMin,
		minor:                 minor,
		writes:                writeCounter(sc),
	}, nil
}

// writeCounter is the write count of the transport newHTTPClientTLS built
// under sc, nil for any other transport.
func writeCounter(sc *gophercloud.ServiceClient) *atomic.Int64 {
	if t, ok := sc.HTTPClient.Transport.(*retryTransport); ok {
		return &t.writes
	}
	return nil
}

// apiRoot is the unversioned API root of a service client.
func apiRoot(sc *gophercloud.ServiceClient) string {
	r, err := normalizeEndpoint(sc.ResourceBaseURL())
	if err != nil {
		return sc.ResourceBaseURL()
	}
	return r
}

// keystoneBuilder takes the keystone settings (clouds.yaml when cfg.Cloud
// is set, overridden by the explicit fields that are set; else the explicit
// fields) and returns a function that authenticates with
// config.NewProviderClient and finds Ironic in the catalog (or at root when
// set). Tokens are renewed when Ironic refuses an expired one.
func keystoneBuilder(ctx context.Context, cfg Config, root string) (func(context.Context) (*gophercloud.ServiceClient, error), error) {
	var ao gophercloud.AuthOptions
	region, iface := cfg.Region, cfg.Interface
	var cloudTLS *tls.Config

	if cfg.Cloud != "" {
		var eo gophercloud.EndpointOpts
		var err error
		if ao, eo, cloudTLS, err = cloudAuthOptions(cfg); err != nil {
			return nil, err
		}
		if region == "" {
			region = eo.Region
		}
		if iface == "" && eo.Availability != gophercloud.AvailabilityPublic {
			// gophercloud's parser reports an unset interface as public,
			// so only internal and admin are taken from clouds.yaml;
			// public is the default, tried before internal.
			iface = string(eo.Availability)
		}
		if cloudTLS != nil && cloudTLS.InsecureSkipVerify && !cfg.Insecure {
			tflog.Warn(ctx, "TLS certificate verification of keystone and the Ironic API is disabled (verify: false in clouds.yaml)",
				map[string]any{"cloud": cfg.Cloud})
		}
	} else {
		var err error
		if ao, err = explicitAuthOptions(cfg); err != nil {
			return nil, err
		}
	}
	ifaces, err := catalogInterfaces(iface)
	if err != nil {
		return nil, err
	}
	// Long applies outlive tokens: let gophercloud authenticate again.
	ao.AllowReauth = ao.Password != "" || ao.ApplicationCredentialSecret != ""

	tlsConf, err := buildTLSConfig(cfg)
	if err != nil {
		return nil, err
	}
	mergeCloudTLS(tlsConf, cloudTLS)
	hc := newHTTPClientTLS(cfg, tlsConf)

	return func(ctx context.Context) (*gophercloud.ServiceClient, error) {
		pc, err := config.NewProviderClient(ctx, ao, config.WithHTTPClient(*hc))
		if err != nil {
			return nil, fmt.Errorf("keystone authentication at %s failed: %w", redact(ao.IdentityEndpoint), err)
		}
		if cfg.UserAgent != "" {
			pc.UserAgent.Prepend(cfg.UserAgent)
		}
		ep := root
		if ep == "" {
			// Look Ironic up in the catalog. Unlike openstack.NewBareMetalV1
			// this skips gophercloud's version discovery, which runs
			// without our context (no cancellation, no logging); the probe
			// of Connect reads the versions instead.
			u, found, err := catalogEndpoint(pc, region, ifaces)
			if err != nil {
				return nil, err
			}
			if ep, err = normalizeEndpoint(u); err != nil {
				return nil, fmt.Errorf("the keystone catalog's Ironic endpoint: %w", err)
			}
			tflog.Info(ctx, "Ironic endpoint from the keystone catalog", map[string]any{
				"endpoint": redact(ep), "region": found.Region, "interface": found.Interface,
			})
		}
		return &gophercloud.ServiceClient{ProviderClient: pc, Endpoint: ep, ResourceBase: ep + "v1/", Type: "baremetal"}, nil
	}, nil
}

// explicitAuthOptions builds the keystone credentials from the fields of
// cfg: an application credential, or a user (by name in a domain, by name
// or id) and password scoped to a project (by id, or by name in a domain
// that defaults to the user's).
func explicitAuthOptions(cfg Config) (gophercloud.AuthOptions, error) {
	if cfg.AuthURL == "" {
		return gophercloud.AuthOptions{}, cfgErr("keystone auth needs an auth_url (OS_AUTH_URL), or a cloud of clouds.yaml (OS_CLOUD)")
	}
	ao := gophercloud.AuthOptions{IdentityEndpoint: cfg.AuthURL}
	if cfg.ApplicationCredentialID != "" || cfg.ApplicationCredentialSecret != "" {
		if cfg.ApplicationCredentialID == "" || cfg.ApplicationCredentialSecret == "" {
			return ao, cfgErr("keystone application credentials need both application_credential_id and application_credential_secret (OS_APPLICATION_CREDENTIAL_ID, OS_APPLICATION_CREDENTIAL_SECRET)")
		}
		ao.ApplicationCredentialID, ao.ApplicationCredentialSecret = cfg.ApplicationCredentialID, cfg.ApplicationCredentialSecret
		return ao, nil
	}
	if cfg.Username == "" || cfg.Password == "" {
		return ao, cfgErr("keystone auth needs a username and a password (OS_USERNAME, OS_PASSWORD), or an application credential")
	}
	ao.Username, ao.Password = cfg.Username, cfg.Password
	ao.DomainName, ao.DomainID = cfg.UserDomainName, cfg.UserDomainID
	if ao.DomainID != "" {
		ao.DomainName = ""
	}
	if ao.DomainName == "" && ao.DomainID == "" {
		// Keystone needs a domain to find a user by name.
		ao.DomainID = "default"
	}
	applyProjectScope(&ao, cfg)
	return ao, nil
}

// applyProjectScope scopes ao to the project of cfg when one is set. The
// project domain defaults to the one clouds.yaml names, else to the user's.
func applyProjectScope(ao *gophercloud.AuthOptions, cfg Config) {
	switch {
	case cfg.ProjectID != "":
		ao.Scope = &gophercloud.AuthScope{ProjectID: cfg.ProjectID}
		ao.TenantID, ao.TenantName = cfg.ProjectID, ""
	case cfg.ProjectName != "":
		sc := &gophercloud.AuthScope{ProjectName: cfg.ProjectName}
		switch {
		case cfg.ProjectDomainID != "":
			sc.DomainID = cfg.ProjectDomainID
		case cfg.ProjectDomainName != "":
			sc.DomainName = cfg.ProjectDomainName
		case ao.Scope != nil && ao.Scope.ProjectName != "" && (ao.Scope.DomainName != "" || ao.Scope.DomainID != ""):
			// Keep the project domain clouds.yaml names.
			sc.DomainName, sc.DomainID = ao.Scope.DomainName, ao.Scope.DomainID
		default:
			sc.DomainName, sc.DomainID = ao.DomainName, ao.DomainID
		}
		ao.Scope = sc
		ao.TenantID, ao.TenantName = "", cfg.ProjectName
	case ao.Scope != nil && ao.Scope.ProjectName != "" && cfg.ProjectDomainID != "":
		ao.Scope.DomainName, ao.Scope.DomainID = "", cfg.ProjectDomainID
	case ao.Scope != nil && ao.Scope.ProjectName != "" && cfg.ProjectDomainName != "":
		ao.Scope.DomainName, ao.Scope.DomainID = cfg.ProjectDomainName, ""
	}
}

// cloudAuthOptions reads the cloud cfg.Cloud of clouds.yaml (cfg.CloudsFile,
// else the standard places) with gophercloud's parser and lays the explicit
// fields of cfg that are set over it.
func cloudAuthOptions(cfg Config) (gophercloud.AuthOptions, gophercloud.EndpointOpts, *tls.Config, error) {
	opts := []clouds.ParseOption{clouds.WithCloudName(cfg.Cloud)}
	where := "clouds.yaml"
	if cfg.CloudsFile != "" {
		opts = append(opts, clouds.WithLocations(cfg.CloudsFile))
		where = cfg.CloudsFile
	}
	if cfg.AuthURL != "" {
		opts = append(opts, clouds.WithIdentityEndpoint(cfg.AuthURL))
	}
	if cfg.Username != "" {
		opts = append(opts, clouds.WithUsername(cfg.Username))
	}
	if cfg.Password != "" {
		opts = append(opts, clouds.WithPassword(cfg.Password))
	}
	if cfg.Region != "" {
		opts = append(opts, clouds.WithRegion(cfg.Region))
	}
	if cfg.ApplicationCredentialID != "" {
		opts = append(opts, clouds.WithApplicationCredentialID(cfg.ApplicationCredentialID))
	}
	if cfg.ApplicationCredentialSecret != "" {
		opts = append(opts, clouds.WithApplicationCredentialSecret(cfg.ApplicationCredentialSecret))
	}
	// Certificate files set in cfg replace those of clouds.yaml, which are
	// then not read (PEM contents replace them after parsing).
	if cfg.CACertFile != "" {
		opts = append(opts, clouds.WithCACertPath(cfg.CACertFile))
	}
	if cfg.ClientCertFile != "" && cfg.ClientKeyFile != "" {
		opts = append(opts, clouds.WithClientCertPath(cfg.ClientCertFile), clouds.WithClientKeyPath(cfg.ClientKeyFile))
	}

	ao, eo, tc, err := clouds.Parse(opts...)
	if err != nil {
		msg := err.Error()
		if !strings.Contains(msg, strconv.Quote(cfg.Cloud)) {
			msg = fmt.Sprintf("cloud %q: %s", cfg.Cloud, msg)
		}
		if cfg.CloudsFile != "" && !strings.Contains(msg, cfg.CloudsFile) {
			msg += " (clouds file " + cfg.CloudsFile + ")"
		}
		return ao, eo, nil, cfgErr("%s", msg)
	}

	if cfg.Username != "" {
		// The explicit user replaces the clouds.yaml one.
		ao.UserID = ""
	}
	switch {
	case cfg.UserDomainID != "":
		ao.DomainName, ao.DomainID = "", cfg.UserDomainID
	case cfg.UserDomainName != "":
		ao.DomainName, ao.DomainID = cfg.UserDomainName, ""
	}
	if ao.ApplicationCredentialID != "" || ao.ApplicationCredentialName != "" {
		// An application credential carries its project: no scope.
		ao.Scope, ao.TenantID, ao.TenantName = nil, "", ""
		if ao.ApplicationCredentialID != "" {
			ao.Username, ao.UserID, ao.Password = "", "", ""
		}
	} else {
		applyProjectScope(&ao, cfg)
	}
	if sc := ao.Scope; sc != nil && sc.ProjectName != "" && sc.DomainName == "" && sc.DomainID == "" {
		// No project domain anywhere: the user's, as with the explicit
		// fields.
		sc.DomainName, sc.DomainID = ao.DomainName, ao.DomainID
	}

	if ao.IdentityEndpoint == "" {
		return ao, eo, nil, cfgErr("cloud %q of %s has no auth_url (set auth.auth_url there, or auth_url in the provider)", cfg.Cloud, where)
	}
	if ao.Password == "" && ao.ApplicationCredentialSecret == "" && ao.TokenID == "" {
		return ao, eo, nil, cfgErr("cloud %q of %s has no credentials: set a password (in clouds.yaml, secure.yaml or the provider) or an application credential", cfg.Cloud, where)
	}
	return ao, eo, tc, nil
}

// mergeCloudTLS completes tc (from Config, which wins) with the TLS settings
// of clouds.yaml: its CA and client certificate when Config sets none, and
// skipped verification when clouds.yaml says verify: false.
func mergeCloudTLS(tc, cloud *tls.Config) {
	if cloud == nil {
		return
	}
	if tc.RootCAs == nil {
		tc.RootCAs = cloud.RootCAs
	}
	if len(tc.Certificates) == 0 {
		tc.Certificates = cloud.Certificates
	}
	tc.InsecureSkipVerify = tc.InsecureSkipVerify || cloud.InsecureSkipVerify
}

// catalogInterfaces is the list of catalog interfaces to try for Ironic:
// the configured one, else public then internal.
func catalogInterfaces(iface string) ([]string, error) {
	switch i := strings.TrimSuffix(strings.ToLower(strings.TrimSpace(iface)), "url"); i {
	case "":
		return []string{"public", "internal"}, nil
	case "public", "internal", "admin":
		return []string{i}, nil
	}
	return nil, cfgErr("invalid keystone interface %q: want public, internal or admin", iface)
}

// catalogEndpoint finds Ironic (service type baremetal) in the catalog of
// the token: the first endpoint of the first interface in ifaces that has
// one in region (any region when empty). When there is none, the error
// names the region and interfaces looked for and lists what the catalog
// has.
func catalogEndpoint(pc *gophercloud.ProviderClient, region string, ifaces []string) (string, tokens.Endpoint, error) {
	res, ok := pc.GetAuthResult().(interface {
		ExtractServiceCatalog() (*tokens.ServiceCatalog, error)
	})
	if !ok {
		return "", tokens.Endpoint{}, errors.New("the keystone token carries no service catalog (Identity API v3 needed)")
	}
	catalog, err := res.ExtractServiceCatalog()
	if err != nil {
		return "", tokens.Endpoint{}, fmt.Errorf("reading the keystone catalog: %w", err)
	}
	var have []string
	for _, iface := range ifaces {
		for _, entry := range catalog.Entries {
			if entry.Type != "baremetal" {
				continue
			}
			for _, ep := range entry.Endpoints {
				if iface == ifaces[0] {
					have = append(have, fmt.Sprintf("%s %s", cmp.Or(ep.RegionID, ep.Region, "(no region)"), ep.Interface))
				}
				if ep.Interface == iface && (region == "" || ep.Region == region || ep.RegionID == region) {
					return ep.URL, ep, nil
				}
			}
		}
	}
	where := "any region"
	if region != "" {
		where = fmt.Sprintf("region %q", region)
	}
	msg := fmt.Sprintf("the keystone catalog has no Ironic (service type baremetal) endpoint in %s with interface %s", where, strings.Join(ifaces, " or "))
	if len(have) == 0 {
		msg += "; it lists no baremetal service at all"
	} else {
		msg += "; its baremetal endpoints are: " + strings.Join(have, ", ") + " (set keystone region and interface, or endpoint)"
	}
	return "", tokens.Endpoint{}, errors.New(msg)
}

// rootDocument is GET /v1/.
type rootDocument struct {
	Version *struct {
		ID         string `json:"id"`
		Version    string `json:"version"`
		MinVersion string `json:"min_version"`
	} `json:"version"`
}

// probeVersions reads the server's microversion range from GET /v1/ (the
// document's version object, else Ironic's version headers).
func probeVersions(ctx context.Context, sc *gophercloud.ServiceClient) (string, string, error) {
	var doc rootDocument
	probe := *sc
	probe.Microversion = ""
	resp, err := probe.Get(ctx, probe.ResourceBaseURL(), &doc, &gophercloud.RequestOpts{OkCodes: []int{http.StatusOK}})
	if err != nil {
		return "", "", err
	}
	var mn, mx string
	if doc.Version != nil {
		mn, mx = doc.Version.MinVersion, doc.Version.Version
	}
	if mx == "" && resp != nil {
		mn, mx = resp.Header.Get(headerMinVersion), resp.Header.Get(headerMaxVersion)
	}
	if mx == "" {
		return "", "", errors.New("the API root did not report its microversions: is this an Ironic API?")
	}
	return mn, mx, nil
}

var errNoConductor = errors.New("the Ironic API answers but no conductor is alive yet")

// checkConductor succeeds when a conductor is alive: GET /v1/conductors
// (1.49+), else GET /v1/drivers is not empty.
func checkConductor(ctx context.Context, sc *gophercloud.ServiceClient, serverMax string) error {
	c := *sc
	if CompareMicroversions(serverMax, "1."+strconv.Itoa(MicroversionConductors)) >= 0 {
		c.Microversion = "1." + strconv.Itoa(MicroversionConductors)
		var out struct {
			Conductors []struct {
				Hostname string `json:"hostname"`
				Alive    bool   `json:"alive"`
			} `json:"conductors"`
		}
		if _, err := c.Get(ctx, c.ServiceURL("conductors"), &out, &gophercloud.RequestOpts{OkCodes: []int{http.StatusOK}}); err != nil {
			return err
		}
		for _, cd := range out.Conductors {
			if cd.Alive {
				return nil
			}
		}
		return fmt.Errorf("%w (%d registered)", errNoConductor, len(out.Conductors))
	}
	c.Microversion = ""
	var out struct {
		Drivers []struct {
			Name string `json:"name"`
		} `json:"drivers"`
	}
	if _, err := c.Get(ctx, c.ServiceURL("drivers"), &out, &gophercloud.RequestOpts{OkCodes: []int{http.StatusOK}}); err != nil {
		return err
	}
	if len(out.Drivers) == 0 {
		return fmt.Errorf("%w (no drivers registered)", errNoConductor)
	}
	return nil
}

// permanentError tells the API wait which failures will not heal by
// waiting: configuration, credentials, TLS verification.
func permanentError(err error) bool {
	var ce *configError
	if errors.As(err, &ce) {
		return true
	}
	if tlsverify.Failed(err) {
		return true
	}
	for _, code := range []int{http.StatusBadRequest, http.StatusUnauthorized, http.StatusForbidden, http.StatusNotAcceptable} {
		if gophercloud.ResponseCodeIs(err, code) {
			return true
		}
	}
	return false
}

// authError is a failure to build the client (keystone authentication
// or catalog lookup); its message names what failed.
type authError struct{ err error }

func (e *authError) Error() string { return e.err.Error() }
func (e *authError) Unwrap() error { return e.err }

func explainConnectError(root string, err error) error {
	var ce *configError
	if errors.As(err, &ce) {
		return err
	}
	var ae *authError
	if errors.As(err, &ae) {
		if tlsverify.Failed(err) {
			return fmt.Errorf("%w (TLS verification failed: set the CA certificate, or insecure = true to skip verification)", ae.err)
		}
		return ae.err
	}
	if tlsverify.Failed(err) {
		return fmt.Errorf("could not reach Ironic at %s: TLS verification failed (set the CA certificate of the endpoint, or insecure = true to skip verification): %w", root, err)
	}
	return fmt.Errorf("could not reach Ironic at %s: %w", root, err)
}

// waitForIronic polls attempt until it succeeds, fails permanently, the
// wait times out or ctx ends. Progress is logged through tflog.
func waitForIronic(ctx context.Context, cfg Config, root func() string, attempt func(context.Context, bool) error) error {
	start := time.Now()
	wctx, cancel := context.WithTimeout(ctx, cfg.APIWaitTimeout)
	defer cancel()
	_, delay, maxB, _ := cfg.transportSettings()
	if maxB > maxWaitPoll {
		maxB = maxWaitPoll
	}
	if delay > maxB {
		delay = maxB
	}
	var lastErr error
	for n := 1; ; n++ {
		err := attempt(withRetryMode(wctx, retryNone), true)
		if err == nil {
			if n > 1 {
				tflog.Info(ctx, "Ironic API and conductor are ready", map[string]any{
					"endpoint": root(), "waited": time.Since(start).Round(time.Millisecond).String(), "polls": n,
				})
			}
			return nil
		}
		if ctx.Err() != nil {
			return fmt.Errorf("waiting for Ironic at %s: %w", root(), ctx.Err())
		}
		if wctx.Err() == nil || lastErr == nil || !errors.Is(err, context.DeadlineExceeded) {
			lastErr = err
		}
		if permanentError(err) {
			return explainConnectError(root(), err)
		}
		if wctx.Err() != nil {
			break
		}
		tflog.Info(ctx, "waiting for the Ironic API and a live conductor", map[string]any{
			"endpoint":   root(),
			"waited":     time.Since(start).Round(time.Millisecond).String(),
			"timeout":    cfg.APIWaitTimeout.String(),
			"poll":       n,
			"last_error": err.Error(),
		})
		pause := delay/2 + time.Duration(rand.Int64N(int64(delay/2)+1))
		t := time.NewTimer(pause)
		select {
		case <-wctx.Done():
			t.Stop()
		case <-t.C:
		}
		if ctx.Err() != nil {
			return fmt.Errorf("waiting for Ironic at %s: %w", root(), ctx.Err())
		}
		if wctx.Err() != nil {
			break
		}
		delay = min(delay*2, maxB)
	}
	return fmt.Errorf("could not reach Ironic at %s: not ready after waiting %s (api_wait_timeout): %w",
		root(), cfg.APIWaitTimeout, lastErr)
}
