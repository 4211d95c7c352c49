package runner

import (
	"cmp"
	"runtime"
	"slices"
	"sync"
	"time"
)

// fixedSchedule is the replay plan of a timestamped dataset (§5.4): the
// conversations in timestamp order and the timestamp that maps to the
// phase start.
type fixedSchedule struct {
	order  []int   // conversation indices by first-turn timestamp, then index
	nums   []int   // the session number of each of order; nil: its position
	zeroMS float64 // dataset time of the phase start
}

// newFixedSchedule orders the conversations of r whose first turn has a
// timestamp. The zero is the first timestamp with auto-offset, else the
// start offset when set, else 0.
func newFixedSchedule(r *run) *fixedSchedule {
	fs := &fixedSchedule{}
	for i := range r.convs {
		if len(r.convs[i].Turns) > 0 && r.convs[i].Turns[0].HasTimestamp {
			fs.order = append(fs.order, i)
		}
	}
	ts := func(i int) float64 { return r.convs[i].Turns[0].TimestampMS }
	slices.SortStableFunc(fs.order, func(a, b int) int { return cmp.Compare(ts(a), ts(b)) })
	switch {
	case r.cfg.FixedScheduleAutoOffset && len(fs.order) > 0:
		fs.zeroMS = ts(fs.order[0])
	case r.cfg.FixedScheduleStartOffsetSet:
		fs.zeroMS = r.cfg.FixedScheduleStartOffset
	}
	return fs
}

// turns returns how many requests the schedule sends: every turn of every
// scheduled conversation.
func (fs *fixedSchedule) turns(r *run) int {
	n := 0
	for _, i := range fs.order {
		n += len(r.convs[i].Turns)
	}
	return n
}

// runFixedSchedule starts each conversation at its first turn's timestamp
// (relative to the zero), measured from the phase start on one absolute
// schedule; the later turns of a session follow its previous reply plus
// their delay, or their own timestamp when they have no delay. A
// concurrency ceiling, when set, counts sessions; waiting for it shows as
// lateness. It returns when every session it started has finished.
func runFixedSchedule(ph *phaseRun, r *run, fs *fixedSchedule, late *lateness) {
	ctx, spec, is, clock := ph.ctx, ph.spec, ph.is, r.clock
	var (
		wg  sync.WaitGroup
		ids slots
	)
	sem := newLimiter(spec.concurrency, spec.concurrencyRamp)
	defer sem.stop()
	defer wg.Wait()
	at := func(start int64, tsMS float64) int64 {
		return start + int64((tsMS-fs.zeroMS)*float64(time.Millisecond))
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start := clock.Now()
	if ph.zero > 0 {
		start = ph.zero
	}
	for k, conv := range fs.order {
		target := at(start, r.convs[conv].Turns[0].TimestampMS)
		preciseSleepUntil(ctx, clock, target)
		if !sem.acquire(ctx) || !is.startSession() {
			return
		}
		c, ok := is.take(target)
		if !ok {
			return
		}
		now := clock.Now()
		late.add(now, now-c.intended)
		s := r.sessions.start(r, conv)
		if fs.nums != nil { // a shard's part: the global session numbers
			s.num = fs.nums[k]
		}
		s.slot = ids.get()
		wg.Go(func() {
			defer func() {
				ids.put(s.slot)
				sem.release()
			}()
			ph.dispatch(ctx, c, s)
			for !s.done() && ctx.Err() == nil {
				t := s.nextTurn()
				now := clock.Now()
				when := s.readyAt(now)
				if t.DelayMS <= 0 && t.HasTimestamp {
					when = max(when, at(start, t.TimestampMS))
				}
				if when > now {
					coarseSleep(ctx, time.Duration(when-now))
				}
				c, ok := is.take(when)
				if !ok {
					return
				}
				ph.dispatch(ctx, c, s)
			}
		})
	}
}
