package testenv

import (
	"net/http"
	"net/http/httptest"
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

func TestRequireIronicSkipsUnlessAsked(t *testing.T) {
	t.Setenv(IronicVar, "")
	ran := false
	t.Run("inner", func(t *testing.T) {
		RequireIronic(t)
		ran = true
	})
	if ran {
		t.Fatal("RequireIronic did not skip without " + IronicVar)
	}
	t.Setenv(IronicVar, "1")
	t.Setenv("BAREMETAL_ENDPOINT", "http://127.0.0.1:1")
	if ep := RequireIronic(t); ep != "http://127.0.0.1:1" {
		t.Fatalf("endpoint %q", ep)
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
