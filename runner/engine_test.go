package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/mockserver"
	"github.com/aiperf-go/aiperf/mockserver/mocktest"
)

// TestUserCentricGaps: with 4 users at 40 req/s (gap 100 ms) on 3-turn
// conversations, a request is due every 25 ms from the start, however long
// the sessions; each session's turns are 100 ms apart; and the sessions
// follow AIPerf's virtual history: the lines of users firing at 0, 25, 50
// and 75 ms start with 3, 1, 1 and 2 turns left, and every user after them
// sends all 3. Users are numbered as AIPerf numbers them.
func TestUserCentricGaps(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{OutputTokens: 2, TTFT: time.Millisecond})
	cfg := testConfig(t, srv.URL())
	cfg.UserCentricRate, cfg.NumUsers = 40, 4
	cfg.SessionTurnsMean = 3
	cfg.RequestCount = 24
	runOK(t, cfg)

	recs := readRecords(t, cfg.ArtifactDir)
	if len(recs) != 24 {
		t.Fatalf("%d records, want 24", len(recs))
	}
	slices.SortFunc(recs, func(a, b jsonRecord) int { return int(a.Metadata.CreditIssuedNS - b.Metadata.CreditIssuedNS) })
	firstTurns := []int{3, 1, 1, 2} // by line: the line firing at k·25 ms
	firstUsers := []int{5, 2, 3, 4} // AIPerf's numbers: the new user 5 first, then users 2-4
	// Replacements are numbered 6, 7, ... in the order they start: line k
	// starts its m-th at 25k + 100·(firstTurns[k] + 3m) ms.
	type spawn struct{ at, line, m int }
	var spawns []spawn
	for k := range 4 {
		for m := range 8 {
			spawns = append(spawns, spawn{25*k + 100*(firstTurns[k]+3*m), k, m})
		}
	}
	slices.SortFunc(spawns, func(a, b spawn) int { return a.at - b.at })
	replacement := map[[2]int]int{} // (line, m) → user number
	for n, sp := range spawns {
		replacement[[2]int{sp.line, sp.m}] = 6 + n
	}
	lastOfSession := map[string]int64{}
	for i, r := range recs {
		m := r.Metadata
		at := time.Duration(m.CreditIssuedNS - recs[0].Metadata.CreditIssuedNS)
		if d := at - time.Duration(i)*25*time.Millisecond; d.Abs() > time.Microsecond {
			t.Errorf("request %d intended at %v, want %v", i, at, time.Duration(i)*25*time.Millisecond)
		}
		line, round := i%4, i/4
		want := round // turn index within the line's first session
		if round >= firstTurns[line] {
			want = (round - firstTurns[line]) % 3
		}
		if m.TurnIndex != want {
			t.Errorf("request %d (line %d, round %d): turn %d, want %d", i, line, round, m.TurnIndex, want)
		}
		user := firstUsers[line]
		if round >= firstTurns[line] {
			user = replacement[[2]int{line, (round - firstTurns[line]) / 3}]
		}
		if m.XCorrelationID != strconv.Itoa(user) {
			t.Errorf("request %d (line %d, round %d): X-Correlation-ID %q, want user %d", i, line, round, m.XCorrelationID, user)
		}
		if prev, ok := lastOfSession[m.XCorrelationID]; ok {
			if gap := time.Duration(m.CreditIssuedNS - prev); gap != 100*time.Millisecond {
				t.Errorf("request %d: %v after its session's previous turn, want 100ms", i, gap)
			}
		} else if m.TurnIndex != 0 {
			t.Errorf("request %d: a session starting at turn %d", i, m.TurnIndex)
		}
		lastOfSession[m.XCorrelationID] = m.CreditIssuedNS
		// Never early; how soon after is the timing tests' subject
		// (TestTimingUserCentricSends), not an absolute bound here.
		if late := time.Duration(m.RequestStartNS - m.CreditIssuedNS); late < 0 {
			t.Errorf("request %d sent %v before its intended time", i, -late)
		}
	}
}

