package runner

import (
	"context"
	"sync"
	"time"

	"github.com/aiperf-go/aiperf/record"
)

// runUserCentric runs the user-centric rate mode (§5.5): NumUsers users
// share UserCentricRate requests/s, so each user sends a turn every
// gap = users/rate seconds after its previous turn started, or at once when
// that reply came back later, resetting its baseline to then (no catch-up
// burst). Users start staggered by 1/rate so the aggregate rate holds from
// the first second, and in mid-conversation (user i skips the first
// i·turns/users turns of its first conversation) so that sessions end at
// staggered times, as a run already in steady state would; a user whose
// session ends starts a new one on its own schedule. Dataset turn delays are
// replaced by the gap. A concurrency limit, when set, caps requests in
// flight. It returns when every user has stopped.
func (r *run) runUserCentric(ph *phaseRun, late *lateness) {
	cfg, clock := r.cfg, r.clock
	users := cfg.NumUsers
	gap := time.Duration(float64(users) / cfg.UserCentricRate * float64(time.Second))
	stagger := time.Duration(float64(time.Second) / cfg.UserCentricRate)
	inflight := newLimiter(cfg.Concurrency, 0)
	var wg sync.WaitGroup
	start := clock.Now()
	for u := range users {
		wg.Go(func() {
			next := start + int64(stagger)*int64(u)
			first := true
			var s *session
			for ph.ctx.Err() == nil {
				if s == nil || s.done() {
					if s = ph.newSession(); s == nil {
						return
					}
					s.slot = u
					if first {
						s.turn = u * len(s.c.Turns) / users
						first = false
					}
				}
				sleepUntil(ph.ctx, clock, next)
				if !inflight.acquire(ph.ctx) {
					return
				}
				c, ok := ph.is.take(next)
				if !ok {
					inflight.release()
					return
				}
				now := clock.Now()
				late.add(now, now-c.intended)
				ph.dispatch(ph.ctx, c, s)
				inflight.release()
				next = max(c.intended+int64(gap), clock.Now())
			}
		})
	}
	wg.Wait()
}

// sleepUntil waits for deadline like preciseSleepUntil, for goroutines that
// do not hold a thread: a Go timer until 2 ms before, then the precise
// kernel sleep, so that thousands of waiting users do not hold thousands
// of threads.
func sleepUntil(ctx context.Context, clock *record.Clock, deadline int64) {
	const precise = 2 * time.Millisecond
	if wait := time.Duration(deadline - clock.Now()); wait > precise {
		coarseSleep(ctx, wait-precise)
	}
	preciseSleepUntil(ctx, clock, deadline)
}
