package telemetry

import (
	"math"
	"sync"
	"time"

	"github.com/aiperf-go/aiperf/metrics"
)

// GPUFinalScrapeGrace extends the profiling window past its end so that
// the final scrape taken just after the end (Monitor.CollectNow) counts,
// and later ones do not (AIPERF_GPU_FINAL_SCRAPE_GRACE_NS, 666 ms).
const GPUFinalScrapeGrace = 666 * time.Millisecond

// gpuPendingCap bounds the collections a source keeps until Start (see
// GPUStats).
const gpuPendingCap = 256

// GPUStats summarises GPU telemetry samples as AIPerf's GPU telemetry
// accumulator does, per source, per GPU (by UUID), per field:
//   - a gauge gets its count, mean, min, max, sample std (ddof=1) and
//     percentiles over the window [Start, End+GPUFinalScrapeGrace];
//   - a counter (GPUField.Counter) gets its increase over the window: the
//     last value in it minus the last value before Start (the baseline),
//     or minus the first value in it when there is no baseline, clamped
//     at 0 when the counter was reset.
//
// Samples are placed in the window by their TimeNS (a reading's own
// TimestampNS when TimeNS is 0), not by when they arrive. Memory does not
// grow with run length: before Start only the last pending collections of
// each source are kept, afterwards only each field's baseline and its
// running summary (metrics.Distribution: exact percentiles up to 250,000
// values, a sketch beyond). Fields AIPerf does not know are not summarised,
// as AIPerf does not summarise them.
//
// End must come before the collections past its grace are added, as it
// does in a run (they are collected later); one added earlier counts.
// Add, Start, End and Summary may be called from different goroutines.
// Without Start, the window is open and holds the last 256 collections of
// each source; without End it is open at its end.
type GPUStats struct {
	mu       sync.Mutex
	win      window // its end without the grace
	sources  []*gpuSource
	bySource map[string]*gpuSource
}

// gpuSource is one source's GPUs and, until Start, its pending samples.
type gpuSource struct {
	url     string
	gpus    []*gpuSeries
	byUUID  map[string]*gpuSeries
	pending []Sample
}

// gpuSeries is one GPU's identity and field summaries.
type gpuSeries struct {
	id     GPUReading // identity of the first reading; no Data
	fields [len(gpuFields)]fieldStats
}

// fieldStats is one field of one GPU: its baseline and its window.
type fieldStats struct {
	hasBase bool
	baseT   int64   // Unix ns of the baseline
	base    float64 // the last value before the window

	n           int
	first, last float64
	lastT       int64
	dist        metrics.Distribution // gauges only
	mean, m2    float64              // Welford's running moments (gauges)
	// runN and runSum count the gauge's values up to End, without the
	// grace (see GPUMetric.RunAvg).
	runN   int
	runSum float64
}

// NewGPUStats returns an empty accumulator.
func NewGPUStats() *GPUStats {
	return &GPUStats{bySource: map[string]*gpuSource{}}
}

