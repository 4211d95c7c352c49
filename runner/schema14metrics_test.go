package runner

import (
	"math"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/mockserver"
	"github.com/aiperf-go/aiperf/mockserver/mocktest"
)

// TestSchema14Metrics checks that --output-schema 1.4 computes AIPerf
// 0.13's additional metrics from a real run, and 1.0 none of them.
func TestSchema14Metrics(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{TTFT: 2 * time.Millisecond, ITL: 200 * time.Microsecond,
		OutputTokens: 8, ErrorRate: 0.3, Seed: 5})
	added := []string{
		"effective_concurrency", "effective_decode_throughput", "active_total_throughput",
		"tokens_in_flight", "effective_latency", "credit_to_start_latency",
		"completed_request_count", "request_error_rate", "input_token_throughput",
		"context_overflow_count", "adj_request_latency", "adj_time_to_first_token",
	}
	for _, schema := range []string{"1.0", "1.4"} {
		t.Run(schema, func(t *testing.T) {
			cfg := testConfig(t, srv.URL())
			cfg.OutputSchema = schema
			cfg.Streaming = true
			cfg.Concurrency, cfg.RequestCount = 2, 12
			cfg.NoServerMetrics, cfg.NoGPUTelemetry = true, true
			s := runOK(t, cfg).Summary
			if s.Failed == 0 {
				t.Fatal("no injected errors")
			}
			for _, tag := range added {
				if got := s.Get(tag) != nil; got != (schema == "1.4") {
					t.Errorf("%s present = %v", tag, got)
				}
			}
			if schema != "1.4" {
				return
			}
			// 12 requests, of which s.Failed failed.
			if r := s.Get("completed_request_count"); r.Avg != 12 {
				t.Errorf("completed_request_count = %v, want 12", r.Avg)
			}
			if r := s.Get("request_error_rate"); math.Abs(r.Avg-100*float64(s.Failed)/12) > 1e-9 {
				t.Errorf("request_error_rate = %v, want %v", r.Avg, 100*float64(s.Failed)/12)
			}
			// Two workers: never more than 2 requests in flight, some always
			// while the run lasts.
			if r := s.Get("effective_concurrency"); r.Max != 2 || r.Avg <= 0 || r.Avg > 2 {
				t.Errorf("effective_concurrency avg %v max %v, want (0, 2] and 2", r.Avg, r.Max)
			}
			// The observation window starts at the phase start, before the
			// first request, so it is at least benchmark_duration.
			rt, dur, cnt := s.Get("request_throughput"), s.Get("benchmark_duration"), s.Get("request_count")
			if rt.Avg > cnt.Avg/dur.Avg*(1+1e-9) {
				t.Errorf("request_throughput %v > request_count/benchmark_duration %v", rt.Avg, cnt.Avg/dur.Avg)
			}
		})
	}
}
