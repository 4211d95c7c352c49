package main

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

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
