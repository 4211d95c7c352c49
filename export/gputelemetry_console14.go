package export

import (
	"cmp"
	"slices"
	"strings"

	"github.com/aiperf-go/aiperf/metrics"
	"github.com/aiperf-go/aiperf/telemetry"
)

// gpuPlatformNotice is the body of AIPerf 0.13's "GPU Telemetry Platform"
// panel after its "Platform: …" line (console_gpu_vendor_disclaimer_exporter).
const gpuPlatformNotice = "Metric semantics are platform-specific; cross-platform comparisons " +
	"require workload and collector validation."

// appendGPUSections14 appends what AIPerf 0.13 prints about the GPUs after
// the metrics tables, when it collected GPU telemetry (info.GPUTelemetry):
// the "GPU Telemetry Platform" panel, the "GPU Power Efficiency (NVIDIA)"
// table of the energy-efficiency results (followed, as every metrics table
// of 0.13 is, by the cache-reporting hint when it applies) and the GPU
// Telemetry Summary, its metrics named as 0.13 names them. Each comes
// after two empty lines.
func appendGPUSections14(b []byte, s *metrics.Summary, info *RunInfo) []byte {
	g := info.GPUTelemetry
	if g == nil {
		return b
	}
	platform := "unknown"
	if g.GPUCount() > 0 {
		platform = telemetry.GPUPlatformNVIDIA
	}
	b = append(b, '\n', '\n')
	b = appendPanel(b, "GPU Telemetry Platform", []string{"Platform: " + platform, gpuPlatformNotice})

	n := len(b)
	b = appendEnergyTable(b, s)
	if len(b) > n && usageWithoutCacheRead(s) {
		b = append(b, '\n')
		for _, line := range wrapRich(cacheReportingHint, consoleWidth) {
			b = append(b, line...)
			b = append(b, '\n')
		}
	}

	configured, reachable := info.GPUEndpoints14.Configured, info.GPUEndpoints14.Successful
	b = append(b, '\n', '\n')
	b, shown := appendGPUTables(b, g, configured, reachable, true)
	if !shown {
		b = append(b, "No GPU telemetry data collected during the benchmarking run.\n"...)
	}
	return padTitles(b)
}

// appendEnergyTable appends two empty lines and the "GPU Power Efficiency
// (NVIDIA)" table (Metric, avg) of s's results in telemetry.EnergyGroup, in
// DisplayOrder, or nothing without any.
func appendEnergyTable(b []byte, s *metrics.Summary) []byte {
	var shown []*metrics.Result
	for i := range s.Results {
		if r := &s.Results[i]; r.Group == telemetry.EnergyGroup {
			shown = append(shown, r)
		}
	}
	if len(shown) == 0 {
		return b
	}
	slices.SortStableFunc(shown, func(a, b *metrics.Result) int { return cmp.Compare(a.DisplayOrder, b.DisplayOrder) })
	rows := make([][]string, 0, len(shown))
	for _, r := range shown {
		sep := " "
		if len([]rune(r.Header)) > 30 {
			sep = "\n"
		}
		rows = append(rows, []string{label(r, sep), commaFloat(r.Avg)})
	}
	b = append(b, '\n', '\n')
	return appendTable(b, "GPU Power Efficiency (NVIDIA)", []column{{"Metric", true}, {"avg", true}}, rows)
}

// appendCenteredPadded appends text centered over width as appendCentered
// does, each line padded with spaces to width (an empty text is a line of
// spaces), as rich pads a centered line.
func appendCenteredPadded(b []byte, text string, width int) []byte {
	lines := wrapWords(text, width)
	if len(lines) == 0 {
		lines = []string{""}
	}
	for _, line := range lines {
		left := max((width-cellWidth(line))/2, 0)
		b = append(b, strings.Repeat(" ", left)...)
		b = append(b, line...)
		b = append(b, strings.Repeat(" ", max(width-left-cellWidth(line), 0))...)
		b = append(b, '\n')
	}
	return b
}
