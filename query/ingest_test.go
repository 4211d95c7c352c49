package query

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"gocloud.dev/blob/memblob"

	"github.com/aiperf-go/aiperf/sink"
)

func TestIngestRunnerStore(t *testing.T) {
	dir := testStore(t)
	db := openTestDB(t)
	ctx := context.Background()
	st, err := db.Ingest(ctx, "", openStore(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	runs := storedRuns(t, dir)
	total := 0
	for id, files := range runs {
		n := len(readJSONL(t, files...))
		total += n
		if got := queryInt(t, db, `SELECT count(*) FROM requests WHERE run_id = ?`, id); got != int64(n) {
			t.Errorf("run %s: %d requests, JSONL has %d", id, got, n)
		}
		if got := queryInt(t, db, `SELECT records FROM runs WHERE run_id = ?`, id); got != int64(n) {
			t.Errorf("run %s: runs.records %d, JSONL has %d", id, got, n)
		}
	}
	if st.RunsSeen != 4 || st.RunsLoaded != 4 || st.RunsSkipped != 0 || st.Records != total || len(runs) != 4 {
		t.Fatalf("stats %+v, runs %d, records %d", st, len(runs), total)
	}

	// Labels: the streaming run's --label tags, NULL elsewhere.
	if got := queryInt(t, db, `SELECT count(*) FROM run_summary WHERE (labels->>'gpu') = 'h100' AND (labels->>'branch') = 'main'`); got != 1 {
		t.Errorf("runs labelled gpu=h100,branch=main: %d, want 1", got)
	}
	if got := queryInt(t, db, `SELECT count(*) FROM runs WHERE labels IS NULL`); got != 3 {
		t.Errorf("runs without labels: %d, want 3", got)
	}

	// The runs table: status, workload facts, manifest facts.
	rows, err := db.SQL().Query(`SELECT run_id, status, source, coalesce(model, ''), coalesce(endpoint_type, ''), streaming, coalesce(load_mode, ''),
		coalesce(concurrency, -1), coalesce(request_rate, -1), coalesce(tool_version, ''), coalesce(dataset_sha256, '') != '',
		start_time IS NOT NULL AND end_time IS NOT NULL AND end_time >= start_time,
		(SELECT workload_id FROM run_summary s WHERE s.run_id = r.run_id)
		FROM runs r`)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var id, status, source, model, ep, mode, tool, wl string
		var streaming *bool
		var conc int
		var rate float64
		var hasSHA, times bool
		if err := rows.Scan(&id, &status, &source, &model, &ep, &streaming, &mode, &conc, &rate, &tool, &hasSHA, &times, &wl); err != nil {
			t.Fatal(err)
		}
		if source != dir || !times {
			t.Errorf("run %s: source %q, times ok %v", id, source, times)
		}
		s := "nil"
		if streaming != nil {
			s = fmt.Sprint(*streaming)
		}
		got = append(got, fmt.Sprintf("%s %s %s %s %s %d %g %s %v %s", status, model, ep, s, mode, conc, rate, tool, hasSHA, wl))
	}
	rows.Close()
	want := []string{
		"complete mock-model chat true concurrency 4 -1 test true mock-model|chat|stream|isl32|osl12|concurrency4",
		"complete mock-model chat false request_rate -1 500 test true mock-model|chat|nostream|isl32|oslna|request_rate500.0",
		"interrupted mock-model chat true concurrency 2 -1 test true mock-model|chat|stream|isl32|oslna|concurrency2",
		"interrupted mock-model  true  -1 -1  false mock-model|na|stream|islna|oslna|na",
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("runs:\n%s\nwant:\n%s", bytes.Join(toBytes(got), []byte("\n")), bytes.Join(toBytes(want), []byte("\n")))
	}
	if n := queryInt(t, db, `SELECT count(*) FROM workloads`); n != 4 {
		t.Errorf("workloads %d, want 4", n)
	}

	// The summary statistics equal the stored profile_export_aiperf.json.
	for id := range runs {
		p := filepath.Join(dir, "runs", id, "profile_export_aiperf.json")
		if !fileExists(p) {
			if id != partialRunID {
				t.Errorf("run %s has no summary", id)
			}
			continue
		}
		checkRunMetrics(t, db, id, p)
	}

	// A second ingest loads nothing.
	st, err = db.Ingest(ctx, "", openStore(t, dir))
	if err != nil || st.RunsSeen != 4 || st.RunsSkipped != 4 || st.RunsLoaded != 0 || st.Records != 0 {
		t.Fatalf("second ingest %+v %v", st, err)
	}
	if n := queryInt(t, db, `SELECT count(*) FROM requests`); n != int64(total) {
		t.Errorf("requests after second ingest %d, want %d", n, total)
	}
}

func toBytes(s []string) [][]byte {
	out := make([][]byte, len(s))
	for i := range s {
		out[i] = []byte(s[i])
	}
	return out
}

// checkRunMetrics compares run_metrics of a run with its summary file, read
// with encoding/json.
func checkRunMetrics(t *testing.T, db *DB, id, summaryPath string) {
	t.Helper()
	raw, err := os.ReadFile(summaryPath)
	if err != nil {
		t.Fatal(err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		t.Fatal(err)
	}
	n := 0
	for tag, b := range top {
		var block map[string]any
		if json.Unmarshal(b, &block) != nil || block["unit"] == nil {
			continue
		}
		n++
		for _, s := range []string{"avg", "min", "p50", "p99", "std"} {
			got := queryFloat(t, db, `SELECT `+s+` FROM run_metrics WHERE run_id = ? AND tag = ?`, id, tag)
			want, ok := block[s].(float64)
			if ok != (got != nil) || ok && *got != want {
				t.Errorf("run %s %s.%s = %v, summary %v", id, tag, s, got, block[s])
			}
		}
	}
	if got := queryInt(t, db, `SELECT count(*) FROM run_metrics WHERE run_id = ?`, id); got != int64(n) || n == 0 {
		t.Errorf("run %s: %d run_metrics rows, summary has %d metrics", id, got, n)
	}
}

// TestRequestColumnsMatchJSONL compares every typed column of every record
// with the JSONL line, parsed with encoding/json.
func TestRequestColumnsMatchJSONL(t *testing.T) {
	dir := testStore(t)
	db := openTestDB(t)
	if _, err := db.Ingest(context.Background(), "", openStore(t, dir)); err != nil {
		t.Fatal(err)
	}
	errorsSeen, iclSeen := 0, 0
	for id, files := range storedRuns(t, dir) {
		for _, rec := range readJSONL(t, files...) {
			m := rec.Metadata
			var (
				reqNum             *int64
				sessNum            int64
				phase, worker      string
				credit, start, end *int64
				ack                *int64
				code               *int64
				etype, emsg        *string
				valid              bool
				iclAny             any
			)
			cols := make([]*float64, len(MetricColumns))
			dest := []any{&reqNum, &sessNum, &phase, &worker, &credit, &start, &ack, &end, &code, &etype, &emsg, &valid, &iclAny}
			for i := range cols {
				dest = append(dest, &cols[i])
			}
			q := `SELECT request_num, session_num, phase, worker_id, credit_issued_ns, request_start_ns, request_ack_ns, request_end_ns,
				error_code, error_type, error_message, valid, inter_chunk_latency, ` + joinCols() + `
				FROM requests WHERE run_id = ? AND x_request_id = ?`
			if err := db.SQL().QueryRow(q, id, m.XRequestID).Scan(dest...); err != nil {
				t.Fatalf("run %s request %s: %v", id, m.XRequestID, err)
			}
			// AIPerf 0.13's layout (1.4) has no request_num: the column is NULL.
			if reqNum == nil && m.RequestNum != 0 || reqNum != nil && *reqNum != m.RequestNum || sessNum != m.SessionNum || phase != m.Phase || worker != m.WorkerID ||
				!eqPtr(credit, m.CreditIssuedNS) || !eqPtr(start, m.StartNS) || !eqPtr(ack, m.AckNS) || !eqPtr(end, m.EndNS) {
				t.Errorf("run %s request %s: metadata %d %d %s %s %v %v %v %v", id, m.XRequestID, reqNum, sessNum, phase, worker, credit, start, ack, end)
			}
			if valid != (rec.Error == nil) {
				t.Errorf("request %s: valid %v, error %+v", m.XRequestID, valid, rec.Error)
			}
			if e := rec.Error; e != nil {
				errorsSeen++
				wantCode := (*int64)(nil)
				if e.Code != nil {
					c := int64(*e.Code)
					wantCode = &c
				}
				if !eqPtr(code, wantCode) || etype == nil || *etype != e.Type || emsg == nil || *emsg != e.Message {
					t.Errorf("request %s: error %v %v %v, want %+v", m.XRequestID, code, etype, emsg, e)
				}
			}
			for i, tag := range MetricColumns {
				want := rec.num(tag)
				if (want == nil) != (cols[i] == nil) || want != nil && *want != *cols[i] {
					t.Errorf("request %s: %s = %v, JSONL %v", m.XRequestID, tag, cols[i], want)
				}
			}
			icl, _ := iclAny.([]any)
			wantICL := rec.list("inter_chunk_latency")
			if len(wantICL) > 0 {
				iclSeen++
			}
			if len(icl) != len(wantICL) {
				t.Errorf("request %s: inter_chunk_latency %v, JSONL %v", m.XRequestID, icl, wantICL)
				continue
			}
			for k := range icl {
				if icl[k] != wantICL[k] {
					t.Errorf("request %s: inter_chunk_latency[%d] %v, JSONL %v", m.XRequestID, k, icl[k], wantICL[k])
				}
			}
		}
	}
	if errorsSeen == 0 || iclSeen == 0 {
		t.Errorf("test data lacks errors (%d) or chunk latencies (%d)", errorsSeen, iclSeen)
	}
}

func joinCols() string {
	b := []byte{}
	for i, c := range MetricColumns {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, c...)
	}
	return string(b)
}

func eqPtr[T comparable](a, b *T) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}

