package query

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// edgeLines are profile_export.jsonl lines of every shape the loader must
// read as DuckDB's read_json did: legacy names, missing and null parts,
// numbers in other forms, strings with escapes, lists with NULLs. Each
// line is a valid record for both loaders.
var edgeLines = []string{
	// AIPerf's names before October 2025, alone and beside the new ones.
	`{"metadata":{"request_num":1,"timestamp_ns":1700000000000000000,"credit_phase":"warmup"},"metrics":{"request_latency":{"value":12.5,"unit":"ms"}},"error":null}`,
	`{"metadata":{"request_num":2,"request_start_ns":null,"timestamp_ns":5,"benchmark_phase":null,"credit_phase":"profiling"}}`,
	`{"metadata":{"request_num":3,"request_start_ns":6,"timestamp_ns":5,"benchmark_phase":"profiling","credit_phase":"warmup"}}`,
	// Missing and null parts.
	`{"metadata":null,"metrics":null,"error":null}`,
	`{}`,
	`null`,
	`{"metrics":{"request_latency":{"value":null},"time_to_first_token":{},"decode_duration":null,"inter_chunk_latency":null}}`,
	`{"metrics":{"request_latency":{"unit":"ms"}}}`,
	// Errors: an empty object is an error too.
	`{"metadata":{"request_num":4},"metrics":{},"error":{"code":500,"type":"Internal Server Error","message":"boom"}}`,
	`{"error":{}}`,
	`{"error":{"code":"503","type":1,"message":null,"extra":[1,{"a":2}]}}`,
	`{"error":{"code":429.5}}`,
	// Numbers: fractions into integers round half to even, booleans,
	// numeric strings, exponents, extremes.
	`{"metadata":{"request_num":5.5,"session_num":6.5,"turn_index":-2.5,"credit_issued_ns":1e3,"request_end_ns":"  42 "}}`,
	`{"metadata":{"request_num":true,"session_num":false,"was_cancelled":1,"cancellation_time_ns":9223372036854775807}}`,
	`{"metadata":{"request_num":-9223372036854775808,"was_cancelled":"true"}}`,
	`{"metadata":{"was_cancelled":0.5,"turn_index":2147483647}}`,
	`{"metrics":{"request_latency":{"value":"12.5"},"time_to_first_token":{"value":true},"decode_duration":{"value":1e400},"inter_token_latency":{"value":-0.0}}}`,
	`{"metrics":{"request_latency":{"value":NaN},"time_to_first_token":{"value":Infinity},"decode_duration":{"value":-Infinity},"inter_token_latency":{"value":"inf"}}}`,
	`{"metrics":{"request_latency":{"value":4.9406564584124654e-324},"time_to_first_token":{"value":1.7976931348623157e308},"decode_duration":{"value":0.1e-5},"inter_token_latency":{"value":123456789012345678901234567890}}}`,
	`{"metrics":{"request_latency":{"value":0.30000000000000004},"time_to_first_token":{"value":1234567.8901234567},"decode_duration":{"value":9007199254740993},"inter_token_latency":{"value":2.2250738585072011e-308}}}`,
	// Strings: escapes, non-ASCII, a NUL.
	`{"metadata":{"x_request_id":"\u00e9\ud83d\ude00\n\"x\\\/","x_correlation_id":"caf\u00e9 ☕","conversation_id":"a\u0000b","worker_id":""}}`,
	// Non-string values in text columns are their JSON text, as DuckDB
	// writes it.
	`{"metadata":{"x_request_id":123,"x_correlation_id":true,"conversation_id":-1.5e3,"worker_id":false}}`,
	`{"metadata":{"x_request_id":-0,"x_correlation_id":1e16,"conversation_id":1e-5,"worker_id":1e400,"record_processor_id":NaN,"benchmark_phase":-Infinity}}`,
	`{"metadata":{"x_request_id":123456789012345678901,"x_correlation_id":0.30000000000000004,"conversation_id":1234567890123456.7,"worker_id":5e-324}}`,
	`{"metadata":{"x_request_id":{"a":"\u00e9\/\n\u001f\u007f","b":[1,2.50,-0.0,1e400],"c":{}},"x_correlation_id":[ ],"conversation_id":{ "x" : null }}}`,
	`{"metadata":{"x_request_id":[1e20,1.5e21,1.5e-7,123e-9,0.00001,1e-6,-1e21,5e-324,1.7976931348623157e308],"x_correlation_id":[12345678901234567890,-0,1E5,1.0,-0.0,0,100,1e2,2.5e1,0.1e1,NaN,Infinity,-Infinity]}}`,
	`{"metadata":{"x_request_id":["\u0001\u007f\u0080\u00ff\u2028\ufeff","\\u","\t\b\f\r\"\\"],"x_correlation_id":{"k\"ey":1,"\u00e9":[true,false,null]}}}`,
	// Lists: empty, NULL elements, numeric strings, booleans.
	`{"metrics":{"inter_chunk_latency":{"value":[]}}}`,
	`{"metrics":{"inter_chunk_latency":{"value":[1,null,2.5,"3.5",true,-0.0,NaN]}}}`,
	// The HTTP trace metrics (schema 3).
	`{"metadata":{"request_num":11},"metrics":{"http_req_blocked":{"value":0.012,"unit":"ms"},"http_req_dns_lookup":{"value":0.0,"unit":"ms"},"http_req_connecting":{"value":0.1,"unit":"ms"},"http_req_sending":{"value":0.02,"unit":"ms"},"http_req_waiting":{"value":101.5,"unit":"ms"},"http_req_receiving":{"value":50.25,"unit":"ms"},"http_req_duration":{"value":151.77,"unit":"ms"},"http_req_connection_overhead":{"value":0.112,"unit":"ms"},"http_req_total":{"value":151.882,"unit":"ms"},"http_req_data_sent":{"value":1.2,"unit":"KB"},"http_req_data_received":{"value":3.4,"unit":"KB"},"http_req_connection_reused":{"value":1,"unit":""},"http_req_chunks_sent":{"value":1,"unit":""},"http_req_chunks_received":{"value":13,"unit":""}}}`,
	// Unknown keys at every level are skipped, whatever they hold.
	`{"unknown":{"deep":[1,2,{"x":null}]},"metadata":{"new_field":{"a":[]},"request_num":7},"metrics":{"http_req_x":{"value":3},"request_latency":{"value":2,"unit":"ms","extra":[1]}}}`,
	// Whitespace, a trailing comma, CRLF.
	` { "metadata" : { "request_num" : 8 , "x_request_id" : "ws" } , "metrics" : { "request_latency" : { "value" : 1 , "unit" : "ms" } } } `,
	`{"metadata":{"request_num":9,},"metrics":{"inter_chunk_latency":{"value":[1,2,]}},}`,
	"{\"metadata\":{\"request_num\":10}}\r",
	// Blank lines add nothing.
	``,
	`   `,
}

