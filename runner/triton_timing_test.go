//go:build timing && !race

package runner

import "testing"

// TestTritonTimingMatchesServerTruth is TestTimingMatchesServerTruth for
// Triton's generate_stream (kserve and generate streaming) at concurrency
// 1: TTFT, TTST, inter-chunk latency, ITL and request latency against when
// the mock (in its own process) received the request and wrote each
// token event. The median deviation must be within 0.2 ms and the p99
// within 1 ms; five attempts each (shared 2-core VM).
func TestTritonTimingMatchesServerTruth(t *testing.T) {
	for _, tr := range tritonRuns {
		name := tr.typ + "-" + tr.backend
		t.Run(name, func(t *testing.T) {
			checkServerTruth(t, name, truthMock(), func(c *Config) { c.EndpointType, c.Backend = tr.typ, tr.backend })
		})
	}
}
