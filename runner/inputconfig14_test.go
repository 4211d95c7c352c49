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

// TestInputConfig14MultiTurnTimesliced checks a multi-turn, timesliced
// --output-schema 1.4 run: input_config has 0.13's datasets[].turns and
// phases[].sessions, and the timeslices file is in 0.13's layout with the
// same input_config.
func TestInputConfig14MultiTurnTimesliced(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{TTFT: time.Millisecond, ITL: 100 * time.Microsecond, OutputTokens: 4})
	cfg := testConfig(t, srv.URL())
	cfg.OutputSchema = "1.4"
	cfg.Streaming = true
	cfg.Concurrency, cfg.NumSessions, cfg.SessionTurnsMean = 2, 4, 3
	cfg.ISLMean, cfg.OSLMean = 20, 4
	cfg.SliceDuration = 50 * time.Millisecond
	cfg.NoServerMetrics, cfg.NoGPUTelemetry = true, true
	runOK(t, cfg)

	type config struct {
		Datasets []struct {
			Turns *struct {
				Mean   float64 `json:"mean"`
				Stddev float64 `json:"stddev"`
			} `json:"turns"`
		} `json:"datasets"`
		Phases []struct {
			Name     string `json:"name"`
			Sessions int    `json:"sessions"`
		} `json:"phases"`
	}
	read := func(name string, v any) []byte {
		t.Helper()
		data, err := os.ReadFile(filepath.Join(cfg.ArtifactDir, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return data
	}
	var summary struct {
		InputConfig config `json:"input_config"`
	}
	read("profile_export_aiperf.json", &summary)
	ic := summary.InputConfig
	if len(ic.Datasets) != 1 || ic.Datasets[0].Turns == nil || ic.Datasets[0].Turns.Mean != 3 || ic.Datasets[0].Turns.Stddev != 0 {
		t.Errorf("input_config.datasets = %+v, want turns {mean 3, stddev 0}", ic.Datasets)
	}
	if p := ic.Phases[len(ic.Phases)-1]; p.Name != "profiling" || p.Sessions != 4 {
		t.Errorf("profiling phase = %+v, want 4 sessions", p)
	}

	var slices struct {
		Timeslices  []map[string]json.RawMessage `json:"timeslices"`
		InputConfig config                       `json:"input_config"`
	}
	read("profile_export_aiperf_timeslices.json", &slices)
	if len(slices.Timeslices) == 0 {
		t.Fatal("no timeslices")
	}
	for i, s := range slices.Timeslices {
		if _, ok := s["timeslice_index"]; ok || s["start_ns"] == nil || s["end_ns"] == nil {
			t.Errorf("timeslice %d is not in 0.13's layout: %s %s %s", i, s["timeslice_index"], s["start_ns"], s["end_ns"])
		}
	}
	if got := slices.InputConfig; len(got.Phases) == 0 || got.Phases[len(got.Phases)-1].Sessions != 4 || got.Datasets[0].Turns == nil {
		t.Errorf("timeslices input_config = %+v, want 0.13's", got)
	}
}
