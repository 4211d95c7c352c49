package runner

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/aiperf-go/aiperf/record"
)

// ErrTargetDown means the run stopped sending early because the target
// looked down: no request succeeded for --failure-window after one failed.
// The records up to then are stored and the run's manifest says failed.
var ErrTargetDown = errors.New("target down")

// DefaultFailureWindow is --failure-window's default: a target that answers
// nothing but failures for this long is taken for dead.
const DefaultFailureWindow = 10 * time.Second

// errTargetDown is the cause the phases are cancelled with when the failure
// window trips.
var errTargetDown = errors.New("target down (--failure-window)")

// failureWindow decides when a target is down. It watches the requests that
// finish and trips at the first failure that comes a whole window or more
// after a failure with no success in between: every request that finished in
// that window failed, and requests kept failing to its end. Tripping calls
// stop once, which ends sending.
//
// A time window, not a count of consecutive failures, because a count means
// different things at 1 request/s and 10,000 (k6's abortOnFail thresholds
// take a delayAbortEval time for the same reason). It is checked as requests
// finish, so it costs no goroutine; a target that takes requests and never
// answers produces no flood and fails them at --request-timeout-seconds.
// Requests cancelled by --request-cancellation-rate are neither successes
// nor failures: they say nothing about the target.
//
// A nil *failureWindow (the window is off) watches nothing.
type failureWindow struct {
	window time.Duration
	clock  *record.Clock
	stop   func()

	mu sync.Mutex
	// since is the monotonic time of the first failure after the last
	// success; 0 when the last request that finished succeeded (or none
	// has finished).
	since   int64
	streak  errorTally // the failures since then, by kind
	verdict string     // why it tripped; "" until then
}

// newFailureWindow returns a window of the given length that calls stop when
// it trips, or nil when window is not positive (off).
func newFailureWindow(window time.Duration, clock *record.Clock, stop func()) *failureWindow {
	if window <= 0 {
		return nil
	}
	return &failureWindow{window: window, clock: clock, stop: stop}
}

// observe notes a finished request. It is safe for concurrent use.
func (w *failureWindow) observe(rec *record.Record) {
	if w == nil || rec.Cancelled {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if rec.Error == nil {
		w.since = 0
		w.streak = errorTally{}
		return
	}
	now := w.clock.Now()
	if w.since == 0 {
		w.since = now
	}
	w.streak.add(rec.Error)
	if w.verdict != "" || time.Duration(now-w.since) < w.window {
		return
	}
	w.verdict = fmt.Sprintf("no request succeeded for %v (--failure-window %g): stopped after %d failures in a row: %s",
		time.Duration(now-w.since).Round(time.Millisecond), w.window.Seconds(), w.streak.total, w.streak)
	w.stop()
}

// tripped returns why the window tripped, or "" if it did not.
func (w *failureWindow) tripped() string {
	if w == nil {
		return ""
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.verdict
}

// Closed-loop back-off after a refused connection: a worker whose request
// was refused waits before its next one, from refusedBackoffMin doubling to
// refusedBackoffMax, so that a dead target is not hammered in a tight loop
// (thousands of records a second) while the failure window runs.
const (
	refusedBackoffMin = 5 * time.Millisecond
	refusedBackoffMax = time.Second
)

// backoff is one closed-loop worker's wait after refused connections. The
// zero value waits refusedBackoffMin first. It is not safe for concurrent
// use: each worker has its own.
type backoff struct {
	next time.Duration
}

// after waits, if the request that just finished with error type failure
// ("" for a success) was refused, and resets the back-off otherwise. Each
// wait is drawn from [d/2, d] so that workers refused together do not come
// back together. It returns early when ctx is done.
func (b *backoff) after(ctx context.Context, failure string) {
	if failure != refusedType {
		b.next = 0
		return
	}
	d := max(b.next, refusedBackoffMin)
	b.next = min(2*d, refusedBackoffMax)
	coarseSleep(ctx, d/2+rand.N(d/2+1))
}

// refusedType is the error type of a request whose connection was refused
// (see sender.failErr).
const refusedType = "ConnectionRefusedError"
