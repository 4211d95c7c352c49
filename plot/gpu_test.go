package plot

import (
	"bytes"
	"context"
	"database/sql"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
)

// addTelemetry gives testDB's runs what the GPU charts need: r1 and r3
// know their GPU count (2 and 4), latency and per-user throughput, r3 has
// output lengths and two GPUs read every 0.5 s from 0.5 s to 4.5 s
// (Unix time), GPU i at 10*(k+1)+i % and 100*(k+1)+i W for reading k.
func addTelemetry(t *testing.T, db *sql.DB) {
	t.Helper()
	for _, s := range []string{
		`UPDATE runs SET gpu_count = CASE run_id WHEN 'r1' THEN 2 WHEN 'r3' THEN 4 END`,
		`INSERT INTO run_metrics (run_id, tag, unit, avg, scalar) VALUES
			('r1', 'request_latency', 'ms', 100, false), ('r3', 'request_latency', 'ms', 150, false),
			('r1', 'output_token_throughput_per_user', 'tokens/sec/user', 30, false),
			('r3', 'output_token_throughput_per_user', 'tokens/sec/user', 20, false)`,
		`UPDATE requests SET output_sequence_length = 10 WHERE run_id = 'r3'`,
		`INSERT INTO gpu_telemetry (run_id, ts, timestamp_ns, source_url, gpu_index, gpu_uuid, gpu_utilization, gpu_power_usage)
			SELECT 'r3', make_timestamp((k + 1) * 500000), (k + 1) * 500000000, 'http://h:9400/metrics', i, 'GPU-' || i,
				10 * (k + 1) + i, 100 * (k + 1) + i
			FROM range(9) a(k), range(2) b(i)`,
	} {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// TestLoadGPUSamples: r3's window runs from its first request (1.0 s) to
// its last request's start (3.9 s; the requests have no end), so the
// readings from 1.0 s (the last at or before the start) to 4.0 s (the
// first at or after the end) count: 7 per GPU, at 0, 0.5, … 3.0 s on the
// requests' time axis.
func TestLoadGPUSamples(t *testing.T) {
	db := testDB(t)
	addTelemetry(t, db)
	samples, err := loadGPUSamples(context.Background(), db, "r3")
	if err != nil {
		t.Fatal(err)
	}
	if len(samples) != 14 {
		t.Fatalf("%d samples, want 14: %v", len(samples), samples)
	}
	for _, s := range samples {
		k := int(math.Round(s.Time/0.5)) + 1 // reading k at (k+1) * 0.5 s, origin 1.0 s
		i := 0
		if s.GPU == "GPU 1" {
			i = 1
		}
		if k < 1 || k > 7 || s.Utilization != float64(10*(k+1)+i) || s.Power != float64(100*(k+1)+i) {
			t.Errorf("sample %+v", s)
		}
	}
	if none, err := loadGPUSamples(context.Background(), db, "r1"); err != nil || len(none) != 0 {
		t.Errorf("r1 has no telemetry: %v %v", none, err)
	}
}

// TestPerGPUPoints: throughput per GPU is the run's output token
// throughput over its GPU count: r1 500 / 2, r3 900 / 4, r2 unknown.
func TestPerGPUPoints(t *testing.T) {
	db := testDB(t)
	addTelemetry(t, db)
	runs, err := loadRuns(context.Background(), db, nil, whereClause{pred: wrapPred("status = 'complete'")}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	pts, err := loadPerGPU(context.Background(), db, runs, metricAvgSQL("request_latency"))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][2]float64{}
	for _, p := range pts {
		got[p.RunID] = [2]float64{p.X, p.Y}
	}
	if got["r1"] != [2]float64{100, 250} || got["r3"] != [2]float64{150, 225} || !math.IsNaN(got["r2"][1]) || len(got) != 3 {
		t.Fatalf("points %v", got)
	}
	// r1 is faster with more throughput per GPU: it alone is the frontier.
	if ids := ids(Frontier(pts)); !slices.Equal(ids, []string{"r1"}) {
		t.Errorf("frontier %v", ids)
	}
}

// TestRenderGPUCharts: with GPU counts and telemetry, Render adds the two
// per-GPU Pareto charts and the newest run's GPU chart.
func TestRenderGPUCharts(t *testing.T) {
	db := testDB(t)
	addTelemetry(t, db)
	dir := t.TempDir()
	paths, err := Render(context.Background(), db, dir, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := names(paths)
	for _, want := range []string{"pareto-throughput-per-gpu-vs-latency.png", "pareto-throughput-per-gpu-vs-latency.svg",
		"pareto-throughput-per-gpu-vs-interactivity.png", "pareto-throughput-per-gpu-vs-interactivity.svg",
		"r3-gpu.png", "r3-gpu.svg"} {
		if !slices.Contains(got, want) {
			t.Errorf("files %v lack %s", got, want)
		}
	}
	html := readFile(t, filepath.Join(dir, "report.html"))
	checkSelfContained(t, html)
	for _, s := range []string{"Throughput per GPU vs latency", "Throughput per GPU vs interactivity",
		"GPU utilisation and power with throughput", "tokens/s/GPU", "GPU utilisation (%)", "GPU power (W)", "GPU 1"} {
		if !strings.Contains(html, s) {
			t.Errorf("report.html lacks %q", s)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "r3-gpu.png"))
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	// Three panels: the canvas is 1.5 times the chart height.
	if h, w := img.Bounds().Dy(), img.Bounds().Dx(); math.Abs(float64(h)/float64(w)-1.5*5/8) > 0.01 {
		t.Errorf("r3-gpu.png is %dx%d", w, h)
	}
	checkXML(t, "r3-gpu.svg", []byte(readFile(t, filepath.Join(dir, "r3-gpu.svg"))))
}

func TestGPUOverTime(t *testing.T) {
	nan := math.NaN()
	if _, err := GPUOverTime("r", nil, []GPUSample{{GPU: "GPU 0", Time: 1, Utilization: nan, Power: nan}}); err == nil {
		t.Error("no utilisation or power must be an error")
	}
	reqs := []Request{{Start: 0, Latency: 1000, OSL: 10}, {Start: 1, Latency: 1000, OSL: 20}}
	samples := []GPUSample{{"GPU 0", -0.5, 50, 200}, {"GPU 0", 2.5, 60, nan}, {"GPU 1", 1, nan, 150}}
	f, err := GPUOverTime("r", reqs, samples)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Panels) != 3 {
		t.Fatalf("%d panels", len(f.Panels))
	}
	// One time axis, from the earliest reading to the last window's end
	// (windows of 0.1 s, the last starting at 2.0 s).
	for i, p := range f.Panels {
		if p.X.Min != -0.5 || math.Abs(p.X.Max-2.5) > 1e-9 {
			t.Errorf("panel %d spans %v..%v", i, p.X.Min, p.X.Max)
		}
	}
	if _, err := f.WriterTo(8*vg.Inch, 5*vg.Inch, "svg"); err != nil {
		t.Fatal(err)
	}
	// Without throughput, the GPU panels stand alone.
	if f, err := GPUOverTime("r", nil, samples); err != nil || len(f.Panels) != 2 {
		t.Fatalf("%v %v", f, err)
	}
}
