package query

import (
	"slices"
	"strings"
)

// SchemaVersion is the version of the schema documented in docs/schema.md,
// stored in schema_info(version). It changes whenever a table, column, view
// or macro changes meaning.
const SchemaVersion = "6"

// MetricColumns are the typed DOUBLE columns of the requests table, one per
// scalar metric tag that aiperf-go writes to profile_export.jsonl (record
// metrics, plus the per-record good_request_count), in display units (ms,
// tokens, tokens/sec/user, %). A tag absent from a record is NULL. The
// list-valued inter_chunk_latency has its own DOUBLE[] column.
var MetricColumns = slices.Concat(v1MetricColumns, httpTraceColumns, videoColumns)

// v1MetricColumns are the metric columns of schema 1; later versions add
// theirs at the end of the table.
var v1MetricColumns = []string{
	"time_to_first_token",
	"time_to_second_token",
	"time_to_first_output_token",
	"request_latency",
	"decode_duration",
	"inter_token_latency",
	"output_token_throughput_per_user",
	"prefill_throughput_per_user",
	"e2e_output_token_throughput",
	"input_sequence_length",
	"output_sequence_length",
	"output_token_count",
	"reasoning_token_count",
	"usage_prompt_tokens",
	"usage_completion_tokens",
	"usage_total_tokens",
	"usage_reasoning_tokens",
	"usage_prompt_cache_read_tokens",
	"usage_prompt_tokens_diff_pct",
	"usage_completion_tokens_diff_pct",
	"usage_reasoning_tokens_diff_pct",
	"osl_mismatch_diff_pct",
	"good_request_count",
	"error_isl",
}

// httpTraceColumns are the HTTP trace metrics (--show-trace-timing or
// --export-http-trace), added by schema 3.
var httpTraceColumns = []string{
	"http_req_blocked", "http_req_dns_lookup", "http_req_connecting", "http_req_sending",
	"http_req_waiting", "http_req_receiving", "http_req_duration", "http_req_connection_overhead",
	"http_req_total", "http_req_data_sent", "http_req_data_received", "http_req_connection_reused",
	"http_req_chunks_sent", "http_req_chunks_received",
}

// videoColumns are the video_generation metrics, added by schema 5.
var videoColumns = []string{"video_inference_time", "video_peak_memory"}

// statColumns are the statistics of a run_metrics row, in table order.
var statColumns = []string{"avg", "sum", "count", "min", "max", "p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99", "std"}

const runsDDL = `
CREATE TABLE runs (
	run_id          VARCHAR PRIMARY KEY,
	source          VARCHAR NOT NULL,
	status          VARCHAR NOT NULL,
	reason          VARCHAR,
	start_time      TIMESTAMP,
	end_time        TIMESTAMP,
	tool_name       VARCHAR,
	tool_version    VARCHAR,
	tool_commit     VARCHAR,
	benchmark_id    VARCHAR,
	model           VARCHAR,
	models          VARCHAR[],
	endpoint_type   VARCHAR,
	streaming       BOOLEAN,
	load_mode       VARCHAR,
	concurrency     INTEGER,
	request_rate    DOUBLE,
	arrival_pattern VARCHAR,
	request_count   BIGINT,
	isl_mean        DOUBLE,
	isl_stddev      DOUBLE,
	osl_mean        DOUBLE,
	osl_stddev      DOUBLE,
	dataset_sha256  VARCHAR,
	hostname        VARCHAR,
	cpus            INTEGER,
	kernel          VARCHAR,
	manifest        JSON,
	input_config    JSON,
	records         BIGINT NOT NULL DEFAULT 0,
	ingested_at     TIMESTAMP NOT NULL,
	content_key     VARCHAR NOT NULL
)`

