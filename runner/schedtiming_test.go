//go:build timing && !race

package runner

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/mockserver"
	"github.com/aiperf-go/aiperf/mockserver/mocktest"
)

// TestTimingConstantRate: 1,000 req/s constant for 10 s sends 10,000 ± 1
// requests, with schedule lateness p99 under 2 ms (the mock server in its
// own process, answering at once). Like every timing test here, it gets
// a few attempts: a shared 2-core VM now and then stalls a whole run.
func TestTimingConstantRate(t *testing.T) {
	retryTiming(t, 3, func() string {
		url := startMockProcess(t, mockserver.Config{OutputTokens: 1})
		cfg := testConfig(t, url)
		cfg.RequestRate, cfg.ArrivalPattern = 1000, "constant"
		cfg.BenchmarkDuration = 10 * time.Second
		cfg.OSLMean = 1
		res := runOK(t, cfg)
		n := len(readRecords(t, cfg.ArtifactDir))
		_, p99, mx := latenessMS(res.LatenessNS)
		t.Logf("lateness p99 %.3f ms, max %.3f ms", p99, mx)
		switch {
		case n < 9999 || n > 10001:
			return fmt.Sprintf("%d requests in 10 s at 1,000 req/s, want 10,000 ± 1", n)
		case p99 >= 2:
			return fmt.Sprintf("lateness p99 %.3f ms, want < 2 ms", p99)
		}
		return ""
	})
}

// TestTimingFixedScheduleReplay replays the reference's trace example: each
// request is sent within 2 ms of its timestamp.
func TestTimingFixedScheduleReplay(t *testing.T) {
	retryTiming(t, 3, func() string {
		url := startMockProcess(t, mockserver.Config{OutputTokens: 1})
		cfg := testConfig(t, url)
		// The reference's example (a copy of fixtures/docs-examples).
		cfg.InputFile = filepath.Join("..", "dataset", "custom", "testdata", "trace", "custom_trace.jsonl")
		runOK(t, cfg)
		recs := readRecords(t, cfg.ArtifactDir)
		if len(recs) != 3 {
			t.Fatalf("%d requests, want the 3 rows", len(recs))
		}
		slices.SortFunc(recs, func(a, b jsonRecord) int { return int(a.Metadata.CreditIssuedNS - b.Metadata.CreditIssuedNS) })
		first := recs[0].Metadata.CreditIssuedNS
		for i, want := range []time.Duration{0, 105 * time.Millisecond, 274 * time.Millisecond} {
			m := recs[i].Metadata
			if got := time.Duration(m.CreditIssuedNS - first); got != want {
				t.Errorf("row %d scheduled at +%v, want +%v", i, got, want) // the schedule: no retry
			}
			if late := time.Duration(m.RequestStartNS - m.CreditIssuedNS); late < 0 || late > 2*time.Millisecond {
				return fmt.Sprintf("row %d sent %v after its timestamp, want within 2 ms", i, late)
			}
		}
		return ""
	})
}

// TestTimingUserCentricSends: each user's sends are num_users/rate apart,
// each within 2 ms of its schedule.
func TestTimingUserCentricSends(t *testing.T) {
	retryTiming(t, 3, func() string {
		url := startMockProcess(t, mockserver.Config{OutputTokens: 1})
		cfg := testConfig(t, url)
		cfg.UserCentricRate, cfg.NumUsers, cfg.SessionTurnsMean = 50, 5, 4
		cfg.RequestCount = 60
		runOK(t, cfg)
		byUser := map[string][]jsonRecord{}
		for _, r := range readRecords(t, cfg.ArtifactDir) {
			byUser[r.Metadata.XCorrelationID] = append(byUser[r.Metadata.XCorrelationID], r)
		}
		for u, rs := range byUser {
			slices.SortFunc(rs, func(a, b jsonRecord) int { return int(a.Metadata.RequestStartNS - b.Metadata.RequestStartNS) })
			for i := 1; i < len(rs); i++ {
				gap := time.Duration(rs[i].Metadata.RequestStartNS - rs[i-1].Metadata.RequestStartNS)
				if d := (gap - 100*time.Millisecond).Abs(); d > 2*time.Millisecond {
					return fmt.Sprintf("user %s: sends %v apart, want 100 ms ± 2 ms", u, gap)
				}
			}
		}
		return ""
	})
}

// TestTimingCeilingHeld: under a request rate the server never sees more
// requests at once than the concurrency ceiling.
func TestTimingCeilingHeld(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{OutputTokens: 4, TTFT: 20 * time.Millisecond, ITL: 5 * time.Millisecond})
	cfg := testConfig(t, srv.URL())
	cfg.Streaming = true
	cfg.RequestRate, cfg.Concurrency, cfg.RequestCount = 500, 5, 200
	runOK(t, cfg)
	if n := srv.MaxInFlight(); n > 5 || n < 4 {
		t.Errorf("server saw at most %d requests at once, ceiling 5", n)
	}
}
