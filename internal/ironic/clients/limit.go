package clients

import (
	"io"
	"net/http"
	"sync"
)

// MaxInFlight bounds the requests one provider process has in flight to
// Ironic. Hundreds of hosts applied at once would otherwise open hundreds
// of connections: Ironic's API then resets some of them, and every reset
// costs a retry. 32 keeps 500 nodes moving (see the environment notes).
const MaxInFlight = 32

// limitTransport lets at most cap(slots) attempts through at once; the
// others wait for a slot (or for their request's context to end). It sits
// under the retry loop, so a request waiting to retry holds no slot.
type limitTransport struct {
	base  http.RoundTripper
	slots chan struct{}
}

func newLimitTransport(base http.RoundTripper, n int) *limitTransport {
	return &limitTransport{base: base, slots: make(chan struct{}, n)}
}

func (t *limitTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	select {
	case t.slots <- struct{}{}:
	case <-req.Context().Done():
		return nil, req.Context().Err()
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil || resp == nil || resp.Body == nil {
		<-t.slots
		return resp, err
	}
	// The slot is held until the body is read and closed: the connection
	// is busy until then.
	resp.Body = &releaseBody{ReadCloser: resp.Body, release: func() { <-t.slots }}
	return resp, nil
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
