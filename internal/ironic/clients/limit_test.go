package clients

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
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
