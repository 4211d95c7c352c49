package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// cliFixture ingests two runs of one workload into a fresh database and
// returns the database, the store and the first run's id.
func cliFixture(t *testing.T) (db, store, run string) {
	t.Helper()
	store = t.TempDir()
	db = filepath.Join(t.TempDir(), "runs.duckdb")
	run, _ = benchmark(t, store, 20*time.Millisecond)
	benchmark(t, store, 20*time.Millisecond)
	if code, out, errs := reportCLI(t, "--db", db, "ingest", store); code != 0 {
		t.Fatalf("ingest: %d %s %s", code, out, errs)
	}
	return db, store, run
}

// TestNeverSilentlyGreen: names that do not exist and values that are not
// accepted are errors with a non-zero exit status and a message that says
// what is wrong, never an empty answer with exit 0.
func TestNeverSilentlyGreen(t *testing.T) {
	db, _, run := cliFixture(t)
	missing := filepath.Join(t.TempDir(), "none")
	regress := []string{"--db", db, "regress", "--metric", "time_to_first_token.p99", "--max-increase", "10%"}
	// A database with one run: nothing to compare it with, which passes
	// (a nightly's first night) but says so.
	one, oneStore := filepath.Join(t.TempDir(), "one.duckdb"), t.TempDir()
	benchmark(t, oneStore, 20*time.Millisecond)
	if code, _, errs := reportCLI(t, "--db", one, "ingest", oneStore); code != 0 {
		t.Fatal(errs)
	}
	for _, tc := range []struct {
		name string
		args []string
		code int
		errs string
	}{
		{"ingest missing dir", []string{"--db", db, "ingest", missing}, 1, "no such directory"},
		{"ingest missing file URL", []string{"--db", db, "ingest", "file://" + missing}, 1, "no such directory"},
		{"ingest empty dir", []string{"--db", db, "ingest", t.TempDir()}, 1, "no runs found"},
		{"missing db", []string{"--db", missing + ".duckdb", "runs"}, 1, "does not exist"},
		{"show missing run", []string{"--db", db, "show", "nosuchrun"}, 1, "nosuchrun"},
		{"runs unknown status", []string{"--db", db, "runs", "--status", "bogus"}, 2, "complete, failed"},
		{"runs unknown workload", []string{"--db", db, "runs", "--workload", "bogus"}, 1, "known: mock-model"},
		{"runs unknown model", []string{"--db", db, "runs", "--model", "bogus"}, 1, "known: mock-model"},
		{"runs since yesterday", []string{"--db", db, "runs", "--since", "yesterday"}, 2, "a date (2026-11-01)"},
		{"regress unknown workload", append(regress, "--workload", "bogus"), 1, "could not check"},
		{"regress unknown metric", []string{"--db", db, "regress", "--metric", "bogus.p99", "--max-increase", "10%"}, 2, "no run has the metric"},
		{"regress unknown stat", []string{"--db", db, "regress", "--metric", "time_to_first_token.p77", "--max-increase", "10%"}, 2, "unknown statistic"},
		{"regress unknown baseline", append(regress, "--baseline", "nosuch"), 1, "--baseline nosuch"},
		{"regress nothing to compare", []string{"--db", one, "regress", "--max-increase", "10%"}, 0, "nothing was checked"},
		{"sql extra words", []string{"--db", db, "sql", "SELECT 1", "UNION ALL SELECT 2"}, 2, "one argument"},
		{"sql writes", []string{"--db", db, "sql", "DELETE FROM requests"}, 1, "--write"},
		{"show bad format", []string{"--db", db, "show", run, "--format", "xml"}, 2, "use one of"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := reportCLI(t, tc.args...)
			if code != tc.code || !strings.Contains(errs, tc.errs) {
				t.Fatalf("exit %d, stderr %q (stdout %q); want exit %d and %q", code, errs, out, tc.code, tc.errs)
			}
		})
	}
	if _, err := os.Stat(missing + ".duckdb"); err == nil {
		t.Error("a reader created the missing --db")
	}
	if code, out, _ := reportCLI(t, "--db", db, "--format", "csv", "sql", "SELECT count(*) AS n FROM requests"); code != 0 || out != "n\n40\n" {
		t.Errorf("sql without --write must leave the requests: %d %q", code, out)
	}
}

