package query

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// metadataFields are the profile_export.jsonl metadata fields read, with
// their types. timestamp_ns and credit_phase are AIPerf's names before
// October 2025 for request_start_ns and benchmark_phase.
const metadataFields = `STRUCT(
	session_num BIGINT, request_num BIGINT, x_request_id VARCHAR, x_correlation_id VARCHAR,
	conversation_id VARCHAR, turn_index INTEGER, credit_issued_ns BIGINT, request_start_ns BIGINT,
	request_ack_ns BIGINT, request_end_ns BIGINT, worker_id VARCHAR, record_processor_id VARCHAR,
	benchmark_phase VARCHAR, was_cancelled BOOLEAN, cancellation_time_ns BIGINT,
	timestamp_ns BIGINT, credit_phase VARCHAR)`

// recordsSelect is the SELECT list that turns read_json rows (metadata,
// metrics, error) into requests columns; run_id is the first parameter.
var recordsSelect = func() string {
	var b strings.Builder
	b.WriteString(`CAST(? AS VARCHAR) AS run_id,
	metadata.request_num AS request_num,
	metadata.session_num AS session_num,
	metadata.x_request_id AS x_request_id,
	metadata.x_correlation_id AS x_correlation_id,
	metadata.conversation_id AS conversation_id,
	metadata.turn_index AS turn_index,
	coalesce(metadata.benchmark_phase, metadata.credit_phase) AS phase,
	metadata.worker_id AS worker_id,
	metadata.record_processor_id AS record_processor_id,
	metadata.credit_issued_ns AS credit_issued_ns,
	coalesce(metadata.request_start_ns, metadata.timestamp_ns) AS request_start_ns,
	metadata.request_ack_ns AS request_ack_ns,
	metadata.request_end_ns AS request_end_ns,
	metadata.was_cancelled AS was_cancelled,
	metadata.cancellation_time_ns AS cancellation_time_ns,
`)
	for _, c := range MetricColumns {
		fmt.Fprintf(&b, "\tmetrics.%s.value AS %s,\n", c, c)
	}
	b.WriteString(`	metrics.inter_chunk_latency.value AS inter_chunk_latency,
	error.code AS error_code,
	error.type AS error_type,
	error.message AS error_message,
	error IS NULL AS valid`)
	return b.String()
}()

// metricsFields is the read_json type of the metrics object: each known tag
// is {"value": …}; unknown tags and "unit" are not read.
var metricsFields = func() string {
	parts := make([]string, 0, len(MetricColumns)+1)
	for _, c := range MetricColumns {
		parts = append(parts, c+" STRUCT(value DOUBLE)")
	}
	parts = append(parts, "inter_chunk_latency STRUCT(value DOUBLE[])")
	return "STRUCT(" + strings.Join(parts, ", ") + ")"
}()

// insertJSONL loads local profile_export.jsonl files (or record segments,
// in the order given) into requests with DuckDB's JSON reader and returns
// the number of rows. It reads what the Go decoder reads, with the same
// results (TestDecoderMatchesReadJSON), and is the faster of the two for
// records with long inter_chunk_latency lists (insertRecords).
func insertJSONL(ctx context.Context, tx *sql.Tx, runID string, files []string) (int64, error) {
	q := `INSERT INTO requests BY NAME SELECT ` + recordsSelect + `
FROM read_json(` + sqlList(files) + `,
	format = 'newline_delimited',
	records = true,
	compression = 'uncompressed',
	columns = {metadata: '` + metadataFields + `', metrics: '` + metricsFields + `', error: 'STRUCT(code INTEGER, type VARCHAR, message VARCHAR)'})`
	res, err := tx.ExecContext(ctx, q, runID)
	if err != nil {
		return 0, fmt.Errorf("load records: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("load records: %w", err)
	}
	return n, nil
}

// sqlString quotes s as a SQL string literal. Table functions take their
// file arguments as literals, not parameters. DuckDB reads a path that
// exists literally even when it holds glob characters (TestIngestAIPerfDirTree).
func sqlString(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// sqlList quotes files as a SQL list of string literals.
func sqlList(files []string) string {
	q := make([]string, len(files))
	for i, f := range files {
		q[i] = sqlString(f)
	}
	return "[" + strings.Join(q, ", ") + "]"
}
