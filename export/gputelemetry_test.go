package export

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/metrics"
	"github.com/aiperf-go/aiperf/telemetry"
)

const (
	qwenFixture = "testdata/gputelemetry/qwen_concurrency1.jsonl"
	// The profiling window the tests put over the fixture: after its first
	// scrapes, and ending so that the grace keeps two scrapes and drops the
	// last two.
	qwenStart = int64(1762551531100000000)
	qwenEnd   = int64(1762551532900000000)
)

// qwenReadings parses the fixture, AIPerf's gpu_telemetry_export.jsonl of a
// real run (two DCGM exporters, one RTX 6000 Ada).
func qwenReadings(t *testing.T) (lines []string, rs []telemetry.GPUReading) {
	t.Helper()
	f, err := os.Open(qwenFixture)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r telemetry.GPUReading
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("line %d: %v", len(rs)+1, err)
		}
		lines = append(lines, sc.Text())
		rs = append(rs, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines, rs
}

// TestGPUReadingFixtureRoundTrip: every line of AIPerf's file parses and
// is written back byte for byte (key order, Python's float spelling such
// as 2.0 and 49.659510784000005).
func TestGPUReadingFixtureRoundTrip(t *testing.T) {
	lines, rs := qwenReadings(t)
	if len(rs) != 20 {
		t.Fatalf("%d readings", len(rs))
	}
	var all []byte
	for i, r := range rs {
		got := AppendGPUReading(nil, r)
		if string(got) != lines[i]+"\n" {
			t.Errorf("line %d:\n got %s\nwant %s", i+1, got, lines[i])
		}
		all = AppendGPUReading(all, r)
	}
	want, _ := os.ReadFile(qwenFixture)
	if !bytes.Equal(all, want) {
		t.Error("the file differs")
	}
	if v, _ := rs[0].Data.Get("gpu_memory_used"); v != 49.659510784000005 {
		t.Errorf("gpu_memory_used %v", v)
	}
}

// qwenSummary runs the fixture's readings through the accumulator with
// the test window.
func qwenSummary(t *testing.T) *telemetry.GPUSummary {
	_, rs := qwenReadings(t)
	a := telemetry.NewGPUStats()
	for i, r := range rs {
		switch i {
		case 2:
			a.Start(qwenStart)
		case 14:
			a.End(qwenEnd) // before the scrapes past its grace arrive
		}
		a.Add(telemetry.Sample{Kind: telemetry.KindGPU, Source: r.SourceURL, TimeNS: r.TimestampNS, GPUs: []telemetry.GPUReading{r}})
	}
	return a.Summary()
}

// TestGPUSummaryMatchesAIPerf compares the fixture's summary with the one
// AIPerf 0.13 computes from the same file and window (its
// GpuMetricTimeSeries, run once to make the expected file).
func TestGPUSummaryMatchesAIPerf(t *testing.T) {
	raw, err := os.ReadFile("testdata/gputelemetry/qwen_aiperf_expected.json")
	if err != nil {
		t.Fatal(err)
	}
	var want struct {
		StartNS int64                                               `json:"start_ns"`
		EndNS   int64                                               `json:"end_ns"`
		Sources map[string]map[string]map[string]map[string]float64 `json:"sources"`
	}
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	s := qwenSummary(t)
	if s.StartNS != want.StartNS || s.EndNS != want.EndNS {
		t.Errorf("window %d..%d, want %d..%d", s.StartNS, s.EndNS, want.StartNS, want.EndNS)
	}
	if len(s.Endpoints) != len(want.Sources) || s.GPUCount() != 1 {
		t.Fatalf("%d endpoints, %d GPUs", len(s.Endpoints), s.GPUCount())
	}
	for _, e := range s.Endpoints {
		for _, g := range e.GPUs {
			wm := want.Sources[e.Source][g.UUID]
			if len(g.Metrics) != len(wm) {
				t.Errorf("%s: %d metrics, want %d", e.Source, len(g.Metrics), len(wm))
			}
			for _, m := range g.Metrics {
				w := wm[m.Name]
				got := map[string]float64{"avg": m.Avg}
				if !m.Counter {
					got["min"], got["max"], got["std"], got["count"] = m.Min, m.Max, m.Std, float64(m.Count)
					for i, p := range []string{"p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99"} {
						got[p] = m.P[i]
					}
				}
				if len(got) != len(w) {
					t.Errorf("%s %s: stats %v, want %v", e.Source, m.Name, got, w)
				}
				for k, v := range w {
					if math.Abs(got[k]-v) > 1e-12*math.Max(1, math.Abs(v)) {
						t.Errorf("%s %s %s = %v, want %v", e.Source, m.Name, k, got[k], v)
					}
				}
			}
		}
	}
}