// TestFlagsAnywhere: flags are accepted after positional arguments, the
// query of sql comes from one argument, -f FILE or standard input, and
// --format and labels print as documented.
func TestFlagsAnywhere(t *testing.T) {
	db, _, run := cliFixture(t)
	code, out, errs := reportCLI(t, "--db", db, "show", run, "--format", "csv")
	if code != 0 || !strings.HasPrefix(out, "metric,unit,avg,") || !strings.Contains(out, "\ntime_to_first_token,ms,") {
		t.Fatalf("show RUN --format csv: %d %q %s", code, out, errs)
	}
	q := filepath.Join(t.TempDir(), "q.sql")
	if err := os.WriteFile(q, []byte("SELECT count(*) AS n FROM runs"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errs = reportCLI(t, "sql", "-f", q, "--db", db, "--format", "csv"); code != 0 || out != "n\n2\n" {
		t.Fatalf("sql -f: %d %q %s", code, out, errs)
	}
	if code, out, errs = reportCLI(t, "sql", "SELECT map(['gpu', 'branch'], ['h100', 'main']) AS labels", "--db", db, "--format", "csv"); code != 0 || out != "labels\n\"branch=main,gpu=h100\"\n" {
		t.Fatalf("labels: %d %q %s", code, out, errs)
	}
	if code, out, errs = reportCLI(t, "--db", db, "sql", "--write", "CREATE TABLE notes AS SELECT 1 AS x"); code != 0 {
		t.Fatalf("sql --write: %d %q %s", code, out, errs)
	}
	if code, out, errs = reportCLI(t, "--db", db, "--format", "json", "ingest", filepath.Dir(q)+"/../nope"); code != 1 {
		t.Fatalf("ingest of a missing store: %d %q %s", code, out, errs)
	}
	trace := filepath.Join(t.TempDir(), "trace.jsonl")
	if err := os.WriteFile(trace, []byte(`{"timestamp":0,"input_length":600,"output_length":5,"hash_ids":[1,2]}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errs = reportCLI(t, "analyze-trace", trace, "--block-size", "512"); code != 0 || !strings.Contains(out, "Total requests") {
		t.Fatalf("analyze-trace FILE --block-size: %d %q %s", code, out, errs)
	}
}

// TestIngestPartial: a run with a corrupt manifest, one with a corrupt
// summary and one with a truncated record line are each named with the
// reason; the good runs load and the exit status is 4 (partial). Errors
// are written once.
func TestIngestPartial(t *testing.T) {
	store := t.TempDir()
	good, _ := benchmark(t, store, 10*time.Millisecond)
	badManifest, _ := benchmark(t, store, 10*time.Millisecond)
	badSummary, _ := benchmark(t, store, 10*time.Millisecond)
	runDir := func(id string) string { return filepath.Join(store, "runs", id) }
	if err := os.WriteFile(filepath.Join(runDir(badManifest), "manifest.json"), []byte("garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(runDir(badSummary), "profile_export_aiperf.json"), []byte(`{"broken`), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "runs.duckdb")
	code, out, errs := reportCLI(t, "--db", db, "ingest", store)
	if code != exitPartial || !strings.Contains(errs, "run "+badManifest+": manifest:") || !strings.Contains(errs, "run "+badSummary+": summary:") ||
		!strings.Contains(out, "3 runs seen, 1 loaded") || strings.Count(errs, "ingest "+store) != 2 {
		t.Fatalf("ingest: exit %d\n%s%s", code, out, errs)
	}
	if code, out, errs = reportCLI(t, "--db", db, "--format", "csv", "sql", "SELECT run_id FROM runs"); code != 0 || out != "run_id\n"+good+"\n" {
		t.Fatalf("runs: %d %q %s", code, out, errs)
	}
}

// TestHelpExitStatus: --help documents the exit statuses.
func TestHelpExitStatus(t *testing.T) {
	code, out, _ := reportCLI(t, "--help")
	for _, want := range []string{"EXIT STATUS", "3  regress: a workload regressed", "4  ingest: partial"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("--help lacks %q: %d\n%s", want, code, out)
		}
	}
}
