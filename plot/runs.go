package plot

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// runInfo is what the report shows of one run: its identity, how it was
// loaded, whether it can be trusted, and its headline statistics.
type runInfo struct {
	ID, Model, Endpoint string
	Labels              map[string]string
	// Status is runs.status; Reason says why a run is not complete.
	Status, Reason string
	// Concurrency and Rate are the profiling phase's load (NaN when not
	// set); Sweep is the one a sweep is ordered by.
	Concurrency, Rate float64
	// Degraded is the run's own verdict on its schedule (manifest
	// validity.degraded), with its reasons.
	Degraded        bool
	DegradedReasons []string
	// Requests and Errors are the run's request_count and
	// error_request_count; Throughput its output tokens/s (NaN: none).
	Requests, Errors, Throughput float64
	// Stats holds each latency metric's stats (metric tag, then stat).
	Stats map[string]map[string]float64
	// Group is the run's legend group (Options.GroupBy).
	Group string
}

// marked reports whether a chart must flag the run: it did not complete,
// or it judged its own schedule degraded. Marked runs are drawn but never
// on a frontier.
func (r runInfo) marked() bool { return r.Status != "complete" || r.Degraded }

// sweep is the value a group's points are ordered by: the concurrency, or
// else the request rate (NaN when neither is known).
func (r runInfo) sweep() float64 {
	if !math.IsNaN(r.Concurrency) {
		return r.Concurrency
	}
	return r.Rate
}

// sweepLabel names the run's load next to its point: "c=8", "r=10/s", or "".
func (r runInfo) sweepLabel() string {
	switch {
	case !math.IsNaN(r.Concurrency):
		return "c=" + strconv.FormatFloat(r.Concurrency, 'f', -1, 64)
	case !math.IsNaN(r.Rate):
		return "r=" + strconv.FormatFloat(r.Rate, 'f', -1, 64) + "/s"
	}
	return ""
}

// errorRate is the share of the run's requests that failed, NaN when it
// counted none.
func (r runInfo) errorRate() float64 {
	errs := r.Errors
	if math.IsNaN(errs) {
		errs = 0
	}
	total := errs
	if !math.IsNaN(r.Requests) {
		total += r.Requests
	}
	if total == 0 {
		return math.NaN()
	}
	return errs / total
}

// validity is the runs table's verdict: "ok", the status when the run did
// not complete (with its reason), and "degraded: reasons".
func (r runInfo) validity() string {
	var parts []string
	if r.Status != "complete" {
		s := r.Status
		if r.Reason != "" {
			s += ": " + r.Reason
		}
		parts = append(parts, s)
	}
	if r.Degraded {
		s := "degraded"
		if len(r.DegradedReasons) > 0 {
			s += ": " + strings.Join(r.DegradedReasons, "; ")
		}
		parts = append(parts, s)
	}
	if len(parts) == 0 {
		return "ok"
	}
	return strings.Join(parts, ", ")
}

// labelString formats labels as k=v,k=v in key order.
func labelString(labels map[string]string) string {
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + labels[k]
	}
	return strings.Join(parts, ",")
}

// latencyMetrics are the metrics the interactive charts switch between,
// with their names in the page; latencyStats the statistics.
var (
	latencyMetrics = []struct{ Tag, Name string }{
		{"time_to_first_token", "TTFT"},
		{"inter_token_latency", "ITL"},
		{"request_latency", "request latency"},
	}
	latencyStats = []string{"p50", "p90", "p99", "avg"}
)

