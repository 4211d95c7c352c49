package runner

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
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
	sessions    int           // 0: unlimited; else start no more sessions than this
	concurrency int           // closed-loop workers, or the ceiling in rate mode (0: none)
	rate        float64       // > 0: open loop
	intervals   Intervals     // rate mode only
	prefill     int           // prefill concurrency (0: none)
	// Ramps: the concurrency (workers or ceiling), the prefill limit and the
	// rate rise to their targets over these durations (0: none).
	concurrencyRamp, prefillRamp, rateRamp time.Duration
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

// dispatchFunc sends the next turn of session s under credit c, blocking
// until it completes, and advances the session. It returns the request's
// error type, "" when it succeeded (or was left out of the results).
type dispatchFunc func(ctx context.Context, c credit, s *session) (failure string)

// phaseRun is a phase in progress: its credits, its context (cancelled when
// its grace period ends), how sessions start and how turns are sent.
type phaseRun struct {
	spec *phaseSpec
	is   *issuer
	ctx  context.Context
	// newSession starts a session on the next sampled conversation, or
	// returns nil when the phase may start no more sessions.
	newSession func() *session
	// openSession starts a session on the next sampled conversation
	// without asking the issuer (issuer.startWithCredit does).
	openSession func() *session
	dispatch    dispatchFunc
	// begin starts a turn as dispatch does, leaving its response to read
	// (see turn): dispatch is begin then run.
	begin turnFunc
	// zero, when set, is the schedule's start (monotonic ns): a shard's
	// common start. An open loop sends ticks offset, offset+stride, ... of
	// the schedule (a shard's part); stride 0 means every tick.
	zero           int64
	stride, offset int
}

// lateness records how far behind schedule each open-loop send was, and
// shows it on the live display.
type lateness struct {
	mu     sync.Mutex
	values []int64 // ns
	prog   *progress
}

// add notes a send at monotonic time at, ns behind its schedule.
func (l *lateness) add(at, ns int64) {
	l.mu.Lock()
	l.values = append(l.values, ns)
	l.mu.Unlock()
	l.prog.lateness(at, ns)
}

// runOpenLoop sends request i at start + sum of the first i intervals,
// measured from the phase start and never from the previous send, so that a
// slow send does not shift the rest of the schedule. At each tick it sends
// the next turn of a session whose turn is due (previous reply plus delay),
// else the first turn of a new session. A concurrency ceiling, when set,
// counts sessions: a new session waits for a slot (that delay shows as
// lateness). It returns when every request it started has finished.
func runOpenLoop(ph *phaseRun, clock *record.Clock, late *lateness) {
	ctx, spec, is := ph.ctx, ph.spec, ph.is
	var (
		wg  sync.WaitGroup
		ids slots
		due dueSessions
	)
	sem := newLimiter(spec.concurrency, spec.concurrencyRamp)
	defer sem.stop()
	// Sessions waiting for their next turn's delay stop waiting when the
	// loop ends.
	loopCtx, endLoop := context.WithCancel(ctx)
	defer func() {
		endLoop()
		wg.Wait()
	}()
	end := func(s *session) {
		ids.put(s.slot)
		due.active.Add(-1)
		sem.release()
		due.wake()
	}
	// The pacer sleeps in the kernel on its own thread; see preciseSleepUntil.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start := clock.Now()
	if ph.zero > 0 {
		start = ph.zero
	}
	next := start
	for range ph.offset { // the ticks of the shards before this one
		next += rampedInterval(spec, spec.intervals.Next(), next-start)
	}
	exhausted := false // no new session may start
	for ctx.Err() == nil {
		preciseSleepUntil(ctx, clock, next)
		s := due.pop()
		for s == nil && ctx.Err() == nil {
			if exhausted {
				if due.active.Load() == 0 {
					return
				}
				due.wait(ctx)
				s = due.pop()
				continue
			}
			if sem != nil {
				select {
				case sem.slots <- struct{}{}:
				case <-due.signal():
					s = due.pop()
					continue
				case <-ctx.Done():
					return
				}
			}
			if s = ph.newSession(); s == nil {
				exhausted = true
				sem.release()
				continue
			}
			s.slot = ids.get()
			due.active.Add(1)
		}
		if s == nil {
			break
		}
		c, ok := is.take(next)
		if !ok {
			end(s)
			break
		}
		now := clock.Now()
		late.add(now, now-c.intended)
		wg.Go(func() {
			relay(&wg, ph.begin(ctx, c, s), func(string) {
				if s.done() {
					end(s)
					return
				}
				s.waitReady(loopCtx, clock)
				if loopCtx.Err() != nil {
					end(s)
					return
				}
				due.push(s)
			})
		})
		for range max(1, ph.stride) {
			next += rampedInterval(spec, spec.intervals.Next(), next-start)
		}
	}
}

// rampedInterval stretches an inter-arrival interval drawn at the target
// rate while the rate ramps up: the rate is updated every 0.1 s, linearly
// from target*(0.1/ramp) to the target at the end of the ramp (§5.2).
func rampedInterval(spec *phaseSpec, dt time.Duration, elapsed int64) int64 {
	if spec.rateRamp <= 0 || elapsed >= int64(spec.rateRamp) {
		return int64(dt)
	}
	const step = int64(100 * time.Millisecond)
	frac := float64(elapsed/step+1) * float64(step) / float64(spec.rateRamp)
	return int64(float64(dt) / min(1, frac))
}

// dueSessions holds sessions whose next turn is due, for the open loop.
type dueSessions struct {
	mu     sync.Mutex
	queue  []*session
	notify chan struct{} // capacity 1: "something changed"
	active atomic.Int64  // sessions started and not ended
}

func (d *dueSessions) signal() chan struct{} {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.notify == nil {
		d.notify = make(chan struct{}, 1)
	}
	return d.notify
}

// wake notes a change without blocking.
func (d *dueSessions) wake() {
	select {
	case d.signal() <- struct{}{}:
	default:
	}
}

func (d *dueSessions) push(s *session) {
	d.mu.Lock()
	d.queue = append(d.queue, s)
	d.mu.Unlock()
	d.wake()
}

// pop returns the session due first, or nil.
func (d *dueSessions) pop() *session {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.queue) == 0 {
		return nil
	}
	s := d.queue[0]
	d.queue = d.queue[1:]
	return s
}

// wait blocks until something changes or ctx ends.
func (d *dueSessions) wait(ctx context.Context) {
	select {
	case <-d.signal():
	case <-ctx.Done():
	}
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
