package multirun

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/aiperf-go/aiperf/mockserver"
	"github.com/aiperf-go/aiperf/mockserver/mocktest"
	"github.com/aiperf-go/aiperf/runner"
)

// TestSweepOfDatasetSettings sweeps --isl and --osl over real HTTP: each
// point's measured average is its value, and the summary has its column.
func TestSweepOfDatasetSettings(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{})
	for _, tt := range []struct {
		name   string
		setup  func(*runner.Config)
		dirs   []string
		header string
		values []string // the metric avg each point must have
		tag    string
	}{
		{"isl", func(c *runner.Config) { c.ISLList, c.ISLStddev = []int{32, 64}, 0 },
			[]string{"isl_32", "isl_64"}, "ISL", []string{"32", "64"}, "input_sequence_length"},
		{"osl", func(c *runner.Config) { c.OSLList, c.OSLStddev = []int{8, 16}, 0 },
			[]string{"osl_8", "osl_16"}, "OSL", []string{"8", "16"}, "output_sequence_length"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := tinyConfig(t, srv.URL())
			tt.setup(cfg)
			var rec recorder
			if _, err := Sweep(context.Background(), cfg, rec.options(&bytes.Buffer{})); err != nil {
				t.Fatal(err)
			}
			rows := readCSV(t, filepath.Join(cfg.ArtifactDir, SweepSummaryName))
			if len(rows) != 3 || strings.Join(rows[0], ",") != tt.header+","+sweepCSVHeader {
				t.Fatalf("rows %q", rows)
			}
			for i, d := range tt.dirs {
				// With stddev 0 every request has the point's length, so
				// its average is exactly the swept value.
				got := runValue(t, filepath.Join(cfg.ArtifactDir, d), tt.tag, "avg")
				if strconv.FormatFloat(got, 'f', -1, 64) != tt.values[i] {
					t.Errorf("%s: %s avg %v, want %s", d, tt.tag, got, tt.values[i])
				}
				if rows[i+1][0] != tt.values[i] || rows[i+1][1] != "1" {
					t.Errorf("row %d %q", i+1, rows[i+1])
				}
			}
		})
	}
}

func TestSweepOfDatasetEntries(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{})
	cfg := tinyConfig(t, srv.URL())
	cfg.NumDatasetEntriesList = []int{3, 5}
	var rec recorder
	if _, err := Sweep(context.Background(), cfg, rec.options(&bytes.Buffer{})); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{3, 5} {
		var doc struct {
			Data []json.RawMessage `json:"data"`
		}
		readJSON(t, filepath.Join(cfg.ArtifactDir, "num_dataset_entries_"+strconv.Itoa(n), "inputs.json"), &doc)
		if len(doc.Data) != n {
			t.Errorf("num_dataset_entries %d: inputs.json has %d entries", n, len(doc.Data))
		}
	}
	rows := readCSV(t, filepath.Join(cfg.ArtifactDir, SweepSummaryName))
	if rows[0][0] != "Num Dataset Entries" || rows[1][0] != "3" || rows[2][0] != "5" {
		t.Errorf("rows %q", rows)
	}
}

// bodyRecorder is a proxy to a mock server that keeps the length of each
// embeddings request's "input" list, in arrival order.
type bodyRecorder struct {
	mu      sync.Mutex
	batches []int
}

func (b *bodyRecorder) start(t *testing.T, target string) string {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(u)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/embeddings") {
			body, _ := io.ReadAll(r.Body)
			var req struct {
				Input []string `json:"input"`
			}
			if err := json.Unmarshal(body, &req); err != nil {
				t.Errorf("body %s: %v", body, err)
			}
			b.mu.Lock()
			b.batches = append(b.batches, len(req.Input))
			b.mu.Unlock()
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestSweepOfBatchSize(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{})
	var bodies bodyRecorder
	cfg := tinyConfig(t, bodies.start(t, srv.URL()))
	cfg.EndpointType, cfg.Streaming = "embeddings", false
	cfg.PromptBatchSizeList = []int{1, 3}
	var rec recorder
	if _, err := Sweep(context.Background(), cfg, rec.options(&bytes.Buffer{})); err != nil {
		t.Fatal(err)
	}
	// The points run one after the other: 4 requests of one text, then 4
	// of three.
	if want := []int{1, 1, 1, 1, 3, 3, 3, 3}; !slices.Equal(bodies.batches, want) {
		t.Errorf("texts per request %v, want %v", bodies.batches, want)
	}
	rows := readCSV(t, filepath.Join(cfg.ArtifactDir, SweepSummaryName))
	if rows[0][0] != "Batch Size" || rows[1][0] != "1" || rows[2][0] != "3" {
		t.Errorf("rows %q", rows)
	}
}

