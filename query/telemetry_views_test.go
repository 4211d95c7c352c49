package query

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// viewsRun is the killed run that writeViewsRun stores.
const viewsRun = "20251108T000000Z-7e1e0009"

// viewsT0 is 2025-11-08 00:00:00 UTC in ns; writeViewsRun's samples are
// at whole and half seconds after it.
const viewsT0 = int64(1762560000) * 1e9

// writeViewsRun stores, under dir, a killed run whose profiling window
// is viewsT0+1 s to +3 s (two requests), with the GPU readings and
// server scrapes given as lines of telemetry segments.
func writeViewsRun(t *testing.T, dir string, gpu, server []string) {
	t.Helper()
	run := filepath.Join(dir, "runs", viewsRun)
	records := []string{
		fmt.Sprintf(`{"metadata":{"request_num":0,"benchmark_phase":"profiling","request_start_ns":%d,"request_end_ns":%d}}`, viewsT0+1e9, viewsT0+2e9),
		fmt.Sprintf(`{"metadata":{"request_num":1,"benchmark_phase":"profiling","request_start_ns":%d,"request_end_ns":%d}}`, viewsT0+2e9, viewsT0+3e9),
	}
	for name, lines := range map[string][]string{"records": records, "telemetry/gpu": gpu, "telemetry/server": server} {
		seg := filepath.Join(run, filepath.FromSlash(name), "000001.jsonl")
		if err := os.MkdirAll(filepath.Dir(seg), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(seg, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// gpuLine is a GPU reading of GPU index at viewsT0 + ms.
func gpuLine(ms int64, index int, fields string) string {
	return fmt.Sprintf(`{"timestamp_ns":%d,"gpu_index":%d,"gpu_uuid":"GPU-%d","telemetry_source_url":"http://h:9400/metrics","telemetry_data":{%s}}`,
		viewsT0+ms*1e6, index, index, fields)
}

// TestGPUSummaryCounterReset: a GPU counter that went back (a driver
// reload) has an increase of 0, as AIPerf clamps it, not a negative
// energy; a counter a GPU does not report stays NULL.
func TestGPUSummaryCounterReset(t *testing.T) {
	dir := t.TempDir()
	writeViewsRun(t, dir, []string{
		// GPU 0: 10 MJ at the baseline, reset to 5 MJ during the window.
		gpuLine(500, 0, `"energy_consumption":10,"xid_errors":2`),
		gpuLine(1500, 0, `"energy_consumption":10.000001,"xid_errors":2`),
		gpuLine(2500, 0, `"energy_consumption":5,"xid_errors":0`),
		gpuLine(3500, 0, `"energy_consumption":5.000002,"xid_errors":0`),
		// GPU 1: 1 MJ + 2 J + 2 J.
		gpuLine(500, 1, `"energy_consumption":1`),
		gpuLine(2000, 1, `"energy_consumption":1.000002`),
		gpuLine(3500, 1, `"energy_consumption":1.000004`),
	}, nil)
	db := openTestDB(t)
	if _, err := db.Ingest(context.Background(), "", openStore(t, dir)); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		index        int
		energy, xids float64
	}{{0, 0, 0}, {1, 4, -1}} {
		q := `SELECT %s FROM gpu_summary WHERE run_id = ? AND gpu_index = ?`
		if v := queryFloat(t, db, fmt.Sprintf(q, "energy_j"), viewsRun, c.index); v == nil || !near(*v, c.energy) {
			t.Errorf("GPU %d: energy_j %v, want %v", c.index, deref(v), c.energy)
		}
		v := queryFloat(t, db, fmt.Sprintf(q, "xid_errors"), viewsRun, c.index)
		if c.xids < 0 && v != nil || c.xids >= 0 && (v == nil || *v != c.xids) {
			t.Errorf("GPU %d: xid_errors %v, want %v (-1: NULL)", c.index, deref(v), c.xids)
		}
		if v := queryFloat(t, db, fmt.Sprintf(q, "thermal_violation_us"), viewsRun, c.index); v != nil {
			t.Errorf("GPU %d: thermal_violation_us %v, want NULL", c.index, *v)
		}
	}
}

// serverLine is a scrape at viewsT0 + ms with the given metrics.
func serverLine(ms int64, metrics string) string {
	return fmt.Sprintf(`{"endpoint_url":"http://h:8000/metrics","timestamp_ns":%d,"metrics":{%s}}`, viewsT0+ms*1e6, metrics)
}

// TestServerSummaryNullsAndResets: a counter's increase bridges a scrape
// whose value is NULL (NaN or null in the file) from the value before it
// to the one after it, and counts a reset as Prometheus' increase() does;
// a histogram's count and sum do the same.
func TestServerSummaryNullsAndResets(t *testing.T) {
	dir := t.TempDir()
	hist := func(count, sum string) string {
		return `"h":[{"buckets":{"+Inf":` + count + `},"count":` + count + `,"sum":` + sum + `}]`
	}
	writeViewsRun(t, dir, nil, []string{
		serverLine(500, `"c_total":[{"value":10}],"r_total":[{"value":100}],`+hist("1", "0.5")),
		serverLine(1500, `"c_total":[{"value":null}],"r_total":[{"value":120}],`+hist("null", "null")),
		serverLine(2500, `"c_total":[{"value":30}],"r_total":[{"value":5}],`+hist("4", "2")),
		serverLine(3500, `"c_total":[{"value":35}],"r_total":[{"value":15}],`+hist("6", "3.5")),
	})
	db := openTestDB(t)
	if _, err := db.Ingest(context.Background(), "", openStore(t, dir)); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		metric            string
		increase, sumIncr float64 // sumIncr -1: NULL
	}{
		{"c_total", 20 + 5, -1},      // 10 → (NULL) → 30 → 35
		{"r_total", 20 + 5 + 10, -1}, // 100 → 120 → reset to 5 → 15
		{"h", 3 + 2, 1.5 + 1.5},      // count 1 → (NULL) → 4 → 6, sum .5 → 2 → 3.5
	} {
		var incr, rate, sumIncr *float64
		q := `SELECT %s FROM server_metrics_summary WHERE run_id = ? AND metric = ?`
		incr = queryFloat(t, db, fmt.Sprintf(q, "increase"), viewsRun, c.metric)
		rate = queryFloat(t, db, fmt.Sprintf(q, "rate"), viewsRun, c.metric)
		sumIncr = queryFloat(t, db, fmt.Sprintf(q, "sum_increase"), viewsRun, c.metric)
		if incr == nil || !near(*incr, c.increase) || rate == nil || !near(*rate, c.increase/3) {
			t.Errorf("%s: increase %v rate %v, want %v over 3 s", c.metric, deref(incr), deref(rate), c.increase)
		}
		if c.sumIncr < 0 && sumIncr != nil || c.sumIncr >= 0 && (sumIncr == nil || !near(*sumIncr, c.sumIncr)) {
			t.Errorf("%s: sum_increase %v, want %v (-1: NULL)", c.metric, deref(sumIncr), c.sumIncr)
		}
	}
}
