package runner

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/internal/h1"
	"github.com/aiperf-go/aiperf/mockserver"
	"github.com/aiperf-go/aiperf/record"
)

// BenchmarkStreamHeap measures the heap each in-flight chat stream holds,
// untraced and traced (issue 19: the trace's share at 10,000 streams): it
// opens 1,000 streams on connections of their own to a mock (in another
// process) and, halfway through a pause every stream spends open, reports
// the live heap, after collections, over what the process held before,
// per stream. wait=head streams wait for their response head (the mock
// answers after 2 s); wait=body ones have their head and first token and
// wait for the second (2 s later), as a stream spends most of its life;
// wait=long ones are ~200 tokens into a 400-token stream (10 ms apart).
// The difference between traced and untraced is what tracing costs a
// waiting request. b.N is ignored: run it with -benchtime 1x.
func BenchmarkStreamHeap(b *testing.B) {
	const streams = 1000
	open := func(tb testing.TB, s *sender, pause time.Duration, maxTokens int) (before, during uint64) {
		before = liveHeap()
		var wg sync.WaitGroup
		var ended, failed atomic.Int64
		start := time.Now()
		for i := range streams {
			wg.Go(func() {
				if rec := sendChatTokens(s, fmt.Sprintf("h%d", i), maxTokens); rec.Error != nil {
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
	for _, tc := range []struct {
		wait      string
		cfg       mockserver.Config
		pause     time.Duration
		maxTokens int
	}{
		{"head", mockserver.Config{TTFT: 2 * time.Second, OutputTokens: 2, TokensPerChunk: 1, NoRoleChunk: true}, 2 * time.Second, 4},
		{"body", mockserver.Config{ITL: 2 * time.Second, OutputTokens: 2, TokensPerChunk: 1, NoRoleChunk: true}, 2 * time.Second, 4},
		{"long", mockserver.Config{ITL: 10 * time.Millisecond, OutputTokens: 400, TokensPerChunk: 1, NoRoleChunk: true}, 4 * time.Second, 400},
	} {
		url := startMockProcessTB(b, tc.cfg)
		// A first round, not measured, leaves what the process keeps for
		// streams once it had them (the runtime's free goroutines, pools'
		// capacity) in the heap before the measured ones.
		warm := newTraceSender(b, url, true)
		warm.connDeadline = true
		open(b, warm, tc.pause, tc.maxTokens)
		warm.client.Transport.(*h1.Transport).CloseIdleConnections()
		for _, trace := range []bool{false, true} {
			b.Run(fmt.Sprintf("wait=%s/trace=%v", tc.wait, trace), func(b *testing.B) {
				s := newTraceSender(b, url, true)
				s.trace = trace
				s.connDeadline = true // the run's own transport enforces the timeout, as in a run
				before, during := open(b, s, tc.pause, tc.maxTokens)
				b.ReportMetric(float64(int64(during)-int64(before))/streams, "heap-B/stream")
				s.client.Transport.(*h1.Transport).CloseIdleConnections()
			})
		}
	}
}

// sendChatTokens sends a streamed chat request for maxTokens tokens, as
// the runner does (RequestedOutputTokens set), and returns its record.
func sendChatTokens(s *sender, id string, maxTokens int) *record.Record {
	payload := fmt.Sprintf(`{"model":"mock-model","messages":[{"role":"user","content":"hello there"}],"max_tokens":%d,"stream":true}`, maxTokens)
	rec := &record.Record{XRequestID: id, XCorrelationID: "c-" + id, Phase: record.PhaseProfiling, InputTokens: -1, RequestedOutputTokens: maxTokens}
	s.send(context.Background(), rec, []byte(payload))
	return rec
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
