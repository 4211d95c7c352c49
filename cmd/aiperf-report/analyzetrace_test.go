package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAnalyzeTraceFormats: --format picks AIPerf's report (table), the
// analysis JSON, or one row per statistic (csv, markdown), each with the
// trace's values.
func TestAnalyzeTraceFormats(t *testing.T) {
	trace := filepath.Join("..", "..", "trace", "testdata", "custom_trace.jsonl")
	var want struct {
		TotalRequests int `json:"total_requests"`
	}
	data, err := os.ReadFile(filepath.Join("..", "..", "trace", "testdata", "custom_trace.aiperf.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &want); err != nil || want.TotalRequests == 0 {
		t.Fatalf("reference analysis: %v", err)
	}
	for _, tc := range []struct{ format, has string }{
		{"table", "Trace Analysis Report"},
		{"json", `"total_requests"`},
		{"csv", "statistic,value\ntotal_requests,"},
		{"markdown", "| total_requests |"},
	} {
		code, out, errs := reportCLI(t, "--format", tc.format, "analyze-trace", trace)
		if code != 0 || !strings.Contains(out, tc.has) {
			t.Errorf("--format %s: %d %q %s", tc.format, code, out, errs)
		}
		if tc.format == "json" {
			var got struct {
				TotalRequests int `json:"total_requests"`
			}
			if err := json.Unmarshal([]byte(out), &got); err != nil || got.TotalRequests != want.TotalRequests {
				t.Errorf("--format json: %d requests (%v), want %d", got.TotalRequests, err, want.TotalRequests)
			}
		}
	}
}
