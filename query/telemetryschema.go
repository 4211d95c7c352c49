package query

import "strings"

// gpuField is a GPU telemetry value: its gpu_telemetry column (AIPerf's
// field name in gpu_telemetry_export.jsonl) and the other names a line
// may carry it under: AIPerf 0.13's namespaced names (nvidia_power_usage,
// …) and the older fixture's memory_copy_utilization.
type gpuField struct {
	Column  string
	Aliases []string
}

// GPUFields are the DOUBLE columns of gpu_telemetry, one per AIPerf GPU
// telemetry field, in AIPerf's units (W, MJ, %, GB, °C, MHz, µs, count).
// A field a reading does not carry is NULL.
var GPUFields = []gpuField{
	{"gpu_power_usage", []string{"nvidia_power_usage"}},
	{"energy_consumption", []string{"nvidia_energy_consumption"}},
	{"gpu_utilization", []string{"nvidia_gpu_utilization"}},
	{"mem_utilization", []string{"memory_copy_utilization", "nvidia_memory_utilization"}},
	{"gpu_memory_used", []string{"nvidia_memory_used"}},
	{"gpu_memory_free", nil},
	{"gpu_memory_total", nil},
	{"gpu_temperature", []string{"nvidia_temperature"}},
	{"memory_temperature", nil},
	{"sm_utilization", []string{"nvidia_sm_utilization"}},
	{"sm_clock_frequency", nil},
	{"memory_clock_frequency", nil},
	{"xid_errors", []string{"nvidia_xid_errors"}},
	{"power_violation", []string{"nvidia_power_violation"}},
	{"thermal_violation", nil},
	{"power_management_limit", nil},
	{"encoder_utilization", []string{"nvidia_encoder_utilization"}},
	{"decoder_utilization", []string{"nvidia_decoder_utilization"}},
	{"jpg_utilization", []string{"nvidia_jpg_utilization"}},
}

// gpuTelemetryDDL is built from GPUFields so that the table, the loader
// and the documentation share one list.
func gpuTelemetryDDL() string {
	var b strings.Builder
	b.WriteString(`
CREATE TABLE gpu_telemetry (
	run_id         VARCHAR NOT NULL,
	ts             TIMESTAMP,
	timestamp_ns   BIGINT,
	source_url     VARCHAR,
	gpu_index      INTEGER,
	gpu_uuid       VARCHAR,
	gpu_model_name VARCHAR,
	pci_bus_id     VARCHAR,
	device         VARCHAR,
	hostname       VARCHAR`)
	for _, f := range GPUFields {
		b.WriteString(",\n\t" + f.Column + " DOUBLE")
	}
	b.WriteString("\n)")
	return b.String()
}

const serverMetricsDDL = `
CREATE TABLE server_metrics (
	run_id              VARCHAR NOT NULL,
	endpoint_url        VARCHAR,
	ts                  TIMESTAMP,
	timestamp_ns        BIGINT,
	endpoint_latency_ns BIGINT,
	metric              VARCHAR NOT NULL,
	type                VARCHAR NOT NULL,
	labels              JSON NOT NULL,
	value               DOUBLE,
	sum                 DOUBLE,
	count               DOUBLE,
	buckets             MAP(DOUBLE, DOUBLE),
	quantiles           MAP(DOUBLE, DOUBLE)
)`

// runProvenanceColumns are the runs columns of schema 4: what the run
// measured (the manifest's server and telemetry fields).
var runProvenanceColumns = [][2]string{
	{"server_url", "VARCHAR"},
	{"server_header", "VARCHAR"},
	{"server_software", "VARCHAR"},
	{"server_version", "VARCHAR"},
	{"server_models", "VARCHAR[]"},
	{"server_info", "JSON"},
	{"telemetry_sources", "JSON"},
	{"gpu_count", "INTEGER"},
	{"gpu_model", "VARCHAR"},
}