// TestUserCentricSessionLimit: --num-sessions 6 with the lines of
// TestUserCentricGaps starts the four first users (3+1+1+2 turns) and two
// whole 3-turn sessions (at 125 and 150 ms), sends all 13 turns and ends
// with the last one (350 ms), not at the next spawn time.
func TestUserCentricSessionLimit(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{OutputTokens: 2, TTFT: time.Millisecond})
	cfg := testConfig(t, srv.URL())
	cfg.UserCentricRate, cfg.NumUsers = 40, 4
	cfg.SessionTurnsMean = 3
	cfg.RequestCount, cfg.NumSessions = 0, 6
	began := time.Now()
	runOK(t, cfg)
	took := time.Since(began)
	recs := readRecords(t, cfg.ArtifactDir)
	sessions := map[string]int{}
	for _, r := range recs {
		sessions[r.Metadata.XCorrelationID]++
	}
	if len(recs) != 13 || len(sessions) != 6 {
		t.Errorf("%d requests in %d sessions, want 13 in 6", len(recs), len(sessions))
	}
	if took > 2*time.Second {
		t.Errorf("the run took %v; its last turn was due at 350 ms", took)
	}
}

// TestUserCentricConcurrencyCountsUsers: --concurrency 2 with 4 users
// keeps at most 2 users between their first turn's start and their last
// turn's end, as AIPerf's session slots do (capping requests in flight
// instead would let all 4 users' sessions overlap).
func TestUserCentricConcurrencyCountsUsers(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{OutputTokens: 2, TTFT: time.Millisecond})
	cfg := testConfig(t, srv.URL())
	cfg.UserCentricRate, cfg.NumUsers, cfg.Concurrency = 40, 4, 2
	cfg.SessionTurnsMean = 3
	cfg.RequestCount = 16
	runOK(t, cfg)
	type span struct{ start, end int64 }
	users := map[string]span{}
	for _, r := range readRecords(t, cfg.ArtifactDir) {
		m := r.Metadata
		sp, ok := users[m.XCorrelationID]
		if !ok || m.RequestStartNS < sp.start {
			sp.start = m.RequestStartNS
		}
		sp.end = max(sp.end, m.RequestEndNS)
		users[m.XCorrelationID] = sp
	}
	type edge struct {
		at    int64
		delta int
	}
	var edges []edge
	for _, sp := range users {
		edges = append(edges, edge{sp.start, 1}, edge{sp.end, -1})
	}
	slices.SortFunc(edges, func(a, b edge) int {
		if a.at != b.at {
			return int(a.at - b.at)
		}
		return a.delta - b.delta // an end before a start at the same instant
	})
	active, most := 0, 0
	for _, e := range edges {
		active += e.delta
		most = max(most, active)
	}
	if most > 2 || len(users) < 4 {
		t.Errorf("%d users, at most %d at once; want no more than 2 at once", len(users), most)
	}
}

// TestVirtualHistory: the users' starting points and numbers equal
// AIPerf's own worked example (15 users, 20-turn sessions) and, where users
// and the session lifetime share a factor, its alternate spacing (4 users,
// 3 turns: step 3).
func TestVirtualHistory(t *testing.T) {
	for _, tc := range []struct {
		users, turns int
		want         []userLine // by order
	}{
		// AIPerf's table: user 16 (new) fires first with all 20 turns,
		// user 5 second with 6, user 9 third with 11, ...
		{15, 20, []userLine{{0, 0, 16}, {1, 6, 5}, {2, 11, 9}, {3, 16, 13}, {4, 2, 2}, {5, 7, 6}, {6, 12, 10},
			{7, 17, 14}, {8, 3, 3}, {9, 8, 7}, {10, 13, 11}, {11, 18, 15}, {12, 4, 4}, {13, 9, 8}, {14, 14, 12}}},
		{4, 3, []userLine{{0, 0, 5}, {1, 1, 2}, {2, 1, 3}, {3, 2, 4}}},
		{2, 3, []userLine{{0, 0, 3}, {1, 1, 2}}},
		{1, 5, []userLine{{0, 0, 2}}},
		{3, 1, []userLine{{0, 0, 4}, {1, 1, 2}, {2, 1, 3}}}, // lifetime floored at 1
	} {
		got := virtualHistory(tc.users, tc.turns)
		slices.SortFunc(got, func(a, b userLine) int { return a.order - b.order })
		if !slices.Equal(got, tc.want) {
			t.Errorf("%d users, %d turns: %v, want %v", tc.users, tc.turns, got, tc.want)
		}
	}
}

