package testenv

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestIronicEndpoint(t *testing.T) {
	t.Setenv("BAREMETAL_ENDPOINT", "")
	if got := IronicEndpoint(); got != DefaultEndpoint {
		t.Errorf("unset: %q", got)
	}
	t.Setenv("BAREMETAL_ENDPOINT", "http://10.0.0.1:6401/v1/")
	if got := IronicEndpoint(); got != "http://10.0.0.1:6401" {
		t.Errorf("with /v1/: %q", got)
	}
}

// skipRecorder is a testing.TB that records a skip instead of ending the
// test: a real skipped subtest would show as a SKIP in make test's log,
// where any skip fails the run.
type skipRecorder struct {
	testing.TB
	skipped string
}

func (r *skipRecorder) Helper() {}

func (r *skipRecorder) Skipf(format string, args ...any) { r.skipped = fmt.Sprintf(format, args...) }

func TestRequireIronicSkipsUnlessAsked(t *testing.T) {
	t.Setenv(IronicVar, "")
	r := &skipRecorder{}
	RequireIronic(r)
	if !strings.Contains(r.skipped, IronicVar+"=1") {
		t.Fatalf("RequireIronic without %s: skip message %q", IronicVar, r.skipped)
	}
	t.Setenv(IronicVar, "1")
	t.Setenv("BAREMETAL_ENDPOINT", "http://127.0.0.1:1")
	r = &skipRecorder{}
	if ep := RequireIronic(r); ep != "http://127.0.0.1:1" || r.skipped != "" {
		t.Fatalf("asked: endpoint %q, skip %q", ep, r.skipped)
	}
}

func TestWaitForIronic(t *testing.T) {
	ok := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer ok.Close()
	if err := WaitForIronic(ok.URL, 0); err != nil {
		t.Fatalf("answering server: %v", err)
	}
	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer bad.Close()
	if err := WaitForIronic(bad.URL, 0); err == nil {
		t.Fatal("503: want an error")
	}
	start := time.Now()
	if err := WaitForIronic("http://127.0.0.1:1", 0); err == nil || time.Since(start) > 10*time.Second {
		t.Fatalf("closed port: err %v after %v", err, time.Since(start))
	}
}
