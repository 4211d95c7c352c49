package mockserver

import (
	"context"
	"math/rand/v2"
	"time"
)

// schedule says when each token event of one response is due and which
// faults hit it. Deadlines are absolute, measured from the request's
// arrival, so a late wake-up shortens the next wait instead of shifting
// every later event (no accumulated drift).
type schedule struct {
	cfg     *Config
	rng     *rand.Rand // nil when nothing is random
	arrival time.Time
	next    time.Duration // offset of the next token event from arrival
	events  int           // token events so far

	errorFault  bool
	resetAt     int // token events sent before the reset; -1: none
	stallAt     int // token event preceded by the stall; -1: none
	malformedAt int // token event preceded by the malformed event; -1: none
}

// newSchedule draws the request's TTFT and faults for a response of n token
// events. Request seq draws from its own generator seeded (Seed, seq), in a
// fixed order, so a run is reproducible for a given arrival order.
func newSchedule(cfg *Config, seq uint64, arrival time.Time, n int) *schedule {
	s := &schedule{cfg: cfg, arrival: arrival, resetAt: -1, stallAt: -1, malformedAt: -1}
	if cfg.TTFTStddev > 0 || cfg.ITLStddev > 0 || cfg.ErrorRate > 0 || cfg.ResetRate > 0 ||
		cfg.StallRate > 0 || cfg.MalformedRate > 0 {
		s.rng = rand.New(rand.NewPCG(cfg.Seed, seq))
	}
	s.next = s.sample(cfg.TTFT, cfg.TTFTStddev)
	slots := max(n, 1)
	if s.hit(cfg.ErrorRate) {
		s.errorFault = true
	}
	if s.hit(cfg.ResetRate) {
		s.resetAt = s.rng.IntN(slots)
	}
	if s.hit(cfg.StallRate) {
		s.stallAt = s.rng.IntN(slots)
	}
	if s.hit(cfg.MalformedRate) {
		s.malformedAt = s.rng.IntN(slots)
	}
	return s
}

// hit reports whether a fault of the given rate happens.
func (s *schedule) hit(rate float64) bool {
	return rate > 0 && (rate >= 1 || s.rng.Float64() < rate)
}

// sample draws a normal duration clamped at 0.
func (s *schedule) sample(mean, stddev time.Duration) time.Duration {
	if stddev == 0 || s.rng == nil {
		return mean
	}
	return max(0, mean+time.Duration(s.rng.NormFloat64()*float64(stddev)))
}

// nextDeadline returns the offset from arrival at which the next token
// event is due, including an injected stall before it, and advances.
func (s *schedule) nextDeadline() time.Duration {
	if s.events > 0 {
		s.next += s.sample(s.cfg.ITL, s.cfg.ITLStddev)
	}
	if s.events == s.stallAt {
		s.next += s.cfg.StallDuration
	}
	s.events++
	return s.next
}

// lastDeadline returns the offset at which the last of n token events is
// due: when a non-streaming response is complete.
func (s *schedule) lastDeadline(n int) time.Duration {
	d := s.next
	for range max(n, 1) {
		d = s.nextDeadline()
	}
	return d
}

// waiter sleeps until deadlines, reusing one timer per request.
//
// time.Sleep and timers overshoot by ~0.1–0.3 ms on Linux for waits of a
// millisecond or more; a wait shorter than 1 ms can take ~1 ms when the
// process is otherwise idle, because the runtime's netpoller sleeps in
// whole milliseconds. Deadlines being absolute, such lateness does not
// accumulate: the following events catch up.
type waiter struct {
	timer *time.Timer
}

// until blocks until at, ctx is done or done is closed; it reports
// whether at was reached with ctx still live.
func (w *waiter) until(ctx context.Context, done <-chan struct{}, at time.Time) bool {
	d := time.Until(at)
	if d <= 0 {
		return ctx.Err() == nil
	}
	if w.timer == nil {
		w.timer = time.NewTimer(d)
	} else {
		w.timer.Reset(d)
	}
	select {
	case <-w.timer.C:
		return true
	case <-ctx.Done():
	case <-done:
	}
	w.timer.Stop()
	return false
}
