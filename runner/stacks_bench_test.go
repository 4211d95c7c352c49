package runner

import (
	"context"
	"runtime/metrics"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/mockserver"
)

// BenchmarkStreamStacks measures goroutine stacks with 1,000 chat streams
// open and parsing (issue 19: a stream whose stack grows past 4 KiB keeps
// 8 KiB). It reports the median of the stack memory sampled through the
// run (runtime/metrics, every 50 ms) over what the process held before it,
// per stream, its peak, and the most the runtime's starting stack size
// was. The metric counts stack memory reserved, OS threads' included, so
// it is an upper bound on what the streams' goroutines hold.
// b.N is ignored: one run of 2,000 requests of 20 tokens each, 300 ms to the
// first and 100 ms between the others, with the mock in another process.
// The streams park (the runner's tests park at any count). Link it as
// aiperf is, with the Makefile's NOGROW (-ldflags=$(NOGROW)): with Go's
// adaptive starting stack size the figure is bimodal, 2.2 or 5-6 KB.
func BenchmarkStreamStacks(b *testing.B) {
	const streams = 1000
	url := startMockProcessTB(b, mockserver.Config{
		TTFT: 300 * time.Millisecond, ITL: 100 * time.Millisecond, OutputTokens: 20, EstimatePromptTokens: true,
	})
	cfg := testConfig(b, url)
	cfg.Streaming = true
	cfg.Concurrency = streams
	cfg.RequestCount = 2 * streams
	cfg.ISLMean = 64
	cfg.OSLMean = 20
	samples := []metrics.Sample{{Name: "/memory/classes/heap/stacks:bytes"}, {Name: "/gc/stack/starting-size:bytes"}}
	var stacks []uint64
	var start uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	metrics.Read(samples)
	base := samples[0].Value.Uint64()
	wg.Go(func() {
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			metrics.Read(samples)
			stacks = append(stacks, samples[0].Value.Uint64())
			start = max(start, samples[1].Value.Uint64())
		}
	})
	b.ResetTimer()
	_, err := Run(context.Background(), cfg, Options{})
	close(done)
	wg.Wait()
	if err != nil {
		b.Fatal(err)
	}
	if len(stacks) == 0 {
		b.Fatal("no samples")
	}
	slices.Sort(stacks)
	b.ReportMetric(float64(stacks[len(stacks)/2]-base)/streams, "stack-B/stream")
	b.ReportMetric(float64(stacks[len(stacks)-1]-base)/streams, "peak-stack-B/stream")
	b.ReportMetric(float64(start), "start-B")
}
