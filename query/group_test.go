package query

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// metricStats returns a run's run_metrics rows by tag, every statistic
// by name (absent: not in the map).
func metricStats(t *testing.T, db *DB, runID string) map[string]map[string]float64 {
	t.Helper()
	out := map[string]map[string]float64{}
	for _, row := range queryRows(t, db, `SELECT tag, `+strings.Join(statColumns, ", ")+` FROM run_metrics WHERE run_id = ?`, runID) {
		stats := map[string]float64{}
		for i, name := range statColumns {
			switch v := row[1+i].(type) {
			case float64:
				stats[name] = v
			case int64:
				stats[name] = float64(v)
			}
		}
		out[row[0].(string)] = stats
	}
	return out
}

// ingestGroups ingests a copy of the group fixture, changed by mod.
func ingestGroups(t *testing.T, mod func(dir string)) (*DB, string) {
	t.Helper()
	dir := t.TempDir()
	copyDir(t, groupStore(t), dir)
	if mod != nil {
		mod(dir)
	}
	db := openTestDB(t)
	if _, err := db.Ingest(context.Background(), "", openStore(t, dir)); err != nil {
		t.Fatal(err)
	}
	return db, dir
}

// TestGroupEqualsOneRun: a run's records split over three shards ingest
// as one run whose metrics, recomputed over the shards' records, are the
// runner's own summary of the whole run.
func TestGroupEqualsOneRun(t *testing.T) {
	db, _ := ingestGroups(t, nil)
	groupStore(t)
	want, got := metricStats(t, db, groupWholeID), metricStats(t, db, splitGroup)
	if len(want) < 10 || want["goodput"] == nil || want["error_request_count"] == nil {
		t.Fatalf("the whole run's summary is too thin to compare: %v", want)
	}
	for tag, ws := range want {
		gs, ok := got[tag]
		if !ok {
			t.Errorf("group lacks %s", tag)
			continue
		}
		for stat, w := range ws {
			if g, ok := gs[stat]; !ok || !near(g, w) {
				t.Errorf("%s.%s: group %v, run %v", tag, stat, deref(ptrIf(g, ok)), w)
			}
		}
	}
	for tag := range got {
		if want[tag] == nil {
			t.Errorf("group has %s, the run has not", tag)
		}
	}
	if n, m := queryInt(t, db, `SELECT count(*) FROM requests WHERE run_id = ?`, splitGroup),
		queryInt(t, db, `SELECT count(*) FROM requests WHERE run_id = ?`, groupWholeID); n != m || n == 0 {
		t.Errorf("group has %d records, the run %d", n, m)
	}
	rows := queryRows(t, db, `SELECT status, records, start_time = (SELECT start_time FROM runs WHERE run_id = ?) FROM runs WHERE run_id = ?`, groupWholeID, splitGroup)
	if len(rows) != 1 || rows[0][0] != "complete" || rows[0][1] != int64(45) || rows[0][2] != true {
		t.Errorf("group run row %v", rows)
	}
}

func ptrIf(v float64, ok bool) *float64 {
	if !ok {
		return nil
	}
	return &v
}

