package telemetry

import (
	"slices"
	"strconv"

	"github.com/aiperf-go/aiperf/internal/pyjson"
)

// GPUPlatformNVIDIA is the platform AIPerf 0.13 gives every GPU that DCGM
// or NVML reports (its NVIDIA_GPU_TELEMETRY_PLATFORM); ours are all such.
const GPUPlatformNVIDIA = "nvidia"

// gpuField14 is how AIPerf 0.13 names and displays one of gpuFields.
type gpuField14 struct {
	old, name, header string
}

// gpuFields14 are AIPerf 0.13's NVIDIA rows of GPU_TELEMETRY_METRICS_CONFIG
// (aiperf/gpu_telemetry/constants.py), in its order: every field renamed
// with an "nvidia_" prefix (NVIDIA_TELEMETRY_FIELD_ALIASES) and its header
// with "NVIDIA ", and memory utilisation moved before memory used.
var gpuFields14 = [...]gpuField14{
	{"gpu_power_usage", "nvidia_power_usage", "NVIDIA GPU Power Usage"},
	{"energy_consumption", "nvidia_energy_consumption", "NVIDIA Energy Consumption"},
	{"gpu_utilization", "nvidia_gpu_utilization", "NVIDIA GPU Utilization"},
	{"mem_utilization", "nvidia_memory_utilization", "NVIDIA Memory Utilization"},
	{"gpu_memory_used", "nvidia_memory_used", "NVIDIA GPU Memory Used"},
	{"gpu_temperature", "nvidia_temperature", "NVIDIA GPU Temperature"},
	{"sm_utilization", "nvidia_sm_utilization", "NVIDIA SM Utilization"},
	{"decoder_utilization", "nvidia_decoder_utilization", "NVIDIA Decoder Utilization"},
	{"encoder_utilization", "nvidia_encoder_utilization", "NVIDIA Encoder Utilization"},
	{"jpg_utilization", "nvidia_jpg_utilization", "NVIDIA JPEG Utilization"},
	{"xid_errors", "nvidia_xid_errors", "NVIDIA XID Errors"},
	{"power_violation", "nvidia_power_violation", "NVIDIA Power Violation"},
}

// GPUFieldName14 returns AIPerf 0.13's name of the field AIPerf 0.8 calls
// name ("gpu_power_usage" → "nvidia_power_usage"), or name itself when
// 0.13 has no other.
func GPUFieldName14(name string) string {
	for _, f := range gpuFields14 {
		if f.old == name {
			return f.name
		}
	}
	return name
}

// Metrics14 returns g's metrics as AIPerf 0.13 names, displays and orders
// them (gpuFields14): copies whose Name and Header are 0.13's.
func (g *GPUInfo) Metrics14() []GPUMetric {
	out := make([]GPUMetric, 0, len(g.Metrics))
	for _, f := range gpuFields14 {
		if m := g.Metric(f.old); m != nil {
			c := *m
			c.Name, c.Header = f.name, f.header
			out = append(out, c)
		}
	}
	for _, m := range g.Metrics { // none today: every field has a 0.13 row
		if !slices.ContainsFunc(gpuFields14[:], func(f gpuField14) bool { return f.old == m.Name }) {
			out = append(out, m)
		}
	}
	return out
}

// AppendJSON14 appends r as one line of AIPerf 0.13's
// gpu_telemetry_export.jsonl (its TelemetryRecord through orjson,
// exclude_none), without the newline: gpu_index, gpu_uuid, gpu_model_name,
// pci_bus_id, device and hostname (each when set), platform, timestamp_ns,
// telemetry_source_url, then telemetry_data with 0.13's names in its
// TelemetryMetrics order (fields it does not know after them, as they
// are), numbers as orjson writes them, a non-finite value as null.
func (r GPUReading) AppendJSON14(b []byte) []byte {
	b = r.appendGPUKeys(append(b, '{'))
	b = append(b, `,"platform":"`+GPUPlatformNVIDIA+`","timestamp_ns":`...)
	b = strconv.AppendInt(b, r.TimestampNS, 10)
	b = append(b, `,"telemetry_source_url":`...)
	b = pyjson.AppendString(b, r.SourceURL)
	b = append(b, `,"telemetry_data":{`...)
	n := 0
	field := func(name string, v float64) {
		if n > 0 {
			b = append(b, ',')
		}
		n++
		b = pyjson.AppendString(b, name)
		b = append(b, ':')
		b = pyjson.AppendFloatOrjson(b, v)
	}
	for _, f := range gpuFields14 {
		if v, ok := r.Data.Get(f.old); ok {
			field(f.name, v)
		}
	}
	for _, d := range r.Data {
		if !slices.ContainsFunc(gpuFields14[:], func(f gpuField14) bool { return f.old == d.Name }) {
			field(d.Name, d.Value)
		}
	}
	return append(b, '}', '}')
}
