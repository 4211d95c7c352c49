package report

import (
	"context"
	"database/sql"
	"fmt"
	"math"

	"github.com/aiperf-go/aiperf/metrics"
)

// consoleRow is a row of AIPerf 0.13's console table that aiperf-go's
// runner does not print (yet).
type consoleRow struct {
	tag, header, unit string
	order             int
	// expr computes the per-request value from the requests table; ""
	// for the run-level rows.
	expr string
	// needs are the requests columns expr reads.
	needs []string
	show  func(*metrics.Config) bool
}

// aiperf013Rows are the rows of AIPerf 0.13's console that aiperf-go's
// runner lacks, with AIPerf's titles and display orders
// (aiperf/metrics/types/*.py). Per-request rows are computed as AIPerf
// defines them: decode_duration = request_latency - time_to_first_token,
// e2e_output_token_throughput = output_sequence_length / request_latency
// in seconds.
var aiperf013Rows = []consoleRow{
	{tag: "decode_duration", header: "Decode Duration", unit: "ms", order: 350,
		expr:  "request_latency - time_to_first_token",
		needs: []string{"request_latency", "time_to_first_token"},
		show:  func(c *metrics.Config) bool { return c.Streaming && c.ProducesTokens }},
	{tag: "e2e_output_token_throughput", header: "E2E Output Token Throughput", unit: "tokens/sec/user", order: 510,
		expr:  "output_sequence_length / nullif(request_latency / 1000.0, 0)",
		needs: []string{"output_sequence_length", "request_latency"},
		show:  func(c *metrics.Config) bool { return c.ProducesTokens }},
	{tag: "input_token_throughput", header: "Input Token Throughput", unit: "tokens/sec", order: 805,
		show: func(c *metrics.Config) bool { return c.TokenizesInput }},
	{tag: "completed_request_count", header: "Completed Requests (Success + Error)", unit: "requests", order: 1075,
		show: func(*metrics.Config) bool { return true }},
	{tag: "request_error_rate", header: "Request Error Rate", unit: "%", order: 1080,
		show: func(*metrics.Config) bool { return true }},
}

// adjustedTags are the metrics AIPerf 0.13 also reports error-adjusted
// (adj_<tag>, "<header> (error-adjusted)"): each failed request counts as
// an infinite value, percentiles are numpy's "nearest", and avg, max and
// std are N/A. AIPerf prints them last, in this order, and only when some
// request failed.
var adjustedTags = []string{"time_to_first_token", "request_latency", "decode_duration", "inter_token_latency"}

// adjustedOrder puts the error-adjusted rows after every other row.
const adjustedOrder = 1 << 30

// addAIPerf013Rows adds the rows of aiperf013Rows and the error-adjusted
// rows: from the stored summary when it has them (AIPerf 0.13 runs), else,
// for runs of other tools than aiperf-go (compute), from the records and
// the run's counts. For aiperf-go's own runs only stored rows of metrics
// its catalog lacks are added, so that show keeps printing the runner's
// own table.
func addAIPerf013Rows(ctx context.Context, db *sql.DB, runID string, s *metrics.Summary, stored map[string]storedStat,
	cfg *metrics.Config, cols map[string]bool, compute bool) error {
	index := map[string]int{}
	for i, r := range s.Results {
		index[r.Tag] = i
	}
	put := func(r metrics.Result) {
		if i, ok := index[r.Tag]; ok {
			s.Results[i] = r
			return
		}
		index[r.Tag] = len(s.Results)
		s.Results = append(s.Results, r)
	}
	scalar := func(row consoleRow, v float64) metrics.Result {
		return metrics.Result{Tag: row.tag, Header: row.header, Unit: row.unit, DisplayOrder: row.order,
			Console: true, Scalar: true, Avg: v}
	}
	valueOf := func(tag string) (float64, bool) {
		if i, ok := index[tag]; ok && !math.IsNaN(s.Results[i].Avg) {
			return s.Results[i].Avg, true
		}
		return 0, false
	}
	for _, row := range aiperf013Rows {
		if !row.show(cfg) {
			continue
		}
		if _, known := metrics.Lookup(row.tag); known && !compute {
			continue // the runner's catalog decides whether its console shows it
		}
		if st, ok := stored[row.tag]; ok {
			put(st.result(row.tag, row.header, row.unit, row.order, true))
			continue
		}
		if !compute {
			continue
		}
		total := s.Valid + s.Failed
		switch row.tag {
		case "input_token_throughput":
			// Over the window of the run's own request throughput: AIPerf
			// 0.13 divides by its observation duration, which is not its
			// benchmark_duration.
			isl, ok := valueOf("total_isl")
			d, _ := valueOf("benchmark_duration")
			if rate, ok := valueOf("request_throughput"); ok && rate > 0 && s.Valid > 0 {
				d = float64(s.Valid) / rate
			}
			if ok && d > 0 {
				put(scalar(row, isl/d))
			}
		case "completed_request_count":
			if total > 0 {
				put(scalar(row, float64(total)))
			}
		case "request_error_rate":
			if total > 0 {
				put(scalar(row, 100*float64(s.Failed)/float64(total)))
			}
		default:
			if !hasAll(cols, row.needs) {
				continue
			}
			r, ok, err := distributionOf(ctx, db, runID, row.tag, row.expr)
			if err != nil {
				return err
			}
			if ok {
				r.Header, r.Unit, r.DisplayOrder, r.Console = row.header, row.unit, row.order, true
				put(r)
			}
		}
	}
	return addAdjusted(ctx, db, runID, s, stored, index, put, cols, compute)
}

