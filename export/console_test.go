package export

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/metrics"
	"github.com/aiperf-go/aiperf/record"
)

func nan() float64 { return math.NaN() }

func TestWriteConsoleExportFixture(t *testing.T) {
	fx := loadFixture(t)
	var buf bytes.Buffer
	if err := WriteConsoleExport(&buf, &fx.summary, &fx.info); err != nil {
		t.Fatal(err)
	}
	want := string(readFixtureFile(t, "profile_export_console.txt"))
	if got := buf.String(); got != want {
		t.Errorf("console differs from the fixture:\n%s", diffText(got, want))
	}
}

func TestWriteConsoleFooter(t *testing.T) {
	fx := loadFixture(t)
	info := fx.info
	info.CLICommand = "aiperf profile --model 'mock-model' --concurrency 4"
	info.CSVPath = "/out/profile_export_aiperf.csv"
	info.JSONPath = "/out/profile_export_aiperf.json"
	info.LogPath = "/out/logs/aiperf.log"
	var buf bytes.Buffer
	if err := WriteConsole(&buf, &fx.summary, &info); err != nil {
		t.Fatal(err)
	}
	want := string(readFixtureFile(t, "profile_export_console.txt")) + "\n" +
		"CLI Command: aiperf profile --model 'mock-model' --concurrency 4\n" +
		"Benchmark Duration: 0.03 sec\n" +
		"CSV Export: /out/profile_export_aiperf.csv\n" +
		"JSON Export: /out/profile_export_aiperf.json\n" +
		"Log File: /out/logs/aiperf.log\n" +
		"\n"
	if got := buf.String(); got != want {
		t.Errorf("%s", diffText(got, want))
	}
}

