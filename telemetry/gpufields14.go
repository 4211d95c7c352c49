package telemetry

import "slices"

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
