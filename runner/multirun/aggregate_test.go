package multirun

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/metrics"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(p, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (run with -update after checking):\n got:\n%s\nwant:\n%s", name, got, want)
	}
}

// latency is a request_latency distribution in ms.
func latency(avg, sum, lo, hi, std float64, p [9]float64) metrics.Result {
	return metrics.Result{Tag: "request_latency", Header: "Request Latency", Unit: "ms",
		Avg: avg, Sum: sum, Min: lo, Max: hi, Std: std, P: p, Count: 4}
}

// scalar is an aggregate or derived metric.
func scalar(tag, unit string, v float64) metrics.Result {
	return metrics.Result{Tag: tag, Unit: unit, Scalar: true, Avg: v}
}

// fabricated are three runs: the second failed, only the third has goodput.
func fabricated() []Outcome {
	return []Outcome{
		{Label: "run_0001", Summary: &metrics.Summary{Results: []metrics.Result{
			latency(100, 400, 50, 150, 10, [9]float64{51, 55, 60, 75, 100, 125, 140, 145, 149}),
			scalar("request_throughput", "requests/sec", 10),
		}}},
		{Label: "run_0002", Err: errors.New("every request failed: all 4 requests failed")},
		{Label: "run_0003", Summary: &metrics.Summary{Results: []metrics.Result{
			latency(110, 440, 60, 170, 14, [9]float64{61, 65, 70, 85, 110, 135, 150, 160, 169}),
			scalar("request_throughput", "requests/sec", 14),
			scalar("goodput", "requests/sec", 3),
		}}},
	}
}

