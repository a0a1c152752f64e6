package clients

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-retryablehttp"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/tlsverify"
)

// This file is the HTTP transport every request to Ironic goes through:
// which failures are retried (connection errors, 5xx, 429, Ironic's
// NodeLocked) and after what backoff, the bound on one attempt, the count
// of writes in flight, and the request log.

// Defaults of the retrying transport.
const (
	DefaultMaxRetries     = 10
	DefaultMinBackoff     = 1 * time.Second
	DefaultMaxBackoff     = 30 * time.Second
	DefaultRequestTimeout = 2 * time.Minute

	// maxRetryAfter bounds how long a server's Retry-After header can make
	// us wait before one retry. The caller's context bounds it further.
	maxRetryAfter = 5 * time.Minute

	// maxErrorBodyPeek is how much of a 409 body is read to find out
	// whether it is Ironic's NodeLocked.
	maxErrorBodyPeek = 64 << 10

	// idleConnTimeout closes a connection idle this long (see
	// newHTTPClientTLS); longer than the watcher's slowest poll.
	idleConnTimeout = 30 * time.Second
)

// retryMode tells the transport how much it may retry one request. It
// travels in the request's context.
type retryMode int

const (
	// retryAll is the normal policy (CheckRetry).
	retryAll retryMode = iota
	// retryNoConnErrors fails at once on connection errors (used by the
	// first probe of Connect without api_wait_timeout, so an unreachable
	// Ironic is a clear error at once) but still retries 5xx/429/409 locked.
	retryNoConnErrors
	// retryNone never retries (used by the api wait loop, which does its
	// own polling).
	retryNone
)

type retryModeKey struct{}

func withRetryMode(ctx context.Context, m retryMode) context.Context {
	return context.WithValue(ctx, retryModeKey{}, m)
}

func retryModeFrom(ctx context.Context) retryMode {
	if m, ok := ctx.Value(retryModeKey{}).(retryMode); ok {
		return m
	}
	return retryAll
}

// attemptState follows one logical request through its attempts. The
// attempts of one request are sequential, so it needs no lock.
type attemptState struct {
	method      string
	path        string
	attempt     int
	maxAttempts int
}

type attemptStateKey struct{}

func attemptStateFrom(ctx context.Context) *attemptState {
	st, _ := ctx.Value(attemptStateKey{}).(*attemptState)
	return st
}

// CheckRetry is the retry policy for Ironic requests. It retries:
//   - connection errors (but not TLS verification failures, bad schemes,
//     too many redirects or invalid headers, which do not heal by retrying);
//   - 5xx responses except 501 Not Implemented;
//   - 429 Too Many Requests;
//   - 409 Conflict when Ironic says the node is locked (NodeLocked: a
//     conductor holds the node's lock, for example while it polls the BMC).
//
// Every other response, including other 409s ("already exists", wrong
// state), is final. A cancelled or expired context is never retried. A 409
// body that is read to tell NodeLocked apart is put back, so the caller
// still sees Ironic's error message.
func CheckRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	if err != nil {
		if tlsverify.Failed(err) {
			return false, err
		}
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			// A per-attempt timeout (http.Client.Timeout) is a deadline
			// error too; only the caller's context is final, and that was
			// checked above.
			var ue *url.Error
			if !(errors.As(err, &ue) && ue.Timeout()) {
				return false, err
			}
		}
		// retryablehttp's base policy knows the unrecoverable transport
		// errors (certificates, schemes, redirects, headers).
		return retryablehttp.ErrorPropagatedRetryPolicy(ctx, resp, err)
	}
	if resp == nil {
		return false, nil
	}
	switch {
	case resp.StatusCode == http.StatusTooManyRequests:
		return true, nil
	case resp.StatusCode == http.StatusNotImplemented:
		return false, nil
	case resp.StatusCode >= 500 || resp.StatusCode == 0:
		return true, fmt.Errorf("unexpected HTTP status %s", resp.Status)
	case resp.StatusCode == http.StatusConflict:
		if isNodeLockedResponse(resp) {
			return true, nil
		}
		return false, nil
	}
	return false, nil
}

