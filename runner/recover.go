package runner

import (
	"context"
	"time"

	"github.com/aiperf-go/aiperf/sink"
)

// recoverTimeout bounds the recovery of dead runs before a run starts: a
// healthy store takes a dead run's leftovers in milliseconds, and a store
// that is down must not hold the benchmark back (the spool is kept for the
// next run or `aiperf recover`).
const recoverTimeout = 2 * time.Second

// recoverDeadRuns stores what runs that died (kill -9, an evicted pod) left
// in the spool root this run uses, each to its own place in its own store,
// marking it interrupted (sink.Recover), so that nothing that reached the
// disk is lost even when the job never runs `aiperf recover`. It takes at
// most recoverTimeout (or the shutdown grace, when shorter), and a failure
// is a warning: the spool is kept for the next try.
func (r *run) recoverDeadRuns(ctx context.Context) {
	root := r.cfg.SpoolDir
	if root == "" {
		root = sink.DefaultSpoolRoot()
	}
	timeout := recoverTimeout
	if g := r.cfg.ShutdownGrace; g > 0 && g < timeout {
		timeout = g
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	rep, err := sink.Recover(ctx, root, r.opts.Stores)
	for _, rr := range rep.Runs {
		switch {
		case rr.Live || rr.Skipped != "":
		case rr.Err != nil:
			r.log.Warn("a dead run's spool could not be stored; it is kept for `aiperf recover`", "run_id", rr.ID, "spool", rr.Spool, "error", rr.Err)
		default:
			r.log.Warn("stored what a dead run left in its spool", "run_id", rr.ID, "store", rr.Store, "objects", len(rr.Delivered), "manifest_written", rr.Manifest)
		}
	}
	if err != nil && len(rep.Runs) == 0 {
		r.log.Warn("spool recovery", "spool_dir", root, "error", err)
	}
}
