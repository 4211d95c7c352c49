package runner

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aiperf-go/aiperf/metrics"
	"github.com/aiperf-go/aiperf/record"
)

// Perf Analyzer's stability mode (GenAI-Perf's --measurement-interval/-p
// and --stability-percentage/-s), as its InferenceProfiler defines it: the
// profiling phase is cut into windows of Interval by response end; a window's
// throughput is its successful requests per second and its latency their
// average request latency. The run is stable when each of the last
// stabilityWindows windows has throughput > 0 and, over those windows, both
// max/min of the throughput and max/min of the latency are at most
// 1 + Percentage/100. Then sending stops and the summary covers those
// windows only. Perf Analyzer gives up after MaxWindows windows (its
// --max-trials, 10).
const (
	stabilityWindows = 3
	// DefaultMeasurementInterval is GenAI-Perf's --measurement-interval.
	DefaultMeasurementInterval = 10 * time.Second
	// DefaultStabilityPercentage is GenAI-Perf's --stability-percentage:
	// with it any three windows with requests agree.
	DefaultStabilityPercentage = 999
	// DefaultStabilityMaxWindows is Perf Analyzer's --max-trials.
	DefaultStabilityMaxWindows = 10
)

// StabilityConfig switches on Perf Analyzer's stability mode. The zero
// value (Interval 0) leaves it off.
type StabilityConfig struct {
	// Interval is the measurement window (--measurement-interval, ms).
	Interval time.Duration
	// Percentage is the allowed spread (--stability-percentage): the run is
	// stable when max/min <= 1 + Percentage/100 for both the throughput and
	// the average latency of the last three windows.
	Percentage float64
	// MaxWindows bounds the windows measured before giving up (0 means
	// DefaultStabilityMaxWindows).
	MaxWindows int
}

// Enabled reports whether stability mode is on.
func (s StabilityConfig) Enabled() bool { return s.Interval > 0 }

func (s StabilityConfig) maxWindows() int {
	if s.MaxWindows > 0 {
		return s.MaxWindows
	}
	return DefaultStabilityMaxWindows
}

// problems lists what is wrong with the settings, in Validate's style.
func (s StabilityConfig) problems() []string {
	var p []string
	if s.Interval < 0 {
		p = append(p, "--measurement-interval must be > 0 ms")
	}
	if s.Percentage < 0 {
		p = append(p, fmt.Sprintf("--stability-percentage must be >= 0 (got %v)", s.Percentage))
	}
	if s.MaxWindows < 0 {
		p = append(p, fmt.Sprintf("the stability window limit must be >= 0 (got %d)", s.MaxWindows))
	}
	return p
}

// StabilityWindow is one measurement window of stability mode.
type StabilityWindow struct {
	// Index counts the windows from the profiling start (0 first).
	Index int
	// Requests is the number of successful requests that ended in it.
	Requests int
	// Throughput is Requests per second of the window.
	Throughput float64
	// AvgLatency is their average request latency.
	AvgLatency time.Duration
}

// StabilityReport is the outcome of stability mode.
type StabilityReport struct {
	// Stable reports whether the last three windows agreed.
	Stable bool
	// Windows are every window measured, in order.
	Windows []StabilityWindow
	// First is the index of the first window the summary covers (the last
	// three measured); -1 when fewer than three windows were measured and
	// the summary covers the whole phase.
	First int
}

// String is the one-line account printed after the run.
func (r *StabilityReport) String() string {
	var b strings.Builder
	if r.Stable {
		fmt.Fprintf(&b, "stable after %d windows; the summary covers windows %d-%d:", len(r.Windows), r.First+1, r.First+stabilityWindows)
	} else {
		fmt.Fprintf(&b, "not stable after %d windows (Perf Analyzer: failed to obtain a stable measurement); ", len(r.Windows))
		if r.First >= 0 {
			fmt.Fprintf(&b, "the summary covers the last %d:", stabilityWindows)
		} else {
			b.WriteString("the summary covers the whole phase:")
		}
	}
	for _, w := range r.Windows {
		fmt.Fprintf(&b, " [%d] %.4g req/s %.4g ms", w.Index+1, w.Throughput, float64(w.AvgLatency)/1e6)
	}
	return b.String()
}

// stabWindow gathers one window's requests.
type stabWindow struct {
	ok         int
	latencySum int64
	recs       []processed // kept for the last windows only
}

// stabilityTracker measures the windows of the profiling phase from the
// processed records (called from the record consumer, one goroutine) and
// calls stop once it has decided: stable, or out of windows.
type stabilityTracker struct {
	cfg     StabilityConfig
	stop    func()
	origin  int64 // profiling start (clock ns); 0 until the first record
	lag     int64 // a window closes when a record ends this long after it
	windows []stabWindow
	closed  int // windows [0, closed) are measured
	report  StabilityReport
	done    bool
}

// newStabilityTracker returns nil when stability mode is off.
func newStabilityTracker(cfg StabilityConfig, stop func()) *stabilityTracker {
	if !cfg.Enabled() {
		return nil
	}
	// Responses reach the consumer slightly out of order (several compute
	// workers): a window closes only when one ends well past it.
	lag := min(int64(cfg.Interval)/10, int64(100*time.Millisecond))
	return &stabilityTracker{cfg: cfg, stop: stop, lag: lag, report: StabilityReport{First: -1}}
}

