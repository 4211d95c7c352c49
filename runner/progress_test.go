package runner

import (
	"bytes"
	"context"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/metrics"
	"github.com/aiperf-go/aiperf/record"
)

const sec = int64(time.Second)

// lockedBuffer is a fake terminal the drawing goroutine writes to while the
// test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// waitFor polls until cond holds, failing the test after 5 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// testProgress is a live display of ui on w, in the profiling phase (started
// at time 0) of total requests, refreshed every millisecond.
func testProgress(ui string, terminal bool, w *lockedBuffer, total int64) (*progress, *counters) {
	live := new(counters)
	live.phase.Store(record.PhaseProfiling)
	live.total.Store(total)
	cfg := Defaults()
	cfg.UIType = ui
	var opts Options
	if w != nil {
		opts.Stderr = w
	}
	opts.Terminal = terminal
	p := newProgress(&cfg, opts, live, record.NewClock())
	p.every = time.Millisecond
	return p, live
}

// vals are a streaming record's live metrics (ms, tokens).
func vals(ttft, itl, latency, osl float64) []metrics.RecordValue {
	return []metrics.RecordValue{
		{Tag: "input_sequence_length", Value: 100, Int: true},
		{Tag: "time_to_first_token", Value: ttft},
		{Tag: "inter_token_latency", Value: itl},
		{Tag: "request_latency", Value: latency},
		{Tag: "output_sequence_length", Value: osl, Int: true},
		{Tag: "inter_chunk_latency", List: []float64{itl, itl}},
	}
}

