package report

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/aiperf-go/aiperf/query"
)

// TestRegressLabelsAreIdentity: runs of one workload_id with different
// labels are separate workloads (an a100 run is never an h100 run's
// baseline), and the baseline names the runs it averaged.
func TestRegressLabelsAreIdentity(t *testing.T) {
	ctx := context.Background()
	db, err := query.Open(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// Oldest first: two h100 runs at 100 ms, an a100 run at 300 ms, then
	// the newest h100 run at 105 ms.
	runs := []struct {
		id, labels string
		ttft       float64
	}{
		{"h1", `{"gpu":"h100"}`, 100},
		{"h2", `{"gpu":"h100"}`, 100},
		{"a1", `{"gpu":"a100"}`, 300},
		{"h3", `{"gpu":"h100"}`, 105},
	}
	for i, r := range runs {
		_, err := db.SQL().ExecContext(ctx, `INSERT INTO runs (run_id, source, status, start_time, model, endpoint_type,
			streaming, load_mode, concurrency, labels, ingested_at, content_key)
			VALUES (?, 'test', 'complete', TIMESTAMP '2026-01-01 00:00:00' + to_minutes(CAST(? AS BIGINT)), 'm', 'chat', true,
			'concurrency', 4, ?, now(), 'k')`, r.id, i, r.labels)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.SQL().ExecContext(ctx, `INSERT INTO run_metrics (run_id, tag, unit, p99, scalar)
			VALUES (?, 'time_to_first_token', 'ms', ?, false)`, r.id, r.ttft); err != nil {
			t.Fatal(err)
		}
	}
	check, err := ParseCheck("time_to_first_token.p99", "10%", "")
	if err != nil {
		t.Fatal(err)
	}
	fs, err := Regress(ctx, db.SQL(), RegressOptions{Check: check, Previous: 3})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Finding{}
	for _, f := range fs {
		got[f.Workload] = f
	}
	const id = "m|chat|stream|islna|oslna|concurrency4"
	h100, a100 := got[id+"|gpu=h100"], got[id+"|gpu=a100"]
	if len(fs) != 2 || h100.Run != "h3" || a100.Run != "a1" {
		t.Fatalf("findings %+v", fs)
	}
	if h100.Regressed || h100.BaselineValue != 100 || math.Abs(h100.Change-0.05) > 1e-12 {
		t.Errorf("h100 compared with %v (%s): change %v regressed %v", h100.BaselineValue, h100.Baseline, h100.Change, h100.Regressed)
	}
	if want := "mean of 2 previous run(s): h1, h2"; h100.Baseline != want {
		t.Errorf("baseline %q, want %q", h100.Baseline, want)
	}
	if !math.IsNaN(a100.BaselineValue) {
		t.Errorf("a100 has no earlier run, got baseline %v (%s)", a100.BaselineValue, a100.Baseline)
	}
	// --workload accepts the id with its labels, or the bare id (both).
	for w, n := range map[string]int{id + "|gpu=h100": 1, id: 2} {
		fs, err := Regress(ctx, db.SQL(), RegressOptions{Check: check, Workload: w})
		if err != nil || len(fs) != n {
			t.Errorf("--workload %s: %d findings, want %d: %v", w, len(fs), n, fmt.Sprint(fs))
		}
	}
}
