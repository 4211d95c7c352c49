package report

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"sort"

	"github.com/aiperf-go/aiperf/metrics"
)

// storedStat is one run_metrics row: a statistic is NaN where the stored
// summary has none.
type storedStat struct {
	Avg, Min, Max, Std float64
	P                  [len(metrics.Percentiles)]float64
	Count              int
}

// scalar reports a row with an average and no distribution.
func (s storedStat) scalar() bool { return math.IsNaN(s.Min) && math.IsNaN(s.P[4]) }

// result is s as a console row of tag, with N/A for what s lacks.
func (s storedStat) result(tag, header, unit string, order int, console bool) metrics.Result {
	r := metrics.Result{Tag: tag, Header: header, Unit: unit, DisplayOrder: order, Console: console,
		Scalar: s.scalar(), Avg: s.Avg, Min: s.Min, Max: s.Max, Std: s.Std, P: s.P, Count: s.Count}
	for stat, v := range map[string]float64{"avg": s.Avg, "min": s.Min, "max": s.Max, "std": s.Std,
		"p50": s.P[4], "p90": s.P[6], "p99": s.P[8]} {
		if math.IsNaN(v) {
			r.Missing = append(r.Missing, stat)
		}
	}
	sort.Strings(r.Missing)
	return r
}

// storedMetrics reads the run's stored summary (run_metrics), by tag.
func storedMetrics(ctx context.Context, db *sql.DB, runID string) (map[string]storedStat, error) {
	rows, err := db.QueryContext(ctx, `SELECT tag, avg, min, max, std, p1, p5, p10, p25, p50, p75, p90, p95, p99, count
		FROM run_metrics WHERE run_id = ?`, runID)
	if err != nil {
		return nil, fmt.Errorf("stored summary: %w", err)
	}
	defer rows.Close()
	out := map[string]storedStat{}
	for rows.Next() {
		var tag string
		var v [13]sql.NullFloat64
		var count sql.NullInt64
		dest := []any{&tag}
		for i := range v {
			dest = append(dest, &v[i])
		}
		if err := rows.Scan(append(dest, &count)...); err != nil {
			return nil, fmt.Errorf("stored summary: %w", err)
		}
		f := func(i int) float64 {
			if !v[i].Valid {
				return math.NaN()
			}
			return v[i].Float64
		}
		s := storedStat{Avg: f(0), Min: f(1), Max: f(2), Std: f(3), Count: int(count.Int64)}
		for i := range s.P {
			s.P[i] = f(4 + i)
		}
		out[tag] = s
	}
	return out, rows.Err()
}

// applyStored makes the run's stored summary win over the recomputation:
// every scalar (throughputs, duration, counts, totals) takes its stored
// value, since it was computed over the run's own window, and every
// metric of the catalog the records do not give (a run without records)
// is shown from the summary.
func applyStored(s *metrics.Summary, stored map[string]storedStat, cfg *metrics.Config) {
	have := map[string]int{}
	for i, r := range s.Results {
		have[r.Tag] = i
	}
	for _, m := range metrics.Catalog() {
		st, ok := stored[m.Tag]
		if !ok || !m.Exported() || !m.Enabled(cfg) || math.IsNaN(st.Avg) && st.scalar() {
			continue
		}
		if i, ok := have[m.Tag]; ok {
			if s.Results[i].Scalar && !math.IsNaN(st.Avg) {
				s.Results[i].Avg = st.Avg
			}
			continue
		}
		group, order := m.ConsoleGroup(cfg)
		r := st.result(m.Tag, m.HeaderFor(cfg), m.DisplayUnit, order, m.Console(cfg))
		r.Group = group
		s.Results = append(s.Results, r)
	}
	if st, ok := stored["request_count"]; ok && s.Valid == 0 && s.Failed == 0 {
		s.Valid = int(st.Avg)
		if e, ok := stored["error_request_count"]; ok && !math.IsNaN(e.Avg) {
			s.Failed = int(e.Avg)
		}
	}
}
