package report

import (
	"context"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/query"
)

// BenchmarkP99OverHistory builds a history of 1,000 runs x 10,000 requests
// (10 M rows, generated inside DuckDB) and times the p99 TTFT over all runs
// and per run.
func BenchmarkP99OverHistory(b *testing.B) {
	ctx := context.Background()
	db, err := query.Open(ctx, "")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	start := time.Now()
	_, err = db.SQL().ExecContext(ctx, `INSERT INTO requests (run_id, request_num, phase, valid, request_start_ns, time_to_first_token, request_latency)
		SELECT 'run-' || lpad(CAST(i // 10000 AS VARCHAR), 4, '0'), i % 10000, 'profiling', true,
		       1795318034974640749 + i * 1000000, 20 + random() * 30, 200 + random() * 300
		FROM range(10000000) t(i)`)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("generated 10,000,000 requests in %v", time.Since(start))
	for _, q := range []struct{ name, sql string }{
		{"all-runs", `SELECT quantile_cont(time_to_first_token, 0.99) FROM requests`},
		{"per-run", `SELECT run_id, quantile_cont(time_to_first_token, 0.99) FROM requests GROUP BY run_id`},
	} {
		b.Run(q.name, func(b *testing.B) {
			for b.Loop() {
				rows, err := db.SQL().QueryContext(ctx, q.sql)
				if err != nil {
					b.Fatal(err)
				}
				for rows.Next() {
				}
				rows.Close()
			}
		})
	}
}
