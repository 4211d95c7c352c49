package telemetry

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
	// GPUFields order. A GPU seen only outside the window has none, and is
	// still listed, as AIPerf lists it.
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
