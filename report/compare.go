package report

import (
	"context"
	"database/sql"
	"fmt"
)

// compareStats are the statistics compare shows for distributions; scalar
// metrics show avg only.
var compareStats = []string{"avg", "p50", "p90", "p99"}

// Compare puts the summaries of runs a and b side by side: every metric
// both have, with b's change from a (absolute and relative).
func Compare(ctx context.Context, db *sql.DB, a, b string) (*Table, error) {
	for _, id := range []string{a, b} {
		var n int
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM run_metrics WHERE run_id = ?`, id).Scan(&n); err != nil {
			return nil, fmt.Errorf("compare: %w", err)
		}
		if n == 0 {
			return nil, fmt.Errorf("no metrics for run %q: see aiperf-report runs", id)
		}
	}
	rows, err := db.QueryContext(ctx, `SELECT x.tag, x.unit, x.scalar,
			x.avg, x.p50, x.p90, x.p99, y.avg, y.p50, y.p90, y.p99
		FROM run_metrics x JOIN run_metrics y ON x.tag = y.tag
		WHERE x.run_id = ? AND y.run_id = ? ORDER BY x.tag`, a, b)
	if err != nil {
		return nil, fmt.Errorf("compare: %w", err)
	}
	defer rows.Close()
	t := &Table{Columns: []string{"metric", "stat", "unit", a, b, "delta", "delta %"}}
	for rows.Next() {
		var tag, unit string
		var scalar bool
		var va, vb [4]sql.NullFloat64
		if err := rows.Scan(&tag, &unit, &scalar, &va[0], &va[1], &va[2], &va[3], &vb[0], &vb[1], &vb[2], &vb[3]); err != nil {
			return nil, err
		}
		for i, stat := range compareStats {
			if scalar && i > 0 {
				break
			}
			if !va[i].Valid || !vb[i].Valid {
				continue
			}
			x, y := va[i].Float64, vb[i].Float64
			pct := any(nil)
			if x != 0 {
				pct = fmt.Sprintf("%+.1f%%", 100*(y-x)/x)
			}
			t.Rows = append(t.Rows, []any{tag, stat, unit, x, y, y - x, pct})
		}
	}
	return t, rows.Err()
}
