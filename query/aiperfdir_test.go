package query

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestIngestBaselineChatFixture loads AIPerf 0.8.0's baseline-chat summary
// and checks every statistic against the fixture's numbers, read with
// encoding/json.
func TestIngestBaselineChatFixture(t *testing.T) {
	db := openTestDB(t)
	ctx := context.Background()
	st, err := db.IngestAIPerfDir(ctx, "testdata")
	if err != nil {
		t.Fatal(err)
	}
	if st.RunsSeen != 1 || st.RunsLoaded != 1 || st.Records != 0 {
		t.Fatalf("stats %+v", st)
	}

	raw, err := os.ReadFile("testdata/baseline-chat/profile_export_aiperf.json")
	if err != nil {
		t.Fatal(err)
	}
	var fixture map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fixture); err != nil {
		t.Fatal(err)
	}
	stats := []string{"avg", "min", "max", "p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99", "std"}
	tags := 0
	for tag, blockRaw := range fixture {
		var block map[string]any
		if json.Unmarshal(blockRaw, &block) != nil || block["unit"] == nil {
			continue
		}
		tags++
		var unit string
		var scalar bool
		err := db.SQL().QueryRow(`SELECT unit, scalar FROM run_metrics WHERE run_id = 'aiperf-cf9a7da02a534390b4aa6cf08156a56d' AND tag = ?`, tag).Scan(&unit, &scalar)
		if err != nil {
			t.Fatalf("%s: %v", tag, err)
		}
		if unit != block["unit"] {
			t.Errorf("%s unit %q, fixture %q", tag, unit, block["unit"])
		}
		if wantScalar := block["p50"] == nil; scalar != wantScalar {
			t.Errorf("%s scalar %v, want %v", tag, scalar, wantScalar)
		}
		for _, s := range stats {
			got := queryFloat(t, db, `SELECT `+s+` FROM run_metrics WHERE tag = ?`, tag)
			want, ok := block[s].(float64)
			switch {
			case !ok && got != nil:
				t.Errorf("%s.%s = %v, fixture has none", tag, s, *got)
			case ok && (got == nil || *got != want):
				t.Errorf("%s.%s = %v, fixture %v", tag, s, got, want)
			}
		}
	}
	if n := queryInt(t, db, `SELECT count(*) FROM run_metrics`); n != int64(tags) || tags != 22 {
		t.Errorf("run_metrics rows %d, fixture metrics %d", n, tags)
	}

	var (
		id, status, model, endpoint, mode, workload, tool, version string
		streaming                                                  bool
		conc, reqCount                                             int64
		isl                                                        float64
		start                                                      string
	)
	err = db.SQL().QueryRow(`SELECT r.run_id, r.status, r.model, r.endpoint_type, r.streaming, r.load_mode, r.concurrency,
		r.request_count, r.isl_mean, s.workload_id, r.tool_name, r.tool_version, strftime(r.start_time, '%Y-%m-%dT%H:%M:%S.%f')
		FROM runs r JOIN run_summary s USING (run_id)`).
		Scan(&id, &status, &model, &endpoint, &streaming, &mode, &conc, &reqCount, &isl, &workload, &tool, &version, &start)
	if err != nil {
		t.Fatal(err)
	}
	got := []any{id, status, model, endpoint, streaming, mode, conc, reqCount, isl, workload, tool, version, start}
	want := []any{"aiperf-cf9a7da02a534390b4aa6cf08156a56d", "complete", "mock-model", "chat", false, "concurrency", int64(4),
		int64(64), 550.0, "mock-model|chat|nostream|isl550|oslna|concurrency4", "aiperf", "0.8.0",
		// The zone-less start, with no records to tell its zone, is taken
		// in this machine's zone.
		time.Date(2026, 4, 30, 9, 16, 38, 957302000, time.Local).UTC().Format("2006-01-02T15:04:05.000000")}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("field %d = %v, want %v", i, got[i], want[i])
		}
	}
	var thr, reqs float64
	if err := db.SQL().QueryRow(`SELECT request_throughput, request_count FROM run_summary`).Scan(&thr, &reqs); err != nil {
		t.Fatal(err)
	}
	if thr != 1854.929714829192 || reqs != 64 {
		t.Errorf("run_summary throughput %v count %v", thr, reqs)
	}

	st, err = db.IngestAIPerfDir(ctx, "testdata")
	if err != nil || st.RunsSeen != 1 || st.RunsSkipped != 1 || st.RunsLoaded != 0 {
		t.Fatalf("second ingest %+v %v", st, err)
	}
}

