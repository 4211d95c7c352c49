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
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/mockserver"
	"github.com/aiperf-go/aiperf/mockserver/mocktest"
)

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
