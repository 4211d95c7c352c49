//go:build timing && !race

// Timing accuracy is checked without the race detector, whose overhead on
// 2 cores is itself several milliseconds of scheduling noise, and only with
// -tags timing (`make timing`), on its own: packages testing in parallel
// would be measured too.

package runner

import (
	"context"
	"net"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/mockserver"
)

// The timing tests run as a run of their size does: none reaches parkOpen
// open requests, so none parks. (Parked, where the waiting goroutine reads
// and stamps the bytes itself, they pass too, with smaller deviations:
// BENCHMARKS.md, session 10.)
func init() { parkAlways = false }

// TestTimingMatchesServerTruth compares TTFT, TTST, inter-chunk latency, ITL
// and request latency with when the server actually received the request
// and wrote each event, at concurrency 1 and 256. The server runs in its
// own process on the same machine and serves its timelines in wall-clock
// time; each side's durations are compared.
//
// The bounds are relative to the machine's floor, measured in the same
// test: rounds of our runner alternate with rounds of the floor client
// (floor_timing_test.go) against the same server at the same concurrency,
// and our deviation from the server's truth may exceed the floor's only by
// a small margin (floorMargins). Absolute bounds failed on a busy machine:
// at 256 streams on 2 shared cores a neighbour's build moves the p99 by
// tens of milliseconds, for any client; the floor moves with it.
func TestTimingMatchesServerTruth(t *testing.T) {
	for _, conc := range []int{1, 256} {
		t.Run("concurrency"+strconv.Itoa(conc), func(t *testing.T) {
			retryTiming(t, 3, func() string { return floorAttempt(t, truthRun(conc, nil)) })
		})
	}
}

// TestTimingCatchesInjectedDelay: a client that reads each response 2 ms
// late (slowConn, on our runner's connections only) fails the floor
// comparison of TestTimingMatchesServerTruth. It gets three attempts to be
// caught: a load spike during a floor round can hide one.
func TestTimingCatchesInjectedDelay(t *testing.T) {
	for _, conc := range []int{1, 256} {
		t.Run("concurrency"+strconv.Itoa(conc), func(t *testing.T) {
			for attempt := 1; attempt <= 3; attempt++ {
				tr := newTransport(conc)
				dial := tr.DialContext
				tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
					c, err := dial(ctx, network, addr)
					if err != nil {
						return nil, err
					}
					return slowConn{Conn: c, delay: 2 * time.Millisecond}, nil
				}
				problem := floorAttempt(t, truthRun(conc, tr))
				tr.CloseIdleConnections()
				if problem != "" {
					t.Logf("caught: %s", problem)
					return
				}
				t.Logf("attempt %d: the delay went unnoticed", attempt)
			}
			t.Error("2 ms added to every read went unnoticed in 3 attempts")
		})
	}
}

// truthRun is TestTimingMatchesServerTruth's comparison at concurrency
// conc, our runner on transport tr (nil: its own): 40 ms TTFT and 10 ms
// ITL, both jittered, 8 tokens; max(10, 2 conc) requests a round after
// 3 conc warm-up ones.
func truthRun(conc int, tr http.RoundTripper) floorRun {
	return floorRun{
		mock: mockserver.Config{
			TTFT: 40 * time.Millisecond, TTFTStddev: 10 * time.Millisecond,
			ITL: 10 * time.Millisecond, ITLStddev: 3 * time.Millisecond,
			OutputTokens: 8, RecordTimelines: true,
		},
		conc: conc, warm: 3 * conc, n: max(10, 2*conc),
		transport: tr,
		// At 256 streams a round takes a second a side, and load on the
		// machine comes in spells of a few seconds: five rounds give
		// each side more chances of a quiet one.
		rounds: map[bool]int{true: 5}[conc > 1],
	}
}
