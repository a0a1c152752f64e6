package ironic

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/ironic/ironictest"
)

// lastRequestID is the request id the fake answered the last request to a
// path ending in suffix with.
func lastRequestID(t *testing.T, srv *ironictest.Server, method, suffix string) string {
	t.Helper()
	id := ""
	for _, r := range srv.Requests() {
		if r.Method == method && strings.HasSuffix(r.Path, suffix) {
			id = r.RequestID
		}
	}
	if id == "" {
		t.Fatalf("no %s request to *%s", method, suffix)
	}
	return id
}

// On the fake Ironic: an Ironic error names the request Ironic answered
// (its X-OpenStack-Request-Id), whether the provider shows Ironic's
// faultstring or gophercloud's whole message, after retries too (the id
// of the last attempt).
func TestFakeErrorsNameTheRequestID(t *testing.T) {
	ctx := context.Background()
	p, srv := onFake(t)
	h := fakeSpecHost("rid-1")
	id := nodeIn(srv, h, "active", "")

	// Ironic's faultstring (ironicError), after the transport's retries.
	srv.AddFault(ironictest.Fault{Method: http.MethodGet, PathSuffix: "/history", Status: http.StatusServiceUnavailable, Message: "conductor busy"})
	_, err := p.History(ctx, id, 5)
	want := "HTTP 503: conductor busy (request " + lastRequestID(t, srv, http.MethodGet, "/history") + ")"
	if err == nil || !strings.HasSuffix(err.Error(), want) {
		t.Errorf("history: %v, want it to end with %q", err, want)
	}
	if n := srv.Count(http.MethodGet, "/history"); n < 2 {
		t.Errorf("%d history requests: the 503 was not retried, the test proves less", n)
	}

	// gophercloud's message, wrapped (a read without the watcher).
	srv.AddFault(ironictest.Fault{Method: http.MethodGet, PathSuffix: "/" + id, Times: 1, Status: http.StatusBadRequest, Message: "Invalid field"})
	_, err = p.Observe(ctx, h)
	want = "Invalid field (request " + lastRequestID(t, srv, http.MethodGet, "/"+id) + ")"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("observe: %v, want it to contain %q", err, want)
	}
}
