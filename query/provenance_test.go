package query

import (
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestIngestRunProvenance: the manifest's server and telemetry fields
// fill the runs columns; a run without them has NULLs, and a run without
// a manifest counts its GPUs from its readings.
func TestIngestRunProvenance(t *testing.T) {
	db := ingestTelemetryStore(t)
	type row struct {
		URL, Header, Software, Version, Models, Info, Sources, Model sql.NullString
		GPUs                                                         sql.NullInt64
	}
	get := func(id string) row {
		var r row
		err := db.SQL().QueryRow(`SELECT server_url, server_header, server_software, server_version, CAST(server_models AS VARCHAR),
			server_info->'vllm:cache_config_info'->>'block_size', json_array_length(telemetry_sources)::VARCHAR, gpu_model, gpu_count
			FROM runs WHERE run_id = ?`, id).
			Scan(&r.URL, &r.Header, &r.Software, &r.Version, &r.Models, &r.Info, &r.Sources, &r.Model, &r.GPUs)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	ns := func(s string) sql.NullString { return sql.NullString{String: s, Valid: true} }
	gpu := "NVIDIA RTX 6000 Ada Generation"
	for id, want := range map[string]row{
		telemetryRun: {ns("http://localhost:8000"), ns("uvicorn"), ns("vllm"), ns("0.11.0"), ns("[Qwen/Qwen3-0.6B]"), ns("16"), ns("3"), ns(gpu),
			sql.NullInt64{Int64: 2, Valid: true}},
		// Two exporters report the fixture's one GPU: two per source, as AIPerf counts.
		segmentsRun:    {Model: ns(gpu), GPUs: sql.NullInt64{Int64: 2, Valid: true}},
		oldManifestRun: {},
	} {
		if got := get(id); got != want {
			t.Errorf("%s:\n got %+v\nwant %+v", id, got, want)
		}
	}
}

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

// TestParseProvenance: the manifest's fields of the expected shapes are
// kept, models named by strings or by objects with an id or a name, and
// a field of another shape is left out rather than failing the run.
func TestParseProvenance(t *testing.T) {
	two := 2
	for _, c := range []struct {
		manifest string
		want     *provenance
	}{
		{`{"run_id":"x"}`, nil},
		{`not json`, nil},
		{`{"server":{"url":"http://h:8000","header":"uvicorn","software":"vllm","version":"0.11.0",
			"models":["a",{"id":"b"},{"name":"c"},{"id":""},5],"info":{"k":{"x":"1"}}},
			"telemetry":{"sources":[{"url":"u"}],"gpu_count":2}}`,
			&provenance{URL: "http://h:8000", Header: "uvicorn", Software: "vllm", Version: "0.11.0",
				Models: []string{"a", "b", "c"}, Info: []byte(`{"k":{"x":"1"}}`), Sources: []byte(`[{"url":"u"}]`), GPUCount: &two}},
		{`{"server":{"url":5,"version":null,"info":null},"telemetry":{"gpu_count":0}}`, &provenance{}},
		{`{"telemetry":{"gpu_count":"2","sources":null}}`, &provenance{}},
		{`{"telemetry":{"gpu_count":-1}}`, &provenance{}},
	} {
		if got := parseProvenance([]byte(c.manifest)); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", c.manifest, got, c.want)
		}
	}
}

// FuzzParseProvenance: any manifest parses without panicking, into
// compact JSON documents and a positive GPU count, or into nothing.
func FuzzParseProvenance(f *testing.F) {
	f.Add([]byte(`{"server":{"url":"u","models":["m",{"id":"i"}],"info":{"a":{}}},"telemetry":{"sources":[],"gpu_count":1}}`))
	f.Add([]byte(`{"server":null,"telemetry":{"gpu_count":1e3}}`))
	f.Fuzz(func(t *testing.T, manifest []byte) {
		p := parseProvenance(manifest)
		if p == nil {
			return
		}
		for _, doc := range [][]byte{p.Info, p.Sources} {
			if doc != nil && (!json.Valid(doc) || string(doc) == "null") {
				t.Fatalf("%q: document %q", manifest, doc)
			}
		}
		if p.GPUCount != nil && *p.GPUCount <= 0 {
			t.Fatalf("%q: gpu count %d", manifest, *p.GPUCount)
		}
	})
}
