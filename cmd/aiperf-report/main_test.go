package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/mockserver"
	"github.com/aiperf-go/aiperf/mockserver/mocktest"
	"github.com/aiperf-go/aiperf/runner"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// reportCLI runs the CLI in-process.
func reportCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	err := run(context.Background(), args, strings.NewReader(""), &out, &errb)
	return exitCode(err, &errb), out.String(), errb.String()
}

// benchmark runs one real benchmark into dir against a mock with the given
// TTFT and returns its run id and console output.
func benchmark(t *testing.T, dir string, ttft time.Duration) (string, string) {
	return benchmarkWith(t, dir, ttft, "")
}

// benchmarkWith is benchmark with a --goodput spec.
func benchmarkWith(t *testing.T, dir string, ttft time.Duration, goodput string) (string, string) {
	t.Helper()
	return benchmarkRun(t, dir, mockserver.Config{TTFT: ttft, ITL: time.Millisecond, OutputTokens: 8},
		func(cfg *runner.Config) { cfg.Goodput = goodput })
}

// benchmarkRun runs one real benchmark into dir against a mock configured
// by mock, with the runner's configuration changed by set, and returns its
// run id and console output.
func benchmarkRun(t *testing.T, dir string, mock mockserver.Config, set func(*runner.Config)) (string, string) {
	t.Helper()
	srv := mocktest.Start(t, mock)
	cfg := runner.Defaults()
	cfg.Models, cfg.URL, cfg.UIType = []string{"mock-model"}, srv.URL(), "none"
	cfg.ArtifactDir, cfg.ArtifactDirSet = dir, true
	cfg.Streaming, cfg.Concurrency, cfg.RequestCount, cfg.ISLMean, cfg.OSLMean = true, 2, 20, 64, 8
	cfg.RandomSeed, cfg.RandomSeedSet = 1, true
	set(&cfg)
	var stdout bytes.Buffer
	res, err := runner.Run(context.Background(), &cfg, runner.Options{Version: "test", Stdout: &stdout})
	if err != nil {
		t.Fatal(err)
	}
	return res.Files.RunID, stdout.String()
}

// consoleTable is the part of the runner's console report that `show`
// reproduces: everything before the footer lines.
func consoleTable(s string) string {
	for _, footer := range []string{"\nCLI Command:", "\nBenchmark Duration:"} {
		if i := strings.Index(s, footer); i >= 0 {
			return s[:i]
		}
	}
	return s
}

// showTable is the part of show's output that reproduces the runner's
// console table: everything before the telemetry tables.
func showTable(s string) string {
	for _, heading := range []string{"\nGPU Telemetry:", "\nServer Metrics:"} {
		if i := strings.Index(s, heading); i >= 0 {
			s = s[:i]
		}
	}
	return s
}