// addAdjusted adds the error-adjusted rows of the metrics shown.
func addAdjusted(ctx context.Context, db *sql.DB, runID string, s *metrics.Summary, stored map[string]storedStat,
	index map[string]int, put func(metrics.Result), cols map[string]bool, compute bool) error {
	for k, tag := range adjustedTags {
		i, ok := index[tag]
		if !ok || !s.Results[i].Console {
			continue
		}
		parent := s.Results[i]
		header := parent.Header + " (error-adjusted)"
		if st, ok := stored["adj_"+tag]; ok {
			put(st.result("adj_"+tag, header, parent.Unit, adjustedOrder+k, true))
			continue
		}
		if !compute || s.Failed == 0 {
			continue
		}
		expr := fmt.Sprintf("%q", tag)
		if row := rowOf(tag); row != nil {
			if !hasAll(cols, row.needs) {
				continue
			}
			expr = row.expr
		} else if !cols[tag] {
			continue
		}
		vals, err := sortedValues(ctx, db, runID, expr)
		if err != nil {
			return err
		}
		put(adjusted("adj_"+tag, header, parent.Unit, adjustedOrder+k, vals, s.Failed))
	}
	return nil
}

// adjusted is the error-adjusted distribution of vals (sorted) with
// failed infinite values appended: min and numpy's nearest-rank
// percentiles where they are finite, N/A elsewhere.
func adjusted(tag, header, unit string, order int, vals []float64, failed int) metrics.Result {
	r := metrics.Result{Tag: tag, Header: header, Unit: unit, DisplayOrder: order, Console: true,
		Count: len(vals) + failed, Missing: []string{"avg", "max", "std"}}
	n := len(vals) + failed
	if len(vals) == 0 {
		r.Missing = append(r.Missing, "min")
	} else {
		r.Min = vals[0]
	}
	for i, q := range metrics.Percentiles {
		idx := int(math.RoundToEven(q / 100 * float64(n-1)))
		if idx < len(vals) {
			r.P[i] = vals[idx]
			continue
		}
		switch i {
		case 4:
			r.Missing = append(r.Missing, "p50")
		case 6:
			r.Missing = append(r.Missing, "p90")
		case 8:
			r.Missing = append(r.Missing, "p99")
		}
	}
	return r
}

// rowOf returns the aiperf013Rows entry of tag, or nil.
func rowOf(tag string) *consoleRow {
	for i := range aiperf013Rows {
		if aiperf013Rows[i].tag == tag {
			return &aiperf013Rows[i]
		}
	}
	return nil
}

func hasAll(cols map[string]bool, names []string) bool {
	for _, n := range names {
		if !cols[n] {
			return false
		}
	}
	return true
}

// sortedValues returns expr over the run's valid requests, ascending,
// NULLs left out.
func sortedValues(ctx context.Context, db *sql.DB, runID, expr string) ([]float64, error) {
	rows, err := db.QueryContext(ctx, `SELECT v FROM (SELECT CAST(`+expr+` AS DOUBLE) AS v FROM requests
		WHERE run_id = ? AND valid) WHERE v IS NOT NULL ORDER BY v`, runID)
	if err != nil {
		return nil, fmt.Errorf("error-adjusted: %w", err)
	}
	defer rows.Close()
	var out []float64
	for rows.Next() {
		var v float64
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}
