package acctest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

var (
	maxOnce  sync.Once
	maxMinor int
	maxErr   error
)

// MaxMicroversion is the highest API microversion of the test Ironic (1.82
// on Ironic 2023.1, 1.96 on 2025.1), read once from its GET /. Tests whose
// expectations depend on the Ironic release (a feature refused below some
// microversion, or used above it) ask it, so that every test runs on every
// release the rig offers (scripts/ironic.sh, IRONIC_RELEASE).
func MaxMicroversion(t *testing.T) string {
	t.Helper()
	return fmt.Sprintf("1.%d", maxMicroversionMinor(t))
}

// IronicAtLeast reports whether the test Ironic speaks microversion v
// ("1.NN").
func IronicAtLeast(t *testing.T, v string) bool {
	t.Helper()
	minor, err := strconv.Atoi(strings.TrimPrefix(v, "1."))
	if err != nil {
		t.Fatalf("IronicAtLeast(%q): not a 1.NN microversion", v)
	}
	return maxMicroversionMinor(t) >= minor
}

func maxMicroversionMinor(t *testing.T) int {
	t.Helper()
	// Asked before the test case's own PreCheck runs: without the
	// acceptance rig the test skips rather than fails to reach Ironic.
	PreCheck(t)
	maxOnce.Do(func() {
		c := &http.Client{Timeout: time.Minute}
		resp, err := c.Get(strings.TrimRight(Endpoint(), "/") + "/")
		if err != nil {
			maxErr = err
			return
		}
		defer resp.Body.Close()
		var root struct {
			DefaultVersion struct {
				Version string `json:"version"`
			} `json:"default_version"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&root); err != nil {
			maxErr = fmt.Errorf("GET / of %s: %w", Endpoint(), err)
			return
		}
		maxMinor, maxErr = strconv.Atoi(strings.TrimPrefix(root.DefaultVersion.Version, "1."))
	})
	if maxErr != nil {
		t.Fatalf("the test Ironic's maximum microversion: %v", maxErr)
	}
	return maxMinor
}
