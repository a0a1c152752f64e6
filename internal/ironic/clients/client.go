package clients

import (
	"fmt"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gophercloud/gophercloud/v2"
)

// This file is the connection's core: Config (how to reach Ironic), Conn
// (a connection and what it negotiated), the configuration errors that are
// never retried, and the checks of the endpoint and the auth strategy that
// Connect starts from.

// DefaultEndpoint is the Ironic API used when Config.Endpoint is empty (and
// auth is not keystone, where the service catalog names it).
const DefaultEndpoint = "http://127.0.0.1:6385"

// Authentication strategies (Config.Auth).
const (
	AuthNoAuth    = "noauth"
	AuthHTTPBasic = "http_basic"
	AuthKeystone  = "keystone"
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

// writeCounter is the write count of the transport newHTTPClientTLS built
// under sc, nil for any other transport.
func writeCounter(sc *gophercloud.ServiceClient) *atomic.Int64 {
	if t, ok := sc.HTTPClient.Transport.(*retryTransport); ok {
		return &t.writes
	}
	return nil
}
