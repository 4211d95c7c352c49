package query

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// docExamples returns the queries of docs/schema.md's telemetry examples
// by their first comment line.
func docExamples(t *testing.T) map[string]string {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join("..", "docs", "schema.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "### Telemetry examples")
	if !ok {
		t.Fatal("docs/schema.md has no telemetry examples")
	}
	_, block, _ := strings.Cut(section, "```sql\n")
	block, _, _ = strings.Cut(block, "```")
	out := map[string]string{}
	for _, q := range strings.Split(block, ";") {
		q = strings.TrimSpace(q)
		if q == "" {
			continue
		}
		title, _, _ := strings.Cut(q, "\n")
		out[strings.TrimPrefix(title, "-- ")] = q
	}
	return out
}

// TestTelemetryExamples runs the documented telemetry queries against the
// fixture runs and checks their answers, computed by hand from the
// fixture lines (testdata/telemetry-store):
//
//   - The finished run's profiling window is 21:38:51.3 to 21:38:53.0
//     (five valid requests with 100+120+90+110+80 = 500 output tokens, and
//     a failed one); the killed run's is 21:38:51.0 to 21:38:53.5 (two
//     requests, 40+60 = 100 tokens).
//   - GPU readings bracketing the first window: from 21:38:51.280 (energy
//     32.627486770000004 MJ) to 21:38:53.276 (32.627670225 MJ), on both
//     exporters: 183.455 J each. The second: from 21:38:50.946
//     (32.62748095 MJ) to 21:38:53.609 (32.627706598 MJ): 225.648 J each.
//   - Scrapes every 0.5 s from 21:38:50.5: waiting 0 0 0 1 2 0 0, KV-cache
//     usage 0 0 .10 .25 .40 .20 0, generated tokens 990 1000 1040 1150
//     1260 1450 1500, TTFT histogram count 0 0 1 2 4 5 5 and sum 0 0 .15
//     .36 .92 1.24 1.24. The killed run's tokens counter reads 10 50 5 30
//     40 at 21:38:51, 52, 53, 54, 55 (a reset at 53).
func TestTelemetryExamples(t *testing.T) {
	db := ingestTelemetryStore(t)
	at := func(s string) time.Time {
		v, err := time.Parse(time.DateTime, "2025-11-07 "+s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	want := map[string][][]any{
		"tokens per joule of each run": {
			{telemetryRun, 500.0, 2 * 183.455, 500 / (2 * 183.455)},
			{segmentsRun, 100.0, 2 * 225.648, 100 / (2 * 225.648)},
		},
		// Requests at 51.3 and 51.8 see the scrapes of 51.0 and 51.5 (0,
		// .10); those at 52.0, 52.4 and 52.5 those of 52.0, 52.0, 52.5 (.25,
		// .25, .40). TTFTs 150, 210 | 260, 300, 320 ms.
		"KV-cache usage against TTFT, by second of request start": {
			{at("21:38:51"), int64(2), 180.0, 0.05},
			{at("21:38:52"), int64(3), 880.0 / 3, 0.3},
		},
		"queue depth over time": {
			{at("21:38:50"), 0.0, 0.0},
			{at("21:38:51"), 0.0, 0.0},
			{at("21:38:52"), 2.0, 1.5},
			{at("21:38:53"), 0.0, 0.0},
		},
		// Scrapes 51.0 to 53.0: 5 observations summing to 1.24 s.
		"the server's own mean TTFT over the profiling window, from its histogram": {
			{telemetryRun, "Qwen/Qwen3-0.6B", 5.0, 248.0},
		},
		// 1450 - 1000 over 2 s; killed run, 51 to 54: 40 + 5 + 25 over 3 s.
		"generation rate the server counted against the tokens the client counted": {
			{telemetryRun, 450.0, 225.0, 500.0},
			{segmentsRun, 70.0, 70.0 / 3, 100.0},
		},
		// Power of the bracketing readings, e.g. 32.051 + 58.911 + 91.541 +
		// 113.989 + 119.638 + 119.809 + 119.482 = 655.421 W over 7; GPU
		// utilisation 99 + 94 + 94 + 94 + 95 + 94 + 93 = 663 over 7.
		"power, utilisation and energy of each GPU": {
			{telemetryRun, "http://localhost:9400/metrics", int32(0), int64(7), 655.421 / 7, 663.0 / 7, 49.661607936, 183.455},
			{telemetryRun, "http://localhost:9402/metrics", int32(0), int64(7), 660.412 / 7, 663.0 / 7, 49.661607936, 183.455},
			{segmentsRun, "http://localhost:9400/metrics", int32(0), int64(9), 805.541 / 9, 760.0 / 9, 49.661607936, 225.648},
			{segmentsRun, "http://localhost:9402/metrics", int32(0), int64(9), 810.468 / 9, 760.0 / 9, 49.661607936, 225.648},
		},
	}
	examples := docExamples(t)
	if len(examples) != len(want) {
		t.Errorf("docs have %d examples, the test checks %d", len(examples), len(want))
	}
	for title, q := range examples {
		rows, ok := want[title]
		if !ok {
			t.Errorf("no expected answer for %q", title)
			continue
		}
		got := queryRows(t, db, q)
		if len(got) != len(rows) {
			t.Errorf("%s: %d rows %v, want %d", title, len(got), got, len(rows))
			continue
		}
		for i := range rows {
			if !sameRow(got[i], rows[i]) {
				t.Errorf("%s row %d:\n got %v\nwant %v", title, i, got[i], rows[i])
			}
		}
	}
}

// sameRow compares values, floats to 1e-9 relative.
func sameRow(got, want []any) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		switch w := want[i].(type) {
		case float64:
			g, ok := got[i].(float64)
			if !ok || !near(g, w) {
				return false
			}
		case time.Time:
			g, ok := got[i].(time.Time)
			if !ok || !g.Equal(w) {
				return false
			}
		default:
			if got[i] != want[i] {
				return false
			}
		}
	}
	return true
}
