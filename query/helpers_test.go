package query

import (
	"bufio"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// openTestDB opens an in-memory database closed at the end of the test.
func openTestDB(t testing.TB) *DB {
	t.Helper()
	db, err := Open(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// jsonRecord is a profile_export.jsonl line as the tests read it, with
// encoding/json, independently of the DuckDB loader.
type jsonRecord struct {
	Metadata struct {
		RequestNum     int64  `json:"request_num"`
		SessionNum     int64  `json:"session_num"`
		XRequestID     string `json:"x_request_id"`
		ConversationID string `json:"conversation_id"`
		Phase          string `json:"benchmark_phase"`
		WorkerID       string `json:"worker_id"`
		CreditIssuedNS *int64 `json:"credit_issued_ns"`
		StartNS        *int64 `json:"request_start_ns"`
		AckNS          *int64 `json:"request_ack_ns"`
		EndNS          *int64 `json:"request_end_ns"`
	} `json:"metadata"`
	Metrics map[string]struct {
		Value json.RawMessage `json:"value"`
		Unit  string          `json:"unit"`
	} `json:"metrics"`
	Error *struct {
		Code    *int   `json:"code"`
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

// num returns a scalar metric, or nil when absent.
func (r *jsonRecord) num(tag string) *float64 {
	m, ok := r.Metrics[tag]
	if !ok {
		return nil
	}
	var f float64
	if err := json.Unmarshal(m.Value, &f); err != nil {
		return nil
	}
	return &f
}

// list returns a list metric, or nil when absent.
func (r *jsonRecord) list(tag string) []float64 {
	var l []float64
	if m, ok := r.Metrics[tag]; ok {
		_ = json.Unmarshal(m.Value, &l)
	}
	return l
}

// readJSONL reads every record of the JSONL files, in order.
func readJSONL(t testing.TB, files ...string) []jsonRecord {
	t.Helper()
	var out []jsonRecord
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			var r jsonRecord
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			out = append(out, r)
		}
		f.Close()
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// percentile is numpy's default (linear) percentile of values, q in
// [0,100]: k = q/100*(n-1), v[lo] + (k-lo)*(v[hi]-v[lo]).
func percentile(values []float64, q float64) float64 {
	v := append([]float64(nil), values...)
	sort.Float64s(v)
	k := q / 100 * float64(len(v)-1)
	lo := int(math.Floor(k))
	hi := min(lo+1, len(v)-1)
	return v[lo] + (k-float64(lo))*(v[hi]-v[lo])
}

// near reports whether a and b agree to 1e-9 relative.
func near(a, b float64) bool {
	return math.Abs(a-b) <= 1e-9*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

// queryFloat runs a query returning one nullable float.
func queryFloat(t testing.TB, db *DB, q string, args ...any) *float64 {
	t.Helper()
	var v *float64
	if err := db.SQL().QueryRow(q, args...).Scan(&v); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return v
}

// queryInt runs a query returning one integer.
func queryInt(t testing.TB, db *DB, q string, args ...any) int64 {
	t.Helper()
	var v int64
	if err := db.SQL().QueryRow(q, args...).Scan(&v); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return v
}

// copyDir copies the regular files of the tree src into dst.
func copyDir(t testing.TB, src, dst string) {
	t.Helper()
	err := filepath.Walk(src, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if fi.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// deref formats a nullable value for messages.
func deref[T any](p *T) any {
	if p == nil {
		return "NULL"
	}
	return *p
}

// queryRows runs q with args and returns its rows.
func queryRows(t testing.TB, db *DB, q string, args ...any) [][]any {
	t.Helper()
	rows, err := db.SQL().Query(q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out [][]any
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		out = append(out, vals)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