// TestGroupSummaryFromRecords: a group of three real shard runs has the
// metrics computed independently here from the union of its records:
// percentiles by linear interpolation, population std; benchmark_duration
// from the earliest valid request start to the latest valid response end
// of all shards, and (schema 1.4, AIPerf 0.13) the throughputs over the
// observation window from the earliest shard's profiling start to the
// latest response end, errors included.
func TestGroupSummaryFromRecords(t *testing.T) {
	db, dir := ingestGroups(t, nil)
	var files []string
	window := [2]int64{math.MaxInt64, math.MinInt64}
	for i := range 3 {
		shard := filepath.Join(dir, "runs", shardGroup, "shards", fmt.Sprint(i))
		files = append(files, filepath.Join(shard, "profile_export.jsonl"))
		var m struct {
			ProfilingStartNS int64 `json:"profiling_start_ns"`
		}
		readJSON(t, filepath.Join(shard, "manifest.json"), &m)
		if m.ProfilingStartNS == 0 {
			t.Fatalf("shard %d: no profiling_start_ns in its manifest", i)
		}
		window[0] = min(window[0], m.ProfilingStartNS)
	}
	recs := readJSONL(t, files...)
	var ttft, osl []float64
	var valid, failed int
	first, last := int64(math.MaxInt64), int64(math.MinInt64)
	for i := range recs {
		r := &recs[i]
		if r.Metadata.Phase != "profiling" {
			continue
		}
		window[1] = max(window[1], *r.Metadata.EndNS)
		if r.Error != nil {
			failed++
			continue
		}
		valid++
		ttft = append(ttft, *r.num("time_to_first_token"))
		osl = append(osl, *r.num("output_sequence_length"))
		start := *r.Metadata.StartNS
		first = min(first, start)
		last = max(last, start+int64(math.Round(*r.num("request_latency")*1e6)))
	}
	duration := float64(last-first) / 1e9
	observed := float64(window[1]-window[0]) / 1e9
	var sum, sumOSL float64
	for _, v := range ttft {
		sum += v
	}
	for _, v := range osl {
		sumOSL += v
	}
	avg := sum / float64(len(ttft))
	var sq float64
	for _, v := range ttft {
		sq += (v - avg) * (v - avg)
	}
	got := metricStats(t, db, shardGroup)
	for _, c := range []struct {
		tag, stat string
		want      float64
	}{
		{"time_to_first_token", "avg", avg},
		{"time_to_first_token", "p50", percentile(ttft, 50)},
		{"time_to_first_token", "p90", percentile(ttft, 90)},
		{"time_to_first_token", "p99", percentile(ttft, 99)},
		{"time_to_first_token", "std", math.Sqrt(sq / float64(len(ttft)))},
		{"request_count", "avg", float64(valid)},
		{"error_request_count", "avg", float64(failed)},
		{"benchmark_duration", "avg", duration},
		{"request_throughput", "avg", float64(valid) / observed},
		{"output_token_throughput", "avg", sumOSL / observed},
	} {
		if g, ok := got[c.tag][c.stat]; !ok || !near(g, c.want) {
			t.Errorf("%s.%s = %v, want %v", c.tag, c.stat, deref(ptrIf(g, ok)), c.want)
		}
	}
	if valid+failed != 12+13+14 || failed == 0 {
		t.Fatalf("fixture: %d valid, %d failed", valid, failed)
	}

	rows := queryRows(t, db, `SELECT shard_index, shard_count, status, missing, records, clock_skew_ms, start_time < end_time
		FROM run_shards WHERE run_id = ? ORDER BY shard_index`, shardGroup)
	if len(rows) != 3 {
		t.Fatalf("run_shards %v", rows)
	}
	for i, r := range rows {
		want := []any{int32(i), int32(3), "complete", false, int64(12 + i), 0.25 * float64(i), true}
		if fmt.Sprint(r) != fmt.Sprint(want) {
			t.Errorf("shard %d: %v, want %v", i, r, want)
		}
	}
	run := queryRows(t, db, `SELECT status, records, start_time = (SELECT min(start_time) FROM run_shards WHERE run_id = ?),
		end_time = (SELECT max(end_time) FROM run_shards WHERE run_id = ?), shards FROM run_summary WHERE run_id = ?`, shardGroup, shardGroup, shardGroup)
	if fmt.Sprint(run) != "[[complete 39 true true 3/3]]" {
		t.Errorf("run_summary of the group %v", run)
	}
	// A second ingest finds the group unchanged.
	st, err := db.Ingest(context.Background(), "", openStore(t, dir))
	if err != nil || st.RunsLoaded != 0 {
		t.Errorf("second ingest %+v %v", st, err)
	}
}

// TestGroupMissingShard: a group whose shard died loads as partial,
// names the shard, and holds every record of the shards present (and of
// a dead shard's segments).
func TestGroupMissingShard(t *testing.T) {
	shard1 := func(dir string) string { return filepath.Join(dir, "runs", shardGroup, "shards", "1") }
	for _, c := range []struct {
		name    string
		mod     func(dir string)
		status  string
		records int64
		reason  string
	}{
		{"no files", func(dir string) { os.RemoveAll(shard1(dir)) }, "missing", 12 + 14, "shard 1 missing"},
		{"no manifest", func(dir string) { os.Remove(filepath.Join(shard1(dir), "manifest.json")) }, "interrupted", 12 + 13 + 14, "shard 1 missing (no manifest)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			db, _ := ingestGroups(t, c.mod)
			rows := queryRows(t, db, `SELECT s.status, r.reason, s.records, s.shards FROM run_summary s JOIN runs r USING (run_id) WHERE run_id = ?`, shardGroup)
			want := fmt.Sprintf("[[partial %s %d 2/3]]", c.reason, c.records)
			if fmt.Sprint(rows) != want {
				t.Errorf("group %v, want %s", rows, want)
			}
			if n := queryInt(t, db, `SELECT count(*) FROM requests WHERE run_id = ?`, shardGroup); n != c.records {
				t.Errorf("%d records, want %d", n, c.records)
			}
			shard := queryRows(t, db, `SELECT status, missing FROM run_shards WHERE run_id = ? AND shard_index = 1`, shardGroup)
			if fmt.Sprint(shard) != fmt.Sprintf("[[%s true]]", c.status) {
				t.Errorf("shard 1 %v", shard)
			}
			if n := queryInt(t, db, `SELECT count(*) FROM run_metrics WHERE run_id = ? AND tag = 'request_latency'`, shardGroup); n != 1 {
				t.Errorf("no recomputed metrics")
			}
		})
	}
}