// qwenInfo is the run info of the golden files: the fixture's two
// exporters reachable, a third one not.
func qwenInfo(t *testing.T) *RunInfo {
	return &RunInfo{
		AIPerfVersion:    "0.8.0",
		BenchmarkID:      "00000000000000000000000000000000",
		Location:         time.UTC,
		GPUTelemetry:     qwenSummary(t),
		ShowGPUTelemetry: true,
		TelemetryHealth: []telemetry.Health{
			{Source: "http://localhost:9400/metrics", Kind: telemetry.KindGPU, Reachable: true, Scrapes: 10},
			{Source: "http://localhost:9401/metrics", Kind: telemetry.KindGPU, Failures: 1, LastError: "connection refused"},
			{Source: "http://localhost:8000/metrics", Kind: telemetry.KindServer, Reachable: true},
			{Source: "http://localhost:9402/metrics", Kind: telemetry.KindGPU, Reachable: true, Scrapes: 11, Failures: 1,
				LastError: "timed out: context deadline exceeded"},
		},
	}
}

func TestGPUTelemetrySummaryJSONGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteSummaryJSON(&buf, &metrics.Summary{}, qwenInfo(t)); err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(buf.Bytes(), &v); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	checkGolden(t, "gputelemetry/summary.json.golden", buf.Bytes())
}

// TestGPUTelemetryConsoleGolden: the golden file is, byte for byte, what
// rich prints when AIPerf 0.8's GPUTelemetryConsoleExporter (with 0.13's
// wording of the two header lines) renders summary.json.golden's
// telemetry_data, parsed by AIPerf's TelemetryExportData model.
func TestGPUTelemetryConsoleGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteConsoleExport(&buf, &metrics.Summary{}, qwenInfo(t)); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "gputelemetry/console.golden", buf.Bytes())
}

func TestGPUTelemetryConsoleCases(t *testing.T) {
	unreachable := []telemetry.Health{
		{Source: "http://localhost:9400/metrics", Kind: telemetry.KindGPU},
		{Source: "http://node1:9401/metrics", Kind: telemetry.KindGPU},
	}
	for _, tc := range []struct {
		name string
		info RunInfo
		want string
	}{
		{"not asked for", RunInfo{GPUTelemetry: &telemetry.GPUSummary{}, TelemetryHealth: unreachable}, ""},
		{"nothing configured", RunInfo{ShowGPUTelemetry: true}, ""},
		{"nothing collected", RunInfo{ShowGPUTelemetry: true, GPUTelemetry: &telemetry.GPUSummary{}, TelemetryHealth: unreachable},
			"\n\nNo GPU telemetry data collected during the benchmarking run.\n\nUnreachable endpoints:\n" +
				"  • localhost:9400\n  • node1:9401\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := string(appendGPUTelemetry(nil, &tc.info))
			if got != tc.want {
				t.Errorf("got %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestGPUNumberAndEndpoint(t *testing.T) {
	for v, want := range map[float64]string{
		1523000: "1.52e+06", -2e6: "-2.00e+06", 999999.994: "999,999.99", 0.004: "0.00",
		93.63157142857142: "93.63", math.Inf(1): "inf", 1e100: "1.00e+100",
	} {
		if got := gpuNumber(v); got != want {
			t.Errorf("gpuNumber(%v) = %q, want %q", v, got, want)
		}
	}
	if got := gpuNumber(math.NaN()); got != "nan" {
		t.Errorf("gpuNumber(NaN) = %q", got)
	}
	for raw, want := range map[string]string{
		"http://localhost:9400/metrics":       "localhost:9400",
		"pynvml://localhost":                  "localhost",
		"https://user:secret@h:1/api/metrics": "<redacted>@h:1/api",
		"http://u:p@ss@h:1/metrics?token=x":   "<redacted>@h:1",
		"http://h/metrics/x":                  "h/metrics/x",
		"not a url":                           "not a url",
	} {
		if got := endpointDisplay(raw); got != want || strings.Contains(got, "secret") {
			t.Errorf("endpointDisplay(%q) = %q, want %q", raw, got, want)
		}
	}
}
