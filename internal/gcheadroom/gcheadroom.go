// Package gcheadroom sets Go's garbage-collection target after every
// collection to the live heap plus a fixed headroom, or plus a percentage of
// the live heap when that is more.
//
// A fixed GOGC makes the collector's work grow with the number of cycles: a
// small live heap (a plan's few RPCs at a time) is collected every few
// megabytes allocated, and Terraform's plans allocate a lot (the framework
// rebuilds schema maps for every attribute path). A large live heap (500
// creates in flight) gets GOGC's percentage, which keeps its peak where a
// plain GOGC would. The heap never grows past the larger of the two limits
// before the next collection, so the headroom is also a bound.
package gcheadroom

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// heapMinimumPerPercent is the Go runtime's minimum heap target per percent
// of GOGC (4 MiB at GOGC=100): a GOGC above headroom/heapMinimumPerPercent
// would raise the runtime's own minimum above the headroom.
const heapMinimumPerPercent = 4 << 20 / 100

// Percent is the GOGC that puts the next collection at live + max(headroom,
// scanned*minPercent/100), where scanned is what Go multiplies GOGC by: the
// live heap, the goroutine stacks and the globals. It is at least
// minPercent, and never so high that Go's minimum heap target (4 MiB per
// 100 percent) exceeds the headroom.
func Percent(scanned, headroom uint64, minPercent int) int {
	maxPercent := int(headroom / heapMinimumPerPercent)
	if maxPercent < minPercent {
		return minPercent
	}
	if scanned == 0 {
		return maxPercent
	}
	p := headroom * 100 / scanned
	switch {
	case p < uint64(minPercent):
		return minPercent
	case p > uint64(maxPercent):
		return maxPercent
	}
	return int(p)
}

// tuner re-reads the live heap after each collection and sets GOGC.
type tuner struct {
	headroom   uint64
	minPercent int
	set        func(int) int // debug.SetGCPercent, or a test's recorder
	sample     []metrics.Sample
}

// sentinel is what the collector frees each cycle, running the tuner's
// cleanup; it is larger than the runtime's tiny allocations, which may be
// freed together and late.
type sentinel struct{ _ [64]byte }

// Start sets GOGC now (for an empty heap) and after every collection, for
// the life of the process. Callers leave it off when the user set GOGC or
// GOMEMLIMIT.
func Start(headroom uint64, minPercent int) {
	start(headroom, minPercent, debug.SetGCPercent)
}

func start(headroom uint64, minPercent int, set func(int) int) {
	t := &tuner{headroom: headroom, minPercent: minPercent, set: set,
		sample: []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/gc/scan/stack:bytes"}, {Name: "/gc/scan/globals:bytes"}}}
	t.tune()
	t.arm()
}

func (t *tuner) tune() {
	metrics.Read(t.sample)
	var scanned uint64
	for _, s := range t.sample {
		if s.Value.Kind() == metrics.KindUint64 {
			scanned += s.Value.Uint64()
		}
	}
	t.set(Percent(scanned, t.headroom, t.minPercent))
}

// arm makes the next collection run tune and arm again.
func (t *tuner) arm() {
	runtime.AddCleanup(new(sentinel), func(t *tuner) {
		t.tune()
		t.arm()
	}, t)
}