func TestIngestShowCompareRegress(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(t.TempDir(), "runs.duckdb")
	base, baseOut := benchmark(t, dir, 20*time.Millisecond)
	same, _ := benchmark(t, dir, 20*time.Millisecond)

	code, out, errs := reportCLI(t, "--db", db, "ingest", dir)
	if code != 0 || !strings.Contains(out, "2 loaded") {
		t.Fatalf("ingest: %d %s %s", code, out, errs)
	}
	if code, out, _ = reportCLI(t, "--db", db, "ingest", dir); code != 0 || !strings.Contains(out, "0 loaded") {
		t.Fatalf("second ingest must load nothing: %s", out)
	}

	code, out, errs = reportCLI(t, "--db", db, "show", base)
	if code != 0 {
		t.Fatalf("show: %s", errs)
	}
	if want := consoleTable(baseOut); showTable(out) != want {
		t.Fatalf("show differs from the runner's table:\n--- show\n%s\n--- runner\n%s", out, want)
	}

	if code, out, errs = reportCLI(t, "--db", db, "runs"); code != 0 || !strings.Contains(out, base) || !strings.Contains(out, same) {
		t.Fatalf("runs: %d %s %s", code, out, errs)
	}
	if code, out, errs = reportCLI(t, "--db", db, "--format", "csv", "compare", base, same); code != 0 || !strings.Contains(out, "time_to_first_token,p99,ms,") {
		t.Fatalf("compare: %d %s %s", code, out, errs)
	}

	// The median, not the p99: two runs of 20 requests at the same TTFT
	// differ by more than 50% at p99 when the machine is busy; the 3x
	// slower run below shows at every percentile.
	check := []string{"--db", db, "regress", "--metric", "time_to_first_token.p50", "--max-increase", "50%"}
	if code, out, errs = reportCLI(t, check...); code != 0 || !strings.Contains(out, "ok") {
		t.Fatalf("equal runs must pass: %d\n%s%s", code, out, errs)
	}
	slow, _ := benchmark(t, dir, 60*time.Millisecond)
	if code, _, errs = reportCLI(t, "--db", db, "ingest", dir); code != 0 {
		t.Fatal(errs)
	}
	summary := filepath.Join(t.TempDir(), "summary.md")
	code, out, errs = reportCLI(t, append(check, "--summary-file", summary)...)
	if code != exitRegressed || !strings.Contains(out, "REGRESSED") || !strings.Contains(out, slow) || !strings.Contains(errs, "regression detected") {
		t.Fatalf("a 3x slower TTFT must fail: %d\n%s%s", code, out, errs)
	}

	if code, out, _ = reportCLI(t, "--db", db, "--format", "json", "sql", "SELECT count(*) AS n FROM requests"); code != 0 || !strings.Contains(out, `"n": 60`) {
		t.Fatalf("sql: %s", out)
	}

	// Charts and the self-contained HTML report.
	charts := t.TempDir()
	if code, out, errs = reportCLI(t, "--db", db, "plot", "--output", charts); code != 0 || !strings.Contains(out, "report.html") {
		t.Fatalf("plot: %d %s %s", code, out, errs)
	}
	page, err := os.ReadFile(filepath.Join(charts, "report.html"))
	if err != nil || !strings.Contains(string(page), "<svg") || !strings.Contains(string(page), "new Chart(") || strings.Contains(string(page), "src=") {
		t.Fatalf("report.html: %v", err)
	}
	if code, _, errs = reportCLI(t, "--db", db, "plot", "--output", charts, "--group-by", "label:gpu"); code != 0 {
		t.Fatalf("plot --group-by label:gpu: %d %s", code, errs)
	}
	if code, _, errs = reportCLI(t, "--db", db, "plot", "--output", charts, "--group-by", "gpu"); code != 2 || !strings.Contains(errs, "label:KEY") {
		t.Fatalf("plot --group-by gpu: %d %s, want exit 2 naming label:KEY", code, errs)
	}

	// Parquet export, read back through DuckDB.
	pq := t.TempDir()
	if code, out, errs = reportCLI(t, "--db", db, "export", pq); code != 0 || !strings.Contains(out, "requests.parquet") {
		t.Fatalf("export: %d %s %s", code, out, errs)
	}
	store := t.TempDir()
	if code, _, errs = reportCLI(t, "--db", db, "export", "file://"+store+"/tables"); code != 0 {
		t.Fatalf("export to a store URL: %s", errs)
	}
	if _, err := os.Stat(filepath.Join(store, "tables", "run_metrics.parquet")); err != nil {
		t.Fatal(err)
	}
	q := "SELECT (SELECT count(*) FROM '" + pq + "/requests.parquet') AS requests, (SELECT count(*) FROM '" + pq + "/runs.parquet') AS runs, " +
		"(SELECT count(*) FROM '" + pq + "/server_metrics.parquet') = (SELECT count(*) FROM server_metrics) AND (SELECT count(*) FROM server_metrics) > 0 AS server_metrics"
	if code, out, errs = reportCLI(t, "--db", db, "--format", "csv", "sql", q); code != 0 || out != "requests,runs,server_metrics\n60,3,true\n" {
		t.Fatalf("parquet read back: %d %q %s", code, out, errs)
	}
}

func TestUsageErrors(t *testing.T) {
	db := filepath.Join(t.TempDir(), "x.duckdb")
	for _, args := range [][]string{
		{"--db", db, "ingest"},
		{"--db", db, "show"},
		{"--db", db, "compare", "a"},
		{"--db", db, "regress", "--metric", "ttft", "--max-increase", "10%"},
		{"--db", db, "regress", "--metric", "time_to_first_token.p99"},
		{"--db", db, "--format", "xml", "sql", "select 1"},
	} {
		if code, _, errs := reportCLI(t, args...); code != 2 {
			t.Errorf("%v: exit %d (%s), want 2", args, code, errs)
		}
	}
}