const runMetricsDDL = `
CREATE TABLE run_metrics (
	run_id VARCHAR NOT NULL,
	tag    VARCHAR NOT NULL,
	unit   VARCHAR,
	avg DOUBLE, sum DOUBLE, count BIGINT, min DOUBLE, max DOUBLE,
	p1 DOUBLE, p5 DOUBLE, p10 DOUBLE, p25 DOUBLE, p50 DOUBLE, p75 DOUBLE, p90 DOUBLE, p95 DOUBLE, p99 DOUBLE,
	std    DOUBLE,
	scalar BOOLEAN NOT NULL
)`

// requestsDDL is built from MetricColumns so that the table, the loader
// and the documentation share one list.
func requestsDDL() string {
	var b strings.Builder
	b.WriteString(`
CREATE TABLE requests (
	run_id               VARCHAR NOT NULL,
	request_num          BIGINT,
	session_num          BIGINT,
	x_request_id         VARCHAR,
	x_correlation_id     VARCHAR,
	conversation_id      VARCHAR,
	turn_index           INTEGER,
	phase                VARCHAR,
	worker_id            VARCHAR,
	record_processor_id  VARCHAR,
	credit_issued_ns     BIGINT,
	request_start_ns     BIGINT,
	request_ack_ns       BIGINT,
	request_end_ns       BIGINT,
	was_cancelled        BOOLEAN,
	cancellation_time_ns BIGINT,
`)
	for _, c := range v1MetricColumns {
		b.WriteString("\t" + c + " DOUBLE,\n")
	}
	b.WriteString(`	inter_chunk_latency  DOUBLE[],
	error_code           INTEGER,
	error_type           VARCHAR,
	error_message        VARCHAR,
	valid                BOOLEAN NOT NULL
)`)
	return b.String()
}

// workloadMacros name a workload: "mock-model|chat|stream|isl550|osl256|concurrency8".
// A missing part reads "na"; rates keep DuckDB's DOUBLE text ("request_rate10.0").
const workloadMacros = `
CREATE MACRO aiperf_num(x) AS
	CASE WHEN x IS NULL THEN 'na'
	     WHEN x = trunc(x) AND abs(x) < 1e15 THEN CAST(CAST(x AS BIGINT) AS VARCHAR)
	     ELSE CAST(x AS VARCHAR) END;
CREATE MACRO workload_id(model, endpoint_type, streaming, isl_mean, osl_mean, load_mode, concurrency, request_rate) AS
	concat_ws('|',
		coalesce(model, 'na'),
		coalesce(endpoint_type, 'na'),
		CASE WHEN streaming THEN 'stream' WHEN NOT streaming THEN 'nostream' ELSE 'na' END,
		'isl' || aiperf_num(isl_mean),
		'osl' || aiperf_num(osl_mean),
		CASE load_mode
			WHEN 'concurrency' THEN 'concurrency' || coalesce(CAST(concurrency AS VARCHAR), 'na')
			WHEN 'request_rate' THEN concat_ws('-',
				CASE WHEN concurrency > 0 THEN 'concurrency' || concurrency END,
				'request_rate' || coalesce(CAST(CAST(request_rate AS DOUBLE) AS VARCHAR), 'na'))
			ELSE 'na' END);
`

const workloadsView = `
CREATE VIEW workloads AS
SELECT
	workload_id(model, endpoint_type, streaming, isl_mean, osl_mean, load_mode, concurrency, request_rate) AS workload_id,
	model, endpoint_type, streaming, isl_mean, osl_mean, load_mode, concurrency, request_rate,
	count(*) AS runs,
	min(start_time) AS first_start_time,
	max(start_time) AS last_start_time
FROM runs
GROUP BY ALL`

