package multirun

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/aiperf-go/aiperf/metrics"
)

// ErrTooFewRuns means fewer than two runs succeeded: confidence statistics
// need at least two (AIPerf exits 1 and writes no aggregate).
var ErrTooFewRuns = errors.New("at least 2 successful profile runs are required for confidence statistics")

// Outcome is what one profile run produced: its summary when it succeeded,
// or the error that made it fail.
type Outcome struct {
	// Label names the run, e.g. "run_0001".
	Label string
	// Summary is the run's metrics; only read when Err is nil.
	Summary *metrics.Summary
	// Err is nil for a successful run.
	Err error
}

// FailedRun is one entry of the aggregate's failed_runs.
type FailedRun struct {
	Label, Error string
}

// Metric is one flattened "<tag>_<stat>" key of the aggregate, e.g.
// "request_throughput_avg" or "time_to_first_token_p99".
type Metric struct {
	Key string
	Confidence
}

// Aggregate is the confidence summary of a multi-run benchmark (§2.4):
// profile_export_aiperf_aggregate.{json,csv}.
type Aggregate struct {
	ConfidenceLevel float64
	Cooldown        time.Duration
	// NumRuns counts every run attempted; RunLabels names the successful
	// ones, in run order; Failed lists the others with their errors.
	NumRuns   int
	RunLabels []string
	Failed    []FailedRun
	// Metrics are in the order of the first run's summary (display order),
	// then metrics only later runs had, each metric's statistics in
	// AIPerf's STAT_KEYS order.
	Metrics []Metric
}

// statKeys are AIPerf's STAT_KEYS, the per-run statistics aggregated.
var statKeys = [...]string{"avg", "min", "max", "sum", "p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99", "std"}

// stat returns statistic key of r and whether r has it: a scalar result
// has only avg.
func stat(r *metrics.Result, key string) (float64, bool) {
	if key == "avg" {
		return r.Avg, true
	}
	if r.Scalar {
		return 0, false
	}
	switch key {
	case "min":
		return r.Min, true
	case "max":
		return r.Max, true
	case "sum":
		return r.Sum, true
	case "std":
		return r.Std, true
	}
	if i, ok := percentileIndex[key]; ok {
		return r.P[i], true
	}
	return 0, false
}

// percentileIndex maps "p50" to the index of 50 in metrics.Percentiles.
var percentileIndex = func() map[string]int {
	m := make(map[string]int, len(metrics.Percentiles))
	for i, q := range metrics.Percentiles {
		m[fmt.Sprintf("p%g", q)] = i
	}
	return m
}()

// finite reports whether v is neither NaN nor infinite.
func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// NewAggregate summarises the successful outcomes at the confidence level.
// Failed runs are skipped and listed in Failed. Values that are NaN or
// infinite are skipped, as AIPerf does. It returns ErrTooFewRuns (and no
// aggregate) when fewer than two runs succeeded.
func NewAggregate(runs []Outcome, level float64, cooldown time.Duration) (*Aggregate, error) {
	a := &Aggregate{ConfidenceLevel: level, Cooldown: cooldown, NumRuns: len(runs)}
	var ok []*metrics.Summary
	for _, r := range runs {
		if r.Err != nil || r.Summary == nil {
			msg := "no summary"
			if r.Err != nil {
				msg = r.Err.Error()
			}
			a.Failed = append(a.Failed, FailedRun{Label: r.Label, Error: msg})
			continue
		}
		a.RunLabels = append(a.RunLabels, r.Label)
		ok = append(ok, r.Summary)
	}
	if len(ok) < 2 {
		return nil, fmt.Errorf("%w (%d of %d succeeded)", ErrTooFewRuns, len(ok), len(runs))
	}
	seen := map[string]bool{}
	for _, s := range ok {
		for i := range s.Results {
			tag := s.Results[i].Tag
			if seen[tag] {
				continue
			}
			seen[tag] = true
			a.Metrics = append(a.Metrics, metricStats(ok, tag, level)...)
		}
	}
	return a, nil
}

// metricStats aggregates every statistic of the metric tag over the runs
// that have it.
func metricStats(runs []*metrics.Summary, tag string, level float64) []Metric {
	var out []Metric
	for _, key := range statKeys {
		var vals []float64
		unit := ""
		for _, s := range runs {
			r := s.Get(tag)
			if r == nil {
				continue
			}
			v, ok := stat(r, key)
			if !ok || !finite(v) {
				continue
			}
			vals = append(vals, v)
			if unit == "" {
				unit = r.Unit
			}
		}
		if len(vals) == 0 {
			continue
		}
		out = append(out, Metric{Key: tag + "_" + key, Confidence: Summarize(vals, unit, level)})
	}
	return out
}

// Get returns the aggregated metric with the flattened key, or nil.
func (a *Aggregate) Get(key string) *Metric {
	for i := range a.Metrics {
		if a.Metrics[i].Key == key {
			return &a.Metrics[i]
		}
	}
	return nil
}