// isNodeLockedResponse reads (at most maxErrorBodyPeek of) the body and
// puts it back in place.
func isNodeLockedResponse(resp *http.Response) bool {
	if resp.Body == nil {
		return false
	}
	peek, err := io.ReadAll(io.LimitReader(resp.Body, maxErrorBodyPeek))
	orig := resp.Body
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(peek), orig), orig}
	if err != nil {
		return false
	}
	return IsNodeLockedMessage(peek)
}

// IsNodeLockedMessage tells whether an Ironic error body (or message) says
// the node is locked. Ironic sends
// {"error_message": "{\"faultstring\": \"Node X is locked by host Y, please retry after the current operation is completed.\", ...}"}
// where error_message is a JSON document in a string; newer versions may
// send it as an object.
func IsNodeLockedMessage(body []byte) bool {
	for _, msg := range ironicErrorStrings(body, 0) {
		m := strings.ToLower(msg)
		if strings.Contains(m, "nodelocked") || strings.Contains(m, "node_locked") ||
			strings.Contains(m, " is locked") || strings.Contains(m, "locked by") {
			return true
		}
	}
	return false
}

// ironicErrorStrings extracts the human-facing strings of an Ironic error
// document; a body that is not JSON is returned as is.
func ironicErrorStrings(body []byte, depth int) []string {
	var doc any
	if err := json.Unmarshal(body, &doc); err != nil || depth > 3 {
		return []string{string(body)}
	}
	var out []string
	var walk func(v any, d int)
	walk = func(v any, d int) {
		if d > 4 {
			return
		}
		switch t := v.(type) {
		case string:
			if s := strings.TrimSpace(t); strings.HasPrefix(s, "{") {
				out = append(out, ironicErrorStrings([]byte(s), depth+1)...)
			} else {
				out = append(out, t)
			}
		case map[string]any:
			for _, k := range []string{"error_message", "faultstring", "faultcode", "message", "title", "detail", "code", "errors"} {
				if x, ok := t[k]; ok {
					walk(x, d+1)
				}
			}
		case []any:
			for _, x := range t {
				walk(x, d+1)
			}
		}
	}
	walk(doc, 0)
	return out
}

// RetryBackoff is the wait before retry number attemptNum+1: a server's
// Retry-After (seconds or HTTP date) when present, else a jittered
// exponential backoff from min doubling up to max.
func RetryBackoff(min, max time.Duration, attemptNum int, resp *http.Response) time.Duration {
	if resp != nil {
		if d, ok := parseRetryAfter(resp.Header.Get("Retry-After")); ok {
			if d > maxRetryAfter {
				d = maxRetryAfter
			}
			return d
		}
	}
	if min <= 0 {
		min = time.Millisecond
	}
	if max < min {
		max = min
	}
	d := min
	for i := 0; i < attemptNum && d < max; i++ {
		d *= 2
	}
	if d > max {
		d = max
	}
	// "Equal jitter": half fixed, half random, so waits never collapse to
	// zero yet concurrent clients spread out.
	half := d / 2
	return half + time.Duration(rand.Int64N(int64(d-half)+1))
}

func parseRetryAfter(h string) (time.Duration, bool) {
	h = strings.TrimSpace(h)
	if h == "" {
		return 0, false
	}
	if s, err := strconv.ParseInt(h, 10, 64); err == nil {
		if s < 0 {
			return 0, false
		}
		return time.Duration(s) * time.Second, true
	}
	if t, err := http.ParseTime(h); err == nil {
		d := time.Until(t)
		if d < 0 {
			d = 0
		}
		return d, true
	}
	return 0, false
}

