package query

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// legacySummary is a profile_export_aiperf.json in AIPerf 0.7's layout (as
// its examples/artifacts/run1, trimmed): metrics under "records" with the
// tags ttft and ttst, input_config with endpoint.model_names, loadgen and
// input.prompt, and start/end in the writer's local time (UTC-7) without a
// zone.
const legacySummary = `{"records":{
 "ttft":{"tag":"ttft","unit":"ms","header":"Time to First Token","avg":2343.2,"min":464.6,"max":3853.8,"p1":581.1,"p5":728.6,"p25":1413.8,"p50":2369.3,"p75":3336.6,"p90":3796.9,"p95":3825.2,"p99":3833.3,"std":1049.8,"count":2},
 "ttst":{"tag":"ttst","unit":"ms","header":"Time to Second Token","avg":120.1,"min":21.2,"max":143.2,"p50":136.6,"count":2},
 "request_count":{"tag":"request_count","unit":"requests","avg":2.0,"count":1},
 "min_request_timestamp":{"tag":"min_request_timestamp","unit":"ns","avg":1.759522419154569e18,"count":1}},
 "input_config":{"endpoint":{"model_names":["openai/gpt-oss-20b"],"type":"chat","streaming":true,"url":"localhost:9000"},
  "input":{"prompt":{"input_tokens":{"mean":550},"output_tokens":{"mean":250}}},
  "loadgen":{"concurrency":100,"request_rate_mode":"concurrency_burst","request_count":100}},
 "was_cancelled":false,"start_time":"2025-10-03T13:13:39.146443","end_time":"2025-10-03T13:13:48.474205"}`

// legacyRecords are two records of AIPerf 0.7's profile_export.jsonl:
// timestamp_ns and credit_phase, metrics ttft and ttst.
const legacyRecords = `{"metadata":{"worker_id":"w1","record_processor_id":"p1","timestamp_ns":1759522419154569000,"credit_phase":"profiling"},"metrics":{"ttft":{"value":464.6,"unit":"ms"},"ttst":{"value":21.2,"unit":"ms"},"request_latency":{"value":9000.5,"unit":"ms"},"output_sequence_length":{"value":247,"unit":"tokens"}},"error":null}
{"metadata":{"worker_id":"w2","record_processor_id":"p1","timestamp_ns":1759522419160000000,"credit_phase":"profiling"},"metrics":{"ttft":{"value":3853.8,"unit":"ms"},"ttst":{"value":143.2,"unit":"ms"},"request_latency":{"value":9299.7,"unit":"ms"},"output_sequence_length":{"value":193,"unit":"tokens"}},"error":null}
`

// TestIngestLegacyAIPerf: AIPerf 0.7's names map to today's columns
// (model, concurrency, OSL and TTFT were NULL), and its zone-less local
// start and end are placed in the zone they were written in, as the
// records' wall clock (or the summary's min_request_timestamp) shows,
// instead of being read as UTC.
func TestIngestLegacyAIPerf(t *testing.T) {
	for name, files := range map[string]map[string]string{
		"with records": {summaryFile: legacySummary, recordsFile: legacyRecords},
		"summary only": {summaryFile: legacySummary},
	} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "run1")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			for f, text := range files {
				if err := os.WriteFile(filepath.Join(dir, f), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			db := openTestDB(t)
			ctx := context.Background()
			if st, err := db.IngestAIPerfDir(ctx, dir); err != nil || st.RunsLoaded != 1 {
				t.Fatalf("ingest %+v: %v", st, err)
			}
			var model, loadMode string
			var conc int
			var osl, isl float64
			var start, end time.Time
			err := db.SQL().QueryRowContext(ctx, `SELECT model, load_mode, concurrency, osl_mean, isl_mean, start_time, end_time FROM runs`).
				Scan(&model, &loadMode, &conc, &osl, &isl, &start, &end)
			if err != nil {
				t.Fatal(err)
			}
			if model != "openai/gpt-oss-20b" || loadMode != "concurrency" || conc != 100 || osl != 250 || isl != 550 {
				t.Errorf("model %q load %q concurrency %d osl %v isl %v", model, loadMode, conc, osl, isl)
			}
			if want := time.Date(2025, 10, 3, 20, 13, 39, 146443000, time.UTC); !start.Equal(want) {
				t.Errorf("start %v, want %v (13:13:39 at UTC-7)", start, want)
			}
			if want := time.Date(2025, 10, 3, 20, 13, 48, 474205000, time.UTC); !end.Equal(want) {
				t.Errorf("end %v, want %v", end, want)
			}
			var p50 float64
			if err := db.SQL().QueryRowContext(ctx, `SELECT p50 FROM run_metrics WHERE tag = 'time_to_first_token'`).Scan(&p50); err != nil || p50 != 2369.3 {
				t.Errorf("time_to_first_token p50 %v: %v", p50, err)
			}
			var ttst float64
			if err := db.SQL().QueryRowContext(ctx, `SELECT avg FROM run_metrics WHERE tag = 'time_to_second_token'`).Scan(&ttst); err != nil || ttst != 120.1 {
				t.Errorf("time_to_second_token avg %v: %v", ttst, err)
			}
			if _, ok := files[recordsFile]; ok {
				var n int
				var ttft, ttstSum float64
				err := db.SQL().QueryRowContext(ctx, `SELECT count(*), sum(time_to_first_token), sum(time_to_second_token) FROM requests`).Scan(&n, &ttft, &ttstSum)
				if err != nil || n != 2 || math.Abs(ttft-(464.6+3853.8)) > 1e-9 || math.Abs(ttstSum-(21.2+143.2)) > 1e-9 {
					t.Errorf("records: %d ttft %v ttst %v: %v", n, ttft, ttstSum, err)
				}
			}
		})
	}
}

// TestZoneOffset checks the zone found from a wall-clock reference.
func TestZoneOffset(t *testing.T) {
	naive := time.Date(2025, 10, 3, 13, 13, 39, 0, time.UTC)
	wall := func(t time.Time) int64 { return t.UnixNano() }
	tests := []struct {
		name   string
		wallNS int64
		off    time.Duration
		ok     bool
	}{
		{"UTC-7, request 8 ms later", wall(naive.Add(7*time.Hour + 8*time.Millisecond)), -7 * time.Hour, true},
		{"UTC+5:30, request 3 s later", wall(naive.Add(-5*time.Hour - 30*time.Minute + 3*time.Second)), 5*time.Hour + 30*time.Minute, true},
		{"UTC", wall(naive), 0, true},
		{"no reference", 0, 0, false},
		{"no zone is 20 h off", wall(naive.Add(20 * time.Hour)), 0, false},
	}
	for _, tc := range tests {
		off, ok := zoneOffset(naive, tc.wallNS)
		if off != tc.off || ok != tc.ok {
			t.Errorf("%s: %v %v, want %v %v", tc.name, off, ok, tc.off, tc.ok)
		}
	}
	// A summary file's time tells the zone only when written within a
	// minute of the end (a later copy does not).
	if off, ok := zoneOffsetWithin(naive, wall(naive.Add(7*time.Hour+2*time.Second)), writtenWithin); !ok || off != -7*time.Hour {
		t.Errorf("written 2 s after: %v %v", off, ok)
	}
	if _, ok := zoneOffsetWithin(naive, wall(naive.Add(7*time.Hour+5*time.Minute)), writtenWithin); ok {
		t.Error("a file copied 5 min later tells a zone")
	}
}
