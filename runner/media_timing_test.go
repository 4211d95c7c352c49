//go:build timing && !race

package runner

import (
	"slices"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/metrics"
	"github.com/aiperf-go/aiperf/mockserver"
	"github.com/aiperf-go/aiperf/mockserver/mocktest"
)

// TestImageGenerationTiming runs image_generation streaming and not against
// the mock and compares when the client stamped each response (the first
// gives the TTFT of AIPerf's records) with when the mock wrote it: the
// median deviation must be within 0.2 ms . A stream gives one
// response per image event (two partial images, then the final one);
// TTFT is not a metric, as in AIPerf (its flags need a token-producing
// endpoint), while request latency and ISL are.
func TestImageGenerationTiming(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{RecordTimelines: true, TTFT: 20 * time.Millisecond, ITL: 5 * time.Millisecond})
	for _, streaming := range []bool{true, false} {
		name := map[bool]string{true: "streaming", false: "body"}[streaming]
		t.Run(name, func(t *testing.T) {
			cfg := testConfig(t, srv.URL())
			cfg.EndpointType, cfg.Streaming, cfg.ExportLevel = "image_generation", streaming, "raw"
			cfg.Concurrency, cfg.RequestCount = 1, 8
			res := runOK(t, cfg)
			if res.Summary.Valid != 8 {
				t.Fatalf("%d valid, errors %+v", res.Summary.Valid, res.Summary.Errors)
			}
			raw := readRaw(t, cfg.ArtifactDir)
			tls := srv.Timelines()
			var devs []float64
			for _, r := range readRecords(t, cfg.ArtifactDir) {
				if _, ok := r.num("time_to_first_token"); ok {
					t.Error("time_to_first_token on an image_generation record")
				}
				lat, okLat := r.num("request_latency")
				_, okISL := r.num("input_sequence_length")
				if !okLat || !okISL {
					t.Errorf("record metrics %v", r.Metrics)
				}
				tl, rr := tls[r.Metadata.XRequestID], raw[r.Metadata.XRequestID]
				ev := tl.TokenEvents()
				want := 1
				if streaming {
					want = 1 + mockserver.DefaultPartialImages
				}
				if len(ev) != want || len(rr.Responses) != want {
					t.Fatalf("%d server events, %d responses, want %d", len(ev), len(rr.Responses), want)
				}
				// Both sides stamp the system clock: the records' wall
				// start less the raw record's monotonic start converts
				// each response's stamp to wall time.
				offset := r.Metadata.RequestStartNS - rr.StartNS
				for i, e := range ev {
					devs = append(devs, ms(time.Duration(rr.Responses[i].PerfNS+offset-e.At.UnixNano())))
				}
				if d := lat - ms(ev[len(ev)-1].At.Sub(tl.Arrival)); d < -0.5 || d > 5 {
					t.Errorf("request latency %.3f ms is %.3f ms from the server's last write", lat, d)
				}
			}
			abs := make([]float64, len(devs))
			for i, d := range devs {
				abs[i] = max(d, -d)
			}
			p50 := metrics.Percentile(abs, 50)
			t.Logf("|client - server| over %d responses: p50 %.3f ms, max %.3f ms", len(abs), p50, slices.Max(abs))
			if p50 > 0.2 {
				t.Errorf("median deviation %.3f ms > 0.2 ms", p50)
			}
		})
	}
}