func TestProgressSimpleLine(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    snapshot
		want string
	}{{
		name: "count phase", // 25 of 100 at 5 req/s: 75 left take 15 s
		s:    snapshot{phase: record.PhaseProfiling, done: 25, total: 100, failed: 2, elapsed: 5 * time.Second, rate: 5, eta: 15 * time.Second, etaKnown: true},
		want: "Profiling: 25/100 |███████▌                      |  25% [00:05<00:15, 5.0 req/s, 2 errors]",
	}, {
		name: "duration phase", // 4 s of 10 s gone
		s:    snapshot{phase: record.PhaseWarmup, done: 7, duration: 10 * time.Second, elapsed: 4 * time.Second, rate: 1.75, eta: 6 * time.Second, etaKnown: true},
		want: "Warming Up: 7 |████████████                  |  40% [00:04<00:06, 1.8 req/s, 0 errors]",
	}, {
		name: "nothing done yet",
		s:    snapshot{phase: record.PhaseProfiling, total: 10},
		want: "Profiling: 0/10 |                              |   0% [00:00<?, 0.0 req/s, 0 errors]",
	}, {
		name: "before the first phase, past an hour",
		s:    snapshot{done: 1, elapsed: time.Hour + 2*time.Minute + 3*time.Second},
		want: "Starting: 1 |                              |   0% [1:02:03<?, 0.0 req/s, 0 errors]",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			if got := simpleLine(tc.s); got != tc.want {
				t.Errorf("\ngot  %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestProgressCounterSnapshot(t *testing.T) {
	var c counters
	c.phase.Store(record.PhaseProfiling)
	c.total.Store(100)
	c.completed.Store(25)
	c.failed.Store(2)
	c.started.Store(sec)
	s := counterSnapshot(&c, 6*sec) // 25 done in 5 s: 5 req/s, 75 left: 15 s
	if s.elapsed != 5*time.Second || s.rate != 5 || !s.etaKnown || s.eta != 15*time.Second || s.failed != 2 {
		t.Errorf("count phase: %+v", s)
	}
	var d counters
	d.phase.Store(record.PhaseWarmup)
	d.deadline.Store(10 * sec)
	d.completed.Store(7)
	s = counterSnapshot(&d, 4*sec)
	if s.fraction() != 0.4 || s.eta != 6*time.Second || s.rate != 1.75 {
		t.Errorf("duration phase: %+v", s)
	}
}

// TestProgressObserveRecentWindow checks the recent window's rates and
// percentiles against hand-computed values (numpy's linear interpolation).
func TestProgressObserveRecentWindow(t *testing.T) {
	p, live := testProgress("dashboard", true, new(lockedBuffer), 100)
	live.completed.Store(40)
	live.failed.Store(1)
	prof := func(end int64) *record.Record { return &record.Record{Phase: record.PhaseProfiling, EndNS: end} }
	// Two seconds into the phase, before any record, the window is two
	// seconds long and empty.
	if early := p.snapshot(2*sec, true); early.span != 2*time.Second || early.recentN != 0 || early.rate != 0 || early.ttft.n != 0 {
		t.Errorf("early snapshot: %+v", early)
	}
	// Outside the window (now = 20 s, window (10 s, 20 s]).
	p.observe(prof(5*sec), vals(1000, 1000, 1000, 1000))
	// Ten records at 11..20 s: TTFT 10..100, ITL 1..10, latency 100..1000, 50 tokens each.
	for i := range int64(10) {
		f := float64(i + 1)
		p.observe(prof((11+i)*sec), vals(10*f, f, 100*f, 50))
	}
	// A failed record counts for the rate only.
	p.observe(&record.Record{Phase: record.PhaseProfiling, EndNS: 15 * sec, Error: &record.Error{Code: 500}}, nil)
	// A warmup straggler is ignored.
	p.observe(&record.Record{Phase: record.PhaseWarmup, EndNS: 19 * sec}, vals(5000, 5000, 5000, 5000))
	p.lateness(5*sec, 100e6) // outside
	p.lateness(15*sec, 1e6)
	p.lateness(16*sec, 3e6)
	p.sendBegin()
	p.sendBegin()
	p.sendBegin()
	p.sendEnd()

	s := p.snapshot(20*sec, true)
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	checks := []struct {
		name      string
		got, want float64
	}{
		{"rate", s.rate, 1.1}, // 11 records in 10 s
		{"output tokens/s", s.outputTPS, 50},
		{"recent n", float64(s.recentN), 11},
		{"span s", s.span.Seconds(), 10},
		{"ttft p50", s.ttft.p50, 55}, // index 4.5 of 10..100
		{"ttft p99", s.ttft.p99, 99.1},
		{"ttft n", float64(s.ttft.n), 10},
		{"itl p50", s.itl.p50, 5.5},
		{"itl p99", s.itl.p99, 9.91},
		{"latency p50", s.latency.p50, 550},
		{"latency p99", s.latency.p99, 991},
		{"lateness p50 ms", s.late.p50, 2},
		{"lateness p99 ms", s.late.p99, 2.98},
		{"in flight", float64(s.inflight), 2},
		{"eta s", s.eta.Seconds(), 60 / 1.1},
	}
	for _, c := range checks {
		if !near(c.got, c.want) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}

// TestProgressObserveRingOverflow checks the rates when more records finish
// within the window than the ring holds: they cover the ring's time span.
func TestProgressObserveRingOverflow(t *testing.T) {
	p, _ := testProgress("simple", true, new(lockedBuffer), 0)
	const ms = int64(time.Millisecond)
	for i := range int64(windowCap + 100) { // one per ms, ends 0..4195 ms
		p.observe(&record.Record{Phase: record.PhaseProfiling, EndNS: i * ms}, vals(1, 1, 1, 2))
	}
	s := p.snapshot(4200*ms, true)
	// The ring holds ends 100..4195 ms; the 4095 after 100 ms in 4.1 s.
	if s.span != 4100*time.Millisecond || !closeTo(s.rate, 4095/4.1) || !closeTo(s.outputTPS, 2*4095/4.1) || s.recentN != windowCap {
		t.Errorf("span %v rate %v tokens/s %v n %d", s.span, s.rate, s.outputTPS, s.recentN)
	}
}

func closeTo(a, b float64) bool { return math.Abs(a-b) < 1e-9*math.Max(1, math.Abs(b)) }

// TestProgressObservePhaseChange checks that profiling starts with an empty
// window.
func TestProgressObservePhaseChange(t *testing.T) {
	p, live := testProgress("simple", true, new(lockedBuffer), 0)
	live.phase.Store(record.PhaseWarmup)
	p.observe(&record.Record{Phase: record.PhaseWarmup, EndNS: sec}, vals(1, 1, 1, 1))
	live.phase.Store(record.PhaseProfiling)
	if s := p.snapshot(2*sec, true); s.recentN != 0 {
		t.Errorf("profiling window holds %d warmup records", s.recentN)
	}
	p.observe(&record.Record{Phase: record.PhaseProfiling, EndNS: 2 * sec}, vals(7, 1, 1, 1))
	p.observe(&record.Record{Phase: record.PhaseWarmup, EndNS: 2 * sec}, vals(9, 1, 1, 1))
	if s := p.snapshot(3*sec, true); s.recentN != 1 || s.ttft.p50 != 7 {
		t.Errorf("after the phase change: n %d ttft %v", s.recentN, s.ttft)
	}
}

func TestProgressResolveUI(t *testing.T) {
	for _, tc := range []struct {
		ui       string
		terminal bool
		want     string
	}{
		{"", true, "dashboard"}, {"", false, "none"}, {"none", true, "none"}, {"simple", false, "simple"},
		{"SIMPLE", true, "simple"}, {"dashboard", true, "dashboard"}, {"dashboard", false, "simple"},
	} {
		if got := resolveUI(tc.ui, tc.terminal); got != tc.want {
			t.Errorf("resolveUI(%q, %v) = %q, want %q", tc.ui, tc.terminal, got, tc.want)
		}
	}
	for _, tc := range []struct {
		name string
		edit func(*Config)
		want string
	}{
		{"default", func(*Config) {}, "dashboard"},
		{"-v", func(c *Config) { c.Verbose, c.LogLevelSet, c.LogLevel = true, true, "DEBUG" }, "simple"},
		{"--log-level trace", func(c *Config) { c.LogLevelSet, c.LogLevel = true, "TRACE" }, "simple"},
		{"--log-level info", func(c *Config) { c.LogLevelSet, c.LogLevel = true, "INFO" }, "dashboard"},
		{"multi-run", func(c *Config) { c.NumProfileRuns = 3 }, "simple"},
		{"sweep", func(c *Config) { c.ConcurrencyList = []int{1, 2} }, "simple"},
		{"rate sweep", func(c *Config) { c.RequestRateList = []float64{1, 2} }, "simple"},
		{"none stays none", func(c *Config) { c.UIType, c.Verbose = "none", true }, "none"},
	} {
		cfg := Defaults()
		tc.edit(&cfg)
		if got := uiFor(&cfg, true); got != tc.want {
			t.Errorf("%s: uiFor = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestProgressDashboardRestoresTerminal runs the dashboard on a fake
// terminal: it enters the alternate screen, draws frames, and at stop shows
// the cursor, leaves the alternate screen and prints the final line.
func TestProgressDashboardRestoresTerminal(t *testing.T) {
	var term lockedBuffer
	p, live := testProgress("dashboard", true, &term, 10)
	p.start()
	live.completed.Store(10)
	waitFor(t, "a frame", func() bool { return strings.Contains(term.String(), "aiperf-go · Profiling") })
	p.stop()
	p.stop() // a second stop does nothing
	out := term.String()
	if !strings.HasPrefix(out, ansiEnter) {
		t.Errorf("output does not start by entering the alternate screen: %q", out[:min(len(out), 40)])
	}
	last := strings.LastIndex(out, ansiLeave)
	if last < 0 || strings.Count(out, ansiLeave) != 1 {
		t.Fatalf("the terminal is restored %d times", strings.Count(out, ansiLeave))
	}
	tail := out[last+len(ansiLeave):]
	if !strings.HasPrefix(tail, ansiLineStart+"Profiling: 10/10 |") || !strings.HasSuffix(tail, "]\n") || strings.Count(tail, "\n") != 1 {
		t.Errorf("after restoring: %q", tail)
	}
}

// TestProgressDashboardInterrupt checks that cancelling the context gives
// the terminal back at once; the display goes on as the simple line.
func TestProgressDashboardInterrupt(t *testing.T) {
	var term lockedBuffer
	p, _ := testProgress("dashboard", true, &term, 10)
	ctx, cancel := context.WithCancel(context.Background())
	p.startContext(ctx)
	waitFor(t, "a frame", func() bool { return strings.Contains(term.String(), "aiperf-go") })
	cancel()
	waitFor(t, "the terminal back", func() bool { return strings.Contains(term.String(), ansiLeave) })
	waitFor(t, "a simple line", func() bool {
		out := term.String()
		return strings.Contains(out[strings.Index(out, ansiLeave):], ansiLineStart+"Profiling: 0/10")
	})
	p.stop()
	out := term.String()
	if n := strings.Count(out, ansiLeave); n != 1 {
		t.Errorf("the terminal is restored %d times", n)
	}
	if after := out[strings.Index(out, ansiLeave):]; strings.Contains(after, ansiHome) || !strings.HasSuffix(after, "]\n") {
		t.Errorf("dashboard frames after the interrupt, or no final line: %q", after)
	}
}

// TestProgressSimpleTerminal checks the simple UI on a terminal: one line
// redrawn in place, a newline only at the end.
func TestProgressSimpleTerminal(t *testing.T) {
	var term lockedBuffer
	p, _ := testProgress("", false, &term, 5)
	if p.w != nil {
		t.Fatal("the default UI off a terminal should be none")
	}
	p, _ = testProgress("simple", true, &term, 5)
	p.start()
	waitFor(t, "two redraws", func() bool { return strings.Count(term.String(), ansiLineStart) >= 2 })
	p.stop()
	out := term.String()
	if strings.Count(out, "\n") != 1 || !strings.HasSuffix(out, "]\n") || strings.Contains(out, ansiEnter) {
		t.Errorf("simple terminal output: %q", out)
	}
}

// TestProgressSimpleLog checks --ui-type simple off a terminal: plain lines,
// no carriage returns or escapes.
func TestProgressSimpleLog(t *testing.T) {
	var log lockedBuffer
	cfg := Defaults()
	cfg.UIType = "dashboard" // no terminal: simple, a line every 5 s
	if p := newProgress(&cfg, Options{Stderr: &log}, new(counters), record.NewClock()); p.mode != uiSimple || p.every != logRefresh {
		t.Fatalf("mode %s every %v", p.mode, p.every)
	}
	p, _ := testProgress("dashboard", false, &log, 5)
	p.start()
	waitFor(t, "two lines", func() bool { return strings.Count(log.String(), "\n") >= 2 })
	p.stop()
	for _, line := range strings.Split(strings.TrimSuffix(log.String(), "\n"), "\n") {
		if !strings.HasPrefix(line, "Profiling: 0/5 |") || strings.ContainsAny(line, "\r\x1b") {
			t.Errorf("log line %q", line)
		}
	}
}

// TestProgressInert checks that --ui-type none and a nil display do nothing.
func TestProgressInert(t *testing.T) {
	p, _ := testProgress("none", true, new(lockedBuffer), 1)
	var nilp *progress
	for _, q := range []*progress{p, nilp} {
		q.start()
		q.observe(&record.Record{Phase: record.PhaseProfiling}, nil)
		q.lateness(1, 1)
		q.sendBegin()
		q.sendEnd()
		q.stop()
	}
	if p.recent != nil || p.late != nil {
		t.Error("an inert display allocated its windows")
	}
}

// TestProgressObserveWhileDrawing feeds the display from several goroutines
// while it draws (run with -race).
func TestProgressObserveWhileDrawing(t *testing.T) {
	var term lockedBuffer
	p, live := testProgress("dashboard", true, &term, 0)
	p.start()
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := range 5000 {
			p.observe(&record.Record{Phase: record.PhaseProfiling, EndNS: p.clock.Now()}, vals(float64(i), 1, 2, 3))
			live.completed.Add(1)
		}
	})
	for range 2 {
		wg.Go(func() {
			for range 5000 {
				p.sendBegin()
				p.lateness(p.clock.Now(), 1000)
				p.sendEnd()
			}
		})
	}
	wg.Wait()
	p.stop()
	if s := p.snapshot(p.clock.Now(), true); s.inflight != 0 {
		t.Errorf("in flight %d after every send ended", s.inflight)
	}
}

func BenchmarkObserve(b *testing.B) {
	p, _ := testProgress("dashboard", true, new(lockedBuffer), 0)
	rec := &record.Record{Phase: record.PhaseProfiling}
	v := vals(10, 1, 100, 50)
	v = append(v, make([]metrics.RecordValue, 10)...) // a full record's worth of values
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		rec.EndNS = int64(i)
		p.observe(rec, v)
	}
}

func BenchmarkObserveLateness(b *testing.B) {
	p, _ := testProgress("dashboard", true, new(lockedBuffer), 0)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		p.lateness(int64(i), 1000)
	}
}
