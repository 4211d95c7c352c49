package telemetry

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/aiperf-go/aiperf/record"
)

// nodeExporterURL returns the running node_exporter's metrics URL
// (scripts/node-exporter.sh), skipping the test without one unless
// AIPERF_TEST_REQUIRE_NODE_EXPORTER=1 makes that a failure.
func nodeExporterURL(t *testing.T) string {
	t.Helper()
	u := os.Getenv("AIPERF_TEST_NODE_EXPORTER")
	if u == "" {
		if os.Getenv("AIPERF_TEST_REQUIRE_NODE_EXPORTER") == "1" {
			t.Fatal("AIPERF_TEST_NODE_EXPORTER is not set: eval \"$(scripts/node-exporter.sh start >&2 && scripts/node-exporter.sh env)\"")
		}
		t.Skip("no node_exporter: eval \"$(scripts/node-exporter.sh start >&2 && scripts/node-exporter.sh env)\"")
	}
	return u
}

// TestServerNodeExporter scrapes a real node_exporter through a Monitor for
// about 2 s (every 0.1 s, the window starting after 0.4 s of baseline) and
// checks the accumulator against a straightforward computation from the
// raw scrapes: every counter's increase and rate, every gauge's mean, min,
// max and std; and, for a histogram the test serves through node_exporter's
// textfile collector, the count, sum and buckets gained and that each
// estimated percentile lies in the buckets its rank falls in.
func TestServerNodeExporter(t *testing.T) {
	url := nodeExporterURL(t)
	hist := newTextfileHistogram(t, os.Getenv("AIPERF_TEST_NODE_EXPORTER_TEXTFILES"))
	clock := record.NewClock()
	acc := NewServerMetrics(ServerMetricsOptions{})
	var mu sync.Mutex
	var raw []Sample
	ctx := context.Background()
	mon := Start(ctx, []Source{{Collector: NewPrometheus(url, nil), Interval: 100 * time.Millisecond}}, func(s Sample) {
		mu.Lock()
		raw = append(raw, s)
		mu.Unlock()
		acc.Add(s)
	}, Options{Clock: clock})
	deadline := time.Now().Add(2 * time.Second)
	var startNS int64
	for time.Now().Before(deadline) {
		hist.observe()
		time.Sleep(50 * time.Millisecond)
		if startNS == 0 && time.Until(deadline) < 1600*time.Millisecond {
			startNS = clock.Wall(clock.Now())
			acc.Start(startNS)
		}
	}
	acc.End(clock.Wall(clock.Now()))
	mon.CollectNow(ctx)
	health := mon.Close()
	if h := health[0]; h.Failures > 0 || h.Scrapes < 10 {
		t.Fatalf("health %+v", h)
	}
	sum := acc.Summary()
	if len(sum.Endpoints) != 1 || sum.Endpoints[0].Info.TotalFetches != int64(len(raw)) {
		t.Fatalf("%d endpoints; fetches %+v, %d scrapes", len(sum.Endpoints), sum.Endpoints[0].Info, len(raw))
	}
	ours := map[string]ServerSeries{}
	types := map[string]MetricType{}
	for _, m := range sum.Endpoints[0].Metrics {
		for _, s := range m.Series {
			ours[m.Name+labelText(s.Labels)] = s
			types[m.Name+labelText(s.Labels)] = m.Type
		}
	}
	want := rawSeries(raw, startNS)
	counted := map[MetricType]int{}
	for key, pts := range want {
		got, ok := ours[key]
		if !ok {
			t.Errorf("series %s missing", key)
			continue
		}
		counted[types[key]]++
		checkAgainstRaw(t, key, types[key], got, pts)
	}
	if counted[TypeCounter] < 20 || counted[TypeGauge] < 50 || counted[TypeHistogram] < 1 {
		t.Errorf("compared %v series, want at least 20 counters, 50 gauges and the histogram", counted)
	}
	// The exporter counts its own scrapes: about 10 per second.
	if s, ok := ours[`promhttp_metric_handler_requests{code="200"}`]; !ok || s.Counter.Rate < 5 || s.Counter.Rate > 12 {
		t.Errorf("promhttp_metric_handler_requests rate %v, want about 10/s", s.Counter.Rate)
	}
	t.Logf("%d scrapes; compared %v series", len(raw), counted)
}

// rawPoint is one scrape of one series: its time, whether it was before
// the window, and its value or histogram.
type rawPoint struct {
	ts       int64
	baseline bool
	v        float64
	h        *dto.Histogram
}

// rawSeries groups the scrapes' samples by series, keyed as the summary is
// (AIPerf name and labels), keeping only the types the summary covers.
func rawSeries(raw []Sample, startNS int64) map[string][]rawPoint {
	out := map[string][]rawPoint{}
	for _, s := range raw {
		for name, f := range s.Server {
			aname, typ, ok := familyView(name, f)
			if !ok || shadowed(s.Server, name, aname) {
				continue
			}
			for _, m := range f.Metric {
				var ls []Label
				for _, l := range sortedLabels(m, nil) {
					ls = append(ls, Label{l.GetName(), l.GetValue()})
				}
				p := rawPoint{ts: s.TimeNS, baseline: s.TimeNS < startNS, h: m.Histogram}
				if typ != TypeHistogram {
					var ok bool
					if p.v, ok = scalarValue(typ, m); !ok {
						continue
					}
				}
				out[aname+labelText(ls)] = append(out[aname+labelText(ls)], p)
			}
		}
	}
	return out
}

