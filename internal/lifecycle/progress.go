package lifecycle

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"
)

// progressEvery is how often a wait that goes on in the same state is
// reported again.
const progressEvery = 15 * time.Second

// withProgress returns a Machine that logs as m does and also turns its
// log into progress lines for send (nil: m itself). The copy shares m's
// provisioner, waiter, clock and capacity gate.
func (m *Machine) withProgress(send func(string)) *Machine {
	if send == nil {
		return m
	}
	c := *m
	c.Log = &progressLog{next: m.Log, send: send, now: m.now}
	return &c
}

// progress sends a line to the Machine's progress, if it has one (and logs
// it as any message).
func (m *Machine) progress(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if pl, ok := m.Log.(*progressLog); ok {
		pl.line(msg)
		if pl.next != nil {
			pl.next.Log(context.Background(), msg, nil)
		}
	}
}

// progressLog is a Logger that passes every message on and turns the
// state machine's messages into one-line progress: state changes, what is
// waited on (again every progressEvery while nothing changes), failures
// and their retries.
type progressLog struct {
	next Logger
	send func(string)
	now  func() time.Time

	mu       sync.Mutex
	lastWait string
	waitAt   time.Time
}

func (l *progressLog) Log(ctx context.Context, msg string, fields map[string]any) {
	if l.next != nil {
		l.next.Log(ctx, msg, fields)
	}
	if s := l.format(msg, fields); s != "" {
		l.line(s)
	}
}

func (l *progressLog) line(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.send(s)
}

// format is the progress line of a log message ("" for none).
func (l *progressLog) format(msg string, f map[string]any) string {
	str := func(k string) string {
		if v, ok := f[k]; ok && v != nil {
			return fmt.Sprint(v)
		}
		return ""
	}
	host := str("host")
	if host == "" {
		host = str("id")
	}
	switch msg {
	case "host state":
		s := fmt.Sprintf("%s: %s -> %s", host, orNone(str("previous_state")), str("state"))
		if e := roundDuration(str("elapsed")); e != "" && e != "0s" {
			s += " (after " + e + ")"
		}
		return s
	case "waiting", "waiting for servicing":
		what := str("verb")
		if what == "" {
			what = "Ironic"
		} else {
			what = "Ironic " + what
		}
		if ps := str("provision_state"); ps != "" {
			what += ", provision state " + ps
		}
		if step := str("step"); step != "" {
			// The key leaves out how long the step has run: a new step
			// is a new line at once, the same one every progressEvery.
			key := what + ", step " + step
			return l.waitLine(host, key, key+" for "+roundDuration(str("step_running")), str("state"), str("waited"))
		}
		return l.waitLine(host, what, what, str("state"), str("waited"))
	case "delayed by the capacity gate":
		return fmt.Sprintf("%s: waiting for a provisioning slot (%s of %s busy, %s queued)", host, str("busy"), str("limit"), str("queued"))
	case "retrying after a failure", "retrying servicing after a failure":
		return fmt.Sprintf("%s: %s: %s; retrying in %s", host, orNone(str("error_type")), str("error"), roundDuration(str("backoff")))
	case "retrying after a transient error":
		return fmt.Sprintf("%s: %s; retrying in %s", host, str("error"), roundDuration(str("backoff")))
	}
	// Anything else the state machine says, with the fields that explain
	// it (never credentials: no field comes from Spec.BMC).
	var extra []string
	for k, v := range f {
		switch k {
		case "host", "id", "state", "previous_state", "observed":
			continue
		}
		extra = append(extra, fmt.Sprintf("%s=%v", k, v))
	}
	sort.Strings(extra)
	s := host + ": " + msg
	if len(extra) > 0 {
		s += " (" + strings.Join(extra, ", ") + ")"
	}
	return s
}

// waitLine is the progress line of a wait on what ("" while the same wait,
// by key, was reported less than progressEvery ago).
func (l *progressLog) waitLine(host, key, what, state, waited string) string {
	key = host + "|" + key + "|" + state
	l.mu.Lock()
	now := l.now()
	repeat := key == l.lastWait && now.Sub(l.waitAt) < progressEvery
	if !repeat {
		l.lastWait, l.waitAt = key, now
	}
	l.mu.Unlock()
	if repeat {
		return ""
	}
	s := fmt.Sprintf("%s: waiting (%s)", host, what)
	if w := roundDuration(waited); w != "" && w != "0s" {
		s += ", " + w + " so far"
	}
	return s
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// roundDuration rounds a Go duration string to the second.
func roundDuration(s string) string {
	d, err := time.ParseDuration(s)
	if err != nil {
		return s
	}
	return d.Round(time.Second).String()
}