func TestSweepGridOfTwoSettings(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{})
	cfg := tinyConfig(t, srv.URL())
	cfg.RequestCount = 2
	cfg.ISLList, cfg.OSLList = []int{32, 64}, []int{4, 8}
	var rec recorder
	if _, err := Sweep(context.Background(), cfg, rec.options(&bytes.Buffer{})); err != nil {
		t.Fatal(err)
	}
	rows := readCSV(t, filepath.Join(cfg.ArtifactDir, SweepSummaryName))
	want := [][2]string{{"32", "4"}, {"32", "8"}, {"64", "4"}, {"64", "8"}}
	if len(rows) != 5 || rows[0][0] != "ISL" || rows[0][1] != "OSL" || rows[0][2] != "Successful Runs" {
		t.Fatalf("rows %q", rows)
	}
	for i, w := range want {
		dir := filepath.Join(cfg.ArtifactDir, "isl_"+w[0]+"__osl_"+w[1])
		if rows[i+1][0] != w[0] || rows[i+1][1] != w[1] ||
			strconv.FormatFloat(runValue(t, dir, "output_sequence_length", "avg"), 'f', -1, 64) != w[1] {
			t.Errorf("point %d: row %q", i, rows[i+1])
		}
	}
}

func TestAnalyzeLayoutAndSummary(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{})
	cfg := tinyConfig(t, srv.URL())
	cfg.ISLStddev = 0
	if err := ApplyAnalyzeSweep(cfg, "input_sequence_length", "", "32,64"); err != nil {
		t.Fatal(err)
	}
	var rec recorder
	var out bytes.Buffer
	if _, err := Analyze(context.Background(), cfg, rec.options(&out)); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(cfg.ArtifactDir, AnalyzeSummaryName)
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// GenAI-Perf's two tables: the scenarios, an empty line, the GPU
	// table's header (no GPU here).
	tables := strings.Split(string(raw), "\r\n\r\n")
	if len(tables) != 2 || tables[1] != "Config Name,GPU,p99 GPU Power Usage (W),p99 GPU Energy Consumption (MJ),p99 GPU Utilization (%),"+
		"p99 GPU Memory Used (GB),Avg. GPU Power Limit (W),Avg. GPU Total Memory (GB)\r\n" {
		t.Fatalf("summary:\n%q", raw)
	}
	lines := strings.Split(strings.TrimSuffix(tables[0], "\r\n"), "\r\n")
	wantHeader := "Config Name,Concurrency,ISL,Num Dataset Entries,p99 Time To First Token (ms),p99 Inter Token Latency (ms)," +
		"p99 Request Latency (ms),p99 Output Sequence Length (tokens),Avg. Output Token Throughput (tokens/sec),Request Throughput (requests/sec)"
	if len(lines) != 3 || lines[0] != wantHeader {
		t.Fatalf("lines %q", lines)
	}
	for i, isl := range []string{"32", "64"} {
		dir := filepath.Join(cfg.ArtifactDir, "mock-model-openai-chat-input_sequence_length"+isl)
		f := func(tag, stat string) string { return strconv.FormatFloat(runValue(t, dir, tag, stat), 'f', 2, 64) }
		want := strings.Join([]string{"mock-model_run_config_" + strconv.Itoa(i), "2", isl, "4",
			f("time_to_first_token", "p99"), f("inter_token_latency", "p99"), f("request_latency", "p99"),
			f("output_sequence_length", "p99"), f("output_token_throughput", "avg"), f("request_throughput", "avg")}, ",")
		if lines[i+1] != want {
			t.Errorf("row %d = %q, want %q", i+1, lines[i+1], want)
		}
	}
	if !strings.Contains(out.String(), "Analyze Summary CSV: "+path) {
		t.Errorf("stdout:\n%s", out.String())
	}
}