// TestRequestCancellation: the drawn share of requests is cancelled after
// the delay and recorded, in the default (1.4) layout, as 499 errors with
// was_cancelled and cancellation_time_ns, the rest as successes without
// either. The draw is keyed by request number, which 1.4 records do not
// carry: the raw export gives each x_request_id its number.
func TestRequestCancellation(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{OutputTokens: 4, TTFT: 150 * time.Millisecond})
	cfg := testConfig(t, srv.URL())
	cfg.Streaming = true
	cfg.Concurrency, cfg.RequestCount = 8, 40
	cfg.RequestCancellationRate, cfg.RequestCancellationDelay = 30, 20*time.Millisecond
	cfg.ExportLevel = "raw"
	runOK(t, cfg)
	r := &run{cfg: cfg, seed: cfg.RandomSeed}
	nums := requestNums(t, cfg.ArtifactDir)
	recs := readRecords(t, cfg.ArtifactDir)
	if len(recs) != 40 || len(nums) != 40 {
		t.Fatalf("%d records, %d raw records, want 40", len(recs), len(nums))
	}
	cancelled := 0
	for _, rec := range recs {
		num, ok := nums[rec.Metadata.XRequestID]
		if !ok {
			t.Fatalf("record %s is not in the raw export", rec.Metadata.XRequestID)
		}
		want := r.drawCancel(num)
		got := rec.Error != nil && rec.Error.Code != nil && *rec.Error.Code == 499 && rec.Error.Type == "RequestCancellationError" && rec.Metadata.WasCancelled
		if got != want {
			t.Errorf("request %d: cancelled %v, drawn %v (%+v)", num, got, want, rec.Error)
		}
		if c := rec.Metadata.CancellationNS; (c != nil) != want || (c != nil && *c < rec.Metadata.RequestStartNS) {
			t.Errorf("request %d (drawn %v): cancellation_time_ns %v, start %d", num, want, c, rec.Metadata.RequestStartNS)
		}
		if !want && rec.Error != nil {
			t.Errorf("request %d: error %+v, want none", num, rec.Error)
		}
		if got {
			cancelled++
		}
	}
	if cancelled < 4 || cancelled > 24 {
		t.Errorf("%d of 40 cancelled at 30%%", cancelled)
	}
}

// TestPrefillConcurrency: at most --prefill-concurrency requests wait for
// their first token at once, seen from the server.
func TestPrefillConcurrency(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{RecordTimelines: true, OutputTokens: 10, TTFT: 20 * time.Millisecond, ITL: 5 * time.Millisecond})
	cfg := testConfig(t, srv.URL())
	cfg.Streaming = true
	cfg.Concurrency, cfg.PrefillConcurrency, cfg.RequestCount = 4, 1, 12
	runOK(t, cfg)
	type span struct{ from, to time.Time }
	var spans []span
	for _, tl := range srv.Timelines() {
		spans = append(spans, span{tl.Arrival, tl.TokenEvents()[0].At})
	}
	for i, a := range spans {
		for j, b := range spans {
			// Overlap beyond 1 ms of client-side release-to-send slack.
			if i < j && a.from.Add(time.Millisecond).Before(b.to) && b.from.Add(time.Millisecond).Before(a.to) {
				t.Fatalf("two requests in prefill at once: %v-%v and %v-%v", a.from, a.to, b.from, b.to)
			}
		}
	}
}

// TestConcurrencyRamp: closed-loop worker w starts at step w of the ramp.
func TestConcurrencyRamp(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{OutputTokens: 2, TTFT: 5 * time.Millisecond})
	cfg := testConfig(t, srv.URL())
	cfg.Concurrency, cfg.ConcurrencyRamp, cfg.BenchmarkDuration = 4, 300*time.Millisecond, 500*time.Millisecond
	cfg.GracePeriod = 5 * time.Second
	runOK(t, cfg)
	first := map[string]int64{}
	var start int64
	for _, r := range readRecords(t, cfg.ArtifactDir) {
		if v, ok := first[r.Metadata.WorkerID]; !ok || r.Metadata.RequestStartNS < v {
			first[r.Metadata.WorkerID] = r.Metadata.RequestStartNS
		}
		if start == 0 || r.Metadata.RequestStartNS < start {
			start = r.Metadata.RequestStartNS
		}
	}
	var offsets []time.Duration
	for _, v := range first {
		offsets = append(offsets, time.Duration(v-start))
	}
	slices.Sort(offsets)
	if len(offsets) != 4 {
		t.Fatalf("%d workers sent", len(offsets))
	}
	for w, off := range offsets {
		if want := time.Duration(w) * 100 * time.Millisecond; off < want-2*time.Millisecond || off > want+40*time.Millisecond {
			t.Errorf("worker %d started at +%v, want +%v", w, off, want)
		}
	}
}