// transportSettings returns the retry and timeout settings with defaults applied.
func (c Config) transportSettings() (maxRetries int, minB, maxB, reqTimeout time.Duration) {
	maxRetries = c.MaxRetries
	switch {
	case maxRetries == 0:
		maxRetries = DefaultMaxRetries
	case maxRetries < 0:
		maxRetries = 0
	}
	minB, maxB = c.MinBackoff, c.MaxBackoff
	if minB <= 0 {
		minB = DefaultMinBackoff
	}
	if maxB <= 0 {
		maxB = DefaultMaxBackoff
	}
	if maxB < minB {
		maxB = minB
	}
	reqTimeout = c.RequestTimeout
	if reqTimeout == 0 {
		reqTimeout = DefaultRequestTimeout
	}
	if reqTimeout < 0 {
		reqTimeout = 0
	}
	return
}

// NewHTTPClient returns the *http.Client every Ironic request goes through:
// TLS from cfg, retries per CheckRetry with capped jittered exponential
// backoff (honouring Retry-After and the request context), bounded
// attempts, request bodies re-sent on every attempt, and tflog logging of
// each attempt (TRACE) and of each retry (WARN). Logs carry method, URL
// path, attempt, status or error and duration: never headers, bodies,
// credentials or tokens.
//
// Redirects are not followed inside the retry loop; the returned client
// follows them (and gophercloud strips its token on cross-origin ones).
func NewHTTPClient(cfg Config) (*http.Client, error) {
	tlsConf, err := buildTLSConfig(cfg)
	if err != nil {
		return nil, err
	}
	return newHTTPClientTLS(cfg, tlsConf), nil
}

