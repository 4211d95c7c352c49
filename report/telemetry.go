package report

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// KeyServerMetrics are the server metrics ShowTelemetry lists, in its
// order, when a run has them: the load, cache, token and latency series
// of vLLM, SGLang, TGI and llama.cpp (and of the mock server, which
// speaks vLLM's names). Counters are named as AIPerf records them,
// without _total; a metric stored with _total matches too.
var KeyServerMetrics = []string{
	"vllm:num_requests_running", "vllm:num_requests_waiting", "vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc",
	"vllm:num_preemptions", "vllm:prompt_tokens", "vllm:generation_tokens", "vllm:request_success",
	"vllm:prefix_cache_hits", "vllm:prefix_cache_queries",
	"vllm:time_to_first_token_seconds", "vllm:inter_token_latency_seconds", "vllm:time_per_output_token_seconds",
	"vllm:e2e_request_latency_seconds",
	"sglang:num_running_reqs", "sglang:num_queue_reqs", "sglang:token_usage", "sglang:cache_hit_rate",
	"sglang:prompt_tokens", "sglang:generation_tokens", "sglang:time_to_first_token_seconds",
	"sglang:inter_token_latency_seconds", "sglang:e2e_request_latency_seconds",
	"tgi_queue_size", "tgi_batch_current_size", "tgi_request_count", "tgi_request_success",
	"tgi_request_generated_tokens", "tgi_request_queue_duration", "tgi_request_duration",
	"llamacpp:requests_processing", "llamacpp:requests_deferred", "llamacpp:kv_cache_usage_ratio",
	"llamacpp:prompt_tokens", "llamacpp:tokens_predicted", "llamacpp:n_decode",
	"llamacpp:prompt_tokens_seconds", "llamacpp:predicted_tokens_seconds",
}

// otherServerSeries is how many series ShowTelemetry lists of a run that
// has none of KeyServerMetrics.
const otherServerSeries = 20

// ShowTelemetry writes what the run's GPUs and server did over its
// profiling window (docs/schema.md, gpu_summary and
// server_metrics_summary): one line per GPU (power, utilisation, memory,
// energy), then, per scraped endpoint, the run's KeyServerMetrics series
// (gauges: avg, min, max; counters: increase and rate; histograms: the
// mean observation, the count's increase and rate), or its first series
// when it has none of them. A run without telemetry writes nothing.
// Numbers are formatted as AIPerf's GPU telemetry console does.
func ShowTelemetry(ctx context.Context, db *sql.DB, w io.Writer, runID string) error {
	if err := showGPUs(ctx, db, w, runID); err != nil {
		return err
	}
	return showServer(ctx, db, w, runID)
}

// showGPUs writes the GPU table.
func showGPUs(ctx context.Context, db *sql.DB, w io.Writer, runID string) error {
	rows, err := db.QueryContext(ctx, `SELECT source_url, gpu_index, gpu_model_name, samples,
			power_avg_w, power_max_w, gpu_utilization_avg, gpu_memory_used_max_gb, energy_j
		FROM gpu_summary WHERE run_id = ? ORDER BY source_url, gpu_index, gpu_uuid`, runID)
	if err != nil {
		return fmt.Errorf("gpu telemetry: %w", err)
	}
	defer rows.Close()
	t := &Table{Columns: []string{"source", "gpu", "model", "samples", "power avg (W)", "power max (W)",
		"utilization avg (%)", "memory used max (GB)", "energy (J)"}}
	var energy float64
	for rows.Next() {
		var source, model sql.NullString
		var index sql.NullInt64
		var samples int64
		var power, powerMax, util, mem, joules sql.NullFloat64
		if err := rows.Scan(&source, &index, &model, &samples, &power, &powerMax, &util, &mem, &joules); err != nil {
			return fmt.Errorf("gpu telemetry: %w", err)
		}
		gpu := ""
		if index.Valid {
			gpu = strconv.FormatInt(index.Int64, 10)
		}
		energy += joules.Float64
		t.Rows = append(t.Rows, []any{source.String, gpu, model.String, strconv.FormatInt(samples, 10),
			number(power), number(powerMax), number(util), number(mem), number(joules)})
	}
	if err := rows.Err(); err != nil || len(t.Rows) == 0 {
		return err
	}
	// gpu_count is the manifest's, or counted from the readings.
	count := int64(len(t.Rows))
	err = db.QueryRowContext(ctx, `SELECT coalesce(gpu_count, ?) FROM runs WHERE run_id = ?`, count, runID).Scan(&count)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("gpu telemetry: %w", err)
	}
	if _, err := fmt.Fprintf(w, "\nGPU Telemetry: %d GPUs, %s J over the profiling window\n", count, formatNumber(energy)); err != nil {
		return err
	}
	return writeTrimmed(w, t)
}

// serverSeries is one line of the server table.
type serverSeries struct {
	metric, typ, labels           string
	samples                       int64
	avg, min, max, increase, rate sql.NullFloat64
	sumIncrease, durationS        sql.NullFloat64
}

