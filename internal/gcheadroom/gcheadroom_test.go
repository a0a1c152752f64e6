package gcheadroom

import (
	"runtime"
	"testing"
	"time"
)

const mib = 1 << 20

func TestPercent(t *testing.T) {
	for _, tc := range []struct {
		name              string
		scanned, headroom uint64
		minPercent, want  int
	}{
		// 32 MiB of headroom allows GOGC up to 800 (Go's minimum heap
		// target is 4 MiB per 100 percent, 32 MiB at 800).
		{"empty heap: the runtime's minimum is the headroom", 0, 32 * mib, 50, 800},
		{"tiny heap: capped so the runtime's minimum stays at the headroom", 1 * mib, 32 * mib, 50, 800},
		{"a plan's heap: headroom over live", 16 * mib, 32 * mib, 50, 200},
		{"live equal to the headroom", 32 * mib, 32 * mib, 50, 100},
		{"500 creates in flight: the percentage is more", 80 * mib, 32 * mib, 50, 50},
		{"just above the percentage", 60 * mib, 32 * mib, 50, 53},
		{"headroom below the runtime's minimum: the percentage", 10 * mib, 1 * mib, 50, 50},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Percent(tc.scanned, tc.headroom, tc.minPercent); got != tc.want {
				t.Errorf("Percent(%d MiB scanned, %d MiB headroom, min %d) = %d, want %d",
					tc.scanned/mib, tc.headroom/mib, tc.minPercent, got, tc.want)
			}
		})
	}
}

// TestStartTunesAfterEveryCollection: Start sets GOGC at once and again
// after each collection, from the live heap.
func TestStartTunesAfterEveryCollection(t *testing.T) {
	set := make(chan int, 64)
	start(32*mib, 50, func(p int) int {
		select {
		case set <- p:
		default: // the test has ended or stopped reading
		}
		return 100
	})
	// until runs collections until the tuner reports a GOGC that ok
	// accepts, and returns it. One collection is not always enough: a
	// cleanup that runs while the next collection marks reads the metrics of
	// the cycle before, and the sentinel it arms is allocated black, so it
	// survives that collection; the one after reports the new heap.
	// Collections that ran on their own may have set other values first.
	until := func(what string, ok func(int) bool) int {
		t.Helper()
		deadline := time.After(10 * time.Second)
		kick := time.NewTicker(20 * time.Millisecond)
		defer kick.Stop()
		for {
			select {
			case p := <-set:
				if ok(p) {
					return p
				}
			case <-kick.C:
				runtime.GC()
			case <-deadline:
				t.Fatalf("no GOGC %s in 10 s of collections", what)
				return 0
			}
		}
	}
	until("within [50, 800] at Start", func(p int) bool { return p >= 50 && p <= 800 })
	// Hold a live heap larger than the headroom: after a collection the
	// percentage wins.
	ballast := make([][]byte, 64)
	for i := range ballast {
		ballast[i] = make([]byte, mib)
		ballast[i][0] = 1
	}
	until("of 50 with 64 MiB live", func(p int) bool { return p == 50 })
	runtime.KeepAlive(ballast) // dead from here: the next collection frees it
	until("above 50 after the live heap shrank", func(p int) bool { return p > 50 })
}
