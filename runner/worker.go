package runner

import (
	"sync"
	"time"

	"github.com/aiperf-go/aiperf/record"
)

// runClosedLoop runs workers that each send back to back. A worker keeps a
// session until its last turn, waiting for each turn's delay after the
// previous reply, so concurrency counts sessions (§5.2). A worker moves on
// to the next phase as soon as the current one has no credits left, without
// waiting for the others: warmup hands over to profiling in steady state
// instead of draining and restarting every worker at once (a burst that
// would distort the first profiling requests); a session still open at the
// handover is dropped. A worker whose connection was refused backs off
// before its next request (see backoff) instead of spinning on a dead
// target. It returns when every worker has finished.
func runClosedLoop(workers int, phases []*phaseRun, clock *record.Clock) {
	var wg sync.WaitGroup
	start := time.Now()
	for w := 0; w < workers; w++ {
		wk := &worker{slot: w, phases: phases, clock: clock, wg: &wg}
		wg.Go(func() {
			// A concurrency ramp starts worker w at step w of the ramp.
			if d := rampStep(phases[0].spec.concurrencyRamp, w, workers); d > 0 {
				coarseSleep(phases[0].ctx, time.Until(start.Add(d)))
			}
			wk.run(nil)
		})
	}
	wg.Wait()
}

// worker is a closed-loop worker's place in its phases. It lives here
// rather than on a goroutine's stack, so that the worker can move to a
// fresh goroutine while a turn's stream is parked (see turn): one
// goroutine at a time runs it, all counted in wg.
type worker struct {
	slot   int
	phases []*phaseRun
	clock  *record.Clock
	wg     *sync.WaitGroup

	ph int      // the phase it is in: phases[ph]
	s  *session // the session it keeps until its last turn; nil for none
	bo backoff
}

// run sends turns back to back until the worker's last phase has no
// credit left for it, first reading t, a turn begun before, to its end.
// When a turn parks, run leaves the worker to a fresh goroutine (resume)
// and returns.
func (wk *worker) run(t *turn) {
	for wk.ph < len(wk.phases) {
		ph := wk.phases[wk.ph]
		if t != nil {
			if t.read(true) {
				wk.wg.Add(1)
				go wk.resume(t)
				return
			}
			wk.bo.after(ph.ctx, t.end())
		}
		if t = wk.next(ph); t == nil {
			// A session still open at the handover is dropped.
			wk.ph++
			wk.s = nil
		}
	}
}

// resume waits for a parked turn's data, then runs the worker on.
func (wk *worker) resume(t *turn) {
	defer wk.wg.Done()
	t.wait()
	wk.run(t)
}

// next begins the worker's next turn in phase ph: the next one of its
// session, after the turn's delay, or the first of a new session. It
// returns nil when ph has ended or has no credit left.
func (wk *worker) next(ph *phaseRun) *turn {
	if ph.ctx.Err() != nil {
		return nil
	}
	var c credit
	ok := false
	if wk.s == nil || wk.s.done() {
		if wk.s, c, ok = ph.is.startWithCredit(ph.openSession); !ok {
			return nil
		}
		wk.s.slot = wk.slot
		if d := c.intended - wk.clock.Now(); d > 0 { // a first turn's delay
			coarseSleep(ph.ctx, time.Duration(d))
		}
	} else {
		wk.s.waitReady(ph.ctx, wk.clock)
		if c, ok = ph.is.take(0); !ok {
			return nil
		}
	}
	return ph.begin(ph.ctx, c, wk.s)
}
