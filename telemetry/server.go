package telemetry

import (
	"hash/maphash"
	"strings"
	"sync"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/aiperf-go/aiperf/internal/secret"
)

// DefaultMaxLabelValues is how many distinct values per label of a family
// a ServerMetrics tracks, as AIPerf's MAX_UNIQUE_LABEL_VALUES.
const DefaultMaxLabelValues = 1000

// pendingSamples is how many samples taken before Start wait unapplied, so
// that a scrape racing Start (taken after the window began, delivered before
// Start was called) still counts in the window.
const pendingSamples = 8

// ServerMetricsOptions configure a ServerMetrics.
type ServerMetricsOptions struct {
	// MaxLabelValues caps the distinct values tracked per label of a
	// family (DefaultMaxLabelValues when 0). A series that would bring a
	// label past the cap is not tracked and is counted in
	// ServerMetricsSummary.DroppedSeries: a label holding request ids cannot
	// make memory grow without bound.
	MaxLabelValues int
	// SliceDuration, when positive, cuts every series' window into
	// timeslices of this length (AIPerf's --slice-duration); counters then
	// get rate statistics over the slices.
	SliceDuration time.Duration
}

// ServerMetrics accumulates Prometheus server metrics samples into AIPerf's
// server metrics statistics, streaming: its memory depends on the number of
// series, never on the run's length.
//
// Samples before Start are the baseline: per series only the last one is
// kept, as the reference that counter and histogram deltas start from.
// Samples from Start on (by their TimeNS) are the profiling window, and so
// are those after End, as AIPerf counts its flush-period and final scrapes
// in the profiling phase. Add, Start, End and Summary may be called from
// different goroutines. Samples of one source must arrive in time order.
type ServerMetrics struct {
	mu        sync.Mutex
	opts      ServerMetricsOptions
	win       window
	pending   []Sample
	endpoints []*endpointState
	byURL     map[string]*endpointState
	dropped   int64
	seed      maphash.Seed
	keyBuf    []byte
	labelBuf  []*dto.LabelPair
}

// NewServerMetrics returns an empty accumulator.
func NewServerMetrics(opts ServerMetricsOptions) *ServerMetrics {
	if opts.MaxLabelValues <= 0 {
		opts.MaxLabelValues = DefaultMaxLabelValues
	}
	return &ServerMetrics{opts: opts, byURL: map[string]*endpointState{}, seed: maphash.MakeSeed()}
}

