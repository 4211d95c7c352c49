//go:build timing && !race

package runner

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/metrics"
	"github.com/aiperf-go/aiperf/mockserver"
)

// TestTritonTimingMatchesServerTruth is TestTimingMatchesServerTruth for
// Triton's generate_stream (kserve and generate streaming) at concurrency
// 1: TTFT, TTST, inter-chunk latency, ITL and request latency against when
// the mock (in its own process) received the request and wrote each
// token event. The median deviation must be within 0.2 ms and the p99
// within 1 ms; five attempts each (shared 2-core VM).
func TestTritonTimingMatchesServerTruth(t *testing.T) {
	for _, tr := range tritonRuns {
		t.Run(tr.typ+"-"+tr.backend, func(t *testing.T) {
			var problem string
			for attempt := 1; attempt <= 5; attempt++ {
				if problem = tritonTimingAttempt(t, tr.typ, tr.backend); problem == "" {
					return
				}
				t.Logf("attempt %d: %s", attempt, problem)
			}
			t.Error(problem)
		})
	}
}

func tritonTimingAttempt(t *testing.T, typ, backend string) string {
	url := startMockProcess(t, mockserver.Config{
		TTFT: 20 * time.Millisecond, TTFTStddev: 5 * time.Millisecond,
		ITL: 5 * time.Millisecond, ITLStddev: 2 * time.Millisecond,
		OutputTokens: 8, RecordTimelines: true,
	})
	cfg := testConfig(t, url)
	cfg.EndpointType, cfg.Backend, cfg.Streaming = typ, backend, true
	cfg.Concurrency, cfg.RequestCount, cfg.OSLMean = 1, 20, 8
	cfg.WarmupRequestCount = 3
	runOK(t, cfg)
	recs := readRecords(t, cfg.ArtifactDir)
	if len(recs) != cfg.RequestCount {
		t.Fatalf("%d records, want %d", len(recs), cfg.RequestCount)
	}
	var devs []float64
	for _, r := range recs {
		tl, err := mockserver.FetchTimeline(context.Background(), http.DefaultClient, url, r.Metadata.XRequestID)
		if err != nil {
			t.Fatal(err)
		}
		ev := tl.TokenEvents()
		ttft, _ := r.num("time_to_first_token")
		ttst, _ := r.num("time_to_second_token")
		lat, _ := r.num("request_latency")
		itl, _ := r.num("inter_token_latency")
		osl, _ := r.num("output_sequence_length")
		if osl != 8 || len(ev) != 8 {
			t.Fatalf("osl %v, %d server token events; want 8", osl, len(ev))
		}
		want := []float64{
			ms(ev[0].At.Sub(tl.Arrival)),
			ms(ev[1].At.Sub(ev[0].At)),
			ms(ev[len(ev)-1].At.Sub(tl.Arrival)),
			ms(ev[len(ev)-1].At.Sub(ev[0].At)) / (osl - 1),
		}
		for i, got := range []float64{ttft, ttst, lat, itl} {
			devs = append(devs, math.Abs(got-want[i]))
		}
		icl := r.list("inter_chunk_latency")
		if len(icl) != len(ev)-1 {
			t.Fatalf("%d inter-chunk values, %d server events", len(icl), len(ev))
		}
		for i, v := range icl {
			devs = append(devs, math.Abs(v-ms(ev[i+1].At.Sub(ev[i].At))))
		}
	}
	p50, p99 := metrics.Percentile(devs, 50), metrics.Percentile(devs, 99)
	t.Logf("%s-%s: |client - server truth| over %d values: p50 %.3f ms, p99 %.3f ms", typ, backend, len(devs), p50, p99)
	switch {
	case p50 > 0.2:
		return fmt.Sprintf("median deviation %.3f ms > 0.2 ms", p50)
	case p99 > 1:
		return fmt.Sprintf("p99 deviation %.3f ms > 1 ms", p99)
	}
	return ""
}
