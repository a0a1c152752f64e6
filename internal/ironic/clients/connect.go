package clients

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/httpbasic"
	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/noauth"
	"github.com/gophercloud/gophercloud/v2/openstack/utils"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/tlsverify"
)

// This file is Connect: it builds the service client for the auth
// strategy, reads the server's microversion range from the API root and,
// with APIWaitTimeout, waits for the API and a live conductor, telling the
// failures that waiting heals from those it does not.

const (
	headerMinVersion = "X-OpenStack-Ironic-API-Minimum-Version"
	headerMaxVersion = "X-OpenStack-Ironic-API-Maximum-Version"

	// maxWaitPoll bounds the pause between two polls of the API wait.
	maxWaitPoll = 10 * time.Second
)

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
		writes:                writeCounter(sc),
	}, nil
}

// apiRoot is the unversioned API root of a service client.
func apiRoot(sc *gophercloud.ServiceClient) string {
	r, err := normalizeEndpoint(sc.ResourceBaseURL())
	if err != nil {
		return sc.ResourceBaseURL()
	}
	return r
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
	if lifecycle.FeatureConductors.In(serverMax) {
		c.Microversion = lifecycle.FeatureConductors.Microversion()
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
