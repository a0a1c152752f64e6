package bmc

import (
	"context"
	"crypto/tls"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/hashicorp/go-retryablehttp"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/tlsverify"
)

// This file is the HTTP client under the Redfish connection: its own TLS
// settings, a bound on every attempt, and retries of connection errors,
// 429 and 5xx with jittered backoff that honours Retry-After.

// newRedfishHTTPClient builds a client whose own *http.Transport carries the
// TLS settings (gofish would ignore Insecure for a wrapped transport) and
// retries around it.
func newRedfishHTTPClient(cfg RedfishConfig) *http.Client {
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = defaultRedfishTimeout
	}
	retries := cfg.MaxRetries
	switch {
	case retries == 0:
		retries = defaultRedfishRetries
	case retries < 0:
		retries = 0
	}
	waitMax := cfg.RetryWaitMax
	if waitMax <= 0 {
		waitMax = 5 * time.Second
	}
	transport := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: min(timeout, 10*time.Second), KeepAlive: 30 * time.Second}).DialContext,
		TLSClientConfig:       &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: cfg.Insecure, RootCAs: cfg.RootCAs}, //nolint:gosec // user's choice
		TLSHandshakeTimeout:   min(timeout, 10*time.Second),
		ResponseHeaderTimeout: timeout,
		MaxIdleConns:          4,
		IdleConnTimeout:       30 * time.Second,
		ForceAttemptHTTP2:     true,
	}
	rc := &retryablehttp.Client{
		HTTPClient:   &http.Client{Transport: transport, Timeout: timeout},
		RetryWaitMin: min(200*time.Millisecond, waitMax),
		RetryWaitMax: waitMax,
		RetryMax:     retries,
		CheckRetry:   redfishRetryPolicy,
		Backoff:      redfishBackoff,
		// Hand the last answer to gofish, which turns it into an error
		// carrying the BMC's status and message.
		ErrorHandler: func(resp *http.Response, err error, _ int) (*http.Response, error) {
			if resp != nil {
				return resp, nil
			}
			return nil, err
		},
	}
	return &http.Client{Transport: &retryablehttp.RoundTripper{Client: rc}}
}

// redfishRetryPolicy retries connection errors (not TLS verification
// failures), 429 and 5xx except 501, while ctx lasts.
func redfishRetryPolicy(ctx context.Context, resp *http.Response, err error) (bool, error) {
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	if err != nil {
		return !tlsverify.Failed(err), nil
	}
	code := resp.StatusCode
	return code == http.StatusTooManyRequests || (code >= 500 && code != http.StatusNotImplemented), nil
}

// redfishBackoff is capped exponential backoff with full jitter, honouring
// Retry-After (capped too) on 429 and 503.
func redfishBackoff(minWait, maxWait time.Duration, attempt int, resp *http.Response) time.Duration {
	if resp != nil && (resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable) {
		if secs, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && secs >= 0 {
			return min(time.Duration(secs)*time.Second, maxWait)
		}
	}
	ceiling := minWait << min(attempt, 20)
	if ceiling <= 0 || ceiling > maxWait {
		ceiling = maxWait
	}
	return minWait/2 + rand.N(ceiling-minWait/2+1)
}
