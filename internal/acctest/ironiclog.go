package acctest

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// This file reads Ironic's logs to show what a test's Terraform sent
// Ironic: the rig's (BAREMETAL_TEST_IRONIC_LOG_DIR, which scripts/ironic.sh
// env sets) or another Ironic's, such as the Keystone rig's. A LogMark is
// a place in every log, and the request lines written since then, or
// everything written since then (to look for secrets in it), can be read
// back.

// LogMark is the size of each log when it was taken.
type LogMark struct {
	// glob matches the logs: files created after the mark are read
	// from their start.
	glob  string
	sizes map[string]int64
}

// MarkIronicLog marks the end of the rig's Ironic logs. The test fails
// when the rig's log directory is not known (make test sets it).
func MarkIronicLog(t *testing.T) *LogMark {
	t.Helper()
	dir := os.Getenv("BAREMETAL_TEST_IRONIC_LOG_DIR")
	if dir == "" {
		t.Fatal("BAREMETAL_TEST_IRONIC_LOG_DIR is not set: run the acceptance tests through make test (or set it from scripts/ironic.sh env)")
	}
	return markLogs(filepath.Join(dir, "*.log"))
}

// MarkLog marks the end of one Ironic log file. The test fails when the
// file cannot be read.
func MarkLog(t *testing.T, file string) *LogMark {
	t.Helper()
	if _, err := os.Stat(file); err != nil {
		t.Fatalf("Ironic's log: %v", err)
	}
	return markLogs(file)
}

func markLogs(glob string) *LogMark {
	files, _ := filepath.Glob(glob)
	m := &LogMark{glob: glob, sizes: map[string]int64{}}
	for _, f := range files {
		if st, err := os.Stat(f); err == nil {
			m.sizes[f] = st.Size()
		}
	}
	return m
}

// requestLine matches an API request line of Ironic's WSGI server:
// `"PUT /v1/nodes/<id>/states/provision HTTP/1.1" status: 202`.
var requestLine = regexp.MustCompile(`"(GET|HEAD|PUT|POST|PATCH|DELETE) (/\S*) HTTP/[0-9.]+" status: (\d+)`)

// Requests returns the API request lines logged since the mark, whole
// (Ironic's request context, with the user and project of a Keystone
// token, comes before the request).
func (m *LogMark) Requests() ([]string, error) {
	files, _ := filepath.Glob(m.glob)
	var out []string
	for _, f := range files {
		lines, err := linesAfter(f, m.sizes[f])
		if err != nil {
			return nil, err
		}
		for _, l := range lines {
			if requestLine.MatchString(l) {
				out = append(out, l)
			}
		}
	}
	return out, nil
}

// WritesTo returns the requests other than GET and HEAD made since the mark
// to any of the nodes named by refs (UUIDs or names) or anything under
// them, as "METHOD path status".
func (m *LogMark) WritesTo(refs ...string) ([]string, error) {
	lines, err := m.Requests()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, l := range lines {
		r := requestLine.FindStringSubmatch(l)
		if r[1] == "GET" || r[1] == "HEAD" {
			continue
		}
		for _, ref := range refs {
			p := "/v1/nodes/" + ref
			if ref != "" && (r[2] == p || strings.HasPrefix(r[2], p+"/") || strings.HasPrefix(r[2], p+"?")) {
				out = append(out, r[1]+" "+r[2]+" "+r[3])
			}
		}
	}
	return out, nil
}

func linesAfter(file string, offset int64) ([]string, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("ironic log: %w", err)
	}
	defer f.Close()
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return nil, fmt.Errorf("ironic log %s: %w", file, err)
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("ironic log %s: %w", file, err)
	}
	return strings.Split(string(b), "\n"), nil
}

// Text returns everything the logs got since the mark.
func (m *LogMark) Text() (string, error) {
	files, _ := filepath.Glob(m.glob)
	var b strings.Builder
	for _, f := range files {
		lines, err := linesAfter(f, m.sizes[f])
		if err != nil {
			return "", err
		}
		b.WriteString(strings.Join(lines, "\n"))
	}
	return b.String(), nil
}
