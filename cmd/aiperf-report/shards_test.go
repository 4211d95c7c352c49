package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// shardRun moves the run id of the store runs into store as shard index
// of count of group, adding the "shard" object to its manifest as a
// sharded aiperf profile writes it.
func shardRun(t *testing.T, runs, id, store, group string, index, count int) {
	t.Helper()
	dst := filepath.Join(store, "runs", group, "shards", fmt.Sprint(index))
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(runs, "runs", id), dst); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dst, "manifest.json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	m["run_id"] = group + "/shards/" + fmt.Sprint(index)
	m["shard"] = map[string]any{"group": group, "index": index, "count": count, "start_at": nil, "clock_skew_ms": 1.5}
	if data, err = json.Marshal(m); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRunGroup: three real runs stored as the shards of one group read as
// one run in runs and show, merge writes files that read back with the
// group's metrics, and a shard that died shows as missing.
func TestRunGroup(t *testing.T) {
	runs, store := t.TempDir(), t.TempDir()
	const group = "nightly-42"
	for i := range 3 {
		id, _ := benchmark(t, runs, 5*time.Millisecond)
		shardRun(t, runs, id, store, group, i, 3)
	}
	db := filepath.Join(t.TempDir(), "runs.duckdb")
	if code, out, errs := reportCLI(t, "--db", db, "ingest", store); code != 0 || !strings.Contains(out, "1 runs seen, 1 loaded") {
		t.Fatalf("ingest: %d %s %s", code, out, errs)
	}
	code, out, errs := reportCLI(t, "--db", db, "--format", "csv", "runs")
	if code != 0 || strings.Count(out, "\n") != 2 || !strings.Contains(out, ",shards,") || !strings.Contains(out, group+",") || !strings.Contains(out, ",3/3,") {
		t.Fatalf("runs: %d\n%s%s", code, out, errs)
	}
	code, out, errs = reportCLI(t, "--db", db, "show", group)
	if code != 0 || !strings.Contains(out, "Time to First Token") || !strings.Contains(out, "Shards: 3 of 3 present (run group, status complete)") {
		t.Fatalf("show: %d\n%s%s", code, out, errs)
	}
	if code, out, errs = reportCLI(t, "--db", db, "--format", "csv", "compare", group, group); code != 0 || !strings.Contains(out, "time_to_first_token,p99,ms,") {
		t.Fatalf("compare: %d %s %s", code, out, errs)
	}

	merged := filepath.Join(t.TempDir(), "merged")
	code, out, errs = reportCLI(t, "--db", db, "merge", "--out", merged, group)
	if code != 0 || !strings.Contains(out, "3 of 3 shards present (status complete), 60 records") || !strings.Contains(out, "profile_export_aiperf.csv") {
		t.Fatalf("merge: %d %s %s", code, out, errs)
	}
	if code, out, errs = reportCLI(t, "--db", db, "ingest", merged); code != 0 || !strings.Contains(out, "1 loaded") {
		t.Fatalf("ingest of the merged files: %d %s %s", code, out, errs)
	}
	differ := `SELECT count(*) AS n, count(*) FILTER (WHERE a.avg IS DISTINCT FROM b.avg OR a.p50 IS DISTINCT FROM b.p50
		OR a.p99 IS DISTINCT FROM b.p99 OR a.std IS DISTINCT FROM b.std) AS differ
		FROM run_metrics a JOIN run_metrics b USING (tag) WHERE a.run_id = '` + group + `' AND b.run_id LIKE 'aiperf-%'`
	if code, out, errs = reportCLI(t, "--db", db, "--format", "csv", "sql", differ); code != 0 || !strings.HasSuffix(out, ",0\n") || strings.HasPrefix(out, "n,differ\n0,") {
		t.Fatalf("merged summary read back differs from the group's: %d %s %s", code, out, errs)
	}

	// Shard 2 died before its manifest.
	if err := os.Remove(filepath.Join(store, "runs", group, "shards", "2", "manifest.json")); err != nil {
		t.Fatal(err)
	}
	if code, out, errs = reportCLI(t, "--db", db, "ingest", store); code != 0 || !strings.Contains(out, "1 loaded") {
		t.Fatalf("ingest after shard 2 died: %d %s %s", code, out, errs)
	}
	code, out, errs = reportCLI(t, "--db", db, "--format", "csv", "runs", "--status", "partial")
	if code != 0 || !strings.Contains(out, group+",") || !strings.Contains(out, ",2/3,") {
		t.Fatalf("runs --status partial: %d\n%s%s", code, out, errs)
	}
	code, out, errs = reportCLI(t, "--db", db, "show", group)
	if code != 0 || !strings.Contains(out, "Shards: 2 of 3 present, missing: 2 (run group, status partial: shard 2 missing (no manifest))") {
		t.Fatalf("show of a partial group: %d\n%s%s", code, out, errs)
	}
	if code, _, errs = reportCLI(t, "--db", db, "merge", "no-such-group"); code != 2 || !strings.Contains(errs, "no run") {
		t.Fatalf("merge of an unknown group: %d %s", code, errs)
	}
}