// TestIngestAIPerfDirTree: directories at any depth load, with JSONL or CSV
// records; an aiperf-go store inside the tree is left to Ingest.
func TestIngestAIPerfDirTree(t *testing.T) {
	root := t.TempDir()
	summary, err := os.ReadFile("testdata/baseline-chat/profile_export_aiperf.json")
	if err != nil {
		t.Fatal(err)
	}
	write := func(rel, data string) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// a: JSONL records, in a directory whose name DuckDB would glob; b:
	// CSV records, no benchmark_id.
	write("sweep/a[1]*/profile_export_aiperf.json", string(summary))
	write("sweep/a[1]*/profile_export.jsonl",
		`{"metadata":{"session_num":0,"request_num":0,"x_request_id":"r0","request_start_ns":1000000000,"request_end_ns":1001000000,"benchmark_phase":"profiling"},"metrics":{"request_latency":{"value":1.5,"unit":"ms"},"http_req_waiting":{"value":1,"unit":"ms"}},"error":null}
{"metadata":{"session_num":1,"x_request_id":"r1","timestamp_ns":2000000000,"credit_phase":"profiling"},"metrics":{"error_isl":{"value":12,"unit":"tokens"}},"error":{"code":500,"type":"Internal Server Error","message":"boom"}}
`)
	noID := strings.Replace(string(summary), `"benchmark_id": "cf9a7da02a534390b4aa6cf08156a56d",`, ``, 1)
	write("sweep/b/profile_export_aiperf.json", noID)
	write("sweep/b/profile_export_records.csv",
		"request_num,session_num,x_request_id,benchmark_phase,request_start_ns,error_code,error_message,time_to_first_token (ms),inter_chunk_latency (ms),custom (x)\n"+
			"0,0,c0,profiling,5,,,12.5,\"[1,2]\",7\n"+
			"1,1,c1,profiling,6,429,Too Many Requests,,,\n")
	// An aiperf-go store: its top-level copy and runs/ are skipped.
	write("store/profile_export_aiperf.json", noID)
	write("store/runs/20261122T035800Z-1a2b3c4d/profile_export_aiperf.json", noID)

	db := openTestDB(t)
	st, err := db.IngestAIPerfDir(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	if st.RunsSeen != 2 || st.RunsLoaded != 2 || st.Records != 4 {
		t.Fatalf("stats %+v", st)
	}
	type row struct {
		xid, phase string
		start      int64
		lat, ttft  *float64
		errISL     *float64
		code       *int64
		valid      bool
	}
	rows, err := db.SQL().Query(`SELECT x_request_id, phase, request_start_ns, request_latency, time_to_first_token, error_isl, error_code, valid FROM requests ORDER BY x_request_id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []row
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.xid, &r.phase, &r.start, &r.lat, &r.ttft, &r.errISL, &r.code, &r.valid); err != nil {
			t.Fatal(err)
		}
		got = append(got, r)
	}
	f := func(v float64) *float64 { return &v }
	i := func(v int64) *int64 { return &v }
	want := []row{
		{"c0", "profiling", 5, nil, f(12.5), nil, nil, true},
		{"c1", "profiling", 6, nil, nil, nil, i(429), false},
		{"r0", "profiling", 1000000000, f(1.5), nil, nil, nil, true},
		{"r1", "profiling", 2000000000, nil, nil, f(12), i(500), false},
	}
	if len(got) != len(want) {
		t.Fatalf("rows %+v", got)
	}
	eqF := func(a, b *float64) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }
	eqI := func(a, b *int64) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }
	for k := range want {
		g, w := got[k], want[k]
		if g.xid != w.xid || g.phase != w.phase || g.start != w.start || !eqF(g.lat, w.lat) || !eqF(g.ttft, w.ttft) ||
			!eqF(g.errISL, w.errISL) || !eqI(g.code, w.code) || g.valid != w.valid {
			t.Errorf("row %d = %+v, want %+v", k, g, w)
		}
	}
	var ids []string
	r2, err := db.SQL().Query(`SELECT run_id || ' ' || records FROM runs ORDER BY run_id`)
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	for r2.Next() {
		var s string
		_ = r2.Scan(&s)
		ids = append(ids, s)
	}
	fixed := slices.Index(ids, "aiperf-cf9a7da02a534390b4aa6cf08156a56d 2")
	if len(ids) != 2 || fixed < 0 || !strings.HasPrefix(ids[1-fixed], "aiperf-") || !strings.HasSuffix(ids[1-fixed], " 2") {
		t.Errorf("runs %v", ids)
	}
}