// TestShowGoodput: show uses the run's own --goodput SLOs, and prints the
// console of the run's --output-schema: AIPerf 0.13's (1.4, the default:
// the error summary first, then the Effective, Active and Usage tables,
// the metrics table with the error-adjusted rows last, and the
// prompt-cache hint) or AIPerf 0.8's (1.0), as the runner printed it.
func TestShowGoodput(t *testing.T) {
	const slo = "time_to_first_token:21"
	tests := []struct {
		name   string
		schema string
		errors float64
		// want and wantNot are lines the table has or lacks, beside
		// being the runner's.
		want, wantNot []string
	}{
		{name: "1.4", want: []string{"NVIDIA AIPerf | LLM Metrics: Effective", "NVIDIA AIPerf | LLM Metrics: Active",
			"NVIDIA AIPerf | LLM Metrics: Usage", "Effective Latency (CO-aware)", "Request Error Rate (%)",
			"enable cache reporting"}, wantNot: []string{"Error Summary", "(error-adjusted)"}},
		{name: "1.4 with errors", errors: 0.3, want: []string{"NVIDIA AIPerf | Error Summary",
			"NVIDIA AIPerf | LLM Metrics: Effective", "Request Latency (error-adjusted)"}},
		{name: "1.0", schema: "1.0", wantNot: []string{"LLM Metrics: Effective", "Request Error Rate", "enable cache reporting"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			db := filepath.Join(t.TempDir(), "runs.duckdb")
			mock := mockserver.Config{TTFT: 20 * time.Millisecond, ITL: time.Millisecond, OutputTokens: 8,
				ErrorRate: tt.errors, Seed: 5}
			id, out := benchmarkRun(t, dir, mock, func(cfg *runner.Config) {
				cfg.Goodput = slo
				if tt.schema != "" {
					cfg.OutputSchema = tt.schema
				}
			})
			if code, _, errs := reportCLI(t, "--db", db, "ingest", dir); code != 0 {
				t.Fatal(errs)
			}
			code, shown, errs := reportCLI(t, "--db", db, "show", id)
			shown = showTable(shown)
			if code != 0 || !strings.Contains(shown, "Goodput (requests/sec)") || shown != consoleTable(out) {
				t.Fatalf("show with goodput (%d %s):\n%s\n---\n%s", code, errs, shown, consoleTable(out))
			}
			for _, line := range tt.want {
				if !strings.Contains(shown, line) {
					t.Errorf("show lacks %q:\n%s", line, shown)
				}
			}
			for _, line := range tt.wantNot {
				if strings.Contains(shown, line) {
					t.Errorf("show has %q:\n%s", line, shown)
				}
			}
		})
	}
}

// telemetryFixture is query's store of runs with telemetry: a finished run
// with GPU telemetry (AIPerf's fixture) and vLLM server metrics, a killed
// run whose records and telemetry are segments, and an older run without
// telemetry.
const (
	telemetryFixture = "../../query/testdata/telemetry-store"
	telemetryRun     = "20251107T213850Z-7e1e0001"
)

// TestShowTelemetry: show prints the run's console table and then its GPU
// and server telemetry (golden file; the telemetry numbers are checked by
// hand in query's and report's tests); plot adds the GPU chart; the
// telemetry tables answer SQL.
func TestShowTelemetry(t *testing.T) {
	store := t.TempDir()
	if err := os.CopyFS(store, os.DirFS(telemetryFixture)); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "runs.duckdb")
	if code, out, errs := reportCLI(t, "--db", db, "ingest", store); code != 0 || !strings.Contains(out, "3 loaded") {
		t.Fatalf("ingest: %d %s %s", code, out, errs)
	}
	code, out, errs := reportCLI(t, "--db", db, "show", telemetryRun)
	if code != 0 {
		t.Fatalf("show: %d %s", code, errs)
	}
	golden := filepath.Join("testdata", "show-telemetry.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if out != string(want) {
		t.Errorf("show:\n%s\n--- want (%s; -update rewrites)\n%s", out, golden, want)
	}

	q := "SELECT count(*) AS readings, sum(energy_j) > 366 AS drew FROM gpu_telemetry JOIN gpu_summary USING (run_id, source_url, gpu_index, gpu_uuid) WHERE run_id = '" + telemetryRun + "'"
	if code, out, errs := reportCLI(t, "--db", db, "--format", "csv", "sql", q); code != 0 || out != "readings,drew\n20,true\n" {
		t.Errorf("sql: %d %q %s", code, out, errs)
	}

	charts := t.TempDir()
	code, out, errs = reportCLI(t, "--db", db, "plot", "--output", charts, telemetryRun)
	if code != 0 || !strings.Contains(out, telemetryRun+"-gpu.png") {
		t.Fatalf("plot: %d %s %s", code, out, errs)
	}
}
