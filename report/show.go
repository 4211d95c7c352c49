package report

import (
	"context"
	"database/sql"
	"fmt"
	"sort"

	"github.com/aiperf-go/aiperf/endpoint"
	"github.com/aiperf-go/aiperf/export"
	"github.com/aiperf-go/aiperf/metrics"
)

// ourTool is the tool_name of aiperf-go's own runs.
const ourTool = "aiperf-go"

// Show recomputes a run's summary in SQL from its rows in requests, with
// the reference's formulas (quantile_cont is numpy's linear interpolation,
// stddev_pop the population std), so that the console table printed from
// it matches the runner's own. Where the run's stored summary (run_metrics)
// has a value, the stored value wins for the run-level scalars
// (throughputs, duration, counts, totals): the tool computed them over
// its own start/end window, which the records do not always reproduce
// (Python AIPerf's window starts at its profiling phase's first credit,
// not at the first request). A run without records is shown from its
// stored summary alone. AIPerf 0.13's rows that the runner lacks
// (aiperf013Rows, the error-adjusted latencies) are shown from the stored
// summary, or computed from the records for runs of other tools.
//
// A run of schema 1.4 (its manifest's artifact_schema, else a stored
// summary with a metric only that layout writes: see isSchema14), such as
// aiperf-go's default --output-schema or a Python AIPerf 0.13 directory,
// is shown as AIPerf 0.13's console: the metrics of metrics.Config.Schema14
// in their console groups, the sweep-line results and effective latency
// from the stored summary, and RunInfo.SchemaVersion "1.4". Other runs get
// AIPerf 0.8's console.
func Show(ctx context.Context, db *sql.DB, runID string) (*metrics.Summary, *export.RunInfo, error) {
	var streaming bool
	var endpointType, goodputSpec, toolName, artifactSchema string
	err := db.QueryRowContext(ctx, `SELECT coalesce(streaming, false), coalesce(endpoint_type, 'chat'),
		coalesce(json_extract_string(input_config, '$.goodput'), ''), coalesce(tool_name, ''),
		coalesce(json_extract_string(manifest, '$.artifact_schema'), '') FROM runs WHERE run_id = ?`, runID).
		Scan(&streaming, &endpointType, &goodputSpec, &toolName, &artifactSchema)
	if err == sql.ErrNoRows {
		return nil, nil, fmt.Errorf("no run %q: see aiperf-report runs", runID)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("show %s: %w", runID, err)
	}
	cols, err := requestColumns(ctx, db)
	if err != nil {
		return nil, nil, err
	}
	// good_request_count is 0/1 per record; its sum over valid records is
	// the run's aggregate.
	var good int
	var goodSum float64
	if cols["good_request_count"] {
		_ = db.QueryRowContext(ctx, `SELECT count(good_request_count), coalesce(sum(good_request_count) FILTER (WHERE valid), 0)
			FROM requests WHERE run_id = ?`, runID).Scan(&good, &goodSum)
	}
	stored, err := storedMetrics(ctx, db, runID)
	if err != nil {
		return nil, nil, err
	}
	schema14 := isSchema14(artifactSchema, stored)
	// A 1.4 run traced its requests' HTTP timings, as the runner does.
	cfg := &metrics.Config{Streaming: streaming, ProducesTokens: endpointType != "embeddings", TokenizesInput: true,
		Schema14: schema14, HTTPTrace: schema14}
	title := "LLM Metrics"
	if endpointType == "embeddings" {
		title = "Embeddings Metrics"
	}
	// A type that produces no tokens or produces video (image_generation,
	// video_generation) shows what AIPerf shows for it.
	if ep, err := endpoint.Lookup(endpointType); err == nil && (ep.ProducesImages || ep.ProducesVideo) {
		cfg.ProducesTokens, cfg.TokenizesInput, cfg.ProducesVideo = ep.ProducesTokens, ep.TokenizesInput, ep.ProducesVideo
		title = ep.Title
	}
	// The run's own SLOs, as it was configured (--goodput in input_config).
	cfg.Goodput, _ = metrics.ParseGoodput(goodputSpec)
	if len(cfg.Goodput) == 0 && good > 0 {
		// A run from another tool with goodput values but no spec we can
		// read: any SLO marks goodput as configured for the display.
		cfg.Goodput = []metrics.SLO{{Tag: "request_latency"}}
	}
	s := &metrics.Summary{}
	if err := db.QueryRowContext(ctx, `SELECT count(*) FILTER (WHERE valid), count(*) FILTER (WHERE NOT valid),
		min(request_start_ns) FILTER (WHERE valid),
		max(request_start_ns + CAST(round(request_latency * 1000000) AS BIGINT)) FILTER (WHERE valid)
		FROM requests WHERE run_id = ?`, runID).Scan(&s.Valid, &s.Failed, nullInt(&s.StartWallNS), nullInt(&s.EndWallNS)); err != nil {
		return nil, nil, fmt.Errorf("show %s: %w", runID, err)
	}
	totals := map[string]float64{}
	for _, m := range metrics.Catalog() {
		if m.Kind != metrics.KindRecord || !m.Exported() || !m.Enabled(cfg) || !cols[m.Tag] {
			continue
		}
		r, ok, err := distribution(ctx, db, runID, m.Tag)
		if err != nil {
			return nil, nil, err
		}
		if !ok {
			continue
		}
		r.Header, r.Unit, r.Console = m.HeaderFor(cfg), m.DisplayUnit, m.Console(cfg)
		r.Group, r.DisplayOrder = m.ConsoleGroup(cfg)
		totals[m.Tag] = r.Sum
		s.Results = append(s.Results, r)
	}
	duration := float64(s.EndWallNS-s.StartWallNS) / 1e9
	scalar := func(tag string, v float64) {
		m, ok := metrics.Lookup(tag)
		if !ok || !m.Exported() || !m.Enabled(cfg) {
			return
		}
		r := metrics.Result{Tag: tag, Header: m.HeaderFor(cfg), Unit: m.DisplayUnit, Scalar: true, Console: m.Console(cfg), Avg: v}
		r.Group, r.DisplayOrder = m.ConsoleGroup(cfg)
		s.Results = append(s.Results, r)
	}
	if s.Valid > 0 && duration > 0 {
		scalar("request_count", float64(s.Valid))
		scalar("benchmark_duration", duration)
		scalar("request_throughput", float64(s.Valid)/duration)
		if osl, ok := totals["output_sequence_length"]; ok {
			scalar("total_osl", osl)
			scalar("output_token_throughput", osl/duration)
			if isl, ok := totals["input_sequence_length"]; ok {
				scalar("total_token_throughput", (isl+osl)/duration)
			}
		}
		if isl, ok := totals["input_sequence_length"]; ok {
			scalar("total_isl", isl)
		}
		if out, ok := totals["output_token_count"]; ok {
			scalar("total_output_tokens", out)
		}
		if good > 0 {
			scalar("good_request_count", goodSum)
			scalar("goodput", goodSum/duration)
		}
	}
	if s.Failed > 0 {
		scalar("error_request_count", float64(s.Failed))
	}
	applyStored(s, stored, cfg)
	if err := addAIPerf013Rows(ctx, db, runID, s, stored, cfg, cols, toolName != ourTool); err != nil {
		return nil, nil, err
	}
	info := &export.RunInfo{Title: title}
	if schema14 {
		placeSchema14(s, stored)
		info.SchemaVersion = export.Schema14
	}
	sort.SliceStable(s.Results, func(i, j int) bool {
		a, b := s.Results[i], s.Results[j]
		if a.DisplayOrder != b.DisplayOrder {
			return a.DisplayOrder < b.DisplayOrder
		}
		return a.Tag < b.Tag
	})
	if s.Errors, err = errorCounts(ctx, db, runID); err != nil {
		return nil, nil, err
	}
	_ = db.QueryRowContext(ctx, `SELECT coalesce(max(avg) FILTER (WHERE tag = 'usage_discrepancy_count'), 0),
		coalesce(max(avg) FILTER (WHERE tag = 'osl_mismatch_count'), 0) FROM run_metrics WHERE run_id = ?`, runID).
		Scan(intFloat(&s.UsageDiscrepancies), intFloat(&s.OSLMismatches))
	return s, info, nil
}