// Add takes one sample. Samples of another Kind, and failed scrapes (no
// families), are ignored.
func (a *ServerMetrics) Add(s Sample) {
	if s.Kind != KindServer || len(s.Server) == 0 {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.win.started {
		a.apply(s)
		return
	}
	a.pending = append(a.pending, s)
	if len(a.pending) > pendingSamples {
		a.apply(a.pending[0])
		a.pending[0] = Sample{}
		a.pending = a.pending[1:]
	}
}

// Start marks the beginning of the profiling window (wall-clock ns on the
// samples' clock). Later calls are ignored.
func (a *ServerMetrics) Start(wallNS int64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.win.start(wallNS) {
		a.flushPending()
	}
}

// End records the end of the profiling window, reported in the summary.
// Samples still arriving belong to the window. Later calls are ignored.
func (a *ServerMetrics) End(wallNS int64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.win.end(wallNS)
}

func (a *ServerMetrics) flushPending() {
	for _, s := range a.pending {
		a.apply(s)
	}
	a.pending = nil
}

// Summary computes the statistics of everything added so far; Add may go
// on. Without Start, every sample is baseline and no endpoint has window
// statistics; the samples held back for a Start racing them are then
// settled as baseline too, so a later Start cannot count them in its
// window.
func (a *ServerMetrics) Summary() *ServerMetricsSummary {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.flushPending()
	sum := &ServerMetricsSummary{StartNS: a.win.startNS, EndNS: a.win.endNS, SliceDuration: a.opts.SliceDuration, DroppedSeries: a.dropped}
	for _, ep := range a.endpoints {
		sum.Endpoints = append(sum.Endpoints, ep.summary())
	}
	return sum
}

// apply folds one sample in: its families into their series (as baseline
// or window by its time) and its fetch into the endpoint's statistics.
func (a *ServerMetrics) apply(s Sample) {
	ep := a.byURL[s.Source]
	if ep == nil {
		ep = newEndpointState(secret.URL(s.Source))
		a.byURL[s.Source] = ep
		a.endpoints = append(a.endpoints, ep)
	}
	window := a.win.started && !a.win.before(s.TimeNS)
	sliceNS := int64(a.opts.SliceDuration)
	var h maphash.Hash
	h.SetSeed(a.seed)
	var digest uint64
	usable := false
	for name, fam := range s.Server {
		digest += hashFamily(&h, name, fam)
		aname, typ, ok := familyView(name, fam)
		if !ok {
			if fam.GetType() == dto.MetricType_SUMMARY {
				ep.family(name, "summary", fam.GetHelp()).noteSummary(fam)
			}
			continue
		}
		if shadowed(s.Server, name, aname) {
			continue
		}
		fs := ep.family(aname, string(typ), fam.GetHelp())
		if fs.typ != string(typ) {
			continue // the name changed type; AIPerf keeps the first
		}
		for _, m := range fam.Metric {
			var v float64
			if typ == TypeHistogram {
				if !histogramValid(m) {
					continue
				}
			} else if v, ok = scalarValue(typ, m); !ok {
				continue
			}
			usable = true
			labels := sortedLabels(m, a.labelBuf)
			a.keyBuf = appendSeriesKey(a.keyBuf[:0], aname, labels)
			ser := fs.series[string(a.keyBuf)]
			if ser == nil {
				if !fs.admit(labels, a.opts.MaxLabelValues) {
					a.dropped++
					continue
				}
				ser = newSeries(typ, labels, m, sliceNS)
				if typ == TypeHistogram {
					fs.noteBounds(m.Histogram)
				}
				fs.series[string(a.keyBuf)] = ser
			}
			ser.observe(window, s.TimeNS, v, m)
		}
	}
	if usable {
		ep.fetched(s.TimeNS, s.LatencyNS, digest)
	}
}

// shadowed reports whether family name (called aname by AIPerf) loses its
// name to a counter: prometheus_client calls the counter x_total "x", like
// the gauge x (go_memstats_alloc_bytes and go_memstats_alloc_bytes_total),
// and AIPerf keeps the family that comes later in the exposition, which in
// the name-sorted expositions of Go's client is the counter. A parsed map
// has no order, so the counter always wins here.
func shadowed(fams map[string]*dto.MetricFamily, name, aname string) bool {
	if name != aname {
		return false // name is the counter
	}
	other, ok := fams[name+"_total"]
	if !ok || other.GetType() != dto.MetricType_COUNTER {
		return false
	}
	_, _, keep := familyView(name+"_total", other)
	return keep
}

// appendSeriesKey appends a series' identity: its family name and sorted
// label pairs, separated by bytes that cannot occur in UTF-8 text.
func appendSeriesKey(dst []byte, name string, labels []*dto.LabelPair) []byte {
	dst = append(dst, name...)
	for _, l := range labels {
		dst = append(dst, 0xff)
		dst = append(dst, l.GetName()...)
		dst = append(dst, 0xfe)
		dst = append(dst, l.GetValue()...)
	}
	return dst
}

// seriesState is one series' summary state, by its family's type.
type seriesState struct {
	typ     MetricType
	labels  []Label
	gauge   *gaugeState
	counter *counterState
	hist    *histState
}

func newSeries(typ MetricType, labels []*dto.LabelPair, m *dto.Metric, sliceNS int64) *seriesState {
	s := &seriesState{typ: typ}
	if len(labels) > 0 {
		s.labels = make([]Label, len(labels))
		for i, l := range labels {
			// Copies: a scrape's strings share one buffer, kept alive by any of them.
			s.labels[i] = Label{Name: strings.Clone(l.GetName()), Value: strings.Clone(l.GetValue())}
		}
	}
	switch typ {
	case TypeCounter:
		s.counter = &counterState{d: sliceNS}
	case TypeHistogram:
		s.hist = newHistState(m.Histogram, sliceNS)
	default:
		s.gauge = newGaugeState(sliceNS)
	}
	return s
}

// observe folds one sample of the series in.
func (s *seriesState) observe(window bool, ts int64, v float64, m *dto.Metric) {
	switch {
	case s.counter != nil:
		if window {
			s.counter.add(ts, v)
		} else {
			s.counter.baseline(ts, v)
		}
	case s.hist != nil:
		if window {
			s.hist.add(ts, m.Histogram)
		} else {
			s.hist.baseline(ts, m.Histogram)
		}
	case window:
		s.gauge.add(ts, v)
	}
}

// hasWindow reports whether the series has samples in the window.
func (s *seriesState) hasWindow() bool {
	switch {
	case s.counter != nil:
		return s.counter.n > 0
	case s.hist != nil:
		return s.hist.n > 0
	}
	return s.gauge.n > 0
}

// summary returns the series' statistics; it must have window samples.
func (s *seriesState) summary() ServerSeries {
	out := ServerSeries{Labels: s.labels}
	switch {
	case s.counter != nil:
		out.Counter, out.Timeslices = s.counter.stats()
		out.Resets = s.counter.resets
	case s.hist != nil:
		out.Histogram, out.Buckets, out.Timeslices = s.hist.stats()
	default:
		out.Gauge = s.gauge.stats()
		if s.gauge.slices != nil {
			out.Timeslices = s.gauge.slices.timeslices()
		}
	}
	return out
}
