package clients

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// The transport never has more than MaxInFlight requests out at once.
func TestTransportBoundsRequestsInFlight(t *testing.T) {
	var mu sync.Mutex
	inFlight, peak := 0, 0
	release, full := make(chan struct{}), make(chan struct{})
	var fullOnce sync.Once
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		inFlight++
		peak = max(peak, inFlight)
		if inFlight == MaxInFlight {
			fullOnce.Do(func() { close(full) })
		}
		mu.Unlock()
		<-release
		mu.Lock()
		inFlight--
		mu.Unlock()
		_, _ = w.Write([]byte(`{}`))
	}))
	defer srv.Close()
	hc, err := NewHTTPClient(Config{MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 3 * MaxInFlight {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := hc.Get(srv.URL)
			if err != nil {
				t.Error(err)
				return
			}
			_ = resp.Body.Close()
		}()
	}
	// Let the server fill up, then let everything through.
	select {
	case <-full:
	case <-time.After(10 * time.Second):
		t.Error("the server never had MaxInFlight requests at once")
	}
	close(release)
	wg.Wait()
	if peak != MaxInFlight {
		t.Errorf("peak %d requests in flight, want %d", peak, MaxInFlight)
	}
}

// With every slot taken, a freed slot goes to the queued urgent request
// (a host holding a capacity slot) before requests queued earlier; a
// request whose context ends leaves the queue without taking a slot.
func TestLimitTransportUrgentFirst(t *testing.T) {
	order := make(chan string, 8)
	hold := make(chan struct{})
	base := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		if r.URL.Path == "/hold" {
			<-hold
		}
		order <- r.URL.Path
		return &http.Response{StatusCode: 200, Body: http.NoBody}, nil
	})
	lt := newLimitTransport(base, 1)
	send := func(ctx context.Context, path string) <-chan error {
		done := make(chan error, 1)
		go func() {
			req, _ := http.NewRequestWithContext(ctx, "GET", "http://ironic"+path, nil)
			resp, err := lt.RoundTrip(req)
			if err == nil {
				err = resp.Body.Close()
			}
			done <- err
		}()
		return done
	}
	queued := func(n int) {
		for {
			lt.mu.Lock()
			k := len(lt.queues[0]) + len(lt.queues[1])
			lt.mu.Unlock()
			if k == n {
				return
			}
			runtime.Gosched()
		}
	}
	free := func() int {
		lt.mu.Lock()
		defer lt.mu.Unlock()
		return lt.free
	}
	first := send(context.Background(), "/hold")
	for free() != 0 {
		runtime.Gosched()
	}
	plain := send(context.Background(), "/plain")
	queued(1)
	gone, cancel := context.WithCancel(context.Background())
	cancelled := send(gone, "/cancelled")
	queued(2)
	urgent := send(lifecycle.WithUrgency(context.Background()), "/urgent")
	queued(3)
	cancel()
	if err := <-cancelled; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled request: %v", err)
	}
	close(hold)
	for _, ch := range []<-chan error{first, urgent, plain} {
		if err := <-ch; err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for range 3 {
		got = append(got, <-order)
	}
	if want := []string{"/hold", "/urgent", "/plain"}; !slices.Equal(got, want) {
		t.Fatalf("order %v, want %v", got, want)
	}
	if n := free(); n != 1 {
		t.Fatalf("%d slots free after everything finished, want 1", n)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
