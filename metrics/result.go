// Package metrics computes AIPerf's metrics: per-record values from raw
// records, their distributions, and the aggregate and derived values of a run.
package metrics

// Percentiles are the quantiles reported for every distribution, in order.
var Percentiles = [...]float64{1, 5, 10, 25, 50, 75, 90, 95, 99}

// Result is one metric's summary for a run, in display units (ms, sec, tokens,
// ...). A scalar result (aggregate or derived metric) has only Avg set; a
// distribution has every statistic.
type Result struct {
	// Tag is the metric's stable id, e.g. "time_to_first_token".
	Tag string
	// Header is the human name, e.g. "Time to First Token".
	Header string
	// Unit is the display unit, e.g. "ms", "tokens", "requests/sec".
	Unit string
	// Scalar is true for single-valued results (aggregates, derived values).
	Scalar bool
	// Console reports whether the metric appears in the console tables.
	Console bool
	// Group is the console table the metric appears in (GroupEffective,
	// GroupActive, GroupUsage or GroupDefault); always GroupDefault in a
	// run of the 1.0 schema.
	Group string
	// DisplayOrder orders the console rows within a group (ascending).
	DisplayOrder int

	Avg float64
	// The fields below are set only when Scalar is false.
	Sum   float64
	Min   float64
	Max   float64
	Std   float64 // population standard deviation (ddof=0)
	P     [len(Percentiles)]float64
	Count int
	// Missing names the statistics ("avg", "min", "max", "std", "p1" …
	// "p99", "count", "sum") the result lacks, shown as N/A and left out of
	// the files: AIPerf 0.13 writes only the finite statistics of its
	// error-adjusted latencies (adj_*), and its sweep-line metrics
	// (effective_*, active_*, tokens_in_flight) have only avg, min, max,
	// std, p50, p90, p95 and p99. Nil for the other results.
	Missing []string
}