// runSummaryViewV2 is run_summary as schemas 2 to 5 defined it, before
// run groups.
const runSummaryViewV2 = `
CREATE OR REPLACE VIEW run_summary AS
SELECT
	r.run_id, r.source, r.status, r.start_time, r.end_time, r.tool_name, r.tool_version,
	r.model, r.endpoint_type, r.streaming, r.load_mode, r.concurrency, r.request_rate,
	r.isl_mean, r.osl_mean, r.labels,
	workload_id(r.model, r.endpoint_type, r.streaming, r.isl_mean, r.osl_mean, r.load_mode, r.concurrency, r.request_rate) AS workload_id,
	r.records,
	m.request_count, m.error_request_count, m.benchmark_duration,
	m.request_throughput, m.output_token_throughput,
	m.time_to_first_token_p50, m.time_to_first_token_p99,
	m.inter_token_latency_p50, m.inter_token_latency_p99,
	m.request_latency_p50, m.request_latency_p99
FROM runs r
LEFT JOIN (
	SELECT run_id,
		max(avg) FILTER (WHERE tag = 'request_count')           AS request_count,
		max(avg) FILTER (WHERE tag = 'error_request_count')     AS error_request_count,
		max(avg) FILTER (WHERE tag = 'benchmark_duration')      AS benchmark_duration,
		max(avg) FILTER (WHERE tag = 'request_throughput')      AS request_throughput,
		max(avg) FILTER (WHERE tag = 'output_token_throughput') AS output_token_throughput,
		max(p50) FILTER (WHERE tag = 'time_to_first_token')     AS time_to_first_token_p50,
		max(p99) FILTER (WHERE tag = 'time_to_first_token')     AS time_to_first_token_p99,
		max(p50) FILTER (WHERE tag = 'inter_token_latency')     AS inter_token_latency_p50,
		max(p99) FILTER (WHERE tag = 'inter_token_latency')     AS inter_token_latency_p99,
		max(p50) FILTER (WHERE tag = 'request_latency')         AS request_latency_p50,
		max(p99) FILTER (WHERE tag = 'request_latency')         AS request_latency_p99
	FROM run_metrics
	GROUP BY run_id
) m ON m.run_id = r.run_id`

// migrations[i] moves the schema from version i to version i+1; version 0
// is an empty database. Each runs in one transaction.
var migrations = [][]string{
	{runsDDL, runMetricsDDL, requestsDDL(), workloadMacros, workloadsView, runSummaryViewV1},
	{`ALTER TABLE runs ADD COLUMN labels JSON`, runSummaryViewV2},
	addColumns("requests", httpTraceColumns, "DOUBLE"),
	telemetryMigration(),
	addColumns("requests", videoColumns, "DOUBLE"),
	{runShardsDDL, runSummaryView},
}

// addColumns returns the statements adding columns of one type to table.
func addColumns(table string, cols []string, typ string) []string {
	stmts := make([]string, len(cols))
	for i, c := range cols {
		stmts[i] = "ALTER TABLE " + table + " ADD COLUMN " + c + " " + typ
	}
	return stmts
}

// runSummaryViewV1 is run_summary as schema 1 defined it, before runs had
// labels; migration 1 must create exactly what version 1 had.
var runSummaryViewV1 = strings.Replace(runSummaryViewV2, " r.labels,", "", 1)

// runShardsDDL is the table of run groups' shards, added by schema 6.
const runShardsDDL = `
CREATE TABLE run_shards (
	run_id        VARCHAR NOT NULL,
	shard_index   INTEGER NOT NULL,
	shard_count   INTEGER NOT NULL,
	status        VARCHAR NOT NULL,
	missing       BOOLEAN NOT NULL,
	records       BIGINT NOT NULL,
	start_time    TIMESTAMP,
	end_time      TIMESTAMP,
	clock_skew_ms DOUBLE,
	hostname      VARCHAR,
	reason        VARCHAR
)`

// runSummaryView adds to runSummaryViewV2 a group's shards, "present/count"
// (NULL for a run of one process), after records.
var runSummaryView = strings.Replace(strings.Replace(runSummaryViewV2,
	"\tr.records,\n", "\tr.records, sh.shards,\n", 1),
	"FROM runs r\n", `FROM runs r
LEFT JOIN (
	SELECT run_id, CAST(count(*) FILTER (WHERE NOT missing) AS VARCHAR) || '/' || CAST(max(shard_count) AS VARCHAR) AS shards
	FROM run_shards
	GROUP BY run_id
) sh ON sh.run_id = r.run_id
`, 1)
