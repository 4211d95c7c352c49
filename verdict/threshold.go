// Package verdict holds CI thresholds: absolute pass/fail gates on one
// run's summary metrics, written k6-style as "time_to_first_token.p99<300",
// and the verdict a run's summary gives them (the console table,
// verdict.json and a Markdown step summary).
//
// Thresholds gate a single run; comparing a run against earlier runs is
// aiperf-report regress's job.
package verdict

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/aiperf-go/aiperf/metrics"
)

// Errors of Parse, each wrapped with the part of the expression at fault
// and the valid choices.
var (
	// ErrUnknownMetric: the metric tag is not one of the summary's.
	ErrUnknownMetric = errors.New("unknown metric tag")
	// ErrUnknownStat: the statistic is not one the metric has.
	ErrUnknownStat = errors.New("unknown stat")
	// ErrComparator: no comparator, or one that is not <, <=, >, >=, ==, !=.
	ErrComparator = errors.New("bad comparator")
	// ErrValue: the threshold is not a finite number.
	ErrValue = errors.New("threshold is not a number")
)

// Op is a comparator: "<", "<=", ">", ">=", "==" or "!=".
type Op string

// The comparators, as k6 writes them.
const (
	Less         Op = "<"
	LessEqual    Op = "<="
	Greater      Op = ">"
	GreaterEqual Op = ">="
	Equal        Op = "=="
	NotEqual     Op = "!="
)

// ops lists the comparators longest first, so that "<=" is not read as "<".
var ops = []Op{LessEqual, GreaterEqual, Equal, NotEqual, Less, Greater}

// Holds reports whether "actual op limit" is true. NaN never holds.
func (o Op) Holds(actual, limit float64) bool {
	if math.IsNaN(actual) || math.IsNaN(limit) {
		return false
	}
	switch o {
	case Less:
		return actual < limit
	case LessEqual:
		return actual <= limit
	case Greater:
		return actual > limit
	case GreaterEqual:
		return actual >= limit
	case Equal:
		return actual == limit
	case NotEqual:
		return actual != limit
	}
	return false
}

// Stats are the statistics of a distribution metric, as the summary's
// metric JSON names them. A single-valued metric (a count, a throughput)
// has only "avg", which is also the default when no stat is given.
var Stats = []string{"avg", "min", "max", "std", "p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99"}

// Threshold is one parsed gate: Metric.Stat Op Value, Value in the metric's
// display unit (Unit: ms for latencies, requests/sec for throughputs).
type Threshold struct {
	// Expr is the expression as given.
	Expr   string  `json:"expression"`
	Metric string  `json:"metric"`
	Stat   string  `json:"stat"`
	Op     Op      `json:"comparator"`
	Value  float64 `json:"threshold"`
	Unit   string  `json:"unit"`
	// scalar records that the metric is single-valued.
	scalar bool
}

// Tags returns the metric tags a threshold may name: every exported metric
// of the catalogue, in display order.
func Tags() []string {
	var tags []string
	for _, m := range metrics.Catalog() {
		if m.Exported() {
			tags = append(tags, m.Tag)
		}
	}
	return tags
}

// Parse reads one threshold: TAG[.STAT] OP NUMBER, spaces allowed around
// OP, e.g. "time_to_first_token.p99<300" or "error_request_count < 1". The
// stat defaults to avg. An error wraps one of the package's sentinels and
// names the valid choices.
func Parse(expr string) (Threshold, error) {
	t := Threshold{Expr: expr}
	i := strings.IndexAny(expr, "<>=!")
	if i < 0 {
		return t, fmt.Errorf("%w: none found: write TAG.STAT OP NUMBER with OP one of %s, e.g. time_to_first_token.p99<300", ErrComparator, opList())
	}
	left, rest := strings.TrimSpace(expr[:i]), expr[i:]
	for _, op := range ops {
		if strings.HasPrefix(rest, string(op)) {
			t.Op, rest = op, rest[len(op):]
			break
		}
	}
	if t.Op == "" || strings.ContainsAny(rest, "<>=!") {
		return t, fmt.Errorf("%w in %q: use one of %s", ErrComparator, expr, opList())
	}
	tag, stat, hasStat := strings.Cut(left, ".")
	m, ok := metrics.Lookup(tag)
	if !ok || !m.Exported() {
		return t, fmt.Errorf("%w %q: use one of %s", ErrUnknownMetric, tag, strings.Join(Tags(), ", "))
	}
	t.Metric, t.Unit, t.scalar = tag, m.DisplayUnit, m.Kind != metrics.KindRecord
	t.Stat = "avg"
	if hasStat {
		t.Stat = stat
	}
	switch {
	case t.scalar && t.Stat != "avg":
		return t, fmt.Errorf("%w %q: %s is a single value: write %s or %s.avg", ErrUnknownStat, t.Stat, tag, tag, tag)
	case !slices.Contains(Stats, t.Stat):
		return t, fmt.Errorf("%w %q for %s: use one of %s", ErrUnknownStat, t.Stat, tag, strings.Join(Stats, ", "))
	}
	num := strings.TrimSpace(rest)
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return t, fmt.Errorf("%w: %q (give it in %s's display unit, %s)", ErrValue, num, tag, t.Unit)
	}
	t.Value = v
	return t, nil
}

// ParseAll parses every expression; the error joins one error per bad
// expression, each naming it.
func ParseAll(exprs []string) ([]Threshold, error) {
	var (
		out  []Threshold
		errs []error
	)
	for _, e := range exprs {
		t, err := Parse(e)
		if err != nil {
			errs = append(errs, fmt.Errorf("%q: %w", e, err))
			continue
		}
		out = append(out, t)
	}
	return out, errors.Join(errs...)
}

// String writes the threshold back in canonical form, e.g.
// "time_to_first_token.p99<300".
func (t Threshold) String() string {
	return t.Metric + "." + t.Stat + string(t.Op) + strconv.FormatFloat(t.Value, 'g', -1, 64)
}

// actual returns the threshold's statistic of r.
func (t Threshold) actual(r *metrics.Result) float64 {
	switch t.Stat {
	case "avg":
		return r.Avg
	case "min":
		return r.Min
	case "max":
		return r.Max
	case "std":
		return r.Std
	}
	p, _ := strconv.ParseFloat(strings.TrimPrefix(t.Stat, "p"), 64)
	for i, q := range metrics.Percentiles {
		if q == p {
			return r.P[i]
		}
	}
	return math.NaN()
}

func opList() string {
	return "<, <=, >, >=, ==, !="
}
