package export

import (
	"bytes"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/metrics"
)

// TestMetricsTableGroups checks AIPerf 0.13's console layout: one table per
// console group, Effective, Active and Usage before the default table, each
// titled "NVIDIA AIPerf | <Title>: <Group>", with no empty lines between
// them, and N/A for the statistics a result lacks.
func TestMetricsTableGroups(t *testing.T) {
	s := &metrics.Summary{Results: []metrics.Result{
		{Tag: "request_count", Header: "Request Count", Unit: "requests", Scalar: true,
			Console: true, DisplayOrder: 1100, Avg: 3},
		{Tag: "adj_request_latency", Header: "Request Latency (error-adjusted)", Unit: "ms",
			Console: true, DisplayOrder: 20000, Min: 6, P: [9]float64{4: 6},
			Missing: []string{"avg", "max", "std", "sum", "p90", "p99"}},
		{Tag: "active_total_throughput", Header: "Active Total Throughput", Unit: "tokens/sec",
			Group: metrics.GroupActive, Console: true, DisplayOrder: 21013, Avg: 2},
		{Tag: "effective_concurrency", Header: "Effective Concurrency", Unit: "requests",
			Group: metrics.GroupEffective, Console: true, DisplayOrder: 21000, Avg: 1.5, Max: 2},
		{Tag: "usage_total_tokens", Header: "Usage Total Tokens", Unit: "tokens",
			Group: metrics.GroupUsage, Console: true, DisplayOrder: 1200, Avg: 28},
	}}
	var buf bytes.Buffer
	if err := WriteConsoleExport(&buf, s, &RunInfo{Title: "LLM Metrics"}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	titles := []string{
		"NVIDIA AIPerf | LLM Metrics: Effective\n",
		"┘\n" + strings.Repeat(" ", 1),
		"NVIDIA AIPerf | LLM Metrics: Active\n",
		"┘\n" + strings.Repeat(" ", 1),
		"NVIDIA AIPerf | LLM Metrics: Usage\n",
		"┘\n" + strings.Repeat(" ", 1),
		"NVIDIA AIPerf | LLM Metrics\n",
	}
	if !strings.HasPrefix(out, "\n\n ") || strings.Contains(out[2:], "\n\n") {
		t.Errorf("want two empty lines before the first table only:\n%s", out)
	}
	at := 0
	for _, title := range titles {
		i := strings.Index(out[at:], title)
		if i < 0 {
			t.Fatalf("no %q after offset %d in:\n%s", title, at, out)
		}
		at += i + len(title)
	}
	// The default table holds Request Count then the adjusted latency.
	rest := out[at:]
	rc, adj := strings.Index(rest, "Request Count"), strings.Index(rest, "Request Latency (error-adjusted)")
	if rc < 0 || adj < rc {
		t.Errorf("default table rows out of order:\n%s", rest)
	}
	wantRow := "│ Request Latency (error-adjusted) │  N/A │ 6.00 │ N/A │ N/A │ N/A │ 6.00 │ N/A │"
	if !strings.Contains(rest, wantRow) {
		t.Errorf("no adjusted row %q in:\n%s", wantRow, rest)
	}
}