// writeLines writes lines to a new JSONL file and returns its path.
func writeLines(t *testing.T, name string, lines []string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// loadGo loads files with the Go decoder into a fresh database.
func loadGo(t *testing.T, files ...string) (*DB, error) {
	t.Helper()
	db := openTestDB(t)
	ctx := context.Background()
	tx, err := db.db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.insertRecords(ctx, tx, "run", files); err != nil {
		tx.Rollback()
		return db, err
	}
	return db, tx.Commit()
}

// loadReadJSON loads files with DuckDB's read_json, as the loader did
// before the Go decoder, into a fresh database.
func loadReadJSON(t *testing.T, files ...string) (*DB, error) {
	t.Helper()
	db := openTestDB(t)
	ctx := context.Background()
	tx, err := db.db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := insertJSONL(ctx, tx, "run", files); err != nil {
		tx.Rollback()
		return db, err
	}
	return db, tx.Commit()
}

// requestRows returns every requests row in insertion order, floats as
// their bits so that NaN and -0 compare too.
func requestRows(t *testing.T, db *DB) [][]any {
	t.Helper()
	out := queryRows(t, db, `SELECT * FROM requests ORDER BY rowid`)
	for _, vals := range out {
		for i, v := range vals {
			vals[i] = floatBits(v)
		}
	}
	return out
}

// floatBits replaces floats (also in lists) by their bits.
func floatBits(v any) any {
	switch x := v.(type) {
	case float64:
		return fmt.Sprintf("f%016x", math.Float64bits(x))
	case []any:
		l := make([]any, len(x))
		for i, e := range x {
			l[i] = floatBits(e)
		}
		return l
	}
	return v
}

// compareLoaders loads files both ways and compares every row and column.
func compareLoaders(t *testing.T, files ...string) int {
	t.Helper()
	goDB, err := loadGo(t, files...)
	if err != nil {
		t.Fatalf("Go decoder: %v", err)
	}
	sqlDB, err := loadReadJSON(t, files...)
	if err != nil {
		t.Fatalf("read_json: %v", err)
	}
	got, want := requestRows(t, goDB), requestRows(t, sqlDB)
	if len(got) != len(want) {
		t.Fatalf("Go decoder %d rows, read_json %d", len(got), len(want))
	}
	bad := 0
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			if bad++; bad <= 5 {
				t.Errorf("row %d:\n Go decoder %v\n read_json  %v", i, got[i], want[i])
			}
		}
	}
	return len(want)
}