// TestWarmupByDurationWithItsOwnLoad: a duration warmup at concurrency 1,
// then profiling at 3; warmup requests reach the server but not the records.
func TestWarmupByDurationWithItsOwnLoad(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{RecordTimelines: true, OutputTokens: 2, TTFT: 10 * time.Millisecond})
	cfg := testConfig(t, srv.URL())
	cfg.Concurrency, cfg.RequestCount = 3, 9
	cfg.WarmupDuration, cfg.WarmupConcurrency = 100*time.Millisecond, 1
	runOK(t, cfg)
	recs := readRecords(t, cfg.ArtifactDir)
	if len(recs) != 9 {
		t.Fatalf("%d profiling records, want 9", len(recs))
	}
	warm := len(srv.Timelines()) - 9
	if warm < 3 || warm > 12 {
		t.Errorf("%d warmup requests in 100 ms at concurrency 1 with 10 ms responses", warm)
	}
	if srv.MaxInFlight() > 3 {
		t.Errorf("server saw %d in flight", srv.MaxInFlight())
	}
}

// connDouble remembers the connections requests came on, in all and per
// X-Correlation-ID (a test double: the mock server does not expose
// connections). The runner's reachability probe opens one more, which
// carries no request and is not counted, and so do its telemetry's GETs
// (identity, /metrics), on connections of their own, answered 404.
type connDouble struct {
	mu      sync.Mutex
	conns   map[string]bool
	byCorr  map[string]map[string]bool
	serving *httptest.Server
}

