package query

import (
	"context"
	"database/sql"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/duckdb/duckdb-go/v2"
)

func TestGPUFieldsCount(t *testing.T) {
	if len(GPUFields) != numGPUFields || len(gpuTableColumnNames) != gpuColField+numGPUFields {
		t.Fatalf("GPUFields has %d fields, numGPUFields says %d", len(GPUFields), numGPUFields)
	}
}

// TestIngestGPUTelemetry: every line of the AIPerf fixture is a row with
// the values encoding/json reads from it, for the finished run (the
// composed file) and for the killed one (two segments).
func TestIngestGPUTelemetry(t *testing.T) {
	db := ingestTelemetryStore(t)
	// The finished run's file is the AIPerf fixture, byte for byte.
	lines := fixtureLines(t, telemetryRun+"/"+gpuTelemetryFile)
	if len(lines) != 20 {
		t.Fatalf("%d fixture lines", len(lines))
	}
	cols := append([]string{"timestamp_ns", "ts", "gpu_index", "source_url", "gpu_uuid", "gpu_model_name", "pci_bus_id", "device", "hostname"}, gpuFieldColumns()...)
	for _, run := range []string{telemetryRun, segmentsRun} {
		rows := queryRows(t, db, `SELECT `+strings.Join(cols, ", ")+` FROM gpu_telemetry WHERE run_id = ? ORDER BY timestamp_ns`, run)
		if len(rows) != len(lines) {
			t.Errorf("%s: %d rows, want %d", run, len(rows), len(lines))
			continue
		}
		for n, vals := range rows {
			want, err := refGPULine(lines[n]) // the fixture is in time order
			if err != nil {
				t.Fatal(err)
			}
			if vals[0] != want.TimestampNS || !vals[1].(time.Time).Equal(time.Unix(0, want.TimestampNS/1000*1000).UTC()) {
				t.Errorf("%s row %d: timestamp %v %v, want %d", run, n, vals[0], vals[1], want.TimestampNS)
			}
			if want.Index == nil || vals[2] != int32(*want.Index) {
				t.Errorf("%s row %d: gpu_index %v", run, n, vals[2])
			}
			for i, c := range cols[3:9] {
				if s := want.Strs[c]; s == nil || vals[3+i] != *s {
					t.Errorf("%s row %d: %s = %v, want %v", run, n, c, vals[3+i], deref(s))
				}
			}
			for i, c := range cols[9:] {
				w, got := want.Fields[c], vals[9+i]
				if (w == nil) != (got == nil) || w != nil && got != *w {
					t.Errorf("%s row %d: %s = %v, want %v", run, n, c, got, deref(w))
				}
			}
		}
	}
	// memory_copy_utilization (the fixture's name) fills mem_utilization;
	// the fields the fixture lacks are NULL.
	if v := queryFloat(t, db, `SELECT mem_utilization FROM gpu_telemetry WHERE run_id = ? AND timestamp_ns = 1762551530946074466`, telemetryRun); v == nil || *v != 1 {
		t.Errorf("mem_utilization %v", deref(v))
	}
	if n := queryInt(t, db, `SELECT count(*) FROM gpu_telemetry WHERE sm_utilization IS NOT NULL OR jpg_utilization IS NOT NULL`); n != 0 {
		t.Errorf("%d rows with fields the fixture lacks", n)
	}
	if n := queryInt(t, db, `SELECT count(*) FROM gpu_telemetry WHERE run_id = ?`, oldManifestRun); n != 0 {
		t.Errorf("run without telemetry has %d rows", n)
	}
}

func gpuFieldColumns() []string {
	var out []string
	for _, f := range GPUFields {
		out = append(out, f.Column)
	}
	return out
}

// serverRow is a server_metrics row as scanned.
type scannedServerRow struct {
	endpoint        sql.NullString
	ts              time.Time
	tsNS            int64
	latency         sql.NullInt64
	metric, typ     string
	labels          any
	value, sum, cnt sql.NullFloat64
	buckets, quants any
}