// TestDecoderMatchesReadJSON: the Go decoder gives the rows DuckDB's
// read_json gave (the loader before it), column for column, for
// generated runs of every shape (errors, streaming lists, the runner's
// own encoder), the edge cases above, and both in one load of two files.
func TestDecoderMatchesReadJSON(t *testing.T) {
	defer func(n int) { longLists = n }(longLists)
	longLists = 1 << 30 // the Go decoder, whatever the lists
	var gen []string
	for i, o := range []genOptions{
		{Records: 1500, OSL: 20, ISL: 50, ErrorEvery: 7, Seed: 11},
		{Records: 1500, Streaming: true, OSL: 24, ISL: 50, ErrorEvery: 9, Seed: 12},
		{Records: 150, Streaming: true, OSL: 200, ISL: 50, ErrorEvery: 9, Seed: 13},
	} {
		var buf bytes.Buffer
		if err := writeRecords(&buf, o); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), fmt.Sprintf("gen%d.jsonl", i))
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		gen = append(gen, path)
	}
	edges := writeLines(t, "edges.jsonl", edgeLines)
	for _, files := range [][]string{{gen[0]}, {gen[1]}, {gen[2]}, {edges}, {gen[1], edges, gen[0]}} {
		n := compareLoaders(t, files...)
		if n == 0 {
			t.Errorf("%v: no rows", files)
		}
	}
}

// TestDecoderRejectsWhatReadJSONRejects: a line read_json refused fails
// the Go decoder's load too, naming the file and the line.
func TestDecoderRejectsWhatReadJSONRejects(t *testing.T) {
	good := `{"metadata":{"request_num":1}}`
	for _, line := range []string{
		`{"metadata":{"request_num":"x7"}}`,
		`{"metadata":{"request_num":9223372036854775808}}`,
		`{"metadata":{"turn_index":3000000000}}`,
		`{"metadata":{"request_num":1,"request_num":2}}`,
		`{"metadata":[]}`,
		`{"metrics":"x"}`,
		`{"metrics":{"request_latency":5}}`,
		`{"metrics":{"request_latency":{"value":[1]}}}`,
		`{"metrics":{"request_latency":{"value":{"a":1}}}}`,
		`{"metrics":{"request_latency":{"value":" 12 "}}}`,
		`{"metrics":{"inter_chunk_latency":{"value":5}}}`,
		`{"metrics":{"inter_chunk_latency":{"value":[[1]]}}}`,
		`{"error":"boom"}`,
		`[]`,
		`5`,
		`{"metadata":{"request_num":1}} {"metadata":{"request_num":2}}`,
		`{"metadata":{"request_num":1}`,
		`{"metadata":{"request_num":01}}`,
		`{"metadata":{"x_request_id":"tab	here"}}`,
		`{"metadata":{"x_request_id":"\ud83d"}}`,
		"{\"metadata\":{\"x_request_id\":\"\xff\"}}",
		"\x00",
		"\x00{\"metadata\":{\"request_num\":1}}",
	} {
		path := writeLines(t, "bad.jsonl", []string{good, line, good})
		if _, err := loadReadJSON(t, path); err == nil {
			t.Errorf("read_json accepts %s", line)
		}
		_, err := loadGo(t, path)
		if err == nil || !strings.Contains(err.Error(), "bad.jsonl line 2") {
			t.Errorf("%s: Go decoder error %v, want one naming bad.jsonl line 2", line, err)
		}
	}
}