func TestAggregateKeysAndValues(t *testing.T) {
	a, err := NewAggregate(fabricated(), 0.95, 1500*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, m := range a.Metrics {
		keys = append(keys, m.Key)
	}
	want := "request_latency_avg request_latency_min request_latency_max request_latency_sum " +
		"request_latency_p1 request_latency_p5 request_latency_p10 request_latency_p25 request_latency_p50 " +
		"request_latency_p75 request_latency_p90 request_latency_p95 request_latency_p99 request_latency_std " +
		"request_throughput_avg goodput_avg"
	if got := strings.Join(keys, " "); got != want {
		t.Fatalf("keys:\n%s\nwant:\n%s", got, want)
	}
	if a.NumRuns != 3 || strings.Join(a.RunLabels, ",") != "run_0001,run_0003" ||
		len(a.Failed) != 1 || a.Failed[0].Label != "run_0002" || !strings.Contains(a.Failed[0].Error, "every request failed") {
		t.Fatalf("runs %d labels %v failed %+v", a.NumRuns, a.RunLabels, a.Failed)
	}
	t2 := math.Tan(math.Pi * 0.475) // Student t, df=1, 0.975
	// p99 over runs: 149 and 169 → mean 159, std sqrt(200), se 10.
	p99 := a.Get("request_latency_p99")
	if p99 == nil || p99.Mean != 159 || !closeTo(p99.Std, math.Sqrt(200), 1e-12) || !closeTo(p99.SE, 10, 1e-12) ||
		!closeTo(p99.CILow, 159-10*t2, 1e-12) || p99.Min != 149 || p99.Max != 169 || p99.Unit != "ms" {
		t.Fatalf("p99 %+v", p99)
	}
	// goodput only in one run: its value, no spread.
	g := a.Get("goodput_avg")
	if g == nil || g.Mean != 3 || g.N != 1 || !math.IsNaN(g.Std) || !math.IsNaN(g.TCritical) {
		t.Fatalf("goodput %+v", g)
	}
}

func TestAggregateNeedsTwoRuns(t *testing.T) {
	runs := fabricated()
	runs[2].Err = errors.New("boom")
	if _, err := NewAggregate(runs, 0.95, 0); !errors.Is(err, ErrTooFewRuns) || !strings.Contains(err.Error(), "1 of 3 succeeded") {
		t.Fatalf("err %v", err)
	}
}

func TestWriteCSV(t *testing.T) {
	a, err := NewAggregate(fabricated(), 0.95, 1500*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteCSV(&buf, a); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(buf.String(), "\r\n")
	// Hand-computed with t = 12.7062 (df=1): latency avg 100,110 → mean
	// 105, std sqrt(50) = 7.07, se 5, ci 105 ∓ 63.53, cv 7.0711/105.
	want := map[int]string{
		0:  "metric,mean,std,min,max,cv,se,ci_low,ci_high,t_critical,unit",
		1:  "request_latency_avg,105.00,7.07,100.00,110.00,0.0673,5.0000,41.47,168.53,12.7062,ms",
		4:  "request_latency_sum,420.00,28.28,400.00,440.00,0.0673,20.0000,165.88,674.12,12.7062,ms",
		14: "request_latency_std,12.00,2.83,10.00,14.00,0.2357,2.0000,-13.41,37.41,12.7062,ms",
		15: "request_throughput_avg,12.00,2.83,10.00,14.00,0.2357,2.0000,-13.41,37.41,12.7062,requests/sec",
		16: "goodput_avg,3.00,,3.00,3.00,,,,,,requests/sec",
		17: "",
		18: "Aggregation Type,confidence",
		19: "Total Runs,3",
		20: "Successful Runs,2",
		21: "Confidence Level,0.95",
		22: `Run Labels,"['run_0001', 'run_0003']"`,
		23: "Cooldown Seconds,1.5",
		24: "",
	}
	if len(lines) != 25 {
		t.Fatalf("%d lines:\n%s", len(lines), buf.String())
	}
	for i, w := range want {
		if lines[i] != w {
			t.Errorf("line %d = %q, want %q", i, lines[i], w)
		}
	}
}

func TestWriteJSON(t *testing.T) {
	a, err := NewAggregate(fabricated(), 0.95, 1500*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteJSON(&buf, a, "0.7.0"); err != nil {
		t.Fatal(err)
	}
	golden(t, "aggregate.json.golden", buf.Bytes())
	var doc struct {
		Metadata struct {
			Type       string           `json:"aggregation_type"`
			Runs       int              `json:"num_profile_runs"`
			Successful int              `json:"num_successful_runs"`
			Failed     []map[string]any `json:"failed_runs"`
			Level      float64          `json:"confidence_level"`
			Labels     []string         `json:"run_labels"`
			Cooldown   float64          `json:"cooldown_seconds"`
		} `json:"metadata"`
		Metrics map[string]map[string]any `json:"metrics"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	m := doc.Metadata
	if m.Type != "confidence" || m.Runs != 3 || m.Successful != 2 || len(m.Failed) != 1 || m.Failed[0]["label"] != "run_0002" ||
		m.Level != 0.95 || len(m.Labels) != 2 || m.Cooldown != 1.5 {
		t.Fatalf("metadata %+v", m)
	}
	if got := doc.Metrics["request_throughput_avg"]; got["mean"] != 12.0 || got["min"] != 10.0 || got["unit"] != "requests/sec" {
		t.Fatalf("request_throughput_avg %v", got)
	}
	if got := doc.Metrics["goodput_avg"]; got["std"] != nil || got["mean"] != 3.0 {
		t.Fatalf("goodput_avg %v (std must be null)", got)
	}
}

func TestWriteSummary(t *testing.T) {
	a, err := NewAggregate(fabricated(), 0.95, 0)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteSummary(&buf, a); err != nil {
		t.Fatal(err)
	}
	golden(t, "summary.txt.golden", buf.Bytes())
	// Request Latency shows its avg: mean 105, CI 105 ∓ 5*12.7062.
	for _, s := range []string{"Request Throughput (Avg):", "Request Latency (Avg):", "  Mean:        105.0000 ms",
		"  95% CI: [41.4690, 168.5310] ms", "  CV:             6.73%", "  - run_0002: every request failed"} {
		if !strings.Contains(buf.String(), s) {
			t.Errorf("summary lacks %q:\n%s", s, buf.String())
		}
	}
}
