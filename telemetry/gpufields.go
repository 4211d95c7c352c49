package telemetry

// GPUField describes one GPU telemetry field as AIPerf (0.8) names,
// displays and summarises it.
type GPUField struct {
	// Name is the key in telemetry_data and in the summary, e.g.
	// "gpu_power_usage".
	Name string
	// Header is the display name, e.g. "GPU Power Usage".
	Header string
	// Unit is the display unit, e.g. "W".
	Unit string
	// Counter marks a cumulative counter (energy since boot, XID, time
	// throttled): it is summarised as its increase over the profiling
	// window, not as a distribution.
	Counter bool
}

// gpuFields are AIPerf's GPU_TELEMETRY_METRICS_CONFIG, in its order, which
// is also the order of its TelemetryMetrics model and so of telemetry_data
// in gpu_telemetry_export.jsonl. Readings may hold other fields (older
// AIPerf files have sm_clock_frequency, gpu_memory_total, …); the summary
// and the console show only these, as AIPerf does.
var gpuFields = [...]GPUField{
	{"gpu_power_usage", "GPU Power Usage", "W", false},
	{"energy_consumption", "Energy Consumption", "MJ", true},
	{"gpu_utilization", "GPU Utilization", "%", false},
	{"gpu_memory_used", "GPU Memory Used", "GB", false},
	{"gpu_temperature", "GPU Temperature", "°C", false},
	{"mem_utilization", "Memory Utilization", "%", false},
	{"sm_utilization", "SM Utilization", "%", false},
	{"decoder_utilization", "Decoder Utilization", "%", false},
	{"encoder_utilization", "Encoder Utilization", "%", false},
	{"jpg_utilization", "JPEG Utilization", "%", false},
	{"xid_errors", "XID Errors", "count", true},
	{"power_violation", "Power Violation", "us", true},
}

// gpuFieldIndex returns the field's position in gpuFields, or -1.
func gpuFieldIndex(name string) int {
	for i, f := range gpuFields {
		if f.Name == name {
			return i
		}
	}
	return -1
}

// gpuValues collects a reading's values by field while it is read, and
// gives them back in gpuFields order.
type gpuValues struct {
	v   [len(gpuFields)]float64
	has [len(gpuFields)]bool
}

// set records a known field's value; an unknown name is ignored.
func (g *gpuValues) set(name string, v float64) {
	if i := gpuFieldIndex(name); i >= 0 {
		g.v[i], g.has[i] = v, true
	}
}

// fields returns the recorded values in gpuFields order, each multiplied
// by scale[name] when there is one.
func (g *gpuValues) fields(scale map[string]float64) Fields {
	var out Fields
	for i, f := range gpuFields {
		if !g.has[i] {
			continue
		}
		v := g.v[i]
		if s, ok := scale[f.Name]; ok {
			v *= s
		}
		out = append(out, Field{Name: f.Name, Value: v})
	}
	return out
}
