// Package gcfloor keeps Go's garbage collector from running while a
// process's heap is small. A load generator (and the mock server beside it)
// has a small live heap, tens of MB, and allocates fast, so at GOGC=100 it
// collects several times a second; each collection's mark phase, run on a
// quarter of the CPUs, holds other goroutines, the open-loop pacer among
// them, off a CPU for up to milliseconds.
package gcfloor

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
)

// Default is the floor aiperf profile and aiperf mock-server use: at 5,000
// req/s it brought the schedule lateness p99 under 1 ms (BENCHMARKS.md).
const Default = 200 << 20

// floor is a started floor. After every collection it sets GOGC so that
// the next heap goal plus the goroutine stacks is at least bytes, and never
// below the default: a process with a large dataset or many streams (a
// live heap and stacks over about bytes/2) collects exactly as at
// GOGC=100. The cost is at most bytes of garbage held between collections.
type floor struct {
	bytes   uint64
	prev    int         // GOGC before start, restored by stop
	stopped atomic.Bool // set under mu
	samples []metrics.Sample
}

// The process's one floor, shared by its users (tests run several runs at
// once): the first Start installs it, the last stop removes it.
var (
	mu    sync.Mutex
	users int
	on    *floor
)

// Start keeps the heap goal plus the goroutine stacks at bytes or more, adjusting GOGC after every collection; it returns a stop function
// (idempotent) that ends the adjusting and restores the previous GOGC.
// Calls nest: the floor of the first Start holds until the last stop. It
// starts no goroutine: the adjustment runs as a finalizer, on the
// runtime's finalizer goroutine, re-armed after each collection. A GOGC
// environment variable turns it off: the user's setting wins. In a
// container with a memory limit, the floor is at most a quarter of it.
func Start(bytes uint64) (stop func()) {
	if _, set := os.LookupEnv("GOGC"); set {
		return func() {}
	}
	bytes = capped(bytes, memoryLimit())
	mu.Lock()
	defer mu.Unlock()
	if users == 0 {
		g := &floor{bytes: bytes, samples: []metrics.Sample{
			{Name: "/gc/heap/live:bytes"},
			{Name: "/gc/scan/stack:bytes"},
			{Name: "/gc/scan/globals:bytes"},
			{Name: "/memory/classes/heap/stacks:bytes"},
		}}
		g.prev = debug.SetGCPercent(g.percent())
		g.arm()
		on = g
	}
	users++
	var once sync.Once
	return func() {
		once.Do(func() {
			mu.Lock()
			defer mu.Unlock()
			if users--; users == 0 {
				on.stopped.Store(true)
				debug.SetGCPercent(on.prev)
				on = nil
			}
		})
	}
}

// sentinel is garbage whose finalizer runs after the collection that
// found it unreachable.
type sentinel struct{ g *floor }

// arm allocates the sentinel of the next collection.
func (g *floor) arm() {
	runtime.SetFinalizer(&sentinel{g}, func(s *sentinel) {
		mu.Lock() // stop's restore must not be overwritten
		defer mu.Unlock()
		if s.g.stopped.Load() {
			return
		}
		debug.SetGCPercent(s.g.percent())
		s.g.arm()
	})
}

// percent returns the GOGC that puts the next heap goal, live + (live +
// scanned stacks + globals) * GOGC/100, plus the goroutine stacks, at the
// floor, or 100 when that is less: the floor bounds what the heap and the
// stacks hold together, as the process's memory shows it. The caller holds
// mu.
func (g *floor) percent() int {
	metrics.Read(g.samples)
	var v [4]uint64
	for i, s := range g.samples {
		if s.Value.Kind() == metrics.KindUint64 {
			v[i] = s.Value.Uint64()
		}
	}
	live, scannable, stacks := v[0], v[0]+v[1]+v[2], v[3]
	if live+stacks >= g.bytes || scannable == 0 {
		return 100
	}
	return int(min(10000, max(100, (g.bytes-live-stacks)*100/scannable)))
}