// runWindowsView is each run's profiling window: from the first profiling
// request's start to the last one's end (its start when it has no end).
const runWindowsView = `
CREATE VIEW run_windows AS
SELECT run_id,
	min(request_start_ns) AS start_ns,
	max(coalesce(request_end_ns, request_start_ns)) AS end_ns
FROM requests
WHERE coalesce(phase, 'profiling') = 'profiling'
GROUP BY run_id`

// gpuSummaryView summarises each GPU of each run over the samples that
// bracket the run's window: from the last sample at or before the window
// starts to the first at or after it ends (every sample of a run without
// profiling requests). Counters (energy, XID errors, violations) are the
// difference between the last and the first of those samples, 0 when
// it is negative (a reset), as AIPerf clamps them.
const gpuSummaryView = `
CREATE VIEW gpu_summary AS
WITH bounds AS (
	SELECT g.run_id, g.source_url, g.gpu_index, g.gpu_uuid,
		coalesce(max(g.timestamp_ns) FILTER (WHERE g.timestamp_ns <= w.start_ns), min(g.timestamp_ns)) AS lo,
		coalesce(min(g.timestamp_ns) FILTER (WHERE g.timestamp_ns >= w.end_ns), max(g.timestamp_ns)) AS hi
	FROM gpu_telemetry g LEFT JOIN run_windows w ON w.run_id = g.run_id
	GROUP BY ALL
), summary AS (
	SELECT g.run_id, g.source_url, g.gpu_index, g.gpu_uuid,
		any_value(g.gpu_model_name) AS gpu_model_name,
		any_value(g.hostname) AS hostname,
		count(*) AS samples,
		min(g.ts) AS first_ts,
		max(g.ts) AS last_ts,
		avg(g.gpu_power_usage) AS power_avg_w,
		max(g.gpu_power_usage) AS power_max_w,
		avg(g.gpu_utilization) AS gpu_utilization_avg,
		max(g.gpu_utilization) AS gpu_utilization_max,
		avg(g.sm_utilization) AS sm_utilization_avg,
		avg(g.mem_utilization) AS mem_utilization_avg,
		max(g.gpu_memory_used) AS gpu_memory_used_max_gb,
		max(g.gpu_memory_total) AS gpu_memory_total_gb,
		max(g.gpu_temperature) AS gpu_temperature_max,
		(arg_max(g.energy_consumption, g.timestamp_ns) - arg_min(g.energy_consumption, g.timestamp_ns)) * 1e6 AS energy_j,
		arg_max(g.xid_errors, g.timestamp_ns) - arg_min(g.xid_errors, g.timestamp_ns) AS xid_errors,
		arg_max(g.power_violation, g.timestamp_ns) - arg_min(g.power_violation, g.timestamp_ns) AS power_violation_us,
		arg_max(g.thermal_violation, g.timestamp_ns) - arg_min(g.thermal_violation, g.timestamp_ns) AS thermal_violation_us
	FROM gpu_telemetry g
	JOIN bounds b ON b.run_id = g.run_id
		AND b.source_url IS NOT DISTINCT FROM g.source_url
		AND b.gpu_index IS NOT DISTINCT FROM g.gpu_index
		AND b.gpu_uuid IS NOT DISTINCT FROM g.gpu_uuid
	WHERE g.timestamp_ns BETWEEN b.lo AND b.hi
	GROUP BY g.run_id, g.source_url, g.gpu_index, g.gpu_uuid
)
SELECT * REPLACE (
	CASE WHEN energy_j < 0 THEN 0 ELSE energy_j END AS energy_j,
	CASE WHEN xid_errors < 0 THEN 0 ELSE xid_errors END AS xid_errors,
	CASE WHEN power_violation_us < 0 THEN 0 ELSE power_violation_us END AS power_violation_us,
	CASE WHEN thermal_violation_us < 0 THEN 0 ELSE thermal_violation_us END AS thermal_violation_us)
FROM summary`

