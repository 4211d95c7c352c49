package runner

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/mockserver"
	"github.com/aiperf-go/aiperf/mockserver/mocktest"
	"github.com/aiperf-go/aiperf/telemetry"
)

// storedManifest is the part of manifest.json the telemetry tests read.
type storedManifest struct {
	Server    *telemetry.Server `json:"server"`
	Telemetry *struct {
		Sources  []telemetry.Health `json:"sources"`
		GPUCount int                `json:"gpu_count"`
	} `json:"telemetry"`
	Objects []struct {
		Name string `json:"name"`
	} `json:"objects"`
}

func readManifest(t *testing.T, dir, runID string) storedManifest {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "runs", runID, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m storedManifest
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// counterTotal returns the stats.total of a counter's series in
// server_metrics_export.json.
func counterTotal(t *testing.T, dir, metric string) float64 {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "server_metrics_export.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Metrics map[string]struct {
			Type   string `json:"type"`
			Series []struct {
				Stats map[string]float64 `json:"stats"`
			} `json:"series"`
		} `json:"metrics"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	m, ok := doc.Metrics[metric]
	if !ok || m.Type != "counter" || len(m.Series) != 1 {
		t.Fatalf("%s in server_metrics_export.json: %+v", metric, m)
	}
	return m.Series[0].Stats["total"]
}

// TestTelemetryEndToEnd benchmarks the mock server with its vLLM metrics
// and two fake DCGM GPUs, and checks every telemetry output: the stored
// GPU readings, the server metrics export against the tokens the records
// counted, the manifest's provenance and health, and the console table.
func TestTelemetryEndToEnd(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{TTFT: 5 * time.Millisecond, ITL: time.Millisecond, FakeGPUs: 2})
	cfg := testConfig(t, srv.URL())
	cfg.Streaming = true
	cfg.OSLMean = 12
	cfg.Concurrency, cfg.RequestCount = 4, 40
	cfg.ServerMetricsInterval = 10 * time.Millisecond
	cfg.GPUInterval = 10 * time.Millisecond
	cfg.GPUTelemetry = []string{srv.URL() + "/dcgm/metrics"}
	cfg.FlagsSet = append(cfg.FlagsSet, "gpu-telemetry")
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	var stdout bytes.Buffer
	res, err := Run(context.Background(), cfg, Options{Version: "test", Stdout: &stdout})
	if err != nil {
		t.Fatal(err)
	}
	dir := cfg.ArtifactDir

	// The server counted exactly the tokens the records report. (A warmup
	// would hand over to profiling with its requests in flight, whose
	// tokens the server counts in the window.)
	var completion float64
	for _, r := range readRecords(t, dir) {
		v, ok := r.num("usage_completion_tokens")
		if !ok {
			t.Fatal("record without usage_completion_tokens")
		}
		completion += v
	}
	if got := counterTotal(t, dir, "vllm:generation_tokens"); got != completion {
		t.Errorf("vllm:generation_tokens total %v, records' completion tokens %v", got, completion)
	}

	// Every GPU reading is stored, for both GPUs, from the DCGM URL.
	f, err := os.Open(filepath.Join(dir, "gpu_telemetry_export.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	uuids := map[string]int{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var g telemetry.GPUReading
		if err := json.Unmarshal(sc.Bytes(), &g); err != nil {
			t.Fatalf("gpu line: %v: %s", err, sc.Text())
		}
		if g.SourceURL != srv.URL()+"/dcgm/metrics" {
			t.Fatalf("source %q", g.SourceURL)
		}
		if _, ok := g.Data.Get("nvidia_power_usage"); !ok { // 0.13's name, in the default 1.4 layout
			t.Fatalf("no power: %s", sc.Text())
		}
		uuids[g.GPUUUID]++
	}
	if len(uuids) != 2 {
		t.Errorf("GPUs stored: %v", uuids)
	}

	m := readManifest(t, dir, res.Files.RunID)
	if m.Server == nil || m.Server.Software != "aiperf-mock" || len(m.Server.Models) == 0 || m.Server.Answers["/version"] == nil {
		t.Errorf("manifest server: %+v", m.Server)
	}
	if m.Telemetry == nil || m.Telemetry.GPUCount != 2 || len(m.Telemetry.Sources) != 2 {
		t.Fatalf("manifest telemetry: %+v", m.Telemetry)
	}
	for _, h := range m.Telemetry.Sources {
		if !h.Reachable || h.Scrapes < 3 || h.Failures != 0 || h.Dropped != 0 {
			t.Errorf("source health: %+v", h)
		}
	}
	for _, o := range m.Objects {
		if strings.HasPrefix(o.Name, "telemetry/gpu/") || strings.HasPrefix(o.Name, "telemetry/server/") {
			t.Errorf("segment %s left after composing", o.Name)
		}
	}
	for _, name := range []string{"server_metrics_export.csv", "server_metrics_metadata.json", "server_metrics_export.jsonl"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Error(err)
		}
	}
	// What a reader of an unfinished run needs was stored before the first
	// request: the server's identity and its metrics' types.
	start, err := os.ReadFile(filepath.Join(dir, "runs", res.Files.RunID, "telemetry", "start.json"))
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Server  *telemetry.Server `json:"server"`
		Metrics map[string]struct {
			Type string `json:"type"`
		} `json:"metrics"`
	}
	if err := json.Unmarshal(start, &st); err != nil || st.Server == nil || st.Server.Software != "aiperf-mock" ||
		st.Metrics["vllm:generation_tokens"].Type != "counter" || st.Metrics["vllm:num_requests_running"].Type != "gauge" ||
		st.Metrics["vllm:time_to_first_token_seconds"].Type != "histogram" {
		t.Errorf("telemetry/start.json: %v %s", err, start)
	}
	summary, err := os.ReadFile(filepath.Join(dir, "profile_export_aiperf.json"))
	if err != nil || !bytes.Contains(summary, []byte(`"telemetry_data"`)) {
		t.Errorf("summary JSON lacks telemetry_data (%v)", err)
	}
	checkEnergy14(t, summary)
	out := stdout.String()
	if !strings.Contains(out, "Telemetry: server metrics 1/1 sources reachable (") || !strings.Contains(out, "GPU 1/1 sources reachable (") ||
		!strings.Contains(out, "Server Metrics: "+filepath.Join(dir, "server_metrics_export.json")) {
		t.Errorf("console lacks the telemetry notes:\n%s", out)
	}
	if !strings.Contains(out, "GPU Power Efficiency (NVIDIA)") || !strings.Contains(out, "Platform: nvidia") {
		t.Errorf("console lacks the GPU power efficiency table:\n%s", out)
	}
	if !strings.Contains(out, "GPU Telemetry Summary") || !strings.Contains(out, "1/1 telemetry sources reachable") {
		t.Errorf("console lacks the GPU telemetry summary:\n%s", out)
	}
}

// TestTelemetryFaults runs against server metrics endpoints that are down,
// slower than the interval, answer garbage now and then, or reset their
// counter mid-run: the run completes with every record, and each source's
// health says what happened.
func TestTelemetryFaults(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{TTFT: 2 * time.Millisecond})
	var n atomic.Int64
	flaky := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := n.Add(1)
		switch {
		case i%4 == 0:
			fmt.Fprint(w, "this is { not an exposition")
		case i%7 == 0:
			http.Error(w, "overloaded", http.StatusServiceUnavailable)
		default:
			v := i * 10
			if i > 12 {
				v = i // the counter restarts
			}
			fmt.Fprintf(w, "# TYPE jobs_total counter\njobs_total %d\n", v)
		}
	}))
	defer flaky.Close()
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(30 * time.Millisecond)
		fmt.Fprint(w, "# TYPE q gauge\nq 1\n")
	}))
	defer slow.Close()
	down := httptest.NewServer(http.NotFoundHandler())
	downURL := down.URL
	down.Close()

	cfg := testConfig(t, srv.URL())
	cfg.Concurrency, cfg.RequestCount = 2, 60
	cfg.ServerMetricsInterval = 5 * time.Millisecond
	cfg.ServerMetrics = []string{flaky.URL, slow.URL + "/metrics", downURL}
	res := runOK(t, cfg)
	if res.Summary.Valid != 60 {
		t.Fatalf("valid requests %d", res.Summary.Valid)
	}
	m := readManifest(t, cfg.ArtifactDir, res.Files.RunID)
	health := map[string]telemetry.Health{}
	for _, h := range m.Telemetry.Sources {
		health[h.Source] = h
	}
	if h := health[flaky.URL+"/metrics"]; !h.Reachable || h.Failures == 0 || h.LastError == "" {
		t.Errorf("flaky endpoint's health: %+v", h)
	}
	if h := health[slow.URL+"/metrics"]; !h.Reachable || h.Skipped == 0 || h.LatencyAvgMS < 30 {
		t.Errorf("slow endpoint's health: %+v", h)
	}
	if h := health[downURL+"/metrics"]; h.Reachable || h.LastError == "" {
		t.Errorf("down endpoint's health: %+v", h)
	}
	if h := health[srv.URL()+"/metrics"]; !h.Reachable || h.Failures != 0 {
		t.Errorf("the server's own endpoint: %+v", h)
	}
	// The reset is clamped: the total never goes below zero.
	if got := counterTotal(t, cfg.ArtifactDir, "jobs"); got < 0 {
		t.Errorf("jobs total %v after a reset", got)
	}
}

// TestTelemetryOff checks that --no-server-metrics and --no-gpu-telemetry
// scrape nothing and write no telemetry files, while the server is still
// identified.
func TestTelemetryOff(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{FakeGPUs: 1})
	cfg := testConfig(t, srv.URL())
	cfg.Concurrency, cfg.RequestCount = 1, 5
	cfg.NoServerMetrics, cfg.NoGPUTelemetry = true, true
	cfg.DCGMEndpoints = []string{srv.URL() + "/dcgm/metrics"}
	res := runOK(t, cfg)
	for _, name := range []string{"server_metrics_export.json", "gpu_telemetry_export.jsonl", "server_metrics_export.jsonl"} {
		if _, err := os.Stat(filepath.Join(cfg.ArtifactDir, name)); err == nil {
			t.Errorf("%s written with telemetry off", name)
		}
	}
	m := readManifest(t, cfg.ArtifactDir, res.Files.RunID)
	if m.Telemetry != nil || m.Server == nil || m.Server.Software != "aiperf-mock" {
		t.Errorf("manifest: telemetry %+v server %+v", m.Telemetry, m.Server)
	}
}