// add counts one profiling record; origin is the profiling start.
func (t *stabilityTracker) add(p processed, origin int64) {
	if t == nil || t.done {
		return
	}
	if t.origin == 0 {
		t.origin = origin
	}
	rec := p.rec
	k := int((rec.EndNS - t.origin) / int64(t.cfg.Interval))
	if rec.EndNS < t.origin {
		k = 0
	}
	for len(t.windows) <= k {
		t.windows = append(t.windows, stabWindow{})
	}
	if k >= t.closed {
		w := &t.windows[k]
		if rec.Valid() {
			w.ok++
			w.latencySum += rec.EndNS - rec.StartNS
		}
		w.recs = append(w.recs, processed{rec: rec, vals: cloneValues(p.vals)})
	}
	t.closeUpTo(rec.EndNS - t.lag)
}

// closeUpTo measures every window that ended at or before now.
func (t *stabilityTracker) closeUpTo(now int64) {
	for !t.done && t.origin > 0 && t.origin+int64(t.closed+1)*int64(t.cfg.Interval) <= now {
		if len(t.windows) <= t.closed {
			t.windows = append(t.windows, stabWindow{})
		}
		t.closeWindow()
	}
}

// closeWindow measures window t.closed and decides when it can.
func (t *stabilityTracker) closeWindow() {
	w := &t.windows[t.closed]
	sw := StabilityWindow{Index: t.closed, Requests: w.ok, Throughput: float64(w.ok) / t.cfg.Interval.Seconds()}
	if w.ok > 0 {
		sw.AvgLatency = time.Duration(w.latencySum / int64(w.ok))
	}
	t.report.Windows = append(t.report.Windows, sw)
	t.closed++
	if old := t.closed - stabilityWindows - 1; old >= 0 {
		t.windows[old].recs = nil
	}
	if t.closed >= stabilityWindows {
		t.report.First = t.closed - stabilityWindows
	}
	switch {
	case stable(t.report.Windows, t.cfg.Percentage):
		t.report.Stable = true
	case t.closed >= t.cfg.maxWindows():
	default:
		return
	}
	t.done = true
	if t.stop != nil {
		t.stop()
	}
}

// stable applies Perf Analyzer's rule to the last three windows.
func stable(ws []StabilityWindow, percentage float64) bool {
	if len(ws) < stabilityWindows {
		return false
	}
	last := ws[len(ws)-stabilityWindows:]
	limit := 1 + percentage/100
	minT, maxT := last[0].Throughput, last[0].Throughput
	minL, maxL := float64(last[0].AvgLatency), float64(last[0].AvgLatency)
	for _, w := range last {
		if w.Requests == 0 {
			return false
		}
		minT, maxT = min(minT, w.Throughput), max(maxT, w.Throughput)
		minL, maxL = min(minL, float64(w.AvgLatency)), max(maxL, float64(w.AvgLatency))
	}
	return maxT/minT <= limit && minL > 0 && maxL/minL <= limit
}

// finish measures the windows that ended by now (clock ns), when the phase
// ended before a decision, and returns the report.
func (t *stabilityTracker) finish(now int64) *StabilityReport {
	if t == nil {
		return nil
	}
	if !t.done {
		t.closeUpTo(now)
	}
	return &t.report
}

// summary returns the summary of the windows the report covers, or nil
// when it covers the whole phase.
func (t *stabilityTracker) summary(cfg *metrics.Config, clock *record.Clock) *metrics.Summary {
	if t == nil || t.report.First < 0 {
		return nil
	}
	acc := metrics.NewAccumulator(cfg)
	for i := t.report.First; i < t.report.First+stabilityWindows; i++ {
		for _, p := range t.windows[i].recs {
			acc.Add(p.rec, p.vals)
		}
	}
	acc.SetPhaseStart(t.origin + int64(t.report.First)*int64(t.cfg.Interval))
	return acc.WindowSummary(clock, stabilityWindows*int64(t.cfg.Interval))
}

// stabilityBound bounds a profiling phase that has no other stop condition
// to MaxWindows windows (plus the lag that closes the last), as Perf
// Analyzer's --max-trials does.
func (c *Config) stabilityBound(p *phaseSpec) {
	s := c.Stability
	if !s.Enabled() || p.count > 0 || p.duration > 0 || p.sessions > 0 {
		return
	}
	p.duration = time.Duration(s.maxWindows())*s.Interval + min(s.Interval/10, 100*time.Millisecond) + time.Millisecond
}

// errStable is the cause that stops the sending once stability is reached.
var errStable = errors.New("stable (--stability-percentage)")

// logStability logs the windows; a run that never became stable is a
// warning, as Perf Analyzer's failure is.
func (r *run) logStability(rep *StabilityReport) {
	if rep.Stable {
		r.log.Info("stability reached", "report", rep.String())
		return
	}
	r.log.Warn("measurement not stable: raise --stability-percentage or --measurement-interval", "report", rep.String())
}
