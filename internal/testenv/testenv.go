// Package testenv decides which tests may use the real Ironic rig.
//
// Tests that create and delete nodes in a real Ironic run only when asked
// with BAREMETAL_IRONIC_TESTS=1 (scripts/test.sh sets it, as it sets TF_ACC
// for the acceptance tests), never merely because something answers on a
// port: `go test ./...` on a developer's machine must not touch whatever
// Ironic listens there. Once asked, a missing Ironic fails the test instead
// of skipping it.
package testenv

import (
	"net/http"
	"os"
	"strings"
	"testing"
	"time"
)

// IronicVar is the environment variable that asks for the real-Ironic tests.
const IronicVar = "BAREMETAL_IRONIC_TESTS"

// DefaultEndpoint is the rig's Ironic when BAREMETAL_ENDPOINT is unset.
const DefaultEndpoint = "http://127.0.0.1:6385"

// IronicEndpoint is BAREMETAL_ENDPOINT (without a trailing / or /v1) or the
// rig's default.
func IronicEndpoint() string {
	if e := os.Getenv("BAREMETAL_ENDPOINT"); e != "" {
		return strings.TrimSuffix(strings.TrimSuffix(e, "/"), "/v1")
	}
	return DefaultEndpoint
}

// IronicAsked reports whether the real-Ironic tests were asked for.
func IronicAsked() bool { return os.Getenv(IronicVar) == "1" }

// RequireIronic skips t unless the real-Ironic tests were asked for, and
// returns the endpoint to use.
func RequireIronic(t testing.TB) string {
	t.Helper()
	if !IronicAsked() {
		t.Skipf("real-Ironic test: set %s=1 and BAREMETAL_ENDPOINT (make test starts the rig and sets both)", IronicVar)
	}
	return IronicEndpoint()
}

// WaitForIronic polls ep's API root for up to wait (the rig's Ironic
// sometimes stalls for tens of seconds) and returns the last error.
func WaitForIronic(ep string, wait time.Duration) error {
	c := http.Client{Timeout: 5 * time.Second}
	deadline := time.Now().Add(wait)
	for {
		resp, err := c.Get(ep + "/v1/")
		if err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			err = &statusError{resp.Status}
		}
		if time.Now().After(deadline) {
			return err
		}
		time.Sleep(time.Second) // polling an external process, not synchronising tests
	}
}

type statusError struct{ status string }

func (e *statusError) Error() string { return "Ironic answered " + e.status }