// requestColumns returns the column names of the requests table.
func requestColumns(ctx context.Context, db *sql.DB) (map[string]bool, error) {
	rows, err := db.QueryContext(ctx, `SELECT column_name FROM information_schema.columns WHERE table_name = 'requests'`)
	if err != nil {
		return nil, fmt.Errorf("requests columns: %w", err)
	}
	defer rows.Close()
	cols := map[string]bool{}
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			return nil, err
		}
		cols[c] = true
	}
	return cols, rows.Err()
}

// distribution computes one metric's statistics over the run's valid
// requests; list columns (inter_chunk_latency) are flattened.
func distribution(ctx context.Context, db *sql.DB, runID, col string) (metrics.Result, bool, error) {
	if col == "inter_chunk_latency" {
		return distributionOf(ctx, db, runID, col, fmt.Sprintf(`unnest(%q)`, col))
	}
	return distributionOf(ctx, db, runID, col, fmt.Sprintf("%q", col))
}

// distributionOf computes the statistics of expr, an SQL expression over
// the columns of requests, over the run's valid requests, as tag.
func distributionOf(ctx context.Context, db *sql.DB, runID, tag, expr string) (metrics.Result, bool, error) {
	col := tag
	src := `SELECT ` + expr + ` AS v FROM requests WHERE run_id = ? AND valid`
	q := `SELECT count(v), sum(v), avg(v), min(v), max(v), stddev_pop(v),
		quantile_cont(v, [0.01, 0.05, 0.10, 0.25, 0.50, 0.75, 0.90, 0.95, 0.99])
		FROM (` + src + `) WHERE v IS NOT NULL`
	r := metrics.Result{Tag: col}
	var sum, avg, mn, mx, std sql.NullFloat64
	var psv any // a list, or NULL when there are no values
	if err := db.QueryRowContext(ctx, q, runID).Scan(&r.Count, &sum, &avg, &mn, &mx, &std, &psv); err != nil {
		return r, false, fmt.Errorf("%s: %w", col, err)
	}
	if r.Count == 0 {
		return r, false, nil
	}
	r.Sum, r.Avg, r.Min, r.Max, r.Std = sum.Float64, avg.Float64, mn.Float64, mx.Float64, std.Float64
	ps, _ := psv.([]any)
	for i := range r.P {
		if i < len(ps) {
			r.P[i], _ = ps[i].(float64)
		}
	}
	return r, true, nil
}

