package telemetry

import (
	"math"
	"reflect"
	"sync"
	"testing"
)

const ms = int64(1e6)

// gpuSample is a sample of one source with one reading per (uuid, fields).
func gpuSample(src string, t int64, gpus ...GPUReading) Sample {
	for i := range gpus {
		gpus[i].SourceURL = src
		gpus[i].TimestampNS = t
	}
	return Sample{Kind: KindGPU, Source: src, TimeNS: t, GPUs: gpus}
}

func reading(idx int, uuid string, fs ...Field) GPUReading {
	return GPUReading{GPUIndex: idx, GPUUUID: uuid, GPUModelName: "NVIDIA H100", Hostname: "h", Data: fs}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// TestGPUStatsWindow checks the statistics against values worked out by
// hand: gauges over the window [start, end+666 ms] (numpy's linear
// percentiles, ddof=1 std), counters as last-in-window minus the last
// value before the window, or the first in it, clamped at 0.
func TestGPUStatsWindow(t *testing.T) {
	const src = "http://localhost:9400/metrics"
	start, end := 1000*ms, 2000*ms
	a := NewGPUStats()
	add := func(t int64, power, energy float64, extra ...Field) {
		fs := append([]Field{{"gpu_power_usage", power}, {"energy_consumption", energy}}, extra...)
		a.Add(gpuSample(src, t, reading(0, "GPU-a", fs...)))
	}
	add(100*ms, 50, 10.0, Field{"power_violation", 1000})
	add(500*ms, 60, 10.5)
	// Collected after the start but handed over before Start is called:
	// it belongs to the window all the same.
	add(1000*ms, 100, 11.0, Field{"xid_errors", 0}, Field{"power_violation", 5000})
	a.Start(start)
	add(1333*ms, 200, 11.5)
	add(400*ms, 70, 10.75) // late, before the window: a baseline candidate only
	add(1666*ms, 300, 12.0, Field{"xid_errors", 3}, Field{"power_violation", 200})
	add(2000*ms, 400, 12.25)
	a.End(end)
	add(2600*ms, 500, 12.5)  // the final scrape, within the grace
	add(2700*ms, 9999, 99.0) // past end+666 ms: ignored
	// Unknown and non-finite fields are ignored.
	a.Add(gpuSample(src, 1500*ms, reading(0, "GPU-a", Field{"sm_clock_frequency", 1980}, Field{"gpu_temperature", math.NaN()})))

	s := a.Summary()
	if s.StartNS != start || s.EndNS != end+666*ms {
		t.Errorf("window %d..%d", s.StartNS, s.EndNS)
	}
	if len(s.Endpoints) != 1 || len(s.Endpoints[0].GPUs) != 1 {
		t.Fatalf("summary %+v", s)
	}
	g := s.Endpoints[0].GPUs[0]
	var names []string
	for _, m := range g.Metrics {
		names = append(names, m.Name)
	}
	if want := []string{"gpu_power_usage", "energy_consumption", "xid_errors", "power_violation"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("metrics %v, want %v", names, want)
	}
	p := g.Metric("gpu_power_usage")
	// Window values 100, 200, 300, 400, 500.
	wantP := [9]float64{104, 120, 140, 200, 300, 400, 460, 480, 496}
	if p.Count != 5 || !near(p.Avg, 300) || p.Min != 100 || p.Max != 500 || p.P != wantP ||
		!near(p.Std, math.Sqrt(100000.0/4)) || p.Unit != "W" || p.Header != "GPU Power Usage" {
		t.Errorf("power %+v", *p)
	}
	// The sum of the window's values; 0.13's power totals take the mean up
	// to the end without the grace: 100, 200, 300 and 400 (at the end).
	if !near(p.Sum, 1500) || p.RunCount != 4 || !near(p.RunAvg, 250) {
		t.Errorf("power sum %v, run mean %v over %d, want 1500, 250 over 4", p.Sum, p.RunAvg, p.RunCount)
	}
	if e := g.Metric("energy_consumption"); e.Sum != 0 || e.RunCount != 0 {
		t.Errorf("a counter has a sum or run mean: %+v", *e)
	}
	for _, c := range []struct {
		name string
		want float64
	}{
		// 12.5 (the final scrape) − 10.5 (the latest before the start, at
		// 500 ms; the one handed over late is older, 400 ms).
		{"energy_consumption", 2},
		{"xid_errors", 3},      // no baseline: first in window
		{"power_violation", 0}, // 200 after 1000: reset, clamped
	} {
		m := g.Metric(c.name)
		if m == nil || !m.Counter || !near(m.Avg, c.want) || m.Std != 0 || m.Min != 0 {
			t.Errorf("%s: %+v, want %v", c.name, m, c.want)
		}
	}
}

// TestGPUStatsSourcesAndCount: GPUs are kept per source and by UUID in
// arrival order; GPUCount counts a GPU two exporters report once; a GPU
// seen only before the window is listed without metrics.
func TestGPUStatsSourcesAndCount(t *testing.T) {
	a := NewGPUStats()
	a.Add(gpuSample("A", 1*ms, reading(0, "GPU-old", Field{"gpu_utilization", 5})))
	a.Start(10 * ms)
	a.Add(gpuSample("A", 20*ms, reading(1, "GPU-b", Field{"gpu_utilization", 50}), reading(0, "GPU-a", Field{"gpu_utilization", 40})))
	a.Add(gpuSample("B", 21*ms, reading(0, "GPU-a", Field{"gpu_utilization", 41})))
	a.Add(Sample{Kind: KindServer, Source: "S", TimeNS: 22 * ms}) // not GPU: ignored
	s := a.Summary()
	var got []string
	for _, e := range s.Endpoints {
		for _, g := range e.GPUs {
			got = append(got, e.Source+"/"+g.UUID)
			if g.UUID == "GPU-old" && len(g.Metrics) != 0 {
				t.Errorf("GPU-old has metrics %+v", g.Metrics)
			}
		}
	}
	if want := []string{"A/GPU-old", "A/GPU-b", "A/GPU-a", "B/GPU-a"}; !reflect.DeepEqual(got, want) {
		t.Errorf("gpus %v, want %v", got, want)
	}
	if n := s.GPUCount(); n != 3 {
		t.Errorf("GPUCount %d, want 3", n)
	}
	one := s.Endpoints[1].GPUs[0].Metric("gpu_utilization")
	if one.Count != 1 || one.Avg != 41 || one.Std != 0 || one.P[0] != 41 || one.P[8] != 41 {
		t.Errorf("single value: %+v", *one)
	}
	if (*GPUSummary)(nil).GPUCount() != 0 {
		t.Error("nil summary count")
	}
}

// TestGPUStatsWithoutStart: with no Start the window is open and holds the
// last 256 collections of each source; a later Start still sorts them.
func TestGPUStatsWithoutStart(t *testing.T) {
	a := NewGPUStats()
	for i := range 300 {
		a.Add(gpuSample("A", int64(i+1)*ms, reading(0, "GPU-a", Field{"gpu_temperature", float64(i)}, Field{"energy_consumption", float64(i)})))
	}
	m := a.Summary().Endpoints[0].GPUs[0]
	temp, energy := m.Metric("gpu_temperature"), m.Metric("energy_consumption")
	// Values 44..299 are kept.
	if temp.Count != 256 || temp.Min != 44 || temp.Max != 299 || energy.Avg != 299-44 {
		t.Errorf("temperature %+v energy %+v", *temp, *energy)
	}
	a.Start(250 * ms) // values 249.. in the window, 248 the baseline
	m = a.Summary().Endpoints[0].GPUs[0]
	temp, energy = m.Metric("gpu_temperature"), m.Metric("energy_consumption")
	if temp.Count != 51 || temp.Min != 249 || energy.Avg != 299-248 {
		t.Errorf("after Start: temperature %+v energy %+v", *temp, *energy)
	}
}

// TestGPUStatsConcurrent runs Add, Start, End and Summary at once (for
// the race detector).
func TestGPUStatsConcurrent(t *testing.T) {
	a := NewGPUStats()
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				a.Add(gpuSample(string(rune('A'+w)), int64(i)*ms, reading(0, "GPU-a", Field{"gpu_power_usage", float64(i)})))
				if i%50 == 0 {
					a.Summary()
				}
			}
		}()
	}
	a.Start(50 * ms)
	a.End(150 * ms)
	wg.Wait()
	if n := len(a.Summary().Endpoints); n != 4 {
		t.Errorf("%d endpoints", n)
	}
}

