// Package gcfloor keeps Go's garbage collector from running while a
// process's heap is small, and from holding more garbage than it needs
// once it is large (16 MiB, or GOGC=25 when that is more). A load
// generator (and the mock server beside it) has a small live heap, tens
// of MB, and allocates fast, so at GOGC=100 it collects several times a
// second; each collection's mark phase, run on a quarter of the CPUs,
// holds other goroutines, the open-loop pacer among them, off a CPU for up
// to milliseconds. With thousands of open streams
// the stacks grow instead, and GOGC=100 would let garbage grow with them.
package gcfloor

import (
	"os"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"time"
)

// Default is the floor aiperf mock-server and open-loop aiperf profile runs
// use: at 5,000 req/s it brought the schedule lateness p99 under 1 ms
// (BENCHMARKS.md).
const Default = 200 << 20

// floor is a started floor. Every pollEvery it sets GOGC so that the next
// heap goal plus the goroutine stacks is at least bytes. Above the floor
// the heap may hold garbageCap's garbage: a runner with 10,000 open
// streams has tens of MB of stacks, which allocate nothing and so earn no
// headroom (see headroomPercent).
//
// It polls rather than waiting for collections because the runtime
// applies GOGC to stack growth as it happens: a GOGC raised for a small
// heap, kept while 10,000 streams open, would multiply their stacks into
// hundreds of MB of heap goal before the next collection came.
type floor struct {
	bytes   uint64
	prev    int // GOGC before start, restored by stop
	percent int // GOGC set last
	samples []metrics.Sample
	done    chan struct{}
	exited  chan struct{}
}

// pollEvery is how often a floor re-derives GOGC: metrics.Read and
// SetGCPercent take microseconds, and stacks grow by at most a few MB in
// between.
const pollEvery = 20 * time.Millisecond

// The process's one floor, shared by its users (tests run several runs at
// once): the first Start installs it, the last stop removes it.
var (
	mu    sync.Mutex
	users int
	on    *floor
)

// Start keeps the heap goal plus the goroutine stacks at bytes or more,
// and the garbage above that floor at most garbageCap, adjusting GOGC
// every pollEvery on a goroutine of its own; it returns a stop function
// (idempotent) that ends the goroutine and restores the previous GOGC.
// Calls nest: the floor of the first Start holds until the last stop. A
// GOGC environment variable turns it off: the user's setting wins. In a
// container with a memory limit, the floor is at most a quarter of it.
// Start(0) sets no floor: only the garbage is capped.
func Start(bytes uint64) (stop func()) {
	if _, set := os.LookupEnv("GOGC"); set {
		return func() {}
	}
	bytes = capped(bytes, memoryLimit())
	mu.Lock()
	defer mu.Unlock()
	if users == 0 {
		g := &floor{bytes: bytes, done: make(chan struct{}), exited: make(chan struct{}), samples: []metrics.Sample{
			{Name: "/gc/heap/live:bytes"},
			{Name: "/gc/scan/stack:bytes"},
			{Name: "/gc/scan/globals:bytes"},
			{Name: "/memory/classes/heap/stacks:bytes"},
		}}
		g.percent = g.derive()
		g.prev = debug.SetGCPercent(g.percent)
		go g.poll()
		on = g
	}
	users++
	var once sync.Once
	return func() {
		once.Do(func() {
			mu.Lock()
			defer mu.Unlock()
			if users--; users == 0 {
				close(on.done)
				<-on.exited
				debug.SetGCPercent(on.prev)
				on = nil
			}
		})
	}
}

// poll re-derives GOGC until done is closed.
func (g *floor) poll() {
	defer close(g.exited)
	t := time.NewTicker(pollEvery)
	defer t.Stop()
	for {
		select {
		case <-g.done:
			return
		case <-t.C:
			if p := g.derive(); p != g.percent {
				g.percent = p
				debug.SetGCPercent(p)
			}
		}
	}
}

// derive returns the GOGC for the process's heap and stacks now (see
// headroomPercent).
func (g *floor) derive() int {
	metrics.Read(g.samples)
	var v [4]uint64
	for i, s := range g.samples {
		if s.Value.Kind() == metrics.KindUint64 {
			v[i] = s.Value.Uint64()
		}
	}
	return headroomPercent(g.bytes, v[0], v[1]+v[2], v[3])
}

// Bounds of the GOGC headroomPercent returns. Below minPercent a process
// whose stacks dwarf its heap would collect too often for the little
// garbage it makes; maxPercent is where raising it stops mattering.
const (
	minPercent = 25
	maxPercent = 10000
)

// garbageKnee is the most garbage the heap may hold above the live heap
// (less while the live heap is smaller: GOGC=100, as before Go 1.18 counted
// stacks and globals in the base), until minPercent of the base is more
// (GOGC=25, from ~64 MiB live). A runner's large live heap is its open
// streams (10,000 streams: ~50 MB, beside 20 MB of stacks), which allocate
// little while they wait, and the records of a wave of streams ending
// together: garbage in proportion to them cost peak RSS for few
// collections saved (issue 19, BENCHMARKS.md: at 10,000 streams, a
// quarter byte of garbage per live byte above 32 MiB peaked at ~170 MB,
// an eighth above 16 MiB at ~152, 16 MiB flat at ~148). A small heap,
// where the collector's CPU matters, keeps its headroom: the 40,000 req/s
// run (~20 MB live) collects 27 times where it did 21 with 32 MiB, for
// the same CPU within its noise.
const garbageKnee = 16 << 20

// garbageCap returns the garbage the heap may hold above live.
func garbageCap(live uint64) uint64 {
	return min(live, garbageKnee)
}

// headroomPercent returns the GOGC whose next heap goal, live + (live +
// roots) * GOGC/100, leaves room for max(floor - live - stacks,
// garbageCap(live)) bytes of garbage: the heap goal plus the stacks reach
// the floor, and above it the heap may hold garbageCap's garbage. roots
// are the scanned stack and global bytes (the runtime's base beside
// live); stacks are the bytes the stacks occupy. The result is within
// [minPercent, maxPercent]; 100 when nothing is known.
func headroomPercent(floor, live, roots, stacks uint64) int {
	base := live + roots
	if base == 0 {
		return 100
	}
	headroom := garbageCap(live)
	if live+stacks < floor {
		headroom = max(headroom, floor-live-stacks)
	}
	return int(min(maxPercent, max(minPercent, headroom*100/base)))
}
