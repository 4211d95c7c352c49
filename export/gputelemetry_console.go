package export

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/aiperf-go/aiperf/telemetry"
)

// gpuStatColumns are the GPU tables' columns after "Metric", as in the
// main metrics table.
var gpuStatColumns = []column{{"Metric", true}, {"avg", true}, {"min", true}, {"max", true},
	{"p99", true}, {"p90", true}, {"p50", true}, {"std", true}}

// appendGPUTelemetry appends AIPerf's GPU Telemetry Summary when
// info.ShowGPUTelemetry is set and there is GPU telemetry to speak of: two
// empty lines, then one table per GPU titled "<endpoint> | GPU <i> |
// <name>", the tables one empty line apart. The first table's title starts
// with "AIPerf | GPU Telemetry Summary", "N/M telemetry sources
// reachable" and a line per configured source (✔, or ✘ (unreachable)).
// Without any GPU, it says that no GPU telemetry was collected and lists
// the unreachable sources.
func appendGPUTelemetry(b []byte, info *RunInfo) []byte {
	if !info.ShowGPUTelemetry {
		return b
	}
	s := info.GPUTelemetry
	configured, reachable := gpuSourceLists(s, info.TelemetryHealth)
	if s == nil && len(configured) == 0 {
		return b
	}
	b = append(b, '\n', '\n')
	b, shown := appendGPUTables(b, s, configured, reachable, false)
	if !shown {
		b = append(b, "No GPU telemetry data collected during the benchmarking run."...)
		if unreachable := gpuMissing(configured, reachable); len(unreachable) > 0 {
			b = append(b, "\n\nUnreachable endpoints:"...)
			for _, u := range unreachable {
				b = append(b, "\n  • "+endpointDisplay(u)...)
			}
		}
		b = append(b, '\n')
	}
	return b
}

// appendGPUTables appends a table per GPU of s (see appendGPUTable),
// titled "<endpoint> | GPU <i> | <name>" and one empty line apart, the
// first headed by the source lines of configured and reachable sources
// (gpuSourceLines) and an empty line. v14 gives AIPerf 0.13's tables: its
// metrics (GPUInfo.Metrics14) and head lines padded to the table's width.
// shown is false when s has no GPU (nothing appended).
func appendGPUTables(b []byte, s *telemetry.GPUSummary, configured, reachable []string, v14 bool) (_ []byte, shown bool) {
	for _, e := range gpuEndpoints(s) {
		for _, kg := range e.val {
			g := &kg.val
			title := e.key + " | GPU " + strconv.Itoa(g.Index) + " | " + g.Name
			var head []string
			if !shown {
				head = append(gpuSourceLines(configured, reachable), "")
			} else {
				b = append(b, '\n')
			}
			shown = true
			ms := g.Metrics
			if v14 {
				ms = g.Metrics14()
			}
			b = appendGPUTable(b, head, title, ms, v14)
		}
	}
	return b, shown
}

// gpuSourceLines are the summary lines above the first GPU table.
func gpuSourceLines(configured, reachable []string) []string {
	lines := []string{
		"AIPerf | GPU Telemetry Summary",
		strconv.Itoa(len(reachable)) + "/" + strconv.Itoa(len(configured)) + " telemetry sources reachable",
	}
	for _, c := range configured {
		mark := " ✘ (unreachable)"
		if slices.Contains(reachable, c) {
			mark = " ✔"
		}
		lines = append(lines, "• "+endpointDisplay(c)+mark)
	}
	return lines
}

// appendGPUTable appends one GPU's table: the head lines and the title
// centered over it, then a row per metric of ms, "<Header> (<unit>)" and
// its statistics (a counter has only avg). With pad, the head lines are
// padded with spaces to the table's width, as AIPerf 0.13's rich does.
func appendGPUTable(b []byte, head []string, title string, ms []telemetry.GPUMetric, pad bool) []byte {
	rows := make([][]string, 0, len(ms))
	for _, m := range ms {
		row := []string{m.Header + " (" + m.Unit + ")", gpuNumber(m.Avg)}
		if m.Counter {
			row = append(row, "N/A", "N/A", "N/A", "N/A", "N/A", "N/A")
		} else {
			row = append(row, gpuNumber(m.Min), gpuNumber(m.Max), gpuNumber(m.P[8]),
				gpuNumber(m.P[6]), gpuNumber(m.P[4]), gpuNumber(m.Std))
		}
		rows = append(rows, row)
	}
	width := len(gpuStatColumns) + 1
	for i, c := range gpuStatColumns {
		w := maxLineWidth(c.header)
		for _, row := range rows {
			w = max(w, maxLineWidth(row[i]))
		}
		width += w + 2
	}
	for _, line := range head {
		line = strings.TrimRight(line, " ")
		switch {
		case pad:
			b = appendCenteredPadded(b, line, width)
		case line == "":
			b = append(b, '\n')
		default:
			b = appendCentered(b, line, width)
		}
	}
	return appendTable(b, title, gpuStatColumns, rows)
}

// gpuNumber formats a statistic as AIPerf's GPU table does: "{:.2e}" from
// a million up, else "{:,.2f}".
func gpuNumber(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	case math.Abs(v) >= 1e6:
		return strconv.FormatFloat(v, 'e', 2, 64)
	}
	return commaFloat(v)
}

// gpuMissing returns the members of all that are not in some, in order.
func gpuMissing(all, some []string) []string {
	var out []string
	for _, x := range all {
		if !slices.Contains(some, x) {
			out = append(out, x)
		}
	}
	return out
}
