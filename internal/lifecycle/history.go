package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// historyEvents is how many of a node's last history events a failure
// shows.
const historyEvents = 5

// historyTimeout bounds the history read of a failure: the failure is
// reported whether or not Ironic answers.
const historyTimeout = 10 * time.Second

// HistoryEvent is one entry of Ironic's node history (API 1.78): what the
// conductor recorded about the node, errors mostly.
type HistoryEvent struct {
	Time time.Time
	// Event is the message; EventType what it was about
	// (provisioning, cleaning, deploying, power, console, ...).
	Event     string
	EventType string
	// Severity is Ironic's INFO, WARNING or ERROR.
	Severity string
}

// HistoryReader is a Provisioner that reads a node's history: the last n
// events, oldest first. It is only asked when a failure is reported, never
// while waiting. ErrHistoryUnsupported: the Ironic has no history API.
type HistoryReader interface {
	History(ctx context.Context, id string, n int) ([]HistoryEvent, error)
}

// ErrHistoryUnsupported is a HistoryReader's answer on an Ironic older than
// API 1.78.
var ErrHistoryUnsupported = errors.New("no node history in Ironic before API 1.78")

// withHistory adds the node's last history events to a *HostError (err
// itself otherwise, or when it has them, or when there is no node). A
// history that cannot be read is said in one line, never in place of
// the failure. The read has its own deadline: a wait cut short by the
// context still shows the history.
func (m *Machine) withHistory(ctx context.Context, err error) error {
	var he *HostError
	if !errors.As(err, &he) || he.ID == "" || he.History != nil || he.HistoryError != "" {
		return err
	}
	hr, ok := m.Prov.(HistoryReader)
	if !ok {
		return err
	}
	hctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), historyTimeout)
	defer cancel()
	events, herr := hr.History(hctx, he.ID, historyEvents)
	switch {
	case errors.Is(herr, ErrHistoryUnsupported):
	case herr != nil:
		he.HistoryError = herr.Error()
	default:
		he.History = events
	}
	return err
}

// renderHistory is the end of a HostError's message: the node's last
// events, one a line, oldest first.
func renderHistory(events []HistoryEvent, readErr string) string {
	if readErr != "" {
		return "\n(the node's history could not be read: " + readErr + ")"
	}
	if len(events) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\nLast %d events of the node's Ironic history:", len(events))
	for _, e := range events {
		b.WriteString("\n  " + e.Time.UTC().Format(time.RFC3339))
		sev := e.Severity
		if sev == "" {
			sev = "-"
		}
		b.WriteString(" " + sev)
		if e.EventType != "" {
			b.WriteString(" [" + e.EventType + "]")
		}
		b.WriteString(" " + strings.TrimSpace(e.Event))
	}
	return b.String()
}
