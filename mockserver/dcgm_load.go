package mockserver

import (
	"sync/atomic"
	"time"
)

// loadClock integrates the number of inference requests in flight over
// time, so the fake GPUs can follow the mock's average load between two
// scrapes rather than the count at the instant of the scrape. Requests
// update it with a handful of atomics; a nil loadClock does nothing.
//
// The integral from base to T is Σ over finished requests of their
// durations plus Σ over requests in flight of T − their arrival, kept as
// three sums. A reader needs the three from the same instant: writers
// bump begun before and ended after their updates, and a reader that saw
// ended == begun around its loads saw no update half done.
type loadClock struct {
	base     time.Time
	begun    atomic.Uint64 // updates begun
	ended    atomic.Uint64 // updates ended
	inFlight atomic.Int64
	starts   atomic.Int64 // Σ arrival of the requests in flight, µs since base
	finished atomic.Int64 // Σ duration of the finished requests, µs
}

// newLoadClock returns a clock whose times count from now.
func newLoadClock() *loadClock { return &loadClock{base: time.Now()} }

// enter counts a request that arrived at arrival.
func (c *loadClock) enter(arrival time.Time) {
	if c == nil {
		return
	}
	at := arrival.Sub(c.base).Microseconds()
	c.begun.Add(1)
	c.inFlight.Add(1)
	c.starts.Add(at)
	c.ended.Add(1)
}

// leave ends a request counted by enter(arrival), now.
func (c *loadClock) leave(arrival time.Time) {
	if c == nil {
		return
	}
	at := arrival.Sub(c.base).Microseconds()
	now := time.Since(c.base).Microseconds()
	c.begun.Add(1)
	c.inFlight.Add(-1)
	c.starts.Add(-at)
	c.finished.Add(now - at)
	c.ended.Add(1)
}

// maxSnapshotTries bounds the reader's retries; past it the reading may
// be torn by one request's update, an error of at most that request's
// time since base, which only a pathological stream of updates causes.
const maxSnapshotTries = 1000

// read returns the time since base in µs and the integral of requests in
// flight up to it, in request·µs.
func (c *loadClock) read() (now, busy int64) {
	for range maxSnapshotTries {
		e := c.ended.Load()
		n, s, f := c.inFlight.Load(), c.starts.Load(), c.finished.Load()
		now = time.Since(c.base).Microseconds()
		busy = f + n*now - s
		if c.begun.Load() == e {
			break
		}
	}
	return now, max(busy, 0)
}
