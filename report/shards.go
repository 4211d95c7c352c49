package report

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
)

// ShardLine returns the line `show` prints about a run group's shards,
// from run_shards: "Shards: 3 of 3 present (run group, status complete)",
// or with shards missing "Shards: 2 of 3 present, missing: 1 (run group,
// status partial: shard 1 missing)". It returns "" for a run of one
// process (no run_shards rows).
func ShardLine(ctx context.Context, db *sql.DB, runID string) (string, error) {
	rows, err := db.QueryContext(ctx, `SELECT s.shard_index, s.shard_count, s.missing, r.status, coalesce(r.reason, '')
		FROM run_shards s JOIN runs r USING (run_id) WHERE run_id = ? ORDER BY s.shard_index`, runID)
	if err != nil {
		return "", fmt.Errorf("shards of %s: %w", runID, err)
	}
	defer rows.Close()
	var (
		count, present int
		missing        []string
		status, reason string
	)
	for rows.Next() {
		var idx int
		var gone bool
		if err := rows.Scan(&idx, &count, &gone, &status, &reason); err != nil {
			return "", fmt.Errorf("shards of %s: %w", runID, err)
		}
		if gone {
			missing = append(missing, strconv.Itoa(idx))
		} else {
			present++
		}
	}
	if err := rows.Err(); err != nil {
		return "", fmt.Errorf("shards of %s: %w", runID, err)
	}
	if count == 0 {
		return "", nil
	}
	line := fmt.Sprintf("Shards: %d of %d present", present, count)
	if len(missing) > 0 {
		line += ", missing: " + strings.Join(missing, ", ")
	}
	line += " (run group, status " + status
	if reason != "" {
		line += ": " + reason
	}
	return line + ")", nil
}
