package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestTruncatedRecordsLoadInPart: a run whose profile_export.jsonl ends in
// a line cut short (a process killed mid-write) loads its complete
// records, says so in runs.reason and on stderr, and the ingest exits 4
// (partial); the other run loads whole.
func TestTruncatedRecordsLoadInPart(t *testing.T) {
	dir := t.TempDir()
	cut, _ := benchmark(t, dir, time.Millisecond)
	whole, _ := benchmark(t, dir, time.Millisecond)
	file := filepath.Join(dir, "runs", cut, "profile_export.jsonl")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Count(data, []byte("\n"))
	// The run's files are hard-linked at the top of dir: write a new file.
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, data[:len(data)-40], 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "runs.duckdb")
	code, out, errs := reportCLI(t, "--db", db, "ingest", dir)
	if code != exitPartial || !strings.Contains(errs, cut) || !strings.Contains(errs, "truncated") || !strings.Contains(out, "2 loaded") {
		t.Fatalf("ingest: exit %d, want %d\n%s%s", code, exitPartial, out, errs)
	}
	code, out, errs = reportCLI(t, "--db", db, "--format", "csv", "sql",
		"SELECT run_id, records, reason IS NOT NULL AND reason LIKE '%truncated%' AS marked FROM runs ORDER BY run_id")
	if code != 0 {
		t.Fatalf("sql: %s", errs)
	}
	for _, want := range []string{cut + "," + strconv.Itoa(lines-1) + ",true", whole + "," + strconv.Itoa(lines) + ",false"} {
		if !strings.Contains(out, want) {
			t.Errorf("runs:\n%s\nwant a row %s", out, want)
		}
	}
}
