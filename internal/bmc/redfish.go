package bmc

import (
	"context"
	"crypto/x509"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/stmcginnis/gofish"
	"github.com/stmcginnis/gofish/schemas"
)

// This file is the Redfish client: how to reach one BMC (RedfishConfig),
// the connection and its session (opened by ConnectRedfish, logged out by
// Close), the credentials check, and the BMC's base URL.

// RedfishConfig says how to reach one BMC's Redfish service.
type RedfishConfig struct {
	// Endpoint is the BMC's base URL, e.g. https://10.0.0.5 or
	// https://bmc:8443; a path after the host is ignored.
	Endpoint string
	Username string
	Password string
	// Insecure skips TLS certificate verification.
	Insecure bool
	// RootCAs, if set, are trusted instead of the system roots.
	RootCAs *x509.CertPool
	// UseSession logs in with a Redfish session (always logged out again)
	// instead of sending basic credentials with every request.
	UseSession bool
	// Timeout bounds every HTTP attempt; default 30s.
	Timeout time.Duration
	// MaxRetries is how often a request is retried after a connection error,
	// a 5xx (except 501) or a 429; default 3, negative for none.
	MaxRetries int
	// RetryWaitMax caps the jittered backoff between retries; default 5s.
	RetryWaitMax time.Duration
	// HTTPClient, if set, is used as it is: TLS settings and retries are then
	// the caller's.
	HTTPClient *http.Client
}

// RedfishClient is a connection to one BMC; Close it to log out. It is
// not safe for concurrent use.
type RedfishClient struct {
	cfg      RedfishConfig
	endpoint string
	api      *gofish.APIClient
	// The BMC's Registries collection and the messages of its message
	// registries by lower-case prefix, read when first needed.
	registries *[]*schemas.MessageRegistryFile
	messages   map[string]map[string]string
}

const (
	defaultRedfishTimeout = 30 * time.Second
	defaultRedfishRetries = 3
)

// ConnectRedfish opens a connection to the BMC (and a session if
// cfg.UseSession). The caller must Close it.
func ConnectRedfish(ctx context.Context, cfg RedfishConfig) (*RedfishClient, error) {
	endpoint, err := redfishBaseURL(cfg.Endpoint)
	if err != nil {
		return nil, &RedfishError{Endpoint: redactEndpoint(cfg.Endpoint), Op: "connect", Kind: ErrBMC, Detail: err.Error()}
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = newRedfishHTTPClient(cfg)
	}
	api, err := gofish.ConnectContext(ctx, gofish.ClientConfig{
		Endpoint:          endpoint,
		Username:          cfg.Username,
		Password:          cfg.Password,
		Insecure:          cfg.Insecure,
		HTTPClient:        hc,
		BasicAuth:         !cfg.UseSession,
		NoModifyTransport: true,
	})
	c := &RedfishClient{cfg: cfg, endpoint: endpoint}
	if err != nil {
		op := "connect"
		if cfg.UseSession {
			op = "connect and log in"
		}
		return nil, c.wrap(op, err)
	}
	c.api = api
	return c, nil
}

// Close logs out the session, if one was opened.
func (c *RedfishClient) Close() {
	if c == nil || c.api == nil {
		return
	}
	if c.cfg.UseSession {
		c.api.Logout()
	}
	c.api.HTTPClient.CloseIdleConnections()
}

// CheckCredentials checks that the BMC answers and accepts the credentials
// by reading the system (systemID may be empty when the BMC has one system).
func CheckCredentials(ctx context.Context, cfg RedfishConfig, systemID string) error {
	c, err := ConnectRedfish(ctx, cfg)
	if err != nil {
		return err
	}
	defer c.Close()
	_, err = c.system(systemID)
	return err
}

// redfishBaseURL reduces an endpoint to scheme://host[:port].
func redfishBaseURL(endpoint string) (string, error) {
	u, err := url.Parse(strings.TrimPrefix(strings.TrimPrefix(endpoint, "redfish+"), "idrac-"))
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("endpoint must be an http(s) URL with a host")
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Errorf("endpoint scheme must be http or https, not %q", u.Scheme)
	}
	return u.Scheme + "://" + u.Host, nil
}

func redactEndpoint(endpoint string) string {
	if u, err := url.Parse(endpoint); err == nil && u.User != nil {
		u.User = nil
		return u.String()
	}
	return endpoint
}
