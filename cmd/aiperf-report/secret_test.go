package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutputHidesStoredSecrets ingests query's leaky fixtures, a stored
// run of an older aiperf-go and a Python AIPerf directory whose files
// hold secrets (each containing "LEAK"), and checks that what the
// commands print about them, the raw JSON columns included, shows none.
func TestOutputHidesStoredSecrets(t *testing.T) {
	const (
		run    = "20251107T230000Z-5ec7e700"
		aiperf = "aiperf-5ec7e7a1-0000-4000-8000-000000000001"
	)
	store := t.TempDir()
	if err := os.CopyFS(store, os.DirFS("../../query/testdata/leaky-store")); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "leaky")
	if err := os.CopyFS(dir, os.DirFS("../../query/testdata/leaky-store/python-aiperf")); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "runs.duckdb")
	if code, out, errs := reportCLI(t, "--db", db, "ingest", store, dir); code != 0 || strings.Count(out, " 1 loaded") != 2 {
		t.Fatalf("ingest: %d %s %s", code, out, errs)
	}
	for _, args := range [][]string{
		{"runs"},
		{"show", run},
		{"show", aiperf},
		{"--format", "json", "sql", "SELECT * FROM runs"},
		{"--format", "json", "sql", "SELECT DISTINCT source_url FROM gpu_telemetry"},
		{"--format", "json", "sql", "SELECT DISTINCT endpoint_url FROM server_metrics"},
	} {
		code, out, errs := reportCLI(t, append([]string{"--db", db}, args...)...)
		if code != 0 {
			t.Errorf("%q: %d %s", args, code, errs)
		}
		if strings.Contains(out, "LEAK") || strings.Contains(errs, "LEAK") {
			t.Errorf("%q prints a secret:\n%s%s", args, out, errs)
		}
		if args[0] == "--format" && !strings.Contains(out, "<redacted>") {
			t.Errorf("%q: nothing redacted shows:\n%s", args, out)
		}
	}
}