// showServer writes the server table of each endpoint.
func showServer(ctx context.Context, db *sql.DB, w io.Writer, runID string) error {
	rows, err := db.QueryContext(ctx, `SELECT coalesce(endpoint_url, ''), metric, type, CAST(labels AS VARCHAR), samples,
			avg, min, max, increase, rate, sum_increase, duration_s
		FROM server_metrics_summary WHERE run_id = ? ORDER BY endpoint_url, metric, CAST(labels AS VARCHAR)`, runID)
	if err != nil {
		return fmt.Errorf("server metrics: %w", err)
	}
	defer rows.Close()
	byEndpoint := map[string][]serverSeries{}
	var endpoints []string
	for rows.Next() {
		var ep string
		var s serverSeries
		if err := rows.Scan(&ep, &s.metric, &s.typ, &s.labels, &s.samples, &s.avg, &s.min, &s.max,
			&s.increase, &s.rate, &s.sumIncrease, &s.durationS); err != nil {
			return fmt.Errorf("server metrics: %w", err)
		}
		if _, ok := byEndpoint[ep]; !ok {
			endpoints = append(endpoints, ep)
		}
		byEndpoint[ep] = append(byEndpoint[ep], s)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	var software, version sql.NullString
	if len(endpoints) > 0 {
		err := db.QueryRowContext(ctx, `SELECT server_software, server_version FROM runs WHERE run_id = ?`, runID).Scan(&software, &version)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("server metrics: %w", err)
		}
	}
	for _, ep := range endpoints {
		if err := writeEndpoint(w, runID, ep, strings.TrimSpace(software.String+" "+version.String), byEndpoint[ep]); err != nil {
			return err
		}
	}
	return nil
}

// writeEndpoint writes one endpoint's heading and table.
func writeEndpoint(w io.Writer, runID, endpoint, server string, all []serverSeries) error {
	rank := func(m string) int { return slices.Index(KeyServerMetrics, strings.TrimSuffix(m, "_total")) }
	var shown []serverSeries
	for _, s := range all {
		if rank(s.metric) >= 0 {
			shown = append(shown, s)
		}
	}
	sort.SliceStable(shown, func(i, j int) bool { return rank(shown[i].metric) < rank(shown[j].metric) })
	if len(shown) == 0 {
		shown = all[:min(len(all), otherServerSeries)]
	}
	head := "\nServer Metrics: " + endpoint
	if server != "" {
		head += " (" + server + ")"
	}
	scrapes, duration := int64(0), 0.0
	for _, s := range all {
		scrapes, duration = max(scrapes, s.samples), max(duration, s.durationS.Float64)
	}
	head += fmt.Sprintf(", %d scrapes over %s s of the profiling window", scrapes, formatNumber(duration))
	if _, err := fmt.Fprintln(w, head); err != nil {
		return err
	}
	t := &Table{Columns: []string{"metric", "labels", "type", "avg", "min", "max", "increase", "rate (/s)"}}
	for _, s := range shown {
		avg := s.avg
		if s.typ == "histogram" || s.typ == "summary" { // the mean observation
			avg = sql.NullFloat64{}
			if s.increase.Valid && s.increase.Float64 > 0 && s.sumIncrease.Valid {
				avg = sql.NullFloat64{Float64: s.sumIncrease.Float64 / s.increase.Float64, Valid: true}
			}
		}
		t.Rows = append(t.Rows, []any{s.metric, labelText(s.labels), s.typ, number(avg), number(s.min), number(s.max),
			number(s.increase), number(s.rate)})
	}
	if err := writeTrimmed(w, t); err != nil {
		return err
	}
	if more := len(all) - len(shown); more > 0 {
		_, err := fmt.Fprintf(w, "(%d more series: aiperf-report sql \"SELECT * FROM server_metrics_summary WHERE run_id = '%s'\")\n", more, runID)
		return err
	}
	return nil
}

// writeTrimmed writes t as an aligned text table without the spaces that
// pad empty cells at the ends of lines.
func writeTrimmed(w io.Writer, t *Table) error {
	var b bytes.Buffer
	if err := Write(&b, t, "table"); err != nil {
		return err
	}
	lines := strings.SplitAfter(b.String(), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \n")
		if strings.HasSuffix(l, "\n") {
			lines[i] += "\n"
		}
	}
	_, err := io.WriteString(w, strings.Join(lines, ""))
	return err
}

// labelText renders a labels object as name=value pairs in name order.
func labelText(labels string) string {
	var m map[string]string
	if json.Unmarshal([]byte(labels), &m) != nil {
		return labels
	}
	var parts []string
	for _, n := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, n+"="+m[n])
	}
	return strings.Join(parts, ",")
}

// number formats a nullable value as formatNumber does, "" for NULL.
func number(v sql.NullFloat64) string {
	if !v.Valid {
		return ""
	}
	return formatNumber(v.Float64)
}

// formatNumber formats as AIPerf's GPU telemetry console: two decimals
// with thousands separators, and scientific notation from a million; a
// fraction below 1 keeps four decimals (a KV-cache ratio, a latency in
// seconds).
func formatNumber(v float64) string {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return "N/A"
	case math.Abs(v) >= 1e6:
		return strconv.FormatFloat(v, 'e', 2, 64)
	}
	decimals := 2
	if v != 0 && math.Abs(v) < 0.995 {
		decimals = 4
	}
	s := strconv.FormatFloat(math.Abs(v), 'f', decimals, 64)
	intPart, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	if v < 0 && strings.Trim(s, "0.") != "" {
		b.WriteByte('-')
	}
	for i, c := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String() + "." + frac
}
