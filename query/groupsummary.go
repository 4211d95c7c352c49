package query

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/aiperf-go/aiperf/export"
	"github.com/aiperf-go/aiperf/metrics"
	"github.com/aiperf-go/aiperf/record"
)

// queryer is what summarizeRecords reads through: a *sql.DB or *sql.Tx.
type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// summarizeRecords recomputes a run's summary from its rows in requests,
// as the runner computes it from its records (metrics.Accumulator): the
// rows are added in request order (request_num, then start time), warmup
// rows are left out, distributions are taken over the union of the
// values in base units (percentiles by linear interpolation, population
// std), and benchmark_duration and the throughputs span the earliest valid
// request start to the latest valid response end, so that for a run group
// they cover the wall-clock window of all its shards. Every metric with
// values in the rows is reported; goodput ones when the rows carry
// good_request_count. Start and end times of the summary are wall-clock
// Unix nanoseconds.
//
// What the records do not hold is recovered: a request's max tokens from
// its output_sequence_length and osl_mismatch_diff_pct, for the OSL
// mismatch count.
func summarizeRecords(ctx context.Context, q queryer, runID string, win window) (*metrics.Summary, error) {
	present, err := presentColumns(ctx, q, runID)
	if err != nil {
		return nil, err
	}
	cfg := &metrics.Config{Streaming: true, ProducesTokens: true, TokenizesInput: true, HTTPTrace: true, ProducesVideo: true,
		Schema14: win.schema14}
	if present["good_request_count"] {
		// The SLOs were applied when the records were written: any SLO
		// enables the goodput results, which sum the records' values.
		cfg.Goodput = []metrics.SLO{{Tag: "request_latency"}}
	}
	var cols []string
	for _, c := range MetricColumns {
		if present[c] {
			cols = append(cols, c)
		}
	}
	icl := present["inter_chunk_latency"]
	sel := "coalesce(phase, ''), valid, coalesce(request_start_ns, 0), coalesce(request_end_ns, 0), coalesce(credit_issued_ns, 0), error_code, coalesce(error_type, ''), coalesce(error_message, '')"
	for _, c := range cols {
		sel += ", " + c
	}
	if icl {
		sel += ", inter_chunk_latency"
	}
	rows, err := q.QueryContext(ctx, `SELECT `+sel+` FROM requests WHERE run_id = ?
		ORDER BY request_num NULLS LAST, request_start_ns NULLS LAST, request_end_ns NULLS LAST`, runID)
	if err != nil {
		return nil, fmt.Errorf("summarize records: %w", err)
	}
	defer rows.Close()

	// The times are rebased to the window's start: the 1.4 metrics work
	// in float64 ns, which hold today's Unix ns only to 256 ns.
	base := win.profilingStartNS
	if base == 0 {
		var first sql.NullInt64
		if err := q.QueryRowContext(ctx, `SELECT min(request_start_ns) FROM requests WHERE run_id = ?`, runID).Scan(&first); err != nil {
			return nil, fmt.Errorf("summarize records: %w", err)
		}
		base = first.Int64
	}
	rebase := func(ns *int64) {
		if *ns != 0 {
			*ns -= base
		}
	}
	acc := metrics.NewAccumulator(cfg)
	values := make([]sql.NullFloat64, len(cols))
	dest := make([]any, 0, 8+len(cols)+1)
	var (
		phase, errType, errMsg string
		valid                  bool
		errCode                sql.NullInt64
		iclList                any
		rec                    record.Record
	)
	dest = append(dest, &phase, &valid, &rec.StartNS, &rec.EndNS, &rec.CreditIssuedNS, &errCode, &errType, &errMsg)
	for i := range values {
		dest = append(dest, &values[i])
	}
	if icl {
		dest = append(dest, &iclList)
	}
	oslCol, diffCol := indexOf(cols, "output_sequence_length"), indexOf(cols, "osl_mismatch_diff_pct")
	response := []record.Response{{PerfNS: 1}}
	vals := make([]metrics.RecordValue, 0, len(cols)+1)
	for rows.Next() {
		iclList = nil
		if err := rows.Scan(dest...); err != nil {
			return nil, fmt.Errorf("summarize records: %w", err)
		}
		rec.Phase, rec.Responses, rec.Error, rec.RequestedOutputTokens = record.Phase(phase), nil, nil, 0
		rebase(&rec.StartNS)
		rebase(&rec.EndNS)
		rebase(&rec.CreditIssuedNS)
		if valid {
			rec.Responses = response
		} else {
			rec.Error = &record.Error{Code: int(errCode.Int64), Type: errType, Message: errMsg}
		}
		vals = vals[:0]
		for i, v := range values {
			if v.Valid {
				vals = append(vals, metrics.RecordValue{Tag: cols[i], Value: v.Float64})
			}
		}
		if l, ok := iclList.([]any); ok {
			list := make([]float64, 0, len(l))
			for _, x := range l {
				if f, ok := x.(float64); ok {
					list = append(list, f)
				}
			}
			vals = append(vals, metrics.RecordValue{Tag: "inter_chunk_latency", List: list})
		}
		if oslCol >= 0 && diffCol >= 0 && values[oslCol].Valid && values[diffCol].Valid {
			rec.RequestedOutputTokens = requestedTokens(values[oslCol].Float64, values[diffCol].Float64)
		}
		acc.Add(&rec, vals)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("summarize records: %w", err)
	}
	if win.schema14 && win.profilingStartNS > 0 {
		acc.SetPhaseStart(win.profilingStartNS - base)
	}
	return acc.Summary(record.NewClockAt(time.Unix(0, base))), nil
}