// castLines hold JSON strings (and other values) in number and boolean
// columns, which read_json cast with DuckDB's VARCHAR casts.
var castLines = []string{
	`{"metadata":{"request_num":"0x10","session_num":"0b101","turn_index":"\t0x7FFFFFFF","credit_issued_ns":" -5","request_end_ns":"\n7\n","cancellation_time_ns":"-0"}}`,
	`{"metadata":{"request_num":"0X1F","session_num":"-9223372036854775808","request_start_ns":"0x7fffffffffffffff","was_cancelled":"yes"}}`,
	`{"metadata":{"was_cancelled":"NO"},"metrics":{"request_latency":{"value":".5"},"time_to_first_token":{"value":"5."},"decode_duration":{"value":"-inf"},"inter_token_latency":{"value":"inFINity"}}}`,
	`{"metadata":{"was_cancelled":"tRuE"},"metrics":{"request_latency":{"value":"-NaN"},"time_to_first_token":{"value":"NAN"},"decode_duration":{"value":"1e-400"},"inter_token_latency":{"value":" -1.5"}}}`,
	`{"metadata":{"was_cancelled":"F"},"metrics":{"request_latency":{"value":"\t1.5"},"time_to_first_token":{"value":"-0"},"decode_duration":{"value":"1.5e+3"},"inter_token_latency":{"value":"-.5"}}}`,
	`{"metadata":{"was_cancelled":-0.0},"error":{"code":"\t500 "},"metrics":{"inter_chunk_latency":{"value":[" nan","5.","-0",false]}}}`,
}

// castRejects are values read_json refused to cast.
var castRejects = []string{
	`{"metadata":{"request_num":"+5"}}`,
	`{"metadata":{"request_num":"00012"}}`,
	`{"metadata":{"request_num":"0x10 "}}`,
	`{"metadata":{"request_num":"-0x10"}}`,
	`{"metadata":{"request_num":"0xffffffffffffffff"}}`,
	`{"metadata":{"request_num":"1_000"}}`,
	`{"metadata":{"request_num":"5.5"}}`,
	`{"metadata":{"request_num":"1e3"}}`,
	`{"metadata":{"turn_index":"0xFFFFFFFF"}}`,
	`{"metrics":{"request_latency":{"value":"+1.5"}}}`,
	`{"metrics":{"request_latency":{"value":"00.5"}}}`,
	`{"metrics":{"request_latency":{"value":"1.5e3 "}}}`,
	`{"metrics":{"request_latency":{"value":"0x10"}}}`,
	`{"metrics":{"request_latency":{"value":""}}}`,
	`{"metrics":{"request_latency":{"value":"+nan"}}}`,
	`{"metadata":{"was_cancelled":"true "}}`,
	`{"metadata":{"was_cancelled":"1"}}`,
	`{"metadata":{"was_cancelled":"y"}}`,
	`{"metadata":{"was_cancelled":Infinity}}`,
	`{"metadata":{"was_cancelled":NaN}}`,
}