// TestIngestServerMetrics: every sample of every scrape is a row with the
// values encoding/json reads from the lines, typed from the run's export
// (finished run) or derived (killed run: record types, suffixes, shapes).
func TestIngestServerMetrics(t *testing.T) {
	db := ingestTelemetryStore(t)
	types := map[string]string{ // the finished run's server_metrics_export.json
		"go_gc_duration_seconds": "summary", "process_resident_memory_bytes": "gauge", "vllm:generation_tokens": "counter",
		"vllm:kv_cache_usage_perc": "gauge", "vllm:num_requests_running": "gauge", "vllm:num_requests_waiting": "gauge",
		"vllm:time_to_first_token_seconds": "histogram",
		// the killed run's: a type in the record, a _total suffix, a gauge, a histogram
		"tgi_request_count": "counter", "vllm:generation_tokens_total": "counter", "vllm:gpu_cache_usage_perc": "gauge",
		"vllm:e2e_request_latency_seconds": "histogram",
	}
	for run, pattern := range map[string]string{telemetryRun: telemetryRun + "/server_metrics_export.jsonl", segmentsRun: segmentsRun + "/telemetry/server/*.jsonl"} {
		var want []refServerRow
		for _, l := range fixtureLines(t, pattern) {
			rows, err := refServerLine(l)
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, rows...)
		}
		sort.SliceStable(want, func(i, j int) bool {
			if want[i].TimestampNS != want[j].TimestampNS {
				return want[i].TimestampNS < want[j].TimestampNS
			}
			return want[i].Metric < want[j].Metric
		})
		rows, err := db.SQL().Query(`SELECT endpoint_url, ts, timestamp_ns, endpoint_latency_ns, metric, type, labels, value, sum, count, buckets, quantiles
			FROM server_metrics WHERE run_id = ? ORDER BY timestamp_ns, metric`, run)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for ; rows.Next(); n++ {
			var r scannedServerRow
			if err := rows.Scan(&r.endpoint, &r.ts, &r.tsNS, &r.latency, &r.metric, &r.typ, &r.labels, &r.value, &r.sum, &r.cnt, &r.buckets, &r.quants); err != nil {
				t.Fatal(err)
			}
			if n >= len(want) {
				continue
			}
			w := want[n]
			labels, _ := json.Marshal(r.labels)
			var wantLabels any
			_ = json.Unmarshal([]byte(w.Labels), &wantLabels)
			wl, _ := json.Marshal(wantLabels)
			if r.endpoint.String != *w.Endpoint || r.tsNS != w.TimestampNS || !r.ts.Equal(time.Unix(0, w.TimestampNS).UTC()) ||
				r.latency.Int64 != *w.LatencyNS || r.metric != w.Metric || r.typ != types[w.Metric] || string(labels) != string(wl) ||
				!sameNull(r.value, w.Value) || !sameNull(r.sum, w.Sum) || !sameNull(r.cnt, w.Count) ||
				!sameMap(r.buckets, w.Buckets) || !sameMap(r.quants, w.Quantiles) {
				t.Errorf("%s row %d: %+v, want %s", run, n, r, dump(w))
			}
		}
		rows.Close()
		if n != len(want) || n == 0 {
			t.Errorf("%s: %d rows, want %d", run, n, len(want))
		}
	}
	// The documented ways to read the columns.
	for q, want := range map[string]float64{
		`SELECT buckets[0.5] FROM server_metrics WHERE run_id = '` + telemetryRun + `' AND metric = 'vllm:time_to_first_token_seconds' AND timestamp_ns = 1762551532500000000`:            4,
		`SELECT buckets['+Inf'::DOUBLE] FROM server_metrics WHERE run_id = '` + telemetryRun + `' AND metric = 'vllm:time_to_first_token_seconds' AND timestamp_ns = 1762551532000000000`: 2,
		`SELECT quantiles[0.5] FROM server_metrics WHERE metric = 'go_gc_duration_seconds' LIMIT 1`:                                                                                       0.001,
		`SELECT count(*) FROM server_metrics WHERE labels->>'model_name' = 'Qwen/Qwen3-0.6B'`:                                                                                             7*5 + 5*3,
		`SELECT count(*) FROM server_metrics WHERE labels = '{}'`:                                                                                                                         7*2 + 5,
	} {
		if v := queryFloat(t, db, q); v == nil || *v != want {
			t.Errorf("%s = %v, want %v", q, deref(v), want)
		}
	}
}