// window is what a recomputed summary needs beyond the records: whether
// the runs wrote AIPerf 0.13's layout (schema 1.4: its metrics and its
// observation window) and, for 1.4, when the earliest profiling phase
// began (wall-clock Unix ns; 0 when no manifest says).
type window struct {
	schema14         bool
	profilingStartNS int64
}

// presentColumns reports which metric columns (and inter_chunk_latency)
// have a value in any of a run's rows.
func presentColumns(ctx context.Context, q queryer, runID string) (map[string]bool, error) {
	all := append(append([]string(nil), MetricColumns...), "inter_chunk_latency")
	counts := make([]string, len(all))
	for i, c := range all {
		counts[i] = "count(" + c + ") > 0"
	}
	rows, err := q.QueryContext(ctx, `SELECT `+strings.Join(counts, ", ")+` FROM requests WHERE run_id = ?`, runID)
	if err != nil {
		return nil, fmt.Errorf("summarize records: %w", err)
	}
	defer rows.Close()
	has := make([]bool, len(all))
	dest := make([]any, len(all))
	for i := range has {
		dest[i] = &has[i]
	}
	out := map[string]bool{}
	if rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return nil, fmt.Errorf("summarize records: %w", err)
		}
		for i, c := range all {
			out[c] = has[i]
		}
	}
	return out, rows.Err()
}

// requestedTokens recovers the max tokens a request asked for from its
// output length and osl_mismatch_diff_pct ((osl-req)/req*100). An output
// of 0 tokens (diff -100 %) leaves it unknown; 1 then counts the request
// as a mismatch, as any request for tokens would be.
func requestedTokens(osl, diffPct float64) int {
	if osl <= 0 || diffPct <= -100 {
		return 1
	}
	return int(math.Round(osl / (1 + diffPct/100)))
}

func indexOf(s []string, v string) int {
	for i := range s {
		if s[i] == v {
			return i
		}
	}
	return -1
}

// groupBenchmarkID is a group's benchmark_id: 32 hex digits of the hash
// of its id, the same on every merge.
func groupBenchmarkID(group string) string {
	sum := sha256.Sum256([]byte("aiperf-run-group\x00" + group))
	return hex.EncodeToString(sum[:16])
}

// summaryJSON writes s as profile_export_aiperf.json with the export
// package, start and end times in UTC, for the group of id group.
func summaryJSON(s *metrics.Summary, group string, inputConfig []byte, version string, win window) ([]byte, error) {
	info := &export.RunInfo{AIPerfVersion: version, BenchmarkID: groupBenchmarkID(group), Location: time.UTC}
	if win.schema14 {
		info.SchemaVersion = export.Schema14
	}
	if len(inputConfig) > 0 {
		info.InputConfig = json.RawMessage(inputConfig)
	}
	var buf bytes.Buffer
	if err := export.WriteSummaryJSON(&buf, s, info); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// recomputeMetrics recomputes a run's run_metrics rows from its records,
// and returns the summary they come from: the summary is written as
// profile_export_aiperf.json and read back, so that the rows are exactly
// what a run's summary file gives, and what reading a merged group's file
// gives.
func recomputeMetrics(ctx context.Context, q queryer, runID string, win window) ([]metricRow, *metrics.Summary, error) {
	s, err := summarizeRecords(ctx, q, runID, win)
	if err != nil {
		return nil, nil, err
	}
	data, err := summaryJSON(s, runID, nil, "", win)
	if err != nil {
		return nil, nil, fmt.Errorf("summarize records: %w", err)
	}
	parsed, err := parseSummary(data)
	if err != nil {
		return nil, nil, err
	}
	return parsed.Metrics, s, nil
}