// errorCounts groups the run's failed requests, most frequent first.
func errorCounts(ctx context.Context, db *sql.DB, runID string) ([]metrics.ErrorCount, error) {
	rows, err := db.QueryContext(ctx, `SELECT coalesce(error_code, 0), coalesce(error_type, ''), coalesce(error_message, ''), count(*) AS n
		FROM requests WHERE run_id = ? AND NOT valid GROUP BY ALL ORDER BY n DESC, 2, 3`, runID)
	if err != nil {
		return nil, fmt.Errorf("errors: %w", err)
	}
	defer rows.Close()
	var out []metrics.ErrorCount
	for rows.Next() {
		var e metrics.ErrorCount
		if err := rows.Scan(&e.Error.Code, &e.Error.Type, &e.Error.Message, &e.Count); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// nullInt scans a nullable integer into p (0 when NULL).
func nullInt(p *int64) sql.Scanner { return &intScanner{p} }

type intScanner struct{ p *int64 }

func (s *intScanner) Scan(v any) error {
	switch x := v.(type) {
	case nil:
		*s.p = 0
	case int64:
		*s.p = x
	case float64:
		*s.p = int64(x)
	default:
		return fmt.Errorf("unexpected %T", v)
	}
	return nil
}

// intFloat scans a float into an int.
func intFloat(p *int) sql.Scanner { return &floatToInt{p} }

type floatToInt struct{ p *int }

func (s *floatToInt) Scan(v any) error {
	switch x := v.(type) {
	case nil:
		*s.p = 0
	case float64:
		*s.p = int(x)
	case int64:
		*s.p = int(x)
	default:
		return fmt.Errorf("unexpected %T", v)
	}
	return nil
}
