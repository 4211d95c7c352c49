package runner

import (
	"context"
	"testing"

	"github.com/aiperf-go/aiperf/mockserver"
)

// BenchmarkRunNonStreaming measures the client alone (the mock server runs
// in another process) sending b.N non-streaming requests at concurrency 64.
func BenchmarkRunNonStreaming(b *testing.B) {
	benchRun(b, mockserver.Config{OutputTokens: 1, EstimatePromptTokens: true}, false)
}

// BenchmarkRunStreaming measures the client alone reading b.N streamed
// requests of 100 one-token events each at concurrency 64.
func BenchmarkRunStreaming(b *testing.B) {
	benchRun(b, mockserver.Config{OutputTokens: 100, NoRoleChunk: true, EstimatePromptTokens: true}, true)
}

func benchRun(b *testing.B, mcfg mockserver.Config, streaming bool) {
	url := startMockProcessTB(b, mcfg)
	cfg := testConfig(b, url)
	cfg.Streaming = streaming
	cfg.Concurrency = 64
	cfg.ISLMean = 16
	cfg.RequestCount = max(b.N, 64)
	b.ResetTimer()
	if _, err := Run(context.Background(), cfg, Options{}); err != nil {
		b.Fatal(err)
	}
}
