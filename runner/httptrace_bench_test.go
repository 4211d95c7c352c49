package runner

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/internal/h1"
	"github.com/aiperf-go/aiperf/mockserver"
)

// BenchmarkStreamHeap measures the heap each in-flight chat stream holds,
// untraced and traced (issue 19: the trace's share at 10,000 streams): it
// opens 1,000 streams on connections of their own to a mock (in another
// process) and, while every one waits, reports the live heap, after
// collections, over what the process held before, per stream. wait=head
// streams wait for their response head (the mock answers after 2 s);
// wait=body ones have their head and first token and wait for the second
// (2 s later), as a stream spends most of its life. The difference between
// traced and untraced is what tracing costs a waiting request. b.N is
// ignored: run it with -benchtime 1x.
func BenchmarkStreamHeap(b *testing.B) {
	const streams = 1000
	const pause = 2 * time.Second
	open := func(tb testing.TB, s *sender) (before, during uint64) {
		before = liveHeap()
		var wg sync.WaitGroup
		var ended, failed atomic.Int64
		start := time.Now()
		for i := range streams {
			wg.Go(func() {
				if rec := sendChat(s, fmt.Sprintf("h%d", i), true); rec.Error != nil {
					failed.Add(1)
				}
				ended.Add(1)
			})
		}
		time.Sleep(pause / 2)
		during = liveHeap()
		early := ended.Load()
		wg.Wait()
		if early != 0 || time.Since(start) < pause {
			tb.Fatalf("%d streams ended before the measure, all in %v: the heap was not measured with every stream open", early, time.Since(start))
		}
		if n := failed.Load(); n != 0 {
			tb.Fatalf("%d of %d streams failed", n, streams)
		}
		return before, during
	}
	for _, wait := range []string{"head", "body"} {
		cfg := mockserver.Config{TTFT: pause, OutputTokens: 2, TokensPerChunk: 1, NoRoleChunk: true}
		if wait == "body" {
			cfg = mockserver.Config{ITL: pause, OutputTokens: 2, TokensPerChunk: 1, NoRoleChunk: true}
		}
		url := startMockProcessTB(b, cfg)
		// A first round, not measured, leaves what the process keeps for
		// streams once it had them (the runtime's free goroutines, pools'
		// capacity) in the heap before the measured ones.
		warm := newTraceSender(b, url, true)
		open(b, warm)
		warm.client.Transport.(*h1.Transport).CloseIdleConnections()
		for _, trace := range []bool{false, true} {
			b.Run(fmt.Sprintf("wait=%s/trace=%v", wait, trace), func(b *testing.B) {
				s := newTraceSender(b, url, true)
				s.trace = trace
				before, during := open(b, s)
				b.ReportMetric(float64(int64(during)-int64(before))/streams, "heap-B/stream")
				s.client.Transport.(*h1.Transport).CloseIdleConnections()
			})
		}
	}
}

// liveHeap returns the bytes of live heap objects after two collections
// (the second empties the sync.Pools, whose write buffers would count).
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