// TestMergeGroup: the merged files of a group, read back as an AIPerf
// artifact directory, give the group's recomputed metrics exactly, and
// the merged records are every record in request order.
func TestMergeGroup(t *testing.T) {
	db, dir := ingestGroups(t, nil)
	out := t.TempDir()
	outStore := openStore(t, out)
	for _, group := range []string{splitGroup, shardGroup} {
		st, err := MergeGroup(context.Background(), openStore(t, dir), group, outStore.Bucket)
		if err != nil {
			t.Fatal(err)
		}
		n := queryInt(t, db, `SELECT count(*) FROM requests WHERE run_id = ?`, group)
		if st.Records != n || st.Status != "complete" || st.Shards != 3 || st.Missing != 0 {
			t.Errorf("merge %s: %+v, want %d records", group, st, n)
		}
		recs := readJSONL(t, filepath.Join(out, "profile_export.jsonl"))
		// 1.4 records have no request_num: they merge in request start order.
		byStart := func(i, j int) bool { return *recs[i].Metadata.StartNS < *recs[j].Metadata.StartNS }
		if int64(len(recs)) != n || recs[0].Metadata.RequestNum != 0 || !sort.SliceIsSorted(recs, byStart) {
			t.Errorf("merged %s: %d records, sorted %v", group, len(recs), sort.SliceIsSorted(recs, byStart))
		}
		back := openTestDB(t)
		if _, err := back.IngestAIPerfDir(context.Background(), out); err != nil {
			t.Fatal(err)
		}
		id := "aiperf-" + groupBenchmarkID(group)
		want, got := metricStats(t, db, group), metricStats(t, back, id)
		if fmt.Sprint(want) != fmt.Sprint(got) || len(got) == 0 {
			t.Errorf("merged %s read back:\n%v\nwant\n%v", group, got, want)
		}
		csv, err := os.ReadFile(filepath.Join(out, "profile_export_aiperf.csv"))
		if err != nil || !bytes.Contains(csv, []byte("Time to First Token (ms),")) {
			t.Errorf("merged csv: %v\n%s", err, csv)
		}
	}
	if _, err := MergeGroup(context.Background(), openStore(t, dir), groupWholeID, outStore.Bucket); err == nil || !strings.Contains(err.Error(), "not a run group") {
		t.Errorf("merge of a plain run: %v", err)
	}
}

// TestAIPerfDirSkipsGroups: a store's run groups are loaded by Ingest
// only; the AIPerf files of their shards are not runs of their own.
func TestAIPerfDirSkipsGroups(t *testing.T) {
	dir := t.TempDir()
	copyDir(t, filepath.Join(groupStore(t), "runs", shardGroup), filepath.Join(dir, "runs", shardGroup))
	st, err := openTestDB(t).IngestAIPerfDir(context.Background(), dir)
	if err != nil || st.RunsSeen != 0 {
		t.Errorf("AIPerf dirs found in a group: %+v %v", st, err)
	}
}

// TestMigrateToSchema6: a schema 5 database, where a run group loaded as
// a run without a manifest, opens with run_shards and run_summary.shards,
// and the next ingest reloads the group as one run of its shards.
func TestMigrateToSchema6(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "v5.duckdb")
	raw, err := sql.Open("duckdb", path)
	if err != nil {
		t.Fatal(err)
	}
	stmts := []string{`CREATE TABLE schema_info (version VARCHAR NOT NULL)`, `INSERT INTO schema_info VALUES ('5')`}
	for _, m := range migrations[:5] {
		stmts = append(stmts, m...)
	}
	stmts = append(stmts, `INSERT INTO runs (run_id, source, status, ingested_at, content_key) VALUES ('`+shardGroup+`', 's', 'interrupted', now(), 'partial:0')`)
	conn, err := raw.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range stmts {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	conn.Close()
	raw.Close()

	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if rows := queryRows(t, db, `SELECT status, shards FROM run_summary`); fmt.Sprint(rows) != "[[interrupted <nil>]]" {
		t.Errorf("after the migration: %v", rows)
	}
	dir := t.TempDir()
	copyDir(t, groupStore(t), dir)
	if _, err := db.Ingest(ctx, "", openStore(t, dir)); err != nil {
		t.Fatal(err)
	}
	if rows := queryRows(t, db, `SELECT status, shards FROM run_summary WHERE run_id = ?`, shardGroup); fmt.Sprint(rows) != "[[complete 3/3]]" {
		t.Errorf("the group after an ingest: %v", rows)
	}
}

// readJSON decodes the JSON file at path into v.
func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
