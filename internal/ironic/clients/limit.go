package clients

import (
	"context"
	"io"
	"net/http"
	"sync"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// MaxInFlight bounds the requests one provider process has in flight to
// Ironic. Hundreds of hosts applied at once would otherwise open hundreds
// of connections: Ironic's API then resets some of them, and every reset
// costs a retry. 32 keeps 500 nodes moving (see the environment notes).
const MaxInFlight = 32

// limitTransport lets at most n attempts through at once; the others queue
// for a slot (or until their request's context ends), first come first
// served, except that requests of hosts holding a capacity slot
// (lifecycle.Urgent) go before all others: at 500 hosts, 480 hosts'
// registrations would otherwise stand between the 20 slot holders and
// Ironic. It sits under the retry loop, so a request waiting to retry
// holds no slot.
type limitTransport struct {
	base http.RoundTripper

	mu   sync.Mutex
	free int
	// queues[0] holds urgent requests, queues[1] the others; a freed slot
	// is handed to the head of the first non-empty queue.
	queues [2][]chan struct{}
}

func newLimitTransport(base http.RoundTripper, n int) *limitTransport {
	return &limitTransport{base: base, free: n}
}

func (t *limitTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := t.acquire(req.Context(), lifecycle.Urgent(req.Context())); err != nil {
		return nil, err
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil || resp == nil || resp.Body == nil {
		t.release()
		return resp, err
	}
	// The slot is held until the body is read and closed: the connection
	// is busy until then.
	resp.Body = &releaseBody{ReadCloser: resp.Body, release: t.release}
	return resp, nil
}

// acquire takes a slot, queueing for one when none is free.
func (t *limitTransport) acquire(ctx context.Context, urgent bool) error {
	q := 1
	if urgent {
		q = 0
	}
	t.mu.Lock()
	if t.free > 0 {
		t.free--
		t.mu.Unlock()
		return nil
	}
	ch := make(chan struct{})
	t.queues[q] = append(t.queues[q], ch)
	t.mu.Unlock()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
	}
	t.mu.Lock()
	for i, c := range t.queues[q] {
		if c == ch {
			t.queues[q] = append(t.queues[q][:i], t.queues[q][i+1:]...)
			t.mu.Unlock()
			return ctx.Err()
		}
	}
	t.mu.Unlock()
	// Handed a slot as ctx ended: give it on.
	t.release()
	return ctx.Err()
}

// release hands the slot to the first queued request, urgent ones first.
func (t *limitTransport) release() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for q := range t.queues {
		if len(t.queues[q]) > 0 {
			ch := t.queues[q][0]
			t.queues[q][0] = nil
			t.queues[q] = t.queues[q][1:]
			close(ch)
			return
		}
	}
	t.free++
}

// releaseBody gives the slot back when the body is closed.
type releaseBody struct {
	io.ReadCloser
	once    sync.Once
	release func()
}

func (b *releaseBody) Close() error {
	err := b.ReadCloser.Close()
	b.once.Do(b.release)
	return err
}