func newConnDouble(t *testing.T) *connDouble {
	d := &connDouble{conns: map[string]bool{}, byCorr: map[string]map[string]bool{}}
	d.serving = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.NotFound(w, r)
			return
		}
		d.mu.Lock()
		c := r.Header.Get("X-Correlation-ID")
		if d.byCorr[c] == nil {
			d.byCorr[c] = map[string]bool{}
		}
		d.byCorr[c][r.RemoteAddr] = true
		d.conns[r.RemoteAddr] = true
		d.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"object":"chat.completion","choices":[{"message":{"content":"ok then"}}]}`)
	}))
	d.serving.Start()
	t.Cleanup(d.serving.Close)
	return d
}

func TestConnectionReuseStrategies(t *testing.T) {
	for _, tc := range []struct {
		strategy  string
		wantConns func(n int) bool
	}{
		{"pooled", func(n int) bool { return n <= 2 }},
		{"never", func(n int) bool { return n == 12 }},
		{"sticky-user-sessions", func(n int) bool { return n == 4 }},
	} {
		t.Run(tc.strategy, func(t *testing.T) {
			d := newConnDouble(t)
			cfg := testConfig(t, d.serving.URL)
			cfg.ConnectionReuse = tc.strategy
			cfg.Concurrency, cfg.NumSessions, cfg.SessionTurnsMean = 2, 4, 3
			runOK(t, cfg)
			d.mu.Lock()
			defer d.mu.Unlock()
			if !tc.wantConns(len(d.conns)) {
				t.Errorf("%d connections for 4 sessions x 3 turns at concurrency 2", len(d.conns))
			}
			if tc.strategy == "sticky-user-sessions" {
				for c, addrs := range d.byCorr {
					if len(addrs) != 1 {
						t.Errorf("session %s used %d connections", c, len(addrs))
					}
				}
			}
		})
	}
}

// TestDegradedWhenTheServerFallsBehind: an open-loop run whose concurrency
// ceiling makes sends wait behind a slow server shows latency from the
// intended send time rising far above request latency, and is marked
// degraded in the result, the manifest and the console; a run that keeps
// its schedule is not.
func TestDegradedWhenTheServerFallsBehind(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{OutputTokens: 2, TTFT: 50 * time.Millisecond})
	cfg := testConfig(t, srv.URL())
	cfg.RequestRate, cfg.ArrivalPattern, cfg.Concurrency, cfg.RequestCount = 100, "constant", 2, 30
	var out bytes.Buffer
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), cfg, Options{Version: "test", Stdout: &out})
	if err != nil {
		t.Fatal(err)
	}
	v := res.Validity
	if !v.Degraded || !strings.Contains(strings.Join(v.Reasons, ";"), "schedule lateness p99") {
		t.Fatalf("validity %+v: want degraded by lateness", v)
	}
	// 30 sends due 10 ms apart, served 2 at a time in L >= 50 ms (the
	// server's TTFT; more on a busy machine): the last waits about
	// 15L - 290 ms for a slot before it is sent, so its latency from the
	// intended time is about 16L - 290 ms, at least 2L at any L >= 50 ms, and
	// the wait (schedule lateness) exceeds the request latency itself. Both
	// relations scale with L, so they hold however slow the machine is;
	// they fail if the wait leaked into request latency or intended-time
	// latency ignored it.
	if v.LatenessP99MS == nil {
		t.Fatalf("validity %+v: no schedule lateness for an open-loop run", v)
	}
	if v.IntendedLatencyP99MS < 2*v.RequestLatencyP99MS || v.RequestLatencyP99MS >= *v.LatenessP99MS {
		t.Errorf("intended-time latency p99 %.1f ms, request latency p99 %.1f ms, lateness p99 %.1f ms: want the first at least twice the second, and the wait before sending longer than the request", v.IntendedLatencyP99MS, v.RequestLatencyP99MS, *v.LatenessP99MS)
	}
	if !strings.Contains(out.String(), "Run DEGRADED:") {
		t.Errorf("console lacks the verdict:\n%s", out.String())
	}
	if js, _ := os.ReadFile(filepath.Join(cfg.ArtifactDir, "profile_export_aiperf.json")); !strings.Contains(string(js), `"run_validity": {`) || !strings.Contains(string(js), `"degraded": true`) {
		t.Errorf("summary JSON lacks the verdict")
	}
	manifests, _ := filepath.Glob(filepath.Join(cfg.ArtifactDir, "runs", "*", "manifest.json"))
	if len(manifests) != 1 {
		t.Fatalf("manifests %v", manifests)
	}
	b, _ := os.ReadFile(manifests[0])
	var m struct {
		Validity struct {
			Degraded bool     `json:"degraded"`
			Reasons  []string `json:"reasons"`
		} `json:"validity"`
	}
	if err := json.Unmarshal(b, &m); err != nil || !m.Validity.Degraded || len(m.Validity.Reasons) == 0 {
		t.Errorf("manifest validity %+v %v", m.Validity, err)
	}

	// The same rate without the ceiling keeps its schedule: measured against
	// the constrained run (whose sends waited for the server, hundreds of ms
	// at any speed) rather than the default 10 ms, which a busy machine's
	// scheduler alone can exceed, its lateness is a small fraction, and a
	// threshold at a quarter of the constrained lateness does not mark it.
	constrained := *v.LatenessP99MS
	cfg = testConfig(t, srv.URL())
	cfg.RequestRate, cfg.ArrivalPattern, cfg.RequestCount = 100, "constant", 30
	cfg.LatenessThreshold = time.Duration(constrained / 4 * float64(time.Millisecond))
	// (Only lateness is checked: the in-process mock server and -race
	// count towards the client's CPU here.)
	if res := runOK(t, cfg); strings.Contains(strings.Join(res.Validity.Reasons, ";"), "lateness") {
		t.Errorf("an unconstrained run was marked late against a quarter of the constrained run's lateness p99 (%.1f ms): %+v", constrained, res.Validity)
	}
}

// TestTimeslicesWritten: --slice-duration writes the per-window JSON and
// tidy CSV next to the summary, covering every request once, in either
// layout: 1.4 (the default, AIPerf 0.13's: wall-clock bounds on every CSV
// row, a JSON array of windows) and 1.0 (0.8's: a slice index, and
// timeslice_index in the JSON).
func TestTimeslicesWritten(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{OutputTokens: 2, TTFT: time.Millisecond})
	for _, schema := range []string{"", "1.0"} {
		t.Run("schema="+schemaName(schema), func(t *testing.T) {
			cfg := testConfig(t, srv.URL())
			cfg.RequestRate, cfg.ArrivalPattern, cfg.RequestCount = 100, "constant", 25 // 0.25 s
			cfg.SliceDuration = 100 * time.Millisecond
			if schema != "" {
				cfg.OutputSchema = schema
			}
			runOK(t, cfg)
			// Read from the latest-run copies at the top of the directory.
			csv, err := os.ReadFile(filepath.Join(cfg.ArtifactDir, "profile_export_aiperf_timeslices.csv"))
			if err != nil {
				t.Fatal(err)
			}
			js, err := os.ReadFile(filepath.Join(cfg.ArtifactDir, "profile_export_aiperf_timeslices.json"))
			if err != nil {
				t.Fatal(err)
			}
			if schema == "1.0" {
				checkTimeslices10(t, string(csv), string(js))
			} else {
				checkTimeslices14(t, string(csv), js, cfg.SliceDuration)
			}
		})
	}
}

// checkTimeslices10 checks 0.8's timeslice files: the CSV's request counts
// (rows "slice,Request Count,requests,avg,value") sum to the 25 requests,
// and the JSON has a third window.
func checkTimeslices10(t *testing.T, csv, js string) {
	t.Helper()
	total := 0.0
	for _, line := range strings.Split(csv, "\r\n") {
		var slice int
		var v float64
		if n, _ := fmt.Sscanf(line, "%d,Request Count,requests,avg,%f", &slice, &v); n == 2 {
			total += v
		}
	}
	if total != 25 {
		t.Errorf("request counts over the windows sum to %v, want 25:\n%s", total, csv)
	}
	if !strings.Contains(js, `"timeslice_index": 2`) {
		t.Errorf("timeslices JSON lacks a third window:\n%.300s", js)
	}
}

// checkTimeslices14 checks 0.13's timeslice files: the CSV's request
// counts (rows "slice,start,end,Request Count,requests,avg,value") sum to
// the 25 requests, each window's bounds are those of the JSON's window at
// its place, and the windows are back to back, d long (the last may be
// cut short at the run's end: is_complete false).
func checkTimeslices14(t *testing.T, csv string, js []byte, d time.Duration) {
	t.Helper()
	var doc struct {
		Slices []struct {
			Start    int64 `json:"start_ns"`
			End      int64 `json:"end_ns"`
			Complete *bool `json:"is_complete"`
			Index    *int  `json:"timeslice_index"`
		} `json:"timeslices"`
	}
	if err := json.Unmarshal(js, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Slices) < 3 {
		t.Fatalf("%d windows in the JSON, want at least 3:\n%.300s", len(doc.Slices), js)
	}
	for i, s := range doc.Slices {
		last := i == len(doc.Slices)-1
		if s.Index != nil || (!last && s.Complete != nil) || (last && s.Complete != nil && *s.Complete) {
			t.Errorf("window %d: timeslice_index %v, is_complete %v", i, s.Index, s.Complete)
		}
		if w := time.Duration(s.End - s.Start); w <= 0 || w > d || (!last && w != d) {
			t.Errorf("window %d is %v long, want %v", i, w, d)
		}
		if i > 0 && s.Start != doc.Slices[i-1].End {
			t.Errorf("window %d starts at %d, the previous ended at %d", i, s.Start, doc.Slices[i-1].End)
		}
	}
	lines := strings.Split(strings.TrimRight(csv, "\r\n"), "\n")
	if h := strings.TrimRight(lines[0], "\r"); h != "Timeslice,Start_NS,End_NS,Metric,Unit,Stat,Value" {
		t.Fatalf("CSV header %q", h)
	}
	total := 0.0
	for _, line := range lines[1:] {
		f := strings.Split(strings.TrimRight(line, "\r"), ",")
		if len(f) != 7 || f[3] != "Request Count" || f[4] != "requests" || f[5] != "avg" {
			continue
		}
		i, _ := strconv.Atoi(f[0])
		start, _ := strconv.ParseInt(f[1], 10, 64)
		end, _ := strconv.ParseInt(f[2], 10, 64)
		v, _ := strconv.ParseFloat(f[6], 64)
		if i < 0 || i >= len(doc.Slices) || start != doc.Slices[i].Start || end != doc.Slices[i].End {
			t.Errorf("CSV row %q: not the bounds of the JSON's window %d", line, i)
		}
		total += v
	}
	if total != 25 {
		t.Errorf("request counts over the windows sum to %v, want 25:\n%.2000s", total, csv)
	}
}
