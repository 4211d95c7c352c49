package runner

import (
	"math"
	"slices"
	"time"

	"github.com/aiperf-go/aiperf/metrics"
	"github.com/aiperf-go/aiperf/record"
)

// recentSpan is how far back the live rates and percentiles look.
const recentSpan = 10 * time.Second

// snapshot is what one frame of the live display shows.
type snapshot struct {
	phase                         record.Phase
	done, total, failed, inflight int64
	elapsed                       time.Duration
	duration                      time.Duration // of a duration-bound phase; 0 when count-bound
	// eta is the time left: the phase's remaining duration, or the
	// remaining requests at the recent rate; etaKnown is false when neither
	// can be told.
	eta      time.Duration
	etaKnown bool

	// The recent window: span is the time it covers (up to recentSpan),
	// recentN the records finished in it.
	span                     time.Duration
	recentN                  int
	rate, outputTPS          float64 // requests/s and output tokens/s
	ttft, itl, latency, late quantiles
}

// quantiles are the p50 and p99 (ms) of n values; n == 0 means no value.
type quantiles struct {
	p50, p99 float64
	n        int
}

// quantilesOf sorts vals in place and returns its p50 and p99 (linear
// interpolation, as numpy).
func quantilesOf(vals []float64) quantiles {
	if len(vals) == 0 {
		return quantiles{}
	}
	slices.Sort(vals)
	return quantiles{p50: metrics.PercentileSorted(vals, 50), p99: metrics.PercentileSorted(vals, 99), n: len(vals)}
}

// counterSnapshot fills the phase, counts and time of a snapshot from the
// live counters at monotonic time now. The rate is the phase's average and
// the ETA follows from it; recentStats refines both.
func counterSnapshot(c *counters, now int64) snapshot {
	s := snapshot{
		done:     c.completed.Load(),
		total:    c.total.Load(),
		failed:   c.failed.Load(),
		duration: time.Duration(c.deadline.Load()),
	}
	s.phase, _ = c.phase.Load().(record.Phase)
	if started := c.started.Load(); started > 0 || s.phase != "" {
		s.elapsed = time.Duration(max(0, now-started))
	}
	if s.elapsed > 0 {
		s.rate = float64(s.done) / s.elapsed.Seconds()
	}
	s.setETA()
	return s
}

// setETA derives the ETA from the phase bound and the rate.
func (s *snapshot) setETA() {
	s.eta, s.etaKnown = 0, false
	switch {
	case s.total > 0:
		if s.rate > 0 {
			s.eta = time.Duration(float64(max(0, s.total-s.done)) / s.rate * float64(time.Second))
			s.etaKnown = true
		}
	case s.duration > 0:
		s.eta, s.etaKnown = max(0, s.duration-s.elapsed), true
	}
}

// scratch holds the drawing goroutine's buffers, reused frame after frame.
type scratch struct {
	samples []sample
	lates   []lateSample
	vals    []float64
}

// recentStats sets the recent-window fields of s from the samples that ended
// after now-span (span = min(recentSpan, elapsed)). When the ring dropped
// samples inside that span (oldest > since), the rates cover only
// (oldest, now]. Lateness samples are filtered by the same span.
func (s *snapshot) recentStats(now int64, w *window, l *lateWindow, sc *scratch) {
	span := min(recentSpan, s.elapsed)
	since := now - int64(span)
	var oldest int64
	sc.samples, oldest = w.recent(sc.samples, s.phase, since)
	if oldest > since {
		since, span = oldest, time.Duration(now-oldest)
	}
	s.span = span
	count, tokens := 0, 0.0
	for _, x := range sc.samples {
		if x.end > since {
			count++
			tokens += x.osl
		}
	}
	s.recentN = len(sc.samples)
	if span > 0 {
		s.rate = float64(count) / span.Seconds()
		s.outputTPS = tokens / span.Seconds()
	} else {
		s.rate, s.outputTPS = 0, 0
	}
	s.setETA()
	s.ttft = sc.quantiles(func(x *sample) float64 { return x.ttft })
	s.itl = sc.quantiles(func(x *sample) float64 { return x.itl })
	s.latency = sc.quantiles(func(x *sample) float64 { return x.latency })
	if l != nil {
		sc.lates = l.recent(sc.lates, now-int64(min(recentSpan, s.elapsed)))
		sc.vals = sc.vals[:0]
		for _, x := range sc.lates {
			sc.vals = append(sc.vals, float64(x.ns)/1e6)
		}
		s.late = quantilesOf(sc.vals)
	}
}

// quantiles returns the p50 and p99 of one metric over the samples, skipping
// the records that lack it.
func (sc *scratch) quantiles(metric func(*sample) float64) quantiles {
	sc.vals = sc.vals[:0]
	for i := range sc.samples {
		if v := metric(&sc.samples[i]); !math.IsNaN(v) {
			sc.vals = append(sc.vals, v)
		}
	}
	return quantilesOf(sc.vals)
}