// TestDecoderCastsAsReadJSON: strings in number and boolean columns
// convert as DuckDB cast them, and fail where it failed.
func TestDecoderCastsAsReadJSON(t *testing.T) {
	if n := compareLoaders(t, writeLines(t, "casts.jsonl", castLines)); n != len(castLines) {
		t.Errorf("%d rows, want %d", n, len(castLines))
	}
	path := writeLines(t, "rejects.jsonl", nil)
	for _, line := range castRejects {
		if err := os.WriteFile(path, []byte(line+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := loadReadJSON(t, path); err == nil {
			t.Errorf("read_json accepts %s", line)
		}
		if _, err := loadGo(t, path); err == nil {
			t.Errorf("Go decoder accepts %s", line)
		}
	}
}

// TestLoadWidensShape: rows whose fields the first rows lack (a list, an
// error, http_req_* metrics), lack where the first rows had them (a NULL
// request_num), or hold other values where the first rows had one (phase,
// turn_index, input length) load as read_json loads them, in order,
// though the first INSERT's shape did not cover them.
func TestLoadWidensShape(t *testing.T) {
	var lines []string
	pad := strings.Repeat("p", 160)
	for i := range 5000 { // more than a block: the first shape sees only these
		lines = append(lines, fmt.Sprintf(`{"metadata":{"request_num":%d,"x_request_id":"r%d%s","benchmark_phase":"warmup","turn_index":0},"metrics":{"request_latency":{"value":%d.5,"unit":"ms"},"input_sequence_length":{"value":550,"unit":"tokens"}},"error":null}`, i, i, pad, i))
	}
	lines = append(lines,
		`{"metadata":{"request_num":5000},"metrics":{"inter_chunk_latency":{"value":[1.5,2.5]}},"error":null}`,
		`{"metadata":{"request_num":null,"x_request_id":"no number"},"metrics":{"request_latency":{"value":1}}}`,
		`{"metadata":{"request_num":5002},"metrics":{"http_req_total":{"value":3.5}},"error":{"code":500,"type":"t","message":"m"}}`,
		`{"metadata":{"request_num":5003,"x_request_id":"last","benchmark_phase":"profiling","turn_index":1},"metrics":{"request_latency":{"value":2.5,"unit":"ms"},"input_sequence_length":{"value":551,"unit":"tokens"}},"error":null}`,
		`{"metadata":{"request_num":5004,"x_request_id":"after","benchmark_phase":"warmup","turn_index":0},"metrics":{"request_latency":{"value":3.5,"unit":"ms"},"input_sequence_length":{"value":550,"unit":"tokens"}},"error":null}`,
	)
	if n := compareLoaders(t, writeLines(t, "widen.jsonl", lines)); n != 5005 {
		t.Errorf("%d rows, want 5005", n)
	}
}

func TestRecordShape(t *testing.T) {
	var b requestBatch
	row := func(num int64, text string, nonNull ...int) {
		r := requestRow{null: allNull, valid: true}
		for _, f := range nonNull {
			r.null &^= 1 << f
		}
		r.ints[intRequestNum] = num
		r.strs[strPhase] = addSpan(&b.text, []byte(text))
		b.rows = append(b.rows, r)
	}
	num, phase, metric := fieldInt+intRequestNum, fieldStr+strPhase, fieldMetric
	row(1, "p", num, phase, metric)
	row(1, "p", num, phase)
	row(2, "p", num, phase)
	row(1, "q", fieldICL)
	var s recordShape
	s.widen(&b, 0)
	s.nullable, s.fields, s.consts = 0, 0, 0
	s.widen(&requestBatch{rows: b.rows[:1], text: b.text}, 0)
	if !s.fits(&b, &b.rows[0]) || s.fits(&b, &b.rows[1]) || s.fits(&b, &b.rows[2]) || s.consts != 1<<num|1<<phase|1<<metric {
		t.Errorf("shape of row 0: %+v", s)
	}
	s.widen(&requestBatch{rows: b.rows[:3], text: b.text}, 1)
	if !s.fits(&b, &b.rows[0]) || !s.fits(&b, &b.rows[1]) || !s.fits(&b, &b.rows[2]) || s.fits(&b, &b.rows[3]) {
		t.Errorf("shape of rows 0-2: %+v", s)
	}
	if s.consts != 1<<phase || s.nullable&s.fields != 1<<metric {
		t.Errorf("rows 0-2 have the phase constant and a nullable metric: %+v", s)
	}
	s.widen(&b, 3)
	if s.consts != 0 {
		t.Errorf("the phase changed: %+v", s)
	}
	for i := range b.rows {
		if !s.fits(&b, &b.rows[i]) {
			t.Errorf("shape of all rows does not fit row %d: %+v", i, s)
		}
	}
	q, args := s.insert("run", 7)
	for _, want := range []string{"CASE WHEN flags & 1 = 0 THEN request_num END", "inter_chunk_latency", "phase"} {
		if !strings.Contains(q, want) {
			t.Errorf("%s lacks %q", q, want)
		}
	}
	if strings.Contains(q, "x_request_id") || len(args) != 2 {
		t.Errorf("%s %v: x_request_id, which no row has, or constants", q, args)
	}
	var c recordShape
	c.widen(&requestBatch{rows: b.rows[1:2], text: b.text}, 0)
	if q, args := c.insert("run", 7); !strings.Contains(q, "CAST(? AS BIGINT)") || !strings.Contains(q, "CAST(? AS VARCHAR)") ||
		!reflect.DeepEqual(args, []any{"run", int64(1), "p", int64(7)}) {
		t.Errorf("constants: %s %v", q, args)
	}
}

// TestLongListsLoadWithReadJSON: records with long lists load through
// DuckDB's JSON reader, and the rows are those of the Go decoder.
func TestLongListsLoadWithReadJSON(t *testing.T) {
	var buf bytes.Buffer
	if err := writeRecords(&buf, genOptions{Records: 300, Streaming: true, OSL: 2 * longLists, ISL: 50, ErrorEvery: 9, Seed: 14}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "long.jsonl")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	viaChoice, err := loadGo(t, path)
	if err != nil {
		t.Fatal(err)
	}
	defer func(n int) { longLists = n }(longLists)
	longLists = 1 << 30
	viaDecoder, err := loadGo(t, path)
	if err != nil {
		t.Fatal(err)
	}
	got, want := requestRows(t, viaChoice), requestRows(t, viaDecoder)
	if len(got) != 300 || !reflect.DeepEqual(got, want) {
		t.Errorf("%d rows by the choice, %d by the decoder, equal %v", len(got), len(want), reflect.DeepEqual(got, want))
	}
}