// TestGPUStatsBounded: a series longer than the exact cap (a day at 3 Hz)
// is folded into a sketch, and its statistics stay right: count, min, max
// and mean exact, the median within the sketch's rank bound.
func TestGPUStatsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("adds 300,000 values")
	}
	a := NewGPUStats()
	a.Start(0)
	const n = 300_000
	for i := range n {
		a.Add(gpuSample("A", int64(i+1), reading(0, "GPU-a", Field{"gpu_utilization", float64(i % 101)})))
	}
	if !a.sources[0].gpus[0].fields[gpuFieldIndex("gpu_utilization")].dist.Sketched() {
		t.Error("the distribution kept every value")
	}
	m := a.Summary().Endpoints[0].GPUs[0].Metric("gpu_utilization")
	// 300,000 = 2970 full cycles of 0..100 plus 0..29.
	wantMean := (2970*5050.0 + 435) / n
	if m.Count != n || m.Min != 0 || m.Max != 100 || !near(m.Avg, wantMean) || math.Abs(m.P[4]-50) > 1 {
		t.Errorf("%+v (mean want %v)", *m, wantMean)
	}
}

// TestMetrics14 renames and reorders a GPU's metrics as AIPerf 0.13 does
// (memory utilisation before memory used), leaving the GPU as it was.
func TestMetrics14(t *testing.T) {
	g := GPUInfo{Metrics: []GPUMetric{
		{GPUField: gpuFields[0], Avg: 1}, {GPUField: gpuFields[3], Avg: 2}, {GPUField: gpuFields[5], Avg: 3}, {GPUField: gpuFields[10], Avg: 4},
	}}
	var got []string
	for _, m := range g.Metrics14() {
		got = append(got, m.Name+"|"+m.Header+"|"+m.Unit)
	}
	want := []string{"nvidia_power_usage|NVIDIA GPU Power Usage|W", "nvidia_memory_utilization|NVIDIA Memory Utilization|%",
		"nvidia_memory_used|NVIDIA GPU Memory Used|GB", "nvidia_xid_errors|NVIDIA XID Errors|count"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
	if g.Metrics[1].Name != "gpu_memory_used" {
		t.Errorf("Metrics14 changed the GPU: %+v", g.Metrics)
	}
	if GPUFieldName14("gpu_temperature") != "nvidia_temperature" || GPUFieldName14("other") != "other" {
		t.Error("GPUFieldName14")
	}
}