// TestIngestChangedRunReplacesRows: a run without a manifest that gains a
// segment is reloaded, alone, and its rows replaced, not added.
func TestIngestChangedRunReplacesRows(t *testing.T) {
	dir := t.TempDir()
	copyDir(t, testStore(t), dir)
	db := openTestDB(t)
	ctx := context.Background()
	if _, err := db.Ingest(ctx, "", openStore(t, dir)); err != nil {
		t.Fatal(err)
	}
	before := queryInt(t, db, `SELECT count(*) FROM requests WHERE run_id = ?`, partialRunID)
	seg := filepath.Join(dir, "runs", partialRunID, "records", "000001.jsonl")
	data, err := os.ReadFile(seg)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	if err := os.WriteFile(filepath.Join(dir, "runs", partialRunID, "records", "000003.jsonl"), bytes.Join(lines[:3], nil), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := db.Ingest(ctx, "", openStore(t, dir))
	if err != nil || st.RunsLoaded != 1 || st.RunsSkipped != 3 || st.Records != int(before)+3 {
		t.Fatalf("stats %+v %v (before %d)", st, err, before)
	}
	if n := queryInt(t, db, `SELECT count(*) FROM requests WHERE run_id = ?`, partialRunID); n != before+3 {
		t.Errorf("requests %d, want %d", n, before+3)
	}
	if n := queryInt(t, db, `SELECT count(*) FROM runs WHERE run_id = ?`, partialRunID); n != 1 {
		t.Errorf("runs rows %d", n)
	}
}

// TestIngestBlobStore: a store that is not a local directory (mem://) is
// staged through temporary files and loads the same rows.
func TestIngestBlobStore(t *testing.T) {
	dir := testStore(t)
	ctx := context.Background()
	bucket := memblob.OpenBucket(nil)
	mem := &sink.Store{Bucket: bucket, Location: "mem://test"}
	defer mem.Close()
	err := filepath.Walk(filepath.Join(dir, "runs"), func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return bucket.WriteAll(ctx, filepath.ToSlash(rel), data, nil)
	})
	if err != nil {
		t.Fatal(err)
	}
	local, remote := openTestDB(t), openTestDB(t)
	a, err := local.Ingest(ctx, "", openStore(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	b, err := remote.Ingest(ctx, "", mem)
	if err != nil {
		t.Fatal(err)
	}
	if a.Records != b.Records || a.RunsLoaded != b.RunsLoaded || b.RunsLoaded != 4 {
		t.Fatalf("local %+v, mem %+v", a, b)
	}
	q := `SELECT CAST(bit_xor(hash(run_id, x_request_id, request_start_ns, time_to_first_token, request_latency, inter_chunk_latency, error_code)) AS VARCHAR) FROM requests`
	var x, y string
	if err := local.SQL().QueryRow(q).Scan(&x); err != nil {
		t.Fatal(err)
	}
	if err := remote.SQL().QueryRow(q).Scan(&y); err != nil {
		t.Fatal(err)
	}
	if x != y {
		t.Errorf("rows differ: %v vs %v", x, y)
	}
	if src := queryInt(t, remote, `SELECT count(*) FROM runs WHERE source = 'mem://test'`); src != 4 {
		t.Errorf("mem runs %d", src)
	}
}