func TestWriteConsoleCancelledWithoutDurationMetric(t *testing.T) {
	s := &metrics.Summary{}
	info := &RunInfo{Duration: 1500 * time.Millisecond, WasCancelled: true}
	var buf bytes.Buffer
	if err := WriteConsole(&buf, s, info); err != nil {
		t.Fatal(err)
	}
	want := "\nBenchmark Duration: 1.50 sec (cancelled early)\n" +
		"The profile run was cancelled early. Results shown may be incomplete or inaccurate.\n\n"
	if got := buf.String(); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestMetricsTableLongHeader(t *testing.T) {
	// A header over 30 characters puts its unit on a second line; the other
	// cells are blank there. Results are ordered by DisplayOrder, and those
	// without Console are left out.
	s := &metrics.Summary{Results: []metrics.Result{
		{Tag: "request_count", Header: "Request Count", Unit: "requests", Scalar: true,
			Console: true, DisplayOrder: 1000, Avg: 12345},
		{Tag: "output_token_throughput_per_user", Header: "Output Token Throughput Per User",
			Unit: "tokens/sec/user", Console: true, DisplayOrder: 500,
			Avg: 10, Min: 1, Max: 100, Std: -2.5, P: [9]float64{4: 9.994, 6: 50, 8: 99}},
		{Tag: "hidden", Header: "Hidden", Unit: "ms", DisplayOrder: 1},
	}}
	var buf bytes.Buffer
	if err := WriteConsoleExport(&buf, s, &RunInfo{Title: "Chat"}); err != nil {
		t.Fatal(err)
	}
	want := "\n\n" +
		strings.Repeat(" ", (95-20)/2) + "NVIDIA AIPerf | Chat\n" +
		"┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━┳━━━━━━┳━━━━━━━━┳━━━━━━━┳━━━━━━━┳━━━━━━┳━━━━━━━┓\n" +
		"┃                           Metric ┃       avg ┃  min ┃    max ┃   p99 ┃   p90 ┃  p50 ┃   std ┃\n" +
		"┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━╇━━━━━━╇━━━━━━━━╇━━━━━━━╇━━━━━━━╇━━━━━━╇━━━━━━━┩\n" +
		"│ Output Token Throughput Per User │     10.00 │ 1.00 │ 100.00 │ 99.00 │ 50.00 │ 9.99 │ -2.50 │\n" +
		"│                (tokens/sec/user) │           │      │        │       │       │      │       │\n" +
		"│         Request Count (requests) │ 12,345.00 │  N/A │    N/A │   N/A │   N/A │  N/A │   N/A │\n" +
		"└──────────────────────────────────┴───────────┴──────┴────────┴───────┴───────┴──────┴───────┘\n"
	if got := buf.String(); got != want {
		t.Errorf("got:\n%s\n%s", got, diffText(got, want))
	}
}

func TestErrorTable(t *testing.T) {
	s := &metrics.Summary{
		Errors: []metrics.ErrorCount{
			{Error: record.Error{Code: 500, Type: "Internal Server Error", Message: "upstream\nfailed"}, Count: 1234},
			{Error: record.Error{Message: strings.Repeat("x", 120)}, Count: 1},
		},
	}
	var buf bytes.Buffer
	if err := WriteConsoleExport(&buf, s, nil); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("x", 99) + "…"
	want := "\n\n" +
		strings.Repeat(" ", (143-29)/2) + "NVIDIA AIPerf | Error Summary\n" +
		rule("┏", "━", "┳", "┓", 6, 23, 102, 7) +
		"┃ Code ┃                  Type ┃ Message                                                                                              ┃ Count ┃\n" +
		rule("┡", "━", "╇", "┩", 6, 23, 102, 7) +
		"│  500 │ Internal Server Error │ upstream failed                                                                                      │ 1,234 │\n" +
		"│  N/A │                   N/A │ " + long + " │     1 │\n" +
		rule("└", "─", "┴", "┘", 6, 23, 102, 7)
	if got := buf.String(); got != want {
		t.Errorf("got:\n%s\n%s", got, diffText(got, want))
	}
}

func TestOSLMismatchPanel(t *testing.T) {
	s := &metrics.Summary{
		Results:       []metrics.Result{{Tag: "osl_mismatch_diff_pct", Unit: "%", Avg: -12.34}},
		OSLMismatches: 1500,
		Valid:         2000,
	}
	var buf bytes.Buffer
	if err := WriteConsoleExport(&buf, s, nil); err != nil {
		t.Fatal(err)
	}
	got := buf.String()
	for _, want := range []string{
		"─ Output Sequence Length Mismatch Warning ─",
		"│  1,500 of 2,000 requests (75.0%) have output length differing from requested by more than the threshold.  │\n",
		"│  Threshold (tokens): min(requested × 5%, 50)",
		"│  Average mismatch: -12.3%  ",
		"AIPERF_METRICS_OSL_MISMATCH_PCT_THRESHOLD=5 ",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
	// Every line of the panel is as wide as its border.
	lines := strings.Split(strings.TrimSpace(got), "\n")
	for _, l := range lines {
		if cellWidth(l) != cellWidth(lines[0]) {
			t.Errorf("ragged line %q", l)
		}
	}
}

func TestCommaFloat(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{
		{0, "0.00"},
		{999.999, "1,000.00"},
		{1022443.0554692096, "1,022,443.06"},
		{-1234567.891, "-1,234,567.89"},
		{-0.001, "-0.00"},
		{123, "123.00"},
		{nan(), "nan"},
		{math.Inf(-1), "-inf"},
	}
	for _, tt := range tests {
		if got := commaFloat(tt.in); got != tt.want {
			t.Errorf("commaFloat(%v) = %s, want %s", tt.in, got, tt.want)
		}
	}
	if got := commaInt(-1234567); got != "-1,234,567" {
		t.Errorf("commaInt = %s", got)
	}
}

func TestCellWidthAndTruncate(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"abc", 3},
		{"━┃│", 3},
		{"日本", 4},
		{"e\u0301", 1},
		{"a\tb", 2},
	}
	for _, tt := range tests {
		if got := cellWidth(tt.in); got != tt.want {
			t.Errorf("cellWidth(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
	if got := truncateCells("日本語です", 6); got != "日本…" {
		t.Errorf("truncate = %q", got)
	}
	if got := singleLine(" a \n\t b\x00c "); got != "a b c" {
		t.Errorf("singleLine = %q", got)
	}
}

// rule draws a table border line with columns of the given inner widths
// (content plus one space of padding each side).
func rule(left, fill, sep, right string, widths ...int) string {
	parts := make([]string, len(widths))
	for i, w := range widths {
		parts[i] = strings.Repeat(fill, w)
	}
	return left + strings.Join(parts, sep) + right + "\n"
}

// TestWriteConsoleGolden covers every console block at once: a streaming
// run's table, the error summary and both warning panels, and the footer.
// The golden file was checked by eye against rich's layout rules.
func TestWriteConsoleGolden(t *testing.T) {
	dist := func(tag, header, unit string, order int, avg float64) metrics.Result {
		return metrics.Result{Tag: tag, Header: header, Unit: unit, Console: true, DisplayOrder: order,
			Avg: avg, Min: avg / 2, Max: avg * 3, Std: avg / 10,
			P: [9]float64{avg * 0.6, avg * 0.7, avg * 0.8, avg * 0.9, avg, avg * 1.2, avg * 1.5, avg * 1.8, avg * 2.5}}
	}
	s := &metrics.Summary{
		Results: []metrics.Result{
			dist("time_to_first_token", "Time to First Token", "ms", 100, 45.678),
			dist("time_to_second_token", "Time to Second Token", "ms", 200, 12.5),
			dist("request_latency", "Request Latency", "ms", 300, 1234.5678),
			dist("inter_token_latency", "Inter Token Latency", "ms", 400, 5.25),
			dist("output_token_throughput_per_user", "Output Token Throughput Per User", "tokens/sec/user", 500, 190.5),
			dist("output_sequence_length", "Output Sequence Length", "tokens", 600, 256),
			dist("input_sequence_length", "Input Sequence Length", "tokens", 700, 550),
			{Tag: "output_token_throughput", Header: "Output Token Throughput", Unit: "tokens/sec", Scalar: true, Console: true, DisplayOrder: 800, Avg: 4567.891},
			{Tag: "request_throughput", Header: "Request Throughput", Unit: "requests/sec", Scalar: true, Console: true, DisplayOrder: 900, Avg: 17.84},
			{Tag: "request_count", Header: "Request Count", Unit: "requests", Scalar: true, Console: true, DisplayOrder: 1000, Avg: 1000},
			{Tag: "benchmark_duration", Header: "Benchmark Duration", Unit: "sec", Scalar: true, Avg: 56.049},
			{Tag: "osl_mismatch_diff_pct", Header: "OSL Mismatch Diff", Unit: "%", Avg: 23.456},
		},
		Errors: []metrics.ErrorCount{
			{Error: record.Error{Code: 429, Type: "Too Many Requests", Message: `{"error":"rate limited"}`}, Count: 37},
			{Error: record.Error{Type: "ReadTimeout", Message: "read timed out after 600 s"}, Count: 3},
		},
		UsageDiscrepancies: 123,
		OSLMismatches:      40,
		Valid:              1000,
		Failed:             40,
	}
	info := &RunInfo{
		CLICommand:            "aiperf profile --model 'Qwen/Qwen3-0.6B' --streaming --concurrency 10",
		CSVPath:               "artifacts/x/profile_export_aiperf.csv",
		JSONPath:              "artifacts/x/profile_export_aiperf.json",
		LogPath:               "artifacts/x/logs/aiperf.log",
		UsageDiffThresholdPct: 7.5,
	}
	var buf bytes.Buffer
	if err := WriteConsole(&buf, s, info); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "console_full.golden", buf.Bytes())
}
