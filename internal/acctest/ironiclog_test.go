package acctest

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// WritesTo reads only what was logged after the mark, and only the
// requests that change the named nodes.
func TestLogMarkWritesTo(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("BAREMETAL_TEST_IRONIC_LOG_DIR", dir)
	log := filepath.Join(dir, "ironic.log")
	line := func(method, path string) string {
		return `2026-12-02 03:26:19.760 21329 INFO eventlet.wsgi.server [None req-1 - - - - - -] 127.0.0.1 "` +
			method + " " + path + ` HTTP/1.1" status: 202  len: 0 time: 0.01` + "\n"
	}
	write := func(s string) {
		f, err := os.OpenFile(log, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteString(s); err != nil {
			t.Fatal(err)
		}
	}
	write(line("PUT", "/v1/nodes/uuid-1/states/provision"))
	m := MarkIronicLog(t)
	write(line("GET", "/v1/nodes/uuid-1") + line("PUT", "/v1/nodes/uuid-10/states/power") +
		line("PATCH", "/v1/nodes/host-a") + line("PUT", "/v1/nodes/uuid-1/states/power") + "not a request line\n")
	got, err := m.WritesTo("uuid-1", "host-a")
	want := []string{"PATCH /v1/nodes/host-a 202", "PUT /v1/nodes/uuid-1/states/power 202"}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("WritesTo = %q, %v; want %q", got, err, want)
	}
}

// A mark on one file (another Ironic's log) gives back the request lines
// written since, whole, whatever their path.
func TestMarkLogRequests(t *testing.T) {
	log := filepath.Join(t.TempDir(), "ironic-api.log")
	before := `INFO [req-0 u1 p1] 127.0.0.1 "GET /v1/nodes HTTP/1.1" status: 200  len: 9` + "\n"
	after := []string{
		`INFO [req-1 u1 p1] 127.0.0.1 "GET / HTTP/1.1" status: 200  len: 9`,
		`INFO [req-2 - -] 127.0.0.1 "GET /v1/nodes?fields=uuid HTTP/1.1" status: 401  len: 9`,
	}
	if err := os.WriteFile(log, []byte(before), 0o600); err != nil {
		t.Fatal(err)
	}
	m := MarkLog(t, log)
	f, err := os.OpenFile(log, os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(after[0] + "\nDEBUG not a request\n" + after[1] + "\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	got, err := m.Requests()
	if err != nil || !slices.Equal(got, after) {
		t.Errorf("Requests = %q, %v; want %q", got, err, after)
	}
}
