package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/query"
)

// TestPlotWhere: plot --where keeps the runs a predicate over runs holds
// for; a second statement is a usage error (exit 2) that names --where and
// changes nothing.
func TestPlotWhere(t *testing.T) {
	db := filepath.Join(t.TempDir(), "runs.duckdb")
	d, err := query.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.SQL().Exec(`INSERT INTO runs (run_id, source, status, model, endpoint_type, concurrency, ingested_at, content_key) VALUES
		('run-a', 's', 'complete', 'model-a', 'chat', 4, now(), 'ka'),
		('run-b', 's', 'complete', 'model-b', 'chat', 8, now(), 'kb')`); err != nil {
		t.Fatal(err)
	}
	d.Close()

	out := t.TempDir()
	if code, _, errs := reportCLI(t, "--db", db, "plot", "--output", out, "--where", "model = 'model-a'"); code != 0 {
		t.Fatalf("plot --where: %d %s", code, errs)
	}
	page, err := os.ReadFile(filepath.Join(out, "report.html"))
	if err != nil || !strings.Contains(string(page), "<td>run-a</td>") || strings.Contains(string(page), "<td>run-b</td>") {
		t.Fatalf("report.html must list run-a only: %v", err)
	}
	code, _, errs := reportCLI(t, "--db", db, "plot", "--output", out, "--where", "true; DELETE FROM runs")
	if code != 2 || !strings.Contains(errs, "--where") {
		t.Fatalf("plot --where with two statements: %d %s, want exit 2 naming --where", code, errs)
	}
	if code, stdout, _ := reportCLI(t, "--db", db, "--format", "csv", "sql", "SELECT count(*) AS n FROM runs"); code != 0 || !strings.Contains(stdout, "2") {
		t.Fatalf("runs after a refused --where: %s", stdout)
	}
}
