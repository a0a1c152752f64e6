package lifecycle

import (
	"errors"
	"testing"
	"time"
)

// A HostError ends with the node's history, one event a line, oldest
// first; an unreadable history is one line, never in place of the failure.
func TestHostErrorHistory(t *testing.T) {
	at := time.Date(2026, 12, 2, 18, 0, 0, 0, time.UTC)
	base := HostError{Host: "h1", ID: "n1", State: StateProvisioning, ErrorType: ProvisioningError,
		Verb: "active", ProvisionState: "deploy failed", LastError: "Agent went away"}
	head := `host "h1" (node n1): state "provisioning", provisioning error, Ironic verb "active", ` +
		`Ironic provision state "deploy failed": last_error: Agent went away`
	for _, tc := range []struct {
		name    string
		history []HistoryEvent
		readErr string
		err     error
		want    string
	}{
		{name: "none", want: head},
		{name: "events", history: []HistoryEvent{
			{Time: at, Severity: "INFO", EventType: "deploying", Event: "Deploy started"},
			{Time: at.Add(90 * time.Second), Severity: "ERROR", EventType: "deploying", Event: "Agent went away\n"},
			{Time: at.Add(2 * time.Minute), Event: "no severity nor type"},
		}, want: head + `
Last 3 events of the node's Ironic history:
  2026-12-02T18:00:00Z INFO [deploying] Deploy started
  2026-12-02T18:01:30Z ERROR [deploying] Agent went away
  2026-12-02T18:02:00Z - no severity nor type`},
		{name: "after the Go error", err: errors.New("giving up"),
			history: []HistoryEvent{{Time: at, Severity: "ERROR", EventType: "cleaning", Event: "Timeout reached while cleaning"}},
			want: head + `: giving up
Last 1 events of the node's Ironic history:
  2026-12-02T18:00:00Z ERROR [cleaning] Timeout reached while cleaning`},
		{name: "unreadable", readErr: "get node n1 history: HTTP 503: busy",
			want: head + "\n(the node's history could not be read: get node n1 history: HTTP 503: busy)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := base
			e.History, e.HistoryError, e.Err = tc.history, tc.readErr, tc.err
			if got := e.Error(); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}
