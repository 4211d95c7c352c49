//go:build timing && !race

package runner

import "testing"

// TestFramedTypesTimingMatchesServerTruth is TestTimingMatchesServerTruth
// for the types the mock frames on its own (TGI, Responses, Anthropic), at
// concurrency 1: TTFT, TTST, inter-chunk latency, ITL and request latency
// against when the mock (in its own process) received the request and
// wrote each token event. The median deviation must be within 0.2 ms and
// the p99 within 1 ms; five attempts each (shared 2-core VM).
func TestFramedTypesTimingMatchesServerTruth(t *testing.T) {
	mcfg := truthMock()
	mcfg.ReasoningTokens = 2
	for _, ft := range framedTypes {
		t.Run(ft.typ, func(t *testing.T) {
			checkServerTruth(t, ft.typ, mcfg, func(c *Config) { c.EndpointType = ft.typ })
		})
	}
}