// serverMetricsSummaryView summarises each series (endpoint, metric, type,
// labels) of each run over the scrapes that bracket the run's window, as
// gpu_summary does per endpoint. A counter's increase adds the rises
// between consecutive non-NULL samples and, after a drop (a reset), the
// new value, as Prometheus' increase() does; a histogram's or summary's
// uses its count, and sum_increase its sum.
const serverMetricsSummaryView = `
CREATE VIEW server_metrics_summary AS
WITH bounds AS (
	SELECT s.run_id, s.endpoint_url,
		coalesce(max(s.timestamp_ns) FILTER (WHERE s.timestamp_ns <= w.start_ns), min(s.timestamp_ns)) AS lo,
		coalesce(min(s.timestamp_ns) FILTER (WHERE s.timestamp_ns >= w.end_ns), max(s.timestamp_ns)) AS hi
	FROM server_metrics s LEFT JOIN run_windows w ON w.run_id = s.run_id
	GROUP BY ALL
), samples AS (
	SELECT s.run_id, s.endpoint_url, s.metric, s.type, s.labels, s.ts, s.timestamp_ns, s.value, s.sum,
		CASE WHEN s.type IN ('histogram', 'summary') THEN s.count ELSE s.value END AS v,
		lag(CASE WHEN s.type IN ('histogram', 'summary') THEN s.count ELSE s.value END IGNORE NULLS) OVER series AS prev_v,
		lag(s.sum IGNORE NULLS) OVER series AS prev_sum
	FROM server_metrics s
	JOIN bounds b ON b.run_id = s.run_id AND b.endpoint_url IS NOT DISTINCT FROM s.endpoint_url
	WHERE s.timestamp_ns BETWEEN b.lo AND b.hi
	WINDOW series AS (PARTITION BY s.run_id, s.endpoint_url, s.metric, s.type, s.labels ORDER BY s.timestamp_ns)
)
SELECT run_id, endpoint_url, metric, type, labels,
	count(*) AS samples,
	min(ts) AS first_ts,
	max(ts) AS last_ts,
	CASE WHEN type IN ('gauge', 'untyped') THEN avg(value) END AS avg,
	CASE WHEN type IN ('gauge', 'untyped') THEN min(value) END AS min,
	CASE WHEN type IN ('gauge', 'untyped') THEN max(value) END AS max,
	arg_max(v, timestamp_ns) AS last,
	CASE WHEN type IN ('counter', 'histogram', 'summary') THEN
		sum(CASE WHEN prev_v IS NULL THEN 0 WHEN v >= prev_v THEN v - prev_v ELSE v END) END AS increase,
	CASE WHEN type IN ('histogram', 'summary') THEN
		sum(CASE WHEN prev_v IS NULL THEN 0 WHEN v >= prev_v THEN sum - prev_sum ELSE sum END) END AS sum_increase,
	(max(timestamp_ns) - min(timestamp_ns)) / 1e9 AS duration_s,
	CASE WHEN type IN ('counter', 'histogram', 'summary') AND max(timestamp_ns) > min(timestamp_ns) THEN
		sum(CASE WHEN prev_v IS NULL THEN 0 WHEN v >= prev_v THEN v - prev_v ELSE v END)
		/ ((max(timestamp_ns) - min(timestamp_ns)) / 1e9) END AS rate
FROM samples
GROUP BY run_id, endpoint_url, metric, type, labels`

// telemetryMigration is schema 4: the telemetry tables, the runs'
// provenance columns and the views over them. The runs already loaded
// get a content key no store gives (schema3:…), so that the next ingest
// reloads them with their telemetry and provenance instead of skipping
// them as unchanged.
func telemetryMigration() []string {
	stmts := []string{gpuTelemetryDDL(), serverMetricsDDL}
	for _, c := range runProvenanceColumns {
		stmts = append(stmts, "ALTER TABLE runs ADD COLUMN "+c[0]+" "+c[1])
	}
	return append(stmts, runWindowsView, gpuSummaryView, serverMetricsSummaryView,
		`UPDATE runs SET content_key = 'schema3:' || content_key`)
}