// checkAgainstRaw recomputes a series' statistics from its points.
func checkAgainstRaw(t *testing.T, key string, typ MetricType, got ServerSeries, pts []rawPoint) {
	t.Helper()
	base, last := pts[0], pts[len(pts)-1]
	var window []rawPoint
	for _, p := range pts {
		if p.baseline {
			base = p
		} else {
			window = append(window, p)
		}
	}
	if !base.baseline {
		base = window[0]
	}
	secs := float64(last.ts-base.ts) / 1e9
	switch typ {
	case TypeCounter:
		total := max(last.v-base.v, 0)
		nearly(t, key+" total", got.Counter.Total, total)
		if secs > 0 {
			nearly(t, key+" rate", got.Counter.Rate, total/secs)
		}
	case TypeHistogram:
		count := histogramCount(last.h) - histogramCount(base.h)
		if got.Histogram.Count != int64(count) {
			t.Errorf("%s count %d, want %v", key, got.Histogram.Count, count)
		}
		if count > 0 {
			nearly(t, key+" sum", got.Histogram.Sum, last.h.GetSampleSum()-base.h.GetSampleSum())
			nearly(t, key+" count_rate", got.Histogram.CountRate, count/secs)
		}
		checkEstimates(t, key, got, last.h, base.h)
	default:
		var sum, lo, hi float64
		lo, hi = math.Inf(1), math.Inf(-1)
		for _, p := range window {
			sum += p.v
			lo, hi = min(lo, p.v), max(hi, p.v)
		}
		mean := sum / float64(len(window))
		var ss float64
		for _, p := range window {
			ss += (p.v - mean) * (p.v - mean)
		}
		std := 0.0
		if len(window) > 1 {
			std = math.Sqrt(ss / float64(len(window)-1))
		}
		g := got.Gauge
		// The naive sum here rounds at 1e-16 of the magnitude, and so does
		// the std of a constant taken from it.
		scale := max(math.Abs(mean), std, 1)
		if !closeTo(g.Avg, mean, 1e-9) || g.Min != lo || g.Max != hi || math.Abs(g.Std-std) > 1e-9*scale {
			t.Errorf("%s gauge %+v; want avg %v min %v max %v std %v", key, g, mean, lo, hi, std)
		}
	}
}

// checkEstimates: each estimated percentile (numpy's linear, index (n-1)q
// over the window's observations) lies between the lower bound of the
// bucket holding observation floor((n-1)q) and the upper bound of the one
// holding ceil((n-1)q), counting from the bucket deltas.
func checkEstimates(t *testing.T, key string, got ServerSeries, last, base *dto.Histogram) {
	t.Helper()
	n := int64(histogramCount(last) - histogramCount(base))
	if n <= 0 {
		return
	}
	bounds := make([]float64, len(last.Bucket))
	cum := make([]float64, len(last.Bucket))
	for i, b := range last.Bucket {
		bounds[i] = b.GetUpperBound()
		cum[i] = bucketCount(b) - bucketCount(base.Bucket[i])
	}
	bucketOf := func(rank float64) int { return sort.Search(len(cum), func(i int) bool { return cum[i] > rank }) }
	for i, q := range histogramPercentiles {
		v := float64(n-1) * q / 100
		lo, hi := bucketOf(math.Floor(v)), bucketOf(math.Ceil(v))
		lower, upper := 0.0, math.Inf(1)
		if lo > 0 {
			lower = bounds[lo-1]
		}
		if hi < len(bounds) {
			upper = bounds[hi]
		}
		if e := got.Histogram.P[i]; !(e >= lower-1e-12 && e <= upper+1e-12) {
			t.Errorf("%s p%v estimate %v outside [%v, %v]", key, q, e, lower, upper)
		}
	}
}

// textfileHistogram is a histogram the test serves through node_exporter's
// textfile collector, observing a few latencies at every call.
type textfileHistogram struct {
	t      *testing.T
	path   string
	rng    *rand.Rand
	bounds []float64
	counts []int64
	sum    float64
	n      int64
}

func newTextfileHistogram(t *testing.T, dir string) *textfileHistogram {
	h := &textfileHistogram{t: t, rng: rand.New(rand.NewPCG(1, 2)),
		bounds: []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5}}
	h.counts = make([]int64, len(h.bounds))
	if dir == "" {
		return h
	}
	h.path = filepath.Join(dir, fmt.Sprintf("aiperf_test_%d.prom", os.Getpid()))
	t.Cleanup(func() { os.Remove(h.path) })
	h.write()
	return h
}

func (h *textfileHistogram) observe() {
	for range h.rng.IntN(4) {
		v := math.Exp(h.rng.NormFloat64()*0.8 - 3)
		for i, b := range h.bounds {
			if v <= b {
				h.counts[i]++
			}
		}
		h.sum += v
		h.n++
	}
	h.write()
}

// write replaces the file atomically (the collector reads only *.prom).
func (h *textfileHistogram) write() {
	if h.path == "" {
		return
	}
	var b strings.Builder
	b.WriteString("# HELP aiperf_test_latency_seconds Latencies observed by the test.\n# TYPE aiperf_test_latency_seconds histogram\n")
	for i, bound := range h.bounds {
		fmt.Fprintf(&b, "aiperf_test_latency_seconds_bucket{le=\"%g\"} %d\n", bound, h.counts[i])
	}
	fmt.Fprintf(&b, "aiperf_test_latency_seconds_bucket{le=\"+Inf\"} %d\naiperf_test_latency_seconds_sum %v\naiperf_test_latency_seconds_count %d\n", h.n, h.sum, h.n)
	tmp := h.path + ".tmp"
	if err := os.WriteFile(tmp, []byte(b.String()), 0o644); err != nil {
		h.t.Fatal(err)
	}
	if err := os.Rename(tmp, h.path); err != nil {
		h.t.Fatal(err)
	}
}