func sameNull(got sql.NullFloat64, want *float64) bool {
	return got.Valid == (want != nil) && (want == nil || got.Float64 == *want)
}

// sameMap compares a scanned MAP(DOUBLE, DOUBLE) with pairs, in order.
func sameMap(got any, want [][2]float64) bool {
	if got == nil || want == nil {
		return got == nil && want == nil
	}
	m, ok := got.(duckdb.OrderedMap)
	if !ok || m.Len() != len(want) {
		return false
	}
	keys, vals := m.Keys(), m.Values()
	for i, p := range want {
		v, isNum := vals[i].(float64)
		if keys[i] != p[0] || (math.IsNaN(p[1]) != (vals[i] == nil)) || !math.IsNaN(p[1]) && (!isNum || v != p[1]) {
			return false
		}
	}
	return true
}

// TestReingestTelemetry: a run that changed has its telemetry replaced,
// not added to; an unchanged store loads nothing.
func TestReingestTelemetry(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	dir := telemetryStore(t)
	if _, err := db.Ingest(ctx, "", openStore(t, dir)); err != nil {
		t.Fatal(err)
	}
	// The killed run gains a third GPU segment with one more reading.
	seg := filepath.Join(dir, "runs", segmentsRun, "telemetry", "gpu", "000003.jsonl")
	line := `{"timestamp_ns":1762551534000000000,"gpu_index":1,"gpu_uuid":"GPU-2","telemetry_data":{"gpu_power_usage":50.5},"telemetry_source_url":"http://localhost:9400/metrics"}` + "\n"
	if err := os.WriteFile(seg, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := db.Ingest(ctx, "", openStore(t, dir))
	if err != nil || st.RunsLoaded != 1 || st.RunsSkipped != 2 {
		t.Fatalf("second ingest %+v %v", st, err)
	}
	if n := queryInt(t, db, `SELECT count(*) FROM gpu_telemetry WHERE run_id = ?`, segmentsRun); n != 21 {
		t.Errorf("%d readings after the change, want 21", n)
	}
	if n := queryInt(t, db, `SELECT count(*) FROM server_metrics WHERE run_id = ?`, segmentsRun); n != 20 {
		t.Errorf("%d server rows after the change, want 20", n)
	}
	if n := queryInt(t, db, `SELECT gpu_count FROM runs WHERE run_id = ?`, segmentsRun); n != 3 {
		t.Errorf("gpu_count %d, want 3", n)
	}
	if st, err := db.Ingest(ctx, "", openStore(t, dir)); err != nil || st.RunsLoaded != 0 {
		t.Fatalf("third ingest %+v %v", st, err)
	}
}

// TestIngestAIPerfDirTelemetry: an AIPerf artifact directory's
// gpu_telemetry_export.jsonl loads with it, and changes its content key.
func TestIngestAIPerfDirTelemetry(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	copyDir(t, filepath.Join("testdata", "baseline-chat"), dir)
	db := openTestDB(t)
	if _, err := db.IngestAIPerfDir(ctx, dir); err != nil {
		t.Fatal(err)
	}
	var before string
	_ = db.SQL().QueryRow(`SELECT content_key FROM runs`).Scan(&before)
	data, err := os.ReadFile(filepath.Join(telemetryFixture, "runs", telemetryRun, gpuTelemetryFile))
	if err != nil {
		t.Fatal(err)
	}
	// AIPerf 0.13 writes namespaced fields.
	data = []byte(strings.ReplaceAll(string(data), `"gpu_power_usage"`, `"nvidia_power_usage"`))
	if err := os.WriteFile(filepath.Join(dir, gpuTelemetryFile), data, 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := db.IngestAIPerfDir(ctx, dir)
	if err != nil || st.RunsLoaded != 1 {
		t.Fatalf("ingest %+v %v", st, err)
	}
	var after string
	_ = db.SQL().QueryRow(`SELECT content_key FROM runs`).Scan(&after)
	if !strings.HasPrefix(after, before+"+telemetry:") {
		t.Errorf("content key %q after %q", after, before)
	}
	// 30.257 + 30.193 + 32.051 + 37.042 + 2 * (58.911 + 91.541 + 113.989 + 119.638
	// + 119.809 + 119.482 + 119.863) + 119.776 + 120.144
	if v := queryFloat(t, db, `SELECT sum(gpu_power_usage) FROM gpu_telemetry`); v == nil || !near(*v, 1855.929) {
		t.Errorf("power sum %v", deref(v))
	}
	if n := queryInt(t, db, `SELECT gpu_count FROM runs`); n != 2 {
		t.Errorf("gpu_count %d", n)
	}
}

// TestTelemetryLoadErrors: a malformed telemetry line fails its run's
// load, naming the file and line, and leaves no rows behind.
func TestTelemetryLoadErrors(t *testing.T) {
	ctx := context.Background()
	dir := telemetryStore(t)
	seg := filepath.Join(dir, "runs", segmentsRun, "telemetry", "server", "000002.jsonl")
	if err := os.WriteFile(seg, []byte("{\"timestamp_ns\":1,\"metrics\":{\"a\":[{\"value\":1}]}}\n{\"metrics\":{}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	db := openTestDB(t)
	st, err := db.Ingest(ctx, "", openStore(t, dir))
	if st.RunsFailed != 1 || err == nil || !strings.Contains(err.Error(), "000002.jsonl line 2: no timestamp_ns") {
		t.Fatalf("ingest %+v: %v", st, err)
	}
	if n := queryInt(t, db, `SELECT count(*) FROM gpu_telemetry WHERE run_id = ?`, segmentsRun); n != 0 {
		t.Errorf("%d rows of the failed run", n)
	}
}

// TestServerMapsExact: bucket bounds and counts load exactly (shortest
// round-trip text in between), in order, a null count as NULL, an empty
// map as an empty map.
func TestServerMapsExact(t *testing.T) {
	dir := t.TempDir()
	seg := filepath.Join(dir, "runs", segmentsRun, "telemetry", "server", "000001.jsonl")
	if err := os.MkdirAll(filepath.Dir(seg), 0o755); err != nil {
		t.Fatal(err)
	}
	line := `{"timestamp_ns":1,"metrics":{"h":[{"buckets":{"0.30000000000000004":1e-7,"5e-324":2,"1.7976931348623157e308":3,"+Inf":null},` +
		`"summary":{},"sum":0.1,"count":3}]}}` + "\n"
	if err := os.WriteFile(seg, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	db := openTestDB(t)
	if _, err := db.Ingest(context.Background(), "", openStore(t, dir)); err != nil {
		t.Fatal(err)
	}
	var buckets, quantiles any
	if err := db.SQL().QueryRow(`SELECT buckets, quantiles FROM server_metrics`).Scan(&buckets, &quantiles); err != nil {
		t.Fatal(err)
	}
	want := [][2]float64{{0.30000000000000004, 1e-7}, {5e-324, 2}, {math.MaxFloat64, 3}, {math.Inf(1), math.NaN()}}
	if !sameMap(buckets, want) || !sameMap(quantiles, [][2]float64{}) {
		t.Errorf("buckets %v, quantiles %v", buckets, quantiles)
	}
}
