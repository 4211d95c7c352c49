package query

import (
	"context"
	"testing"
)

// TestQuantileContIsNumpyLinear: DuckDB's quantile_cont is numpy's default
// percentile (linear interpolation), which is what AIPerf reports. The
// expectations are computed by hand: for sorted v = [1,2,3,4,10] and
// k = q*(n-1), p = v[floor k] + frac(k)*(v[floor k + 1] - v[floor k]).
func TestQuantileContIsNumpyLinear(t *testing.T) {
	db := openTestDB(t)
	ins := `INSERT INTO requests (run_id, time_to_first_token, valid) VALUES (?, ?, ?)`
	for _, v := range []any{10.0, 1.0, 4.0, nil, 3.0, 2.0} { // NULL (an error record) is not a value
		if _, err := db.SQL().Exec(ins, "five", v, v != nil); err != nil {
			t.Fatal(err)
		}
	}
	for _, v := range []float64{0, 100} {
		if _, err := db.SQL().Exec(ins, "two", v, true); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.SQL().Exec(ins, "one", 7.0, true); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		run  string
		q    float64
		want float64
	}{
		{"five", 0, 1},
		{"five", 0.01, 1.04}, // k=0.04: 1 + 0.04*(2-1)
		{"five", 0.25, 2},    // k=1
		{"five", 0.5, 3},     // k=2
		{"five", 0.9, 7.6},   // k=3.6: 4 + 0.6*(10-4)
		{"five", 0.99, 9.76}, // k=3.96: 4 + 0.96*(10-4)
		{"five", 1, 10},      // k=4
		{"two", 0.99, 99},    // k=0.99: 0 + 0.99*100
		{"two", 0.5, 50},     // k=0.5
		{"one", 0.99, 7},     // one value
		{"five", 0.125, 1.5}, // k=0.5
		{"five", 0.875, 7},   // k=3.5: 4 + 0.5*6
		{"five", 0.95, 8.8},  // k=3.8: 4 + 0.8*6
	}
	for _, tc := range tests {
		got := queryFloat(t, db, `SELECT quantile_cont(time_to_first_token, ?) FROM requests WHERE run_id = ?`, tc.q, tc.run)
		if got == nil || !near(*got, tc.want) {
			t.Errorf("%s q=%v: %v, want %v", tc.run, tc.q, deref(got), tc.want)
		}
		if p := percentile(valuesOf(tc.run), tc.q*100); !near(p, tc.want) {
			t.Errorf("test helper percentile(%s, %v) = %v, want %v", tc.run, tc.q*100, p, tc.want)
		}
	}
}

func valuesOf(run string) []float64 {
	switch run {
	case "five":
		return []float64{10, 1, 4, 3, 2}
	case "two":
		return []float64{0, 100}
	}
	return []float64{7}
}

// TestP99OverAllRuns: a percentile over every run of a store equals the
// numpy-style percentile of the JSONL values, and a run's p99 equals the
// p99 its summary reports.
func TestP99OverAllRuns(t *testing.T) {
	dir := testStore(t)
	db := openTestDB(t)
	if _, err := db.Ingest(context.Background(), "", openStore(t, dir)); err != nil {
		t.Fatal(err)
	}
	var ttft []float64
	for _, files := range storedRuns(t, dir) {
		for _, r := range readJSONL(t, files...) {
			if v := r.num("time_to_first_token"); v != nil {
				ttft = append(ttft, *v)
			}
		}
	}
	if len(ttft) < 50 {
		t.Fatalf("only %d TTFT values", len(ttft))
	}
	got := queryFloat(t, db, `SELECT quantile_cont(time_to_first_token, 0.99) FROM requests`)
	if want := percentile(ttft, 99); got == nil || !near(*got, want) {
		t.Errorf("p99 over all runs %v, want %v", got, want)
	}

	// Per run, over valid profiling records, against the summary's p99 and
	// p50 (computed by the runner in ns, then converted to ms).
	rows, err := db.SQL().Query(`
		SELECT q.run_id, q.tag, q.p, m.p
		FROM (
			SELECT run_id, 'request_latency' AS tag, quantile_cont(request_latency, 0.99) AS p FROM requests
			WHERE valid AND phase = 'profiling' GROUP BY run_id
			UNION ALL
			SELECT run_id, 'time_to_first_token', quantile_cont(time_to_first_token, 0.5) FROM requests
			WHERE valid AND phase = 'profiling' GROUP BY run_id
		) q
		JOIN (SELECT run_id, tag, CASE WHEN tag = 'request_latency' THEN p99 ELSE p50 END AS p FROM run_metrics) m
		USING (run_id, tag)`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var id, tag string
		var q, m *float64
		if err := rows.Scan(&id, &tag, &q, &m); err != nil {
			t.Fatal(err)
		}
		n++
		if q == nil || m == nil || !near(*q, *m) {
			t.Errorf("run %s %s: quantile_cont %v, summary %v", id, tag, deref(q), deref(m))
		}
	}
	if n < 4 {
		t.Errorf("compared %d run percentiles", n)
	}
}
