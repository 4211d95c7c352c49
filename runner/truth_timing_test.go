//go:build timing && !race

package runner

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"net/http"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/mockserver"
)

// truthMock is the mock server every endpoint type's timing test runs
// against (in its own process): jittered TTFT and ITL, 8 tokens, timelines
// recorded. Tests may add to it (credentials, framing options).
func truthMock() mockserver.Config {
	return mockserver.Config{
		TTFT: 20 * time.Millisecond, TTFTStddev: 5 * time.Millisecond,
		ITL: 5 * time.Millisecond, ITLStddev: 2 * time.Millisecond,
		OutputTokens: 8, RecordTimelines: true,
	}
}

// checkServerTruth runs name's streaming benchmark (mod sets its endpoint
// type and transport) at concurrency 1 against the mock mcfg, alternately
// with the floor client (floorAttempt), up to three times, until TTFT,
// TTST, inter-chunk latency, ITL and request latency are within
// floorMargins of the floor's deviation from when the mock received each
// request and wrote each token event.
func checkServerTruth(t *testing.T, name string, mcfg mockserver.Config, mod func(*Config)) {
	t.Helper()
	retryTiming(t, 3, func() string {
		if p := floorAttempt(t, floorRun{mock: mcfg, conc: 1, warm: 3, n: 8, mod: mod}); p != "" {
			return name + ": " + p
		}
		return ""
	})
}

// retryTiming runs try up to n times, until it reports no problem (""):
// a shared 2-core VM now and then stalls a whole run, while a real
// regression fails every attempt. The last problem fails the test.
func retryTiming(t *testing.T, n int, try func() string) {
	t.Helper()
	var problem string
	for attempt := 1; attempt <= n; attempt++ {
		if problem = try(); problem == "" {
			return
		}
		t.Logf("attempt %d: %s", attempt, problem)
	}
	t.Error(problem)
}

// floorRun is one comparison of our runner with the floor client: the
// mock both run against, and what each side sends in a round.
type floorRun struct {
	mock mockserver.Config
	// conc streams at once; warm warm-up requests (connections open, the
	// workers out of the lockstep of their simultaneous start, as in a
	// benchmark), then n measured ones.
	conc, warm, n int
	// mod sets our runner's endpoint type and transport; nil for chat.
	mod func(*Config)
	// transport replaces our runner's (Options.Transport); nil for its own.
	transport http.RoundTripper
	// rounds each side runs; 0 means floorRounds.
	rounds int
}

// floorRounds is how many rounds each side runs in a floorAttempt,
// alternately: ours, floor, ours, floor, ...
const floorRounds = 3

// floorAttempt runs our runner and the floor client alternately
// (fr.rounds each) against one mock server process and returns how our
// deviation from the server's truth exceeds the floor's beyond
// floorMargins, or "".
func floorAttempt(t *testing.T, fr floorRun) string {
	t.Helper()
	url := startMockProcess(t, fr.mock)
	var ours, floor []deviations
	for round := range cmp.Or(fr.rounds, floorRounds) {
		o, f := deviations{}, deviations{}
		oursDeviations(t, url, fr, o)
		prefix := fmt.Sprintf("floor-%d-", round)
		if err := floorDeviations(context.Background(), url, fr.conc, fr.warm, fr.n, prefix, f); err != nil {
			t.Fatal(err)
		}
		ours, floor = append(ours, o), append(floor, f)
	}
	return compareFloor(t, fr.conc, ours, floor)
}