// loadRuns returns the runs the report covers: the named runs in the
// order named (ErrRunNotFound for one missing), or every run, oldest
// first, when none is named; either way only those where matches. Failed
// and degraded runs are included: the report marks them.
func loadRuns(ctx context.Context, db *sql.DB, runIDs []string, where whereClause, o Options) ([]runInfo, error) {
	q := `SELECT s.run_id, coalesce(s.model, ''), coalesce(s.endpoint_type, ''), coalesce(s.labels::VARCHAR, ''),
			s.status, coalesce(r.reason, ''), s.concurrency, s.request_rate,
			coalesce(json_extract_string(r.manifest, '$.validity.degraded') = 'true', false),
			coalesce(json_extract(r.manifest, '$.validity.reasons')::VARCHAR, ''),
			s.request_count, s.error_request_count, s.output_token_throughput
		FROM run_summary s JOIN runs r USING (run_id)
		WHERE true`
	var args []any
	if len(runIDs) > 0 {
		q += ` AND s.run_id IN (?` + strings.Repeat(", ?", len(runIDs)-1) + `)`
		for _, id := range runIDs {
			args = append(args, id)
		}
	}
	if where.pred != "" {
		q += ` AND s.run_id IN (SELECT run_id FROM runs WHERE ` + where.pred + `)`
	}
	q += ` ORDER BY s.start_time NULLS LAST, s.run_id`
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("load runs: %w", err)
	}
	defer rows.Close()
	var runs []runInfo
	for rows.Next() {
		var r runInfo
		var labels, reasons string
		var conc sql.NullInt64
		var rate, reqs, errs, tput sql.NullFloat64
		if err := rows.Scan(&r.ID, &r.Model, &r.Endpoint, &labels, &r.Status, &r.Reason, &conc, &rate,
			&r.Degraded, &reasons, &reqs, &errs, &tput); err != nil {
			return nil, fmt.Errorf("load runs: %w", err)
		}
		if labels != "" {
			if err := json.Unmarshal([]byte(labels), &r.Labels); err != nil {
				return nil, fmt.Errorf("load runs: %s: labels: %w", r.ID, err)
			}
		}
		if reasons != "" {
			_ = json.Unmarshal([]byte(reasons), &r.DegradedReasons) // reasons are only shown
		}
		r.Concurrency = math.NaN()
		if conc.Valid {
			r.Concurrency = float64(conc.Int64)
		}
		r.Rate, r.Requests, r.Errors, r.Throughput = orNaN(rate), orNaN(reqs), orNaN(errs), orNaN(tput)
		r.Group = o.group(r)
		r.Stats = map[string]map[string]float64{}
		runs = append(runs, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("load runs: %w", err)
	}
	if len(runIDs) > 0 {
		if runs, err = inNamedOrder(runs, runIDs, where); err != nil {
			return nil, err
		}
	}
	return runs, loadStats(ctx, db, runs)
}

// inNamedOrder orders runs as runIDs names them. A named run that is not
// among them is ErrRunNotFound, unless a where filter left it out.
func inNamedOrder(runs []runInfo, runIDs []string, where whereClause) ([]runInfo, error) {
	byID := map[string]runInfo{}
	for _, r := range runs {
		byID[r.ID] = r
	}
	var out []runInfo
	for _, id := range runIDs {
		r, ok := byID[id]
		if ok {
			out = append(out, r)
		} else if where.pred == "" {
			return nil, fmt.Errorf("run %s: %w", id, ErrRunNotFound)
		}
	}
	return out, nil
}

// loadStats fills each run's Stats with its latency metrics.
func loadStats(ctx context.Context, db *sql.DB, runs []runInfo) error {
	if len(runs) == 0 {
		return nil
	}
	byID := map[string]int{}
	args := make([]any, len(runs))
	for i, r := range runs {
		byID[r.ID] = i
		args[i] = r.ID
	}
	rows, err := db.QueryContext(ctx, `SELECT run_id, tag, avg, p50, p90, p99 FROM run_metrics
		WHERE tag IN ('time_to_first_token', 'inter_token_latency', 'request_latency')
		AND run_id IN (?`+strings.Repeat(", ?", len(runs)-1)+`)`, args...)
	if err != nil {
		return fmt.Errorf("load run metrics: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, tag string
		var avg, p50, p90, p99 sql.NullFloat64
		if err := rows.Scan(&id, &tag, &avg, &p50, &p90, &p99); err != nil {
			return fmt.Errorf("load run metrics: %w", err)
		}
		runs[byID[id]].Stats[tag] = map[string]float64{"avg": orNaN(avg), "p50": orNaN(p50), "p90": orNaN(p90), "p99": orNaN(p99)}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("load run metrics: %w", err)
	}
	return nil
}

// stat returns a run's statistic of a metric, NaN when it has none.
func (r runInfo) stat(tag, stat string) float64 {
	if v, ok := r.Stats[tag][stat]; ok {
		return v
	}
	return math.NaN()
}
