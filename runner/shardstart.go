package runner

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/aiperf-go/aiperf/sink"
)

// ErrShardBarrier means the shard barrier timed out: not every shard of
// the group wrote its ready object in time.
var ErrShardBarrier = errors.New("shard barrier timed out")

// Barrier timing: how often a waiting shard lists the ready objects, and
// how long after the last ready object (by the store's clock) the shards
// start, so that every shard has seen it by then.
var (
	barrierPoll   = 200 * time.Millisecond
	barrierMargin = time.Second
)

// awaitStart runs before a shard's profiling phase: it writes the shard's
// ready object (runs/<group>/ready/<i>), then waits for the common start,
// --start-at or the barrier's release, and makes it the phase's schedule
// zero. It records the start and the measured clock skew for the
// manifest. Without a common start it returns at once.
func (r *run) awaitStart(ph *phaseRun) error {
	sh, cfg, ctx := r.shard, r.cfg, ph.ctx
	if err := sh.store.PutReady(ctx, sh.group, sh.index, time.Now()); err != nil {
		return fmt.Errorf("shard %d: %w", sh.index, err)
	}
	var start time.Time
	var marks []sink.ReadyMark
	var err error
	switch {
	case cfg.ShardBarrier:
		if marks, err = r.barrier(ctx); err != nil {
			return err
		}
		start = r.release(marks)
	default:
		// The marks of the shards ready so far, for the skew.
		if marks, err = sh.store.ListReady(ctx, sh.group, true); err != nil {
			r.log.Warn("ready objects could not be listed: clock skew not measured", "error", err)
		}
		start = cfg.StartAt
	}
	sh.info.ClockSkewMS, sh.info.StoreOffsetMS = skew(marks, sh.index)
	for _, m := range marks {
		sh.info.Ready = append(sh.info.Ready, m.Index)
	}
	if start.IsZero() {
		return nil
	}
	// One wall-clock read: from here the wait is monotonic.
	now := r.clock.Now()
	zero := now + int64(time.Until(start))
	if zero < now {
		// The schedule keeps the common zero, so that this shard's sends
		// still line up with the others'; they go out late, and the
		// lateness shows it.
		r.log.Warn("the common start was already past: the schedule starts late", "start_at", start, "late", time.Duration(now-zero))
	}
	sleepUntil(ctx, r.clock, zero)
	if err := ctx.Err(); err != nil {
		return nil // interrupted: the run ends as interrupted
	}
	ph.zero = zero
	sh.info.StartAt = &start
	r.log.Info("shards started together", "start_at", start, "clock_skew_ms", sh.info.ClockSkewMS)
	return nil
}

// barrier polls the group's ready objects until every shard's is there,
// or --shard-barrier-timeout passes (ErrShardBarrier, naming the missing
// shards).
func (r *run) barrier(ctx context.Context) ([]sink.ReadyMark, error) {
	sh := r.shard
	deadline := time.Now().Add(r.cfg.ShardBarrierTimeout)
	missing := missingShards(nil, sh.count)
	for {
		// A failed listing (a store's hiccup, or another shard's upload
		// in progress) is tried again until the deadline.
		marks, err := sh.store.ListReady(ctx, sh.group, false)
		if err == nil {
			missing = missingShards(marks, sh.count)
		}
		if err == nil && len(missing) == 0 {
			if marks, err = sh.store.ListReady(ctx, sh.group, true); err == nil {
				return marks, nil
			}
		}
		if time.Now().After(deadline) {
			if err != nil {
				return nil, fmt.Errorf("%w: listing the ready objects of group %s: %w", ErrShardBarrier, sh.group, err)
			}
			return nil, fmt.Errorf("%w: %d of %d shards ready after %v; missing shards %v of group %s (did their jobs start? raise --shard-barrier-timeout if they start slowly)",
				ErrShardBarrier, sh.count-len(missing), sh.count, r.cfg.ShardBarrierTimeout, missing, sh.group)
		}
		coarseSleep(ctx, barrierPoll)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
}

// missingShards returns the indices in [0, count) without a ready mark.
func missingShards(marks []sink.ReadyMark, count int) []int {
	var missing []int
	for i := range count {
		if !slices.ContainsFunc(marks, func(m sink.ReadyMark) bool { return m.Index == i }) {
			missing = append(missing, i)
		}
	}
	return missing
}

// release is the barrier's common start, by this shard's clock: the last
// ready object's store time plus barrierMargin, less this shard's offset
// to the store's clock (its own object's store time minus the time it
// wrote in it). Every shard computes the same store time; each converts it
// with its own offset, so the start corrects for the shards' clock skew.
func (r *run) release(marks []sink.ReadyMark) time.Time {
	var last time.Time
	var offset time.Duration
	for _, m := range marks {
		if m.ModTime.After(last) {
			last = m.ModTime
		}
		if m.Index == r.shard.index {
			offset = m.ModTime.Sub(m.Written)
		}
	}
	return last.Add(barrierMargin).Add(-offset)
}

// skew estimates the shards' clock skew from the ready objects: each
// object's store time minus the time its shard wrote in it is that shard's
// offset to the store's clock (plus its upload time); the spread of the
// offsets (max - min) is the skew between the shards' clocks. It also
// returns this shard's own offset. Both are nil without marks.
func skew(marks []sink.ReadyMark, index int) (spreadMS, ownMS *float64) {
	if len(marks) == 0 {
		return nil, nil
	}
	lo, hi := time.Duration(1<<62), time.Duration(-1<<62)
	for _, m := range marks {
		off := m.ModTime.Sub(m.Written)
		lo, hi = min(lo, off), max(hi, off)
		if m.Index == index {
			v := durMS(off)
			ownMS = &v
		}
	}
	v := durMS(hi - lo)
	return &v, ownMS
}

func durMS(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
