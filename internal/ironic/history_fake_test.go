package ironic

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// On the fake Ironic, through the state machine: a failed deployment's
// error ends with the node's last five history events, oldest first, the
// conductor's record of the failure last; the history is read once, when
// the failure is reported, never while waiting.
func TestFakeFailureShowsHistory(t *testing.T) {
	m, srv, h, id, _, w := deployingHost(t)
	at := time.Date(2026, 12, 2, 17, 0, 0, 0, time.UTC)
	for i, ev := range []string{"old 1", "old 2", "Deploy step deploy.deploy started", "Node powered on", "Agent is alive"} {
		srv.AddHistory(id, "INFO", "deploying", ev, at.Add(time.Duration(i)*time.Minute))
	}
	w.then = func(n int) error {
		if n == 3 {
			srv.FailNext(id, "Agent returned error for deploy step write_image: No space left on device")
			srv.Finish(id)
		}
		return nil
	}
	err := m.Converge(context.Background(), h, lifecycle.ConvergeOptions{Retries: 0})
	var he *lifecycle.HostError
	if !errors.As(err, &he) {
		t.Fatalf("err = %v, want a HostError", err)
	}
	msg := err.Error()
	lines := strings.Split(msg, "\n")
	if len(lines) != 7 || lines[1] != "Last 5 events of the node's Ironic history:" ||
		!strings.HasSuffix(lines[2], "INFO [deploying] old 2") ||
		!strings.Contains(lines[6], "ERROR [deploying] Agent returned error for deploy step write_image: No space left on device") {
		t.Fatalf("error:\n%s\nwant the failure, then the last five events, the error last", msg)
	}
	if n := srv.Count(http.MethodGet, "/history"); n != 1 {
		t.Errorf("history read %d times, want once", n)
	}
}

// Before API 1.78 there is no history: the error is the failure alone,
// and the provider does not ask.
func TestFakeFailureWithoutHistoryAPI(t *testing.T) {
	sc, srv := fakeClient(t)
	sc.Microversion = "1.77"
	p := NewProvisioner(sc, nil, WithJitter(0, nil))
	h := fakeSpecHost("h1")
	id := nodeIn(srv, h, "available", "")
	srv.AddHistory(id, "ERROR", "deploying", "never shown", time.Time{})
	if _, err := p.History(context.Background(), id, 5); !errors.Is(err, lifecycle.ErrHistoryUnsupported) {
		t.Fatalf("History at 1.77: %v, want ErrHistoryUnsupported", err)
	}
	if n := srv.Count(http.MethodGet, "/history"); n != 0 {
		t.Errorf("history read %d times at 1.77, want never", n)
	}
}