// Add takes one sample; samples of other kinds, and samples without
// readings, are ignored.
func (a *GPUStats) Add(s Sample) {
	if s.Kind != KindGPU || len(s.GPUs) == 0 {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	src := a.source(s.Source)
	if !a.win.started {
		if len(src.pending) == gpuPendingCap {
			src.pending = append(src.pending[:0], src.pending[1:]...)
		}
		src.pending = append(src.pending, s)
		return
	}
	a.place(src, s)
}

// Start opens the window at wallNS (Unix ns): collections before it are
// only the baseline of the counters. Later calls are ignored.
func (a *GPUStats) Start(wallNS int64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.win.start(wallNS) {
		a.flushPending()
	}
}

// End closes the window at wallNS + GPUFinalScrapeGrace: collections after
// that are ignored. Later calls are ignored.
func (a *GPUStats) End(wallNS int64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.win.end(wallNS)
}

// limitNS is the last time in the window: End plus the grace.
func (a *GPUStats) limitNS() int64 { return a.win.endNS + int64(GPUFinalScrapeGrace) }

// flushPending places every source's pending samples now that the window
// is known.
func (a *GPUStats) flushPending() {
	for _, src := range a.sources {
		for _, s := range src.pending {
			a.place(src, s)
		}
		src.pending = nil
	}
}

func (a *GPUStats) source(url string) *gpuSource {
	src := a.bySource[url]
	if src == nil {
		src = &gpuSource{url: url, byUUID: map[string]*gpuSeries{}}
		a.bySource[url] = src
		a.sources = append(a.sources, src)
	}
	return src
}

// place adds a sample's readings to the baseline or the window.
func (a *GPUStats) place(src *gpuSource, s Sample) {
	for _, r := range s.GPUs {
		t := s.TimeNS
		if t == 0 {
			t = r.TimestampNS
		}
		g := src.byUUID[r.GPUUUID]
		if g == nil {
			id := r
			id.Data = nil
			g = &gpuSeries{id: id}
			src.byUUID[r.GPUUUID] = g
			src.gpus = append(src.gpus, g)
		}
		before := a.win.before(t)
		if !before && a.win.ended && t > a.limitNS() {
			continue
		}
		for _, f := range r.Data {
			i := gpuFieldIndex(f.Name)
			if i < 0 || math.IsNaN(f.Value) || math.IsInf(f.Value, 0) {
				continue
			}
			fs := &g.fields[i]
			switch {
			case before:
				fs.baseline(t, f.Value)
			default:
				fs.add(t, f.Value, gpuFields[i].Counter)
				if !gpuFields[i].Counter && (!a.win.ended || t <= a.win.endNS) {
					fs.runN++
					fs.runSum += f.Value
				}
			}
		}
	}
}

// baseline keeps the latest value before the window.
func (fs *fieldStats) baseline(t int64, v float64) {
	if !fs.hasBase || t >= fs.baseT {
		fs.hasBase, fs.baseT, fs.base = true, t, v
	}
}

// add adds a value in the window.
func (fs *fieldStats) add(t int64, v float64, counter bool) {
	fs.n++
	if fs.n == 1 {
		fs.first = v
	}
	if fs.n == 1 || t >= fs.lastT {
		fs.last, fs.lastT = v, t
	}
	if counter {
		return
	}
	fs.dist.Add(v)
	d := v - fs.mean
	fs.mean += d / float64(fs.n)
	fs.m2 += d * (v - fs.mean)
}

// Summary returns the statistics so far (a copy; Add may go on). Without
// Start, the pending collections count as the window.
func (a *GPUStats) Summary() *GPUSummary {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.win.started {
		// Place the pending samples in an open window, then keep them
		// pending: a later Start sorts them properly.
		saved := make([][]Sample, len(a.sources))
		for i, src := range a.sources {
			saved[i] = src.pending
		}
		a.flushPending()
		defer func() {
			for i, src := range a.sources {
				src.pending = saved[i]
				for _, g := range src.gpus {
					g.fields = [len(gpuFields)]fieldStats{}
				}
			}
		}()
	}
	out := &GPUSummary{}
	if a.win.started {
		out.StartNS = a.win.startNS
	}
	if a.win.ended {
		out.EndNS = a.limitNS()
	}
	for _, src := range a.sources {
		e := GPUEndpoint{Source: src.url}
		for _, g := range src.gpus {
			e.GPUs = append(e.GPUs, g.summary())
		}
		out.Endpoints = append(out.Endpoints, e)
	}
	return out
}

// summary returns one GPU's identity and field statistics.
func (g *gpuSeries) summary() GPUInfo {
	info := GPUInfo{Index: g.id.GPUIndex, UUID: g.id.GPUUUID, Name: g.id.GPUModelName,
		Hostname: g.id.Hostname, PCIBusID: g.id.PCIBusID, Device: g.id.Device}
	for i, f := range gpuFields {
		fs := &g.fields[i]
		if fs.n == 0 {
			continue
		}
		m := GPUMetric{GPUField: f, Count: fs.n}
		if f.Counter {
			ref := fs.first
			if fs.hasBase {
				ref = fs.base
			}
			m.Avg = max(fs.last-ref, 0)
		} else {
			m.Sum = fs.dist.Sum()
			m.Avg = m.Sum / float64(fs.n)
			m.Min, m.Max = fs.dist.Min(), fs.dist.Max()
			if fs.runN > 0 {
				m.RunCount, m.RunAvg = fs.runN, fs.runSum/float64(fs.runN)
			}
			copy(m.P[:], fs.dist.Percentiles(metrics.Percentiles[:]...))
			if fs.n > 1 {
				m.Std = math.Sqrt(fs.m2 / float64(fs.n-1))
			}
		}
		info.Metrics = append(info.Metrics, m)
	}
	return info
}

// GPUSummary is AIPerf's GPU telemetry summary of a run: for every source,
// for every GPU it reported, the statistics of every field over the
// profiling window. It is what profile_export_aiperf.json's telemetry_data
// section and the console's GPU tables show.
type GPUSummary struct {
	// StartNS and EndNS (wall-clock Unix ns) bound the window the
	// statistics cover; EndNS includes GPUFinalScrapeGrace. Zero means the
	// bound was not set (the window is open on that side).
	StartNS, EndNS int64
	// Endpoints are the sources that delivered readings, in the order
	// their first reading arrived.
	Endpoints []GPUEndpoint
}

// GPUEndpoint is one telemetry source's GPUs.
type GPUEndpoint struct {
	// Source is the collector's Source (telemetry_source_url).
	Source string
	// GPUs are the GPUs the source reported (by UUID), in the order their
	// first reading arrived, with the identity of that first reading.
	GPUs []GPUInfo
}

// GPUInfo is one GPU's identity and statistics.
type GPUInfo struct {
	Index    int
	UUID     string
	Name     string // gpu_model_name
	Hostname string
	PCIBusID string
	Device   string
	// Metrics are the fields with at least one value in the window, in
	// AIPerf's field order. A GPU seen only outside the window has none,
	// and is still listed, as AIPerf lists it.
	Metrics []GPUMetric
}

// GPUMetric is one field's statistics over the window.
type GPUMetric struct {
	GPUField
	// Count is the number of values in the window.
	Count int
	// Avg is the mean of a gauge; for a counter it is the increase over
	// the window: the last value in the window minus the last value before
	// it (or, with none before, the first in it), clamped at 0 for a reset.
	Avg float64
	// Min, Max, Std (sample standard deviation, ddof=1, 0 for one value)
	// and P (the percentiles of metrics.Percentiles: p1, p5, p10, p25,
	// p50, p75, p90, p95, p99, by linear interpolation) describe a gauge;
	// they are zero for a counter.
	Min, Max, Std float64
	P             [9]float64
	// Sum is the sum of a gauge's values in the window (0 for a counter).
	Sum float64
	// RunAvg is a gauge's mean over the profiling window without
	// GPUFinalScrapeGrace, [Start, End], over its RunCount values: AIPerf
	// 0.13 totals the GPUs' power over that window for its energy metrics
	// (see EnergyEfficiency). Zero for a counter, or with no value up to
	// End. A value collected before End was called and stamped after it
	// counts (End comes before the final scrape in a run).
	RunAvg   float64
	RunCount int
}

// Metric returns the named field's statistics, or nil when the GPU has
// none.
func (g *GPUInfo) Metric(name string) *GPUMetric {
	for i := range g.Metrics {
		if g.Metrics[i].Name == name {
			return &g.Metrics[i]
		}
	}
	return nil
}

// GPUCount returns the number of distinct GPUs (by UUID) over all sources:
// two exporters on one host report the same GPUs once.
func (s *GPUSummary) GPUCount() int {
	if s == nil {
		return 0
	}
	seen := map[string]bool{}
	for _, e := range s.Endpoints {
		for _, g := range e.GPUs {
			seen[g.UUID] = true
		}
	}
	return len(seen)
}
