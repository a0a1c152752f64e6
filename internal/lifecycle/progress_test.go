package lifecycle

import (
	"strings"
	"testing"
	"time"
)

// The state machine's log becomes one progress line per step: state
// changes, waits (a repeated wait again only after progressEvery), the
// capacity gate, failures and retries; other messages with their fields
// (sorted, without the host's own), and nothing from a credential.
func TestProgressLines(t *testing.T) {
	wait := map[string]any{"host": "h", "state": "provisioning", "verb": "active", "provision_state": "wait call-back", "waited": "61.4s"}
	for _, c := range []struct {
		name    string
		msg     string
		fields  map[string]any
		advance time.Duration // before the message
		want    string        // "" for no line
	}{
		{"state change", "host state", map[string]any{"host": "h", "previous_state": "available", "state": "provisioning", "elapsed": "2m3.6s"},
			0, "h: available -> provisioning (after 2m4s)"},
		{"first state, no time", "host state", map[string]any{"id": "node-1", "state": "registering", "elapsed": "0s"}, 0, "node-1: none -> registering"},
		{"wait", "waiting", wait, 0, "h: waiting (Ironic active, provision state wait call-back), 1m1s so far"},
		{"same wait again", "waiting", wait, progressEvery - time.Second, ""},
		{"same wait, later", "waiting", wait, progressEvery, "h: waiting (Ironic active, provision state wait call-back), 1m1s so far"},
		{"wait on Ironic", "waiting for servicing", map[string]any{"host": "h", "waited": "0s"}, 0, "h: waiting (Ironic)"},
		{"gate", "delayed by the capacity gate", map[string]any{"host": "h", "busy": 2, "limit": 2, "queued": 1}, 0,
			"h: waiting for a provisioning slot (2 of 2 busy, 1 queued)"},
		{"failure", "retrying after a failure", map[string]any{"host": "h", "error_type": "provisioning error", "error": "boom", "backoff": "90.2s"}, 0,
			"h: provisioning error: boom; retrying in 1m30s"},
		{"failure without type", "retrying servicing after a failure", map[string]any{"host": "h", "error": "boom", "backoff": "soon"}, 0,
			"h: none: boom; retrying in soon"},
		{"transient", "retrying after a transient error", map[string]any{"host": "h", "error": "EOF", "backoff": "1.5s"}, 0,
			"h: EOF; retrying in 2s"},
		{"anything else", "claimed address", map[string]any{"host": "h", "state": "x", "pool": "r01", "address": "10.0.0.10"}, 0,
			"h: claimed address (address=10.0.0.10, pool=r01)"},
		{"no fields", "done", nil, 0, ": done"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var lines []string
			clock := &fakeClock{t: testEpoch}
			next := &logRec{}
			l := &progressLog{next: next, send: func(s string) { lines = append(lines, s) }, now: clock.Now}
			if strings.HasPrefix(c.name, "same wait") {
				l.Log(ctxBG, c.msg, c.fields)
				lines = nil
			}
			clock.advance(c.advance)
			l.Log(ctxBG, c.msg, c.fields)
			if got := strings.Join(lines, "|"); got != c.want {
				t.Errorf("line %q, want %q", got, c.want)
			}
			if next.count(c.msg) == 0 {
				t.Errorf("message not passed on")
			}
		})
	}
}

// A Machine with progress sends its own lines too; without, it is itself.
func TestWithProgress(t *testing.T) {
	e := newEnv()
	if e.m.withProgress(nil) != e.m {
		t.Error("no progress: a copy")
	}
	var lines []string
	m := e.m.withProgress(func(s string) { lines = append(lines, s) })
	m.progress("%s: step %d", "h", 1)
	e.m.progress("not sent")
	if strings.Join(lines, "|") != "h: step 1" || e.log.count("h: step 1") != 1 {
		t.Errorf("lines %q, log %v", lines, e.log.msgs)
	}
}

// A wait's progress line names the Ironic step and how long it has run; a
// new step is a new line at once, the same step again only after
// progressEvery.
func TestProgressNamesTheStep(t *testing.T) {
	now := time.Date(2026, 12, 2, 18, 0, 0, 0, time.UTC)
	l := &progressLog{send: func(string) {}, now: func() time.Time { return now }}
	wait := func(step, running, waited string) string {
		f := map[string]any{"host": "h1", "state": "provisioning", "verb": "active",
			"provision_state": "wait call-back", "waited": waited}
		if step != "" {
			f["step"], f["step_running"] = step, running
		}
		return l.format("waiting", f)
	}
	for i, tc := range []struct {
		advance               time.Duration
		step, running, waited string
		want                  string
	}{
		{0, "", "", "1s", "h1: waiting (Ironic active, provision state wait call-back), 1s so far"},
		{time.Second, "deploy.deploy", "0s", "2s",
			"h1: waiting (Ironic active, provision state wait call-back, step deploy.deploy for 0s), 2s so far"},
		{10 * time.Second, "deploy.deploy", "10s", "12s", ""},
		{time.Second, "deploy.write_image", "1.2s", "13s",
			"h1: waiting (Ironic active, provision state wait call-back, step deploy.write_image for 1s), 13s so far"},
		{progressEvery, "deploy.write_image", "16.2s", "28s",
			"h1: waiting (Ironic active, provision state wait call-back, step deploy.write_image for 16s), 28s so far"},
	} {
		now = now.Add(tc.advance)
		if got := wait(tc.step, tc.running, tc.waited); got != tc.want {
			t.Errorf("%d: line %q, want %q", i, got, tc.want)
		}
	}
}
