package runner

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/mockserver"
	"github.com/aiperf-go/aiperf/mockserver/mocktest"
)

// TestNonStreamingSchema14 runs embeddings (a whole body, no generated
// tokens) under both schemas. 1.4 writes, as AIPerf 0.13 does, the time the
// response headers arrived as request_ack_ns and an output_sequence_length
// of 0 (per record and in the summary); 1.0 keeps AIPerf 0.8's null ack and
// no output_sequence_length.
func TestNonStreamingSchema14(t *testing.T) {
	for _, schema := range []string{"1.4", "1.0"} {
		t.Run(schema, func(t *testing.T) {
			srv := mocktest.Start(t, mockserver.Config{TTFT: time.Millisecond})
			cfg := testConfig(t, srv.URL())
			cfg.OutputSchema = schema
			cfg.EndpointType = "embeddings"
			cfg.Concurrency, cfg.RequestCount = 1, 3
			cfg.NoServerMetrics, cfg.NoGPUTelemetry = true, true
			runOK(t, cfg)

			lines := jsonlLines(t, filepath.Join(cfg.ArtifactDir, "profile_export.jsonl"))
			if len(lines) != 3 {
				t.Fatalf("%d records, want 3", len(lines))
			}
			for _, line := range lines {
				var r struct {
					Metadata struct {
						Start int64  `json:"request_start_ns"`
						Ack   *int64 `json:"request_ack_ns"`
						End   int64  `json:"request_end_ns"`
					} `json:"metadata"`
					Metrics map[string]struct {
						Value json.RawMessage `json:"value"`
					} `json:"metrics"`
				}
				if err := json.Unmarshal(line, &r); err != nil {
					t.Fatal(err)
				}
				m := r.Metadata
				osl, hasOSL := r.Metrics["output_sequence_length"]
				if schema == "1.0" {
					if m.Ack != nil || hasOSL {
						t.Errorf("1.0 record: request_ack_ns %v, output_sequence_length present %v; want null and absent", m.Ack, hasOSL)
					}
					continue
				}
				if m.Ack == nil || *m.Ack < m.Start || *m.Ack > m.End {
					t.Errorf("1.4 record: request_ack_ns %v, want within [%d, %d]", m.Ack, m.Start, m.End)
				}
				if !hasOSL || string(osl.Value) != "0" {
					t.Errorf("1.4 record: output_sequence_length %s (present %v), want 0", osl.Value, hasOSL)
				}
			}

			data, err := os.ReadFile(filepath.Join(cfg.ArtifactDir, "profile_export_aiperf.json"))
			if err != nil {
				t.Fatal(err)
			}
			var sum map[string]json.RawMessage
			if err := json.Unmarshal(data, &sum); err != nil {
				t.Fatal(err)
			}
			osl, ok := sum["output_sequence_length"]
			if schema == "1.0" {
				if ok {
					t.Errorf("1.0 summary has output_sequence_length: %s", osl)
				}
				return
			}
			var d struct {
				Avg   *float64 `json:"avg"`
				Count int      `json:"count"`
			}
			if err := json.Unmarshal(osl, &d); err != nil || d.Avg == nil || *d.Avg != 0 || d.Count != 3 {
				t.Errorf("1.4 summary output_sequence_length = %s, want avg 0 over 3 records", osl)
			}
		})
	}
}
