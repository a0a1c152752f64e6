package ironic

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

var requestIDRE = regexp.MustCompile(`\(request (req-[0-9a-f-]{36})\)`)

// TestIronicErrorNamesRequestID: on the rig's Ironic, registering a node
// with a driver Ironic does not have fails, the error names Ironic's
// request id, and Ironic's API log has the request under that id with
// its 4xx status.
func TestIronicErrorNamesRequestID(t *testing.T) {
	dir := os.Getenv("BAREMETAL_TEST_IRONIC_LOG_DIR")
	nt := newNodeTest(t, func(h *lifecycle.Host) { h.Spec.BMC.Driver = "no-such-driver" })
	if dir == "" {
		t.Fatal("BAREMETAL_TEST_IRONIC_LOG_DIR is not set (scripts/ironic.sh env sets it)")
	}
	res, _, err := nt.p.Register(nt.ctx, nt.h, true, false)
	msg := res.ErrorMessage
	if err != nil {
		msg += " " + err.Error()
	}
	m := requestIDRE.FindStringSubmatch(msg)
	if m == nil {
		t.Fatalf("register with a bad driver: %q, want an error naming the request id", msg)
	}
	t.Logf("the error: %s", msg)
	// Ironic's WSGI server logs a request once it has answered it: look
	// until the line is there, for at most ten seconds.
	want := `"POST /v1/nodes HTTP/1.1" status: 4`
	for deadline := time.Now().Add(10 * time.Second); ; {
		if line := logLineWith(t, dir, m[1], want); line != "" {
			t.Logf("Ironic's log: %s", line)
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s under %s in Ironic's logs in %s", want, m[1], dir)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// logLineWith is the first line of the logs in dir that has every one of
// subs ("" for none).
func logLineWith(t *testing.T, dir string, subs ...string) string {
	t.Helper()
	logs, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	for _, f := range logs {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
	lines:
		for _, line := range strings.Split(string(b), "\n") {
			for _, s := range subs {
				if !strings.Contains(line, s) {
					continue lines
				}
			}
			return line
		}
	}
	return ""
}
