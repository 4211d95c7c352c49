package runner

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aiperf-go/aiperf/internal/secret"
	"github.com/aiperf-go/aiperf/telemetry"
)

// serverMetricsFormats are the server-metrics files --server-metrics-formats
// can ask for (AIPerf's parquet is not written).
var serverMetricsFormats = []string{"json", "csv", "jsonl"}

// gpuCollector is how GPU telemetry is collected.
type gpuCollector int

const (
	gpuDCGM gpuCollector = iota // scrape DCGM exporter endpoints
	gpuNVML                     // read the local GPUs through NVML
)

// gpuPlan is what --gpu-telemetry asks for.
type gpuPlan struct {
	collector gpuCollector
	urls      []string // DCGM endpoints beyond the defaults
	dashboard bool
}

// gpuTelemetryPlan classifies the --gpu-telemetry items as AIPerf does:
// a local library keyword, "dashboard", a custom metrics CSV (not
// supported here), or a URL (anything with "http" or a ':').
func (c *Config) gpuTelemetryPlan() (gpuPlan, []string) {
	var plan gpuPlan
	var p []string
	for _, item := range c.GPUTelemetry {
		item = strings.TrimSpace(item)
		lower := strings.ToLower(item)
		switch {
		case item == "":
			// bare --gpu-telemetry: the console table, default endpoints
		case lower == "nvml" || lower == "pynvml":
			plan.collector = gpuNVML
		case lower == "dashboard":
			plan.dashboard = true
		case lower == "amdsmi":
			p = append(p, "--gpu-telemetry amdsmi is not supported: aiperf-go reads NVIDIA GPUs (nvml, or DCGM exporter URLs)")
		case strings.HasSuffix(lower, ".csv"):
			p = append(p, fmt.Sprintf("--gpu-telemetry %q: custom metrics CSV files are not supported; DCGM exporter fields are mapped as AIPerf maps them by default", item))
		case strings.HasPrefix(lower, "http") || strings.Contains(item, ":"):
			u, err := telemetry.MetricsURL(item)
			if err != nil {
				p = append(p, fmt.Sprintf("--gpu-telemetry %q is not a valid URL (%v): use e.g. --gpu-telemetry http://node1:9400/metrics", secret.URL(item), err))
				continue
			}
			plan.urls = append(plan.urls, u)
		default:
			p = append(p, fmt.Sprintf("Invalid GPU telemetry item: %s. Valid options are: 'nvml' (or 'pynvml'), 'dashboard', and URLs.", item))
		}
	}
	return plan, p
}

// telemetryProblems checks the telemetry flags.
func (c *Config) telemetryProblems() []string {
	var p []string
	if c.NoServerMetrics && c.flagSet("server-metrics") {
		p = append(p, "Cannot use both --no-server-metrics and --server-metrics together. Use only one or the other.")
	}
	if c.NoGPUTelemetry && c.flagSet("gpu-telemetry") {
		p = append(p, "Cannot use both --no-gpu-telemetry and --gpu-telemetry together. Use only one or the other.")
	}
	for _, u := range c.ServerMetrics {
		if _, err := telemetry.MetricsURL(u); err != nil {
			p = append(p, fmt.Sprintf("--server-metrics %q is not a valid URL (%v): use e.g. --server-metrics node1:8081", secret.URL(u), err))
		}
	}
	for _, f := range c.ServerMetricsFormats {
		if !slices.Contains(serverMetricsFormats, strings.ToLower(f)) {
			p = append(p, fmt.Sprintf("--server-metrics-formats %q is not valid: use any of %s", f, strings.Join(serverMetricsFormats, ", ")))
		}
	}
	if c.ServerMetricsInterval < time.Millisecond || c.ServerMetricsInterval > 300*time.Second {
		p = append(p, fmt.Sprintf("--server-metrics-collection-interval must be between 0.001 and 300 seconds (got %v)", c.ServerMetricsInterval.Seconds()))
	}
	if c.GPUInterval < 10*time.Millisecond || c.GPUInterval > 300*time.Second {
		p = append(p, fmt.Sprintf("--gpu-collection-interval must be between 0.01 and 300 seconds (got %v)", c.GPUInterval.Seconds()))
	}
	_, gp := c.gpuTelemetryPlan()
	return append(p, gp...)
}

// ShowGPUTelemetry reports whether the console shows the GPU telemetry
// tables: only when --gpu-telemetry was given, as in AIPerf.
func (c *Config) ShowGPUTelemetry() bool {
	return !c.NoGPUTelemetry && c.flagSet("gpu-telemetry")
}
