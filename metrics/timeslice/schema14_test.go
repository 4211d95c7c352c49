package timeslice

import (
	"testing"

	"github.com/aiperf-go/aiperf/record"
)

// TestSlicesSchema14Sweeps checks AIPerf 0.13's timeslice sweeps: the
// curves span the whole run and are clipped to each window, so a request
// that started in an earlier window still counts in the later ones.
func TestSlicesSchema14Sweeps(t *testing.T) {
	cfg := streamingChat()
	cfg.Schema14 = true
	// R1 runs over [t0, t0+15ms), R2 over [t0+12ms, t0+18ms); 10 ms windows.
	recs := []*record.Record{
		stream(t0, 10, chunk{5 * ms, "a"}, chunk{15 * ms, " b"}),
		stream(t0+12*ms, 10, chunk{2 * ms, "a"}, chunk{6 * ms, " b"}),
	}
	slices := run(cfg, 10*ms, recs)
	if len(slices) != 2 {
		t.Fatalf("%d slices, want 2", len(slices))
	}
	// Window 0 [t0, t0+10ms): only R1 is in flight.
	checkNear(t, "window 0 effective_concurrency", result(t, slices[0].Summary, "effective_concurrency").Avg, 1)
	// Window 1 [t0+10ms, t0+18ms] (clipped to the last end): 1 request
	// over 2 ms, 2 over 3 ms, 1 over 3 ms: 11/8, although only R2 started
	// in it.
	checkNear(t, "window 1 effective_concurrency", result(t, slices[1].Summary, "effective_concurrency").Avg, 11.0/8)
	// input_token_throughput divides by the window: R2's 10 tokens over 8 ms.
	checkNear(t, "window 1 input_token_throughput", result(t, slices[1].Summary, "input_token_throughput").Avg, 10/0.008)
	if slices[1].Summary.Get("effective_latency") != nil {
		t.Error("a timeslice has effective_latency; AIPerf 0.13 computes it for the run only")
	}
}
