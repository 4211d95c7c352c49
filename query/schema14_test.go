package query

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestIngestSchema14 loads aiperf-go's --output-schema 1.4 files (the
// export package's golden output: AIPerf 0.13's layout, with count and sum
// on every distribution, {unit, avg} scalars, statistics left out, run_info,
// and records without "error" on success and with cause_chain on errors)
// into the same columns as schema 1.0's.
func TestIngestSchema14(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run14")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	summary, err := os.ReadFile("../export/testdata/baseline-chat-1.4/profile_export_aiperf.json")
	if err != nil {
		t.Fatal(err)
	}
	records, err := os.ReadFile("../export/testdata/records14.jsonl.golden")
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"profile_export_aiperf.json": summary, "profile_export.jsonl": records} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	db := openTestDB(t)
	st, err := db.IngestAIPerfDir(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if st.RunsLoaded != 1 || st.Records != 7 {
		t.Fatalf("stats %+v", st)
	}
	var fixture map[string]map[string]any
	var whole map[string]json.RawMessage
	if err := json.Unmarshal(summary, &whole); err != nil {
		t.Fatal(err)
	}
	fixture = map[string]map[string]any{}
	for _, tag := range []string{"request_latency", "request_count", "adj_request_latency"} {
		var block map[string]any
		if err := json.Unmarshal(whole[tag], &block); err != nil {
			t.Fatal(err)
		}
		fixture[tag] = block
	}
	if got := queryFloat(t, db, `SELECT avg FROM run_metrics WHERE tag = 'request_latency'`); got == nil || *got != fixture["request_latency"]["avg"].(float64) {
		t.Errorf("request_latency avg %v, want %v", got, fixture["request_latency"]["avg"])
	}
	if got := queryFloat(t, db, `SELECT p99 FROM run_metrics WHERE tag = 'request_latency'`); got == nil || *got != fixture["request_latency"]["p99"].(float64) {
		t.Errorf("request_latency p99 %v", got)
	}
	if got := queryFloat(t, db, `SELECT avg FROM run_metrics WHERE tag = 'request_count'`); got == nil || *got != fixture["request_count"]["avg"].(float64) {
		t.Errorf("request_count avg %v", got)
	}
	if got := queryFloat(t, db, `SELECT avg FROM run_metrics WHERE tag = 'adj_request_latency'`); got != nil {
		t.Errorf("adj_request_latency avg %v, want NULL (0.13 leaves it out)", *got)
	}
	if got := queryFloat(t, db, `SELECT p50 FROM run_metrics WHERE tag = 'adj_request_latency'`); got == nil || *got != 3.5 {
		t.Errorf("adj_request_latency p50 %v, want 3.5", got)
	}
	if n := queryInt(t, db, `SELECT count(*) FROM requests WHERE error_type IS NULL`); n != 1 {
		t.Errorf("%d records without error, want 1", n)
	}
	if n := queryInt(t, db, `SELECT count(*) FROM requests WHERE error_type = 'SSEResponseError' AND error_code = 502`); n != 1 {
		t.Errorf("%d SSEResponseError records, want 1", n)
	}
	if n := queryInt(t, db, `SELECT count(*) FROM requests WHERE error_type = 'ClientPayloadError'`); n != 2 {
		t.Errorf("%d ClientPayloadError records, want 2", n)
	}
}
