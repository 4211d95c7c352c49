//go:build timing && !race && linux

package runner

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/metrics"
	"github.com/aiperf-go/aiperf/mockserver"
	"github.com/aiperf-go/aiperf/mockserver/mocktest"
)

// The schedule tests hold our pacer against the machine's floor
// (floorPace, the least an open-loop client can do) measured alternately
// in the same test against the same server: rounds of our runner and of
// the floor pacer on the same schedule take turns, and each side is
// judged by its quietest round, as the server-truth tests are
// (compareFloor). On a busy 2-core VM a neighbour's build makes any
// pacer wake tens of milliseconds late now and then; the floor wakes late
// with it.

// paceRatio and paceMS bound our schedule lateness (or a gap's deviation)
// at a percentile: at most the floor's times paceRatio, plus paceMS.
// Measured on the shared 2-core VM with other engineers' builds and tests
// running (load average 12 to 14; BENCHMARKS.md, issue 19), the floor
// pacer's own lateness p99 at 1,000 req/s ranged from 1 to 87 ms between
// attempts and ours from 1.1 to 77 ms; in the quietest rounds ours came
// out up to 3.6 times the floor's (our pacer shares the process's two Ps
// with the work of every send, the floor's sends do next to none), and
// at most 0.3 ms against the floor's 0.1 ms on the replayed trace. The
// ratio absorbs that; the 1 ms is what the old absolute bound (2 ms) left
// a quiet machine, where the floor's lateness is 0.1 ms.
const paceRatio, paceMS = 4, 1

// paceRounds runs ours and the floor pacer on sched alternately,
// floorRounds times each, against one mock server process answering at
// once; ours returns its round's values (ms). It returns the quietest
// rounds' percentile p of ours and of the floor's lateness (ms).
func paceRounds(t *testing.T, p float64, sched []time.Duration, ours func(url string) []float64) (o, f float64) {
	t.Helper()
	url := startMockProcess(t, mockserver.Config{OutputTokens: 1})
	o, f = math.Inf(1), math.Inf(1)
	for range floorRounds {
		o = min(o, metrics.Percentile(ours(url), p))
		late, err := floorPace(context.Background(), url, sched)
		if err != nil {
			t.Fatal(err)
		}
		f = min(f, metrics.Percentile(lateMS(late), p))
	}
	return o, f
}

// TestTimingConstantRate: 1,000 req/s constant for 2 s sends 2,000 ± 1
// requests (fewer by as many milliseconds as its sends were late at most:
// those due at the end are not sent), with a schedule lateness p99 within
// paceRatio and paceMS of the floor pacer's on the same schedule.
func TestTimingConstantRate(t *testing.T) {
	retryTiming(t, 3, func() string {
		var problem string
		o, f := paceRounds(t, 99, evenSchedule(2000, 1000), func(url string) []float64 {
			cfg := testConfig(t, url)
			cfg.RequestRate, cfg.ArrivalPattern = 1000, "constant"
			cfg.BenchmarkDuration = 2 * time.Second
			cfg.OSLMean = 1
			res := runOK(t, cfg)
			late := lateMS(res.LatenessNS)
			// A send still due when the 2 s end is not sent: as many may
			// be missing as the pacer was milliseconds late at most.
			n, short := len(readRecords(t, cfg.ArtifactDir)), int(slices.Max(late))
			if (n < 1999-short || n > 2001) && problem == "" {
				problem = fmt.Sprintf("%d requests in 2 s at 1,000 req/s, want 2,000 ± 1 (- %d for lateness up to %.3f ms)", n, short, slices.Max(late))
			}
			return late
		})
		t.Logf("lateness p99, quietest rounds: ours %.3f ms, floor %.3f ms", o, f)
		if problem == "" && o > f*paceRatio+paceMS {
			problem = fmt.Sprintf("lateness p99 %.3f ms > the floor's %.3f ms x %v + %v ms", o, f, paceRatio, paceMS)
		}
		return problem
	})
}

// TestTimingFixedScheduleReplay replays the reference's trace example: each
// request goes at its timestamp, sent no later than the floor pacer's
// worst lateness on the same schedule allows (paceRatio, paceMS).
func TestTimingFixedScheduleReplay(t *testing.T) {
	retryTiming(t, 3, func() string {
		sched := []time.Duration{0, 105 * time.Millisecond, 274 * time.Millisecond}
		o, f := paceRounds(t, 100, sched, func(url string) []float64 {
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
			var late []float64
			for i, want := range sched {
				m := recs[i].Metadata
				if got := time.Duration(m.CreditIssuedNS - first); got != want {
					t.Errorf("row %d scheduled at +%v, want +%v", i, got, want) // the schedule: no retry
				}
				late = append(late, ms(time.Duration(m.RequestStartNS-m.CreditIssuedNS)))
			}
			if slices.Min(late) < 0 {
				t.Errorf("sent before the timestamp: lateness %v ms", late)
			}
			return late
		})
		t.Logf("worst lateness, quietest rounds: ours %.3f ms, floor %.3f ms", o, f)
		if o > f*paceRatio+paceMS {
			return fmt.Sprintf("a row sent %.3f ms after its timestamp > the floor's %.3f ms x %v + %v ms", o, f, paceRatio, paceMS)
		}
		return ""
	})
}

// TestTimingUserCentricSends: each user's sends are num_users/rate
// (100 ms) apart, no gap further from it than the floor pacer's worst
// lateness at the same total rate allows (paceRatio, paceMS).
func TestTimingUserCentricSends(t *testing.T) {
	retryTiming(t, 3, func() string {
		o, f := paceRounds(t, 100, evenSchedule(60, 50), func(url string) []float64 {
			cfg := testConfig(t, url)
			cfg.UserCentricRate, cfg.NumUsers, cfg.SessionTurnsMean = 50, 5, 4
			cfg.RequestCount = 60
			runOK(t, cfg)
			byUser := map[string][]jsonRecord{}
			for _, r := range readRecords(t, cfg.ArtifactDir) {
				byUser[r.Metadata.XCorrelationID] = append(byUser[r.Metadata.XCorrelationID], r)
			}
			var devs []float64
			for _, rs := range byUser {
				slices.SortFunc(rs, func(a, b jsonRecord) int { return int(a.Metadata.RequestStartNS - b.Metadata.RequestStartNS) })
				for i := 1; i < len(rs); i++ {
					gap := time.Duration(rs[i].Metadata.RequestStartNS - rs[i-1].Metadata.RequestStartNS)
					devs = append(devs, ms((gap - 100*time.Millisecond).Abs()))
				}
			}
			if len(devs) == 0 {
				t.Fatal("no user sent twice")
			}
			return devs
		})
		t.Logf("worst |gap - 100 ms|, quietest rounds: ours %.3f ms; floor's worst lateness %.3f ms", o, f)
		if o > f*paceRatio+paceMS {
			return fmt.Sprintf("a user's sends %.3f ms off 100 ms apart > the floor's %.3f ms x %v + %v ms", o, f, paceRatio, paceMS)
		}
		return ""
	})
}

// lateMS converts lateness samples (ns) to ms.
func lateMS(ns []int64) []float64 {
	out := make([]float64, len(ns))
	for i, x := range ns {
		out[i] = float64(x) / 1e6
	}
	return out
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
