package query

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
)

// csvColumns maps AIPerf's per-record CSV columns (§3.2,
// profile_export_records.csv) to requests columns and their types.
var csvColumns = map[string][2]string{
	"request_num":          {"request_num", "BIGINT"},
	"session_num":          {"session_num", "BIGINT"},
	"x_request_id":         {"x_request_id", "VARCHAR"},
	"x_correlation_id":     {"x_correlation_id", "VARCHAR"},
	"conversation_id":      {"conversation_id", "VARCHAR"},
	"turn_index":           {"turn_index", "INTEGER"},
	"benchmark_phase":      {"phase", "VARCHAR"},
	"worker_id":            {"worker_id", "VARCHAR"},
	"record_processor_id":  {"record_processor_id", "VARCHAR"},
	"credit_issued_ns":     {"credit_issued_ns", "BIGINT"},
	"request_start_ns":     {"request_start_ns", "BIGINT"},
	"request_ack_ns":       {"request_ack_ns", "BIGINT"},
	"request_end_ns":       {"request_end_ns", "BIGINT"},
	"was_cancelled":        {"was_cancelled", "BOOLEAN"},
	"cancellation_time_ns": {"cancellation_time_ns", "BIGINT"},
	"error_code":           {"error_code", "INTEGER"},
	"error_type":           {"error_type", "VARCHAR"},
	"error_message":        {"error_message", "VARCHAR"},
}

// insertCSV loads a local profile_export_records.csv into requests and
// returns the number of rows. Metric columns are named "<tag> (<unit>)";
// tags without a requests column, and inter_chunk_latency, are not read. A
// record is valid when it has neither an error code nor a message.
func insertCSV(ctx context.Context, tx *sql.Tx, runID, file string) (int64, error) {
	src := `read_csv(` + sqlString(file) + `, header = true, all_varchar = true)`
	rows, err := tx.QueryContext(ctx, `SELECT column_name FROM (DESCRIBE SELECT * FROM `+src+`)`)
	if err != nil {
		return 0, fmt.Errorf("records csv: %w", err)
	}
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return 0, fmt.Errorf("records csv: %w", err)
		}
		names = append(names, n)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("records csv: %w", err)
	}

	sel := []string{"CAST(? AS VARCHAR) AS run_id"}
	hasCode, hasMsg := false, false
	for _, n := range names {
		if c, ok := csvColumns[n]; ok {
			sel = append(sel, fmt.Sprintf("TRY_CAST(nullif(%s, '') AS %s) AS %s", quoteIdent(n), c[1], c[0]))
			hasCode = hasCode || n == "error_code"
			hasMsg = hasMsg || n == "error_message"
			continue
		}
		tag, _, _ := strings.Cut(n, " (")
		if now, ok := legacyTags[tag]; ok && !slices.Contains(names, now) {
			tag = now
		}
		if slices.Contains(MetricColumns, tag) {
			sel = append(sel, fmt.Sprintf("TRY_CAST(nullif(%s, '') AS DOUBLE) AS %s", quoteIdent(n), tag))
		}
	}
	valid := []string{"true"}
	if hasCode {
		valid = append(valid, `coalesce("error_code", '') = ''`)
	}
	if hasMsg {
		valid = append(valid, `coalesce("error_message", '') = ''`)
	}
	sel = append(sel, strings.Join(valid, " AND ")+" AS valid")
	res, err := tx.ExecContext(ctx, `INSERT INTO requests BY NAME SELECT `+strings.Join(sel, ", ")+` FROM `+src, runID)
	if err != nil {
		return 0, fmt.Errorf("records csv: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("records csv: %w", err)
	}
	return n, nil
}

// quoteIdent quotes a SQL identifier.
func quoteIdent(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}
