package query

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestIngestTelemetryStart: a run that never finished (no manifest, no
// export) gets its server's identity and its counters' types from the
// telemetry/start.json the runner stores before the first request: a
// counter named without _total, as AIPerf's raw records name it, is a
// counter, not a gauge.
func TestIngestTelemetryStart(t *testing.T) {
	dir := telemetryStore(t)
	run := filepath.Join(dir, "runs", segmentsRun)
	start := `{"server":{"url":"http://localhost:8000","header":"uvicorn","software":"vllm","version":"0.11.0","models":["Qwen/Qwen3-0.6B"]},` +
		`"metrics":{"vllm:prompt_tokens":{"type":"counter"},"vllm:gpu_cache_usage_perc":{"type":"gauge"}}}`
	if err := os.WriteFile(filepath.Join(run, "telemetry", "start.json"), []byte(start), 0o644); err != nil {
		t.Fatal(err)
	}
	line := `{"endpoint_url":"http://localhost:8000/metrics","timestamp_ns":1762551536000000000,"endpoint_latency_ns":1000000,` +
		`"metrics":{"vllm:prompt_tokens":[{"labels":{"model_name":"Qwen/Qwen3-0.6B"},"value":123}]}}` + "\n"
	if err := os.WriteFile(filepath.Join(run, "telemetry", "server", "000003.jsonl"), []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	db := openTestDB(t)
	if _, err := db.Ingest(context.Background(), "", openStore(t, dir)); err != nil {
		t.Fatal(err)
	}
	var typ, software, version, header string
	err := db.SQL().QueryRow(`SELECT m.type, r.server_software, r.server_version, r.server_header
		FROM server_metrics m JOIN runs r USING (run_id) WHERE run_id = ? AND metric = 'vllm:prompt_tokens'`, segmentsRun).Scan(&typ, &software, &version, &header)
	if err != nil {
		t.Fatal(err)
	}
	if typ != "counter" || software != "vllm" || version != "0.11.0" || header != "uvicorn" {
		t.Errorf("type %q, server %q %q %q", typ, software, version, header)
	}
}
