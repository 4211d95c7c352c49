// Package multirun runs a benchmark more than once: --num-profile-runs N
// repeats it and reports confidence intervals across the runs (AIPerf's
// multi-run confidence, §2.4 and §5.8), and a --concurrency,
// --request-rate, --isl, --osl, --num-dataset-entries or
// --prompt-batch-size list sweeps it, one benchmark per point with one
// summary CSV (AIPerf's parameter sweeps; `aiperf analyze` is GenAI-Perf's
// analyze, with its directory names and analyze_export_genai_perf.csv).
//
// Layout under the destination (a directory or store URL, see Join):
//
//	profile_runs/run_0001/…                  one runner artifact set per run
//	aggregate/profile_export_aiperf_aggregate.{json,csv}
//
// and for a sweep, under <model>-openai-<type>-concurrency_sweep/ (or
// --artifact-dir):
//
//	concurrency_1/…                          a single run, or the layout above
//	concurrency_4/…
//	sweep_summary.csv
//
// and for `aiperf analyze --sweep-type input_sequence_length`, under
// --artifact-dir (default artifacts):
//
//	<model>-openai-<type>-input_sequence_length128/…
//	<model>-openai-<type>-input_sequence_length256/…
//	analyze_export_genai_perf.csv
package multirun

import (
	"context"
	"errors"
	"strings"

	"github.com/aiperf-go/aiperf/runner"
)

// Needed reports whether cfg asks for more than one benchmark: a
// --num-profile-runs above 1, a sweep list, or `aiperf analyze`.
func Needed(cfg *runner.Config) bool {
	return cfg.NumProfileRuns > 1 || len(Points(cfg)) > 0 || cfg.AnalyzeSweepType != ""
}

// Check returns the configuration errors of multi-run mode and sweeps,
// joined, before any run starts (a usage error, exit 2): the dashboard UI
// with --num-profile-runs > 1 or a sweep (AIPerf's messages), both
// --concurrency and --request-rate given as lists, a sweep with
// --shard-count > 1, and the errors of the sweep lists (see checkSweep).
// nil when none.
func Check(cfg *runner.Config) error {
	var errs []error
	dashboard := strings.EqualFold(cfg.UIType, "dashboard")
	if dashboard && cfg.NumProfileRuns > 1 {
		//lint:ignore ST1005 AIPerf's exact message
		errs = append(errs, errors.New("Dashboard UI is not supported with multi-run mode (--num-profile-runs > 1) due to terminal control limitations. Please use '--ui simple' or '--ui none' instead."))
	} else if dashboard && len(Points(cfg)) > 0 {
		//lint:ignore ST1005 AIPerf's exact message
		errs = append(errs, errors.New("Dashboard UI is not supported with parameter sweeps due to terminal control limitations. Please use '--ui simple' or '--ui none' instead."))
	}
	if len(cfg.ConcurrencyList) > 1 && len(cfg.RequestRateList) > 1 {
		errs = append(errs, errors.New("--concurrency and --request-rate cannot both be lists: sweep one of them"))
	}
	if cfg.ShardCount > 1 && len(Points(cfg)) > 0 {
		errs = append(errs, errors.New("sweep lists cannot be sharded: run one sharded benchmark per value"))
	}
	if len(errs) == 0 {
		errs = checkSweep(cfg)
	}
	return errors.Join(errs...)
}

// Run runs what cfg asks for: a sweep (Sweep), else a multi-run benchmark
// (Profile), else one run through opts.Run. It returns the error of that
// call; see Sweep and Profile for what they return.
func Run(ctx context.Context, cfg *runner.Config, opts Options) error {
	if err := Check(cfg); err != nil {
		return err
	}
	switch {
	case cfg.AnalyzeSweepType != "":
		_, err := Analyze(ctx, cfg, opts)
		return err
	case len(Points(cfg)) > 0:
		_, err := Sweep(ctx, cfg, opts)
		return err
	case cfg.NumProfileRuns > 1:
		_, err := Profile(ctx, cfg, opts)
		return err
	}
	_, err := opts.Run(ctx, cfg)
	return err
}