func newHTTPClientTLS(cfg Config, tlsConf *tls.Config) *http.Client {
	maxRetries, minB, maxB, reqTimeout := cfg.transportSettings()

	base := http.DefaultTransport.(*http.Transport).Clone() //nolint:forcetypeassert // the standard library's own type
	base.TLSClientConfig = tlsConf
	// One connection per request in flight, kept for the next ones, but
	// not for long: each open connection holds one of the Ironic API's
	// greenthreads (oslo.service's wsgi_default_pool_size, 100 by default),
	// idle or not, and at 100 the API stops accepting. Waits poll every few
	// seconds, so a live apply keeps its connections; Go's default of 90 s
	// let finished provider runs (the acceptance tests run hundreds in one
	// process) fill Ironic's pool.
	base.MaxIdleConnsPerHost = MaxInFlight
	base.IdleConnTimeout = idleConnTimeout

	inner := &http.Client{
		Transport: &loggingTransport{base: newLimitTransport(base, MaxInFlight)},
		Timeout:   reqTimeout,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
	rc := &retryablehttp.Client{
		HTTPClient:   inner,
		Logger:       nil, // we log through tflog, see loggingTransport and checkRetryAndLog
		RetryWaitMin: minB,
		RetryWaitMax: maxB,
		RetryMax:     maxRetries,
		CheckRetry:   checkRetryAndLog,
		Backoff:      RetryBackoff,
		ErrorHandler: retryErrorHandler,
	}
	return &http.Client{Transport: &retryTransport{client: rc, maxAttempts: maxRetries + 1}}
}

// retryTransport is an http.RoundTripper that runs every request through a
// retryablehttp.Client (which buffers the body so that it can be re-sent).
type retryTransport struct {
	client      *retryablehttp.Client
	maxAttempts int
	// writes counts the requests other than reads in flight, from the
	// first attempt to the last answer (see Conn.WritesInFlight).
	writes atomic.Int64
}

func (t *retryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	rreq, err := retryablehttp.FromRequest(req)
	if err != nil {
		return nil, err
	}
	st := &attemptState{method: req.Method, path: req.URL.Path, maxAttempts: t.maxAttempts}
	rreq = rreq.WithContext(context.WithValue(req.Context(), attemptStateKey{}, st))
	write := req.Method != http.MethodGet && req.Method != http.MethodHead
	if write {
		t.writes.Add(1)
	}
	resp, err := t.client.Do(rreq)
	if write {
		t.writes.Add(-1)
		// Anything but a read may have changed what this reconcile pass
		// read: forget it, here, for every write (also a failed one, which
		// may have half happened), instead of at each call site.
		lifecycle.Memo(req.Context()).Clear()
	}
	if err != nil {
		return resp, err
	}
	// Hand the caller a response tied to its own request, an error
	// naming Ironic's request id.
	resp.Request = req
	withRequestID(resp)
	return resp, nil
}

// checkRetryAndLog applies the retry mode of the request's context to
// CheckRetry and logs each retry decision.
func checkRetryAndLog(ctx context.Context, resp *http.Response, err error) (bool, error) {
	retry, cerr := CheckRetry(ctx, resp, err)
	if !retry {
		return retry, cerr
	}
	switch retryModeFrom(ctx) {
	case retryNone:
		return false, nil
	case retryNoConnErrors:
		if err != nil {
			return false, nil //nolint:nilerr // no retry; the caller gets err from the request itself
		}
	}
	if st := attemptStateFrom(ctx); st != nil && st.attempt < st.maxAttempts {
		fields := map[string]any{
			"method":       st.method,
			"path":         st.path,
			"attempt":      st.attempt,
			"max_attempts": st.maxAttempts,
		}
		reason := "connection error"
		if err != nil {
			fields["error"] = err.Error()
		} else if resp != nil {
			fields["status"] = resp.StatusCode
			reason = http.StatusText(resp.StatusCode)
			if resp.StatusCode == http.StatusConflict {
				reason = "node locked"
			}
		}
		fields["reason"] = reason
		if reason == "node locked" {
			// Routine: a conductor holds the lock while it works on the node.
			tflog.Debug(ctx, "retrying Ironic API request", fields)
		} else {
			tflog.Warn(ctx, "retrying Ironic API request", fields)
		}
	}
	return retry, cerr
}

// retryErrorHandler runs when retryablehttp stops with a failure. A response is
// handed back as is (gophercloud then reports Ironic's status and error
// message); a transport error says how many attempts were made.
func retryErrorHandler(resp *http.Response, err error, numTries int) (*http.Response, error) {
	if resp != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
		// The caller's context ended (CheckRetry saw it): say so rather
		// than hand back the response that would have been retried.
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxErrorBodyPeek))
		_ = resp.Body.Close()
		return nil, err
	}
	if resp != nil {
		if numTries > 1 && resp.Request != nil {
			tflog.Warn(resp.Request.Context(), "giving up on Ironic API request", map[string]any{
				"method":   resp.Request.Method,
				"path":     resp.Request.URL.Path,
				"attempts": numTries,
				"status":   resp.StatusCode,
			})
		}
		return resp, nil
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	if numTries > 1 {
		return nil, fmt.Errorf("giving up after %d attempts: %w", numTries, err)
	}
	return nil, err
}

// loggingTransport logs every attempt at TRACE: method, path, attempt,
// status or error, duration. Never headers or bodies.
type loggingTransport struct {
	base http.RoundTripper
}

func (t *loggingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	attempt := 1
	if st := attemptStateFrom(ctx); st != nil {
		st.attempt++
		attempt = st.attempt
	}
	start := time.Now()
	resp, err := t.base.RoundTrip(req)
	fields := map[string]any{
		"method":      req.Method,
		"path":        req.URL.Path,
		"attempt":     attempt,
		"duration_ms": time.Since(start).Milliseconds(),
	}
	if err != nil {
		fields["error"] = err.Error()
	} else {
		fields["status"] = resp.StatusCode
		if id := RequestID(resp.Header); id != "" {
			fields["request_id"] = id
		}
	}
	tflog.Trace(ctx, "Ironic API request", fields)
	return resp, err
}