// oursDeviations runs one streaming benchmark of fr against the mock at
// url and adds its records' differences from the server's timelines to d.
func oursDeviations(t *testing.T, url string, fr floorRun, d deviations) {
	t.Helper()
	cfg := testConfig(t, url)
	cfg.Streaming = true
	if fr.mod != nil {
		fr.mod(cfg)
	}
	cfg.Concurrency, cfg.RequestCount, cfg.WarmupRequestCount = fr.conc, fr.n, fr.warm
	cfg.OSLMean = float64(fr.mock.OutputTokens)
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), cfg, Options{Version: "test", Transport: fr.transport}); err != nil {
		t.Fatalf("run: %v", err)
	}
	recs := readRecords(t, cfg.ArtifactDir)
	if len(recs) != fr.n {
		t.Fatalf("%d records, want %d", len(recs), fr.n)
	}
	for _, r := range recs {
		if r.Error != nil {
			t.Fatalf("record error %+v", r.Error)
		}
		tl, err := mockserver.FetchTimeline(context.Background(), http.DefaultClient, url, r.Metadata.XRequestID)
		if err != nil {
			t.Fatal(err)
		}
		var st streamTimes
		st.ttft, _ = r.num("time_to_first_token")
		st.ttst, _ = r.num("time_to_second_token")
		st.lat, _ = r.num("request_latency")
		st.itl, _ = r.num("inter_token_latency")
		st.icl = r.list("inter_chunk_latency")
		if err := d.add(tl, st); err != nil {
			t.Fatal(err)
		}
	}
}

// floorMargins bound our deviation from the server's truth at a
// percentile: at most the floor client's times ratio, plus ms. They were
// chosen from measurements on the shared 2-core VM (BENCHMARKS.md, issue
// 19), which other engineers' builds and tests kept at a load average of
// 7 to 14 throughout, with and without two CPU burners of ours:
//
//   - the median of TTFT and request latency: ours exceeds the floor's by
//     0.05 to 0.1 ms at concurrency 1 and by up to 0.4 ms at 256. With
//     three rounds a side at 256, one attempt in three under the heaviest
//     load came out 2 to 5 ms (once 13 ms) above the floor in every one
//     of our rounds (our client needs more CPU per event than the floor,
//     and waits longer for it on an oversubscribed machine); with five
//     rounds none did in 7 attempts. A client that reads every response
//     2 ms late (TestTimingCatchesInjectedDelay) has 2.3 to 2.7 ms
//     (concurrency 1) and 2.7 to 8 ms (256) there against a floor's 0.07
//     to 0.8 ms: caught in every attempt but one, whose floor rounds were
//     all loaded (6 ms).
//   - the p99: the tail is where other work shows, and moves by tens of
//     milliseconds between rounds for any client; ours came out within 2
//     times the floor's plus 3 ms in every attempt whose median was
//     within bounds.
var floorMargins = []struct{ p, ratio, ms float64 }{
	{50, 1.5, 1},
	{99, 2, 3},
}

// compareFloor logs each round's deviations by metric and returns how
// ours exceed the floor's beyond floorMargins, or "". It checks every
// deviation together, TTFT and request latency. Each side is judged by its
// quietest round (the least of its rounds' percentiles): other work on the
// machine only adds to a deviation, so a load spike during some rounds of
// either side cannot decide, while an overhead of ours is in every one of
// our rounds.
func compareFloor(t *testing.T, conc int, ours, floor []deviations) string {
	t.Helper()
	for _, k := range []string{"", "ttft", "ttst", "lat", "itl", "icl"} {
		line := fmt.Sprintf("concurrency %d %-4s |dev| ms p50/p99/max by round:", conc, cmp.Or(k, "all"))
		for i := range ours {
			line += fmt.Sprintf(" ours %.3f/%.3f/%.3f floor %.3f/%.3f/%.3f;", ours[i].pct(k, 50), ours[i].pct(k, 99), ours[i].pct(k, 100),
				floor[i].pct(k, 50), floor[i].pct(k, 99), floor[i].pct(k, 100))
		}
		t.Log(line)
	}
	quietest := func(ds []deviations, k string, p float64) float64 {
		v := math.Inf(1)
		for _, d := range ds {
			v = min(v, d.pct(k, p))
		}
		return v
	}
	var problem string
	for _, k := range []string{"", "ttft", "lat"} {
		for _, m := range floorMargins {
			o, f := quietest(ours, k, m.p), quietest(floor, k, m.p)
			t.Logf("concurrency %d %s p%v, quietest rounds: ours %.3f ms, floor %.3f ms", conc, cmp.Or(k, "all"), m.p, o, f)
			if o > f*m.ratio+m.ms && problem == "" {
				problem = fmt.Sprintf("%s p%v deviation %.3f ms > the floor's %.3f ms x %v + %v ms", cmp.Or(k, "all"), m.p, o, f, m.ratio, m.ms)
			}
		}
	}
	return problem
}
