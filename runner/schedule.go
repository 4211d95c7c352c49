package runner

import (
	"context"
	"runtime"
	"sync"
	"time"

	"github.com/aiperf-go/aiperf/record"
)

// phaseSpec is one credit phase: how many requests, for how long, and how
// the credits are issued.
type phaseSpec struct {
	phase       record.Phase
	count       int           // 0: unlimited (duration-bound)
	duration    time.Duration // 0: unlimited (count-bound)
	grace       time.Duration // wait for in-flight after the duration; < 0: forever
	concurrency int           // closed-loop workers, or the ceiling in rate mode (0: none)
	rate        float64       // > 0: open loop
	intervals   Intervals     // rate mode only
}

// credit is permission to send one request: its sequence number in the
// phase and its intended send time.
type credit struct {
	num      int
	intended int64 // monotonic ns
}

// issuer hands out credits under one lock so that sequence numbers and
// intended times are assigned together, and enforces the stop conditions.
// The phase starts at its first credit: that is when its duration begins
// and onStart runs.
type issuer struct {
	mu       sync.Mutex
	spec     *phaseSpec
	clock    *record.Clock
	onStart  func()
	sent     int
	deadline int64 // monotonic ns; 0: none
}

func newIssuer(spec *phaseSpec, clock *record.Clock, onStart func()) *issuer {
	return &issuer{spec: spec, clock: clock, onStart: onStart}
}

// take returns the next credit with the given intended time (now when 0),
// or false when a stop condition is met.
func (is *issuer) take(intended int64) (credit, bool) {
	is.mu.Lock()
	defer is.mu.Unlock()
	now := is.clock.Now()
	if is.spec.count > 0 && is.sent >= is.spec.count {
		return credit{}, false
	}
	if is.sent == 0 {
		if is.spec.duration > 0 {
			is.deadline = now + int64(is.spec.duration)
		}
		if is.onStart != nil {
			is.onStart()
		}
	}
	if is.deadline > 0 && now >= is.deadline {
		return credit{}, false
	}
	if intended == 0 {
		intended = now
	}
	c := credit{num: is.sent, intended: intended}
	is.sent++
	return c, true
}

// slots hands out small integers identifying concurrent senders ("workers"),
// reusing freed ones, so worker ids stay meaningful in open-loop mode too.
type slots struct {
	mu   sync.Mutex
	free []int
	next int
}

func (s *slots) get() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n := len(s.free); n > 0 {
		id := s.free[n-1]
		s.free = s.free[:n-1]
		return id
	}
	s.next++
	return s.next - 1
}

func (s *slots) put(id int) {
	s.mu.Lock()
	s.free = append(s.free, id)
	s.mu.Unlock()
}

// dispatchFunc sends the request of credit c from worker slot, blocking until
// it completes.
type dispatchFunc func(ctx context.Context, c credit, slot int)

// phaseRun is a phase in progress: its credits, its context (cancelled when
// its grace period ends) and how its requests are sent.
type phaseRun struct {
	spec     *phaseSpec
	is       *issuer
	ctx      context.Context
	dispatch dispatchFunc
}

// runClosedLoop runs workers that each send back to back. A worker moves on
// to the next phase as soon as the current one has no credits left, without
// waiting for the others: warmup hands over to profiling in steady state
// instead of draining and restarting every worker at once (a burst that
// would distort the first profiling requests). It returns when every worker
// has finished.
func runClosedLoop(workers int, phases []*phaseRun) {
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(slot int) {
			defer wg.Done()
			for _, ph := range phases {
				for ph.ctx.Err() == nil {
					c, ok := ph.is.take(0)
					if !ok {
						break
					}
					ph.dispatch(ph.ctx, c, slot)
				}
			}
		}(w)
	}
	wg.Wait()
}

// lateness records how far behind schedule each open-loop send was.
type lateness struct {
	mu     sync.Mutex
	values []int64 // ns
}

func (l *lateness) add(ns int64) {
	l.mu.Lock()
	l.values = append(l.values, ns)
	l.mu.Unlock()
}

// runOpenLoop sends request i at start + sum of the first i intervals,
// measured from the phase start and never from the previous send, so that a
// slow send does not shift the rest of the schedule. A concurrency ceiling,
// when set, delays a send until a slot frees (that delay shows as lateness).
// It returns when every request it started has finished.
func runOpenLoop(ctx context.Context, is *issuer, spec *phaseSpec, clock *record.Clock, late *lateness, dispatch dispatchFunc) {
	var (
		wg  sync.WaitGroup
		sem chan struct{}
		ids slots
	)
	if spec.concurrency > 0 {
		sem = make(chan struct{}, spec.concurrency)
	}
	// The pacer sleeps in the kernel on its own thread; see preciseSleepUntil.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	next := clock.Now()
	for ctx.Err() == nil {
		preciseSleepUntil(ctx, clock, next)
		if sem != nil {
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
			}
		}
		if ctx.Err() != nil {
			break
		}
		c, ok := is.take(next)
		if !ok {
			if sem != nil {
				<-sem
			}
			break
		}
		late.add(clock.Now() - c.intended)
		wg.Add(1)
		go func() {
			defer wg.Done()
			slot := ids.get()
			dispatch(ctx, c, slot)
			ids.put(slot)
			if sem != nil {
				<-sem
			}
		}()
		next += int64(spec.intervals.Next())
	}
	wg.Wait()
}

// coarseSleep waits d with a Go timer, or until ctx is done.
func coarseSleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
