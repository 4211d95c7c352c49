package runner

import (
	"math"
	"sync"
	"sync/atomic"

	"github.com/aiperf-go/aiperf/metrics"
	"github.com/aiperf-go/aiperf/record"
)

// The live display's recent window: the records of the current phase that
// finished in the last recentSpan, or the last windowCap of them when more
// finished (at more than windowCap/10 s = 409.6 req/s the window is shorter
// than 10 s). Both rings have a fixed size, so recording a sample never
// allocates, and percentiles are computed only when a frame is drawn.
const (
	windowCap = 4096
	lateCap   = 4096
)

// sample is what the live display keeps of one finished record. Metrics the
// record lacks (TTFT of a non-streaming request, anything of a failed one)
// are NaN.
type sample struct {
	end                int64 // EndNS, monotonic
	ttft, itl, latency float64
	osl                float64 // output_sequence_length, 0 when absent
}

// newSample extracts the live metrics of rec from its computed values in
// display units (ms, tokens). It scans vals once and does not allocate.
func newSample(rec *record.Record, vals []metrics.RecordValue) sample {
	nan := math.NaN()
	s := sample{end: rec.EndNS, ttft: nan, itl: nan, latency: nan}
	for i := range vals {
		switch vals[i].Tag {
		case "time_to_first_token":
			s.ttft = vals[i].Value
		case "inter_token_latency":
			s.itl = vals[i].Value
		case "request_latency":
			s.latency = vals[i].Value
		case "output_sequence_length":
			s.osl = vals[i].Value
		}
	}
	return s
}

// window is a ring of the last windowCap samples of one phase, written by the
// record consumer and copied by the drawing goroutine under a mutex held for
// O(1) (add) or one copy of the ring (recent).
type window struct {
	mu    sync.Mutex
	phase record.Phase
	n     int // samples added since the phase began
	buf   [windowCap]sample
}

// add records s for phase; a new phase empties the ring first.
func (w *window) add(phase record.Phase, s sample) {
	w.mu.Lock()
	if phase != w.phase {
		w.phase, w.n = phase, 0
	}
	w.buf[w.n%windowCap] = s
	w.n++
	w.mu.Unlock()
}

// recent appends to dst[:0] the samples of phase that ended after since and
// returns them with the end time of the oldest sample the ring still holds
// when it has overwritten older ones, or math.MinInt64 when it holds every
// sample of the phase (then the window is complete back to since).
func (w *window) recent(dst []sample, phase record.Phase, since int64) ([]sample, int64) {
	dst = dst[:0]
	oldest := int64(math.MinInt64)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.phase != phase {
		return dst, oldest
	}
	held := min(w.n, windowCap)
	if w.n > windowCap {
		oldest = math.MaxInt64
		for i := range held {
			oldest = min(oldest, w.buf[i].end)
		}
	}
	for i := range held {
		if w.buf[i].end > since {
			dst = append(dst, w.buf[i])
		}
	}
	return dst, oldest
}

// lateSample is one open-loop send's schedule lateness.
type lateSample struct{ at, ns int64 }

// lateWindow is a lock-free ring of the last lateCap schedule lateness
// samples, written by the pacers and read by the drawing goroutine. A read
// racing a write may pair one send's time with another's lateness; the
// display tolerates that, the pacer never waits.
type lateWindow struct {
	n  atomic.Uint64
	at [lateCap]atomic.Int64
	ns [lateCap]atomic.Int64
}

// add records that a send at monotonic time at was ns late.
func (l *lateWindow) add(at, ns int64) {
	i := (l.n.Add(1) - 1) % lateCap
	l.ns[i].Store(ns)
	l.at[i].Store(at)
}

// recent appends to dst[:0] the samples taken after since.
func (l *lateWindow) recent(dst []lateSample, since int64) []lateSample {
	dst = dst[:0]
	held := min(l.n.Load(), lateCap)
	for i := range held {
		if at := l.at[i].Load(); at > since {
			dst = append(dst, lateSample{at: at, ns: l.ns[i].Load()})
		}
	}
	return dst
}
