package multirun

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path"
	"time"

	"gocloud.dev/blob"

	"github.com/aiperf-go/aiperf/runner"
)

// ErrAllRunsFailed means no profile run (or no sweep point) succeeded.
var ErrAllRunsFailed = errors.New("every profile run failed")

// ConsistentSeed is the seed every profile run uses with
// --set-consistent-seed when --random-seed is not given.
const ConsistentSeed = 42

// RunFunc runs one benchmark, as runner.Run does with the process's
// Options; it is the hook tests replace.
type RunFunc func(ctx context.Context, cfg *runner.Config) (*runner.Result, error)

// Options are what a multi-run benchmark needs besides the configuration.
type Options struct {
	// Run runs one benchmark; required.
	Run RunFunc
	// Stores opens store URLs for the aggregate files (nil: gocloud's
	// default mux), as runner.Options.Stores.
	Stores *blob.URLMux
	// Stdout receives the run headers and the aggregate summary (nil:
	// discarded). Each run prints its own table through Run.
	Stdout io.Writer
	// Logger receives diagnostics; nil discards them.
	Logger *slog.Logger
	// Version is written as the aggregate's aiperf_version.
	Version string
}

func (o *Options) stdout() io.Writer {
	if o.Stdout == nil {
		return io.Discard
	}
	return o.Stdout
}

func (o *Options) logger() *slog.Logger {
	if o.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return o.Logger
}

// Report is what a multi-run benchmark produced.
type Report struct {
	// Dest is the benchmark's destination: profile_runs/ and aggregate/
	// are below it.
	Dest string
	// Outcomes has one entry per run attempted, in order.
	Outcomes []Outcome
	// Aggregate is nil when fewer than two runs succeeded.
	Aggregate *Aggregate
	// JSON and CSV are where the aggregate files were stored ("" if not).
	JSON, CSV string
}

// Successful counts the runs that succeeded.
func (r *Report) Successful() int { return successes(r.Outcomes) }

// Profile runs the benchmark cfg.NumProfileRuns times (§5.8): run k stores
// its artifacts in <dest>/profile_runs/run_000k/, runs after the first
// wait cfg.ProfileRunCooldown and skip the warmup when
// ProfileRunDisableWarmupAfterFirst, and every run uses seed 42 when
// SetConsistentSeed and no --random-seed. <dest> is runner.ArtifactDir(cfg).
// A failed run does not stop the others. With two or more successful runs
// it stores aggregate/profile_export_aiperf_aggregate.{json,csv} and prints
// the summary to opts.Stdout.
//
// It returns the report with ErrAllRunsFailed when no run succeeded,
// ErrTooFewRuns when one did, an error wrapping runner.ErrInterrupted when
// ctx was cancelled (the runs so far are still aggregated), and at once a
// *runner.InputError (the same input would fail every run). Failed runs
// beside two or more successful ones are reported, not returned, as
// AIPerf does.
func Profile(ctx context.Context, cfg *runner.Config, opts Options) (*Report, error) {
	rep := &Report{Dest: runner.ArtifactDir(cfg)}
	n := max(cfg.NumProfileRuns, 1)
	log := opts.logger()
	interrupted := false
	for k := 1; k <= n; k++ {
		if k > 1 && cfg.ProfileRunCooldown > 0 {
			log.Info("cooling down between profile runs", "seconds", cfg.ProfileRunCooldown.Seconds())
			if !sleep(ctx, cfg.ProfileRunCooldown) {
				interrupted = true
				break
			}
		}
		label := RunLabel(k)
		dest, err := Join(rep.Dest, path.Join(ProfileRunsDir, label))
		if err != nil {
			return rep, err
		}
		c := runConfig(cfg, k, dest)
		fmt.Fprintf(opts.stdout(), "\nProfile run %d/%d (%s): %s\n", k, n, label, dest)
		res, err := opts.Run(ctx, c)
		if inputErr := (*runner.InputError)(nil); errors.As(err, &inputErr) {
			return rep, err
		}
		o := Outcome{Label: label, Err: err}
		if res != nil {
			o.Summary = res.Summary
		}
		if err != nil {
			log.Warn("profile run failed", "run", label, "err", err)
		}
		rep.Outcomes = append(rep.Outcomes, o)
		if errors.Is(err, runner.ErrInterrupted) || ctx.Err() != nil {
			interrupted = true
			break
		}
	}
	aggErr := rep.aggregate(ctx, cfg, opts)
	ok := rep.Successful()
	switch {
	case interrupted:
		return rep, fmt.Errorf("%w after %d of %d profile runs (%d succeeded)", runner.ErrInterrupted, len(rep.Outcomes), n, ok)
	case ok == 0:
		return rep, fmt.Errorf("%w: %d of %d failed (see each run's errors above)", ErrAllRunsFailed, n, n)
	}
	return rep, aggErr
}

// aggregate computes, stores and prints the aggregate of the outcomes so
// far. It returns ErrTooFewRuns with fewer than two successful runs.
func (rep *Report) aggregate(ctx context.Context, cfg *runner.Config, opts Options) error {
	agg, err := NewAggregate(rep.Outcomes, cfg.ConfidenceLevel, cfg.ProfileRunCooldown)
	if err != nil {
		return err
	}
	rep.Aggregate = agg
	var js, cs bytes.Buffer
	if err := errors.Join(WriteJSON(&js, agg, opts.Version), WriteCSV(&cs, agg)); err != nil {
		return err
	}
	jsonName, csvName := path.Join(AggregateDir, AggregateJSON), path.Join(AggregateDir, AggregateCSV)
	// The aggregate is stored even when ctx was cancelled: the runs so far
	// are worth keeping.
	ctx = context.WithoutCancel(ctx)
	if err := putObjects(ctx, rep.Dest, opts.Stores, object{jsonName, js.Bytes()}, object{csvName, cs.Bytes()}); err != nil {
		return fmt.Errorf("aggregate: %w", err)
	}
	rep.JSON, rep.CSV = where(rep.Dest, jsonName), where(rep.Dest, csvName)
	out := opts.stdout()
	if err := WriteSummary(out, agg); err != nil {
		return err
	}
	fmt.Fprintf(out, "Aggregate CSV Export: %s\nAggregate JSON Export: %s\n", rep.CSV, rep.JSON)
	return nil
}

// runConfig is cfg for profile run k (1-based) stored at dest.
func runConfig(cfg *runner.Config, k int, dest string) *runner.Config {
	c := *cfg
	c.ArtifactDir, c.ArtifactDirSet = dest, true
	if c.SetConsistentSeed && !c.RandomSeedSet {
		c.RandomSeed, c.RandomSeedSet = ConsistentSeed, true
	}
	if k > 1 && c.ProfileRunDisableWarmupAfterFirst {
		c.WarmupRequestCount, c.WarmupDuration, c.NumWarmupSessions, c.WarmupGracePeriodSet = 0, 0, 0, false
	}
	return &c
}

// sleep waits d, reporting false when ctx ended first.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
