// Package export writes AIPerf's artifacts and console report from a finished
// run: profile_export_aiperf.json and .csv (the summary), profile_export.jsonl
// (one line per request), inputs.json (the payloads sent), and the rich-style
// console tables and warning panels.
//
// Every writer takes an io.Writer and never closes it; the caller owns files.
// Numbers are formatted the way AIPerf's Python writes them (floats in
// Python's repr, "%.2f" in CSV, "{:,.2f}" on the console) so that artifacts
// compare byte for byte with AIPerf's.
package export

import (
	"time"

	"github.com/aiperf-go/aiperf/metrics"
	"github.com/aiperf-go/aiperf/telemetry"
)

// RunInfo is the run metadata the summary writers need besides the metrics.
// The zero value is usable: empty fields fall back to the documented defaults.
type RunInfo struct {
	// SchemaVersion is the artifact layout (--output-schema) and the summary
	// JSON's schema_version: "" or Schema10 writes AIPerf 0.8's layout,
	// Schema14 AIPerf 0.13's (see schema14.go).
	SchemaVersion string
	// Run is run_info's reproducibility block (schema 1.4 only).
	Run RunIdentity
	// IncompleteReason, when not empty, says why the run degraded before
	// finishing: schema 1.4 writes is_complete false and this as
	// incomplete_reason.
	IncompleteReason string
	// AIPerfVersion is written as aiperf_version.
	AIPerfVersion string
	// BenchmarkID is the run's id (32 lowercase hex digits), written as
	// benchmark_id.
	BenchmarkID string
	// InputConfig is marshalled under "input_config" (left out when nil).
	// It must already be redacted: no API keys or auth headers. Structs follow
	// encoding/json tags; float fields are written like Python ("550.0");
	// a json.RawMessage is re-indented with its literals kept as written.
	InputConfig any
	// CLICommand is the command line, with quoted values, printed as
	// "CLI Command: ..." under the console report when non-empty.
	CLICommand string
	// Start and End, when non-zero, replace the summary's StartWallNS and
	// EndWallNS as start_time and end_time.
	Start, End time.Time
	// Location is the zone start_time and end_time are written in (as local
	// datetimes without offset, like Python's datetime.fromtimestamp); nil
	// means time.Local.
	Location *time.Location
	// WasCancelled reports that the run was cancelled early (Ctrl+C).
	WasCancelled bool
	// Validity, when not nil, is written last in the summary JSON as
	// "run_validity" (aiperf-go's verdict on its own schedule; AIPerf has no
	// such key). Marshalled like InputConfig.
	Validity any
	// URLs, when not nil, is written after "run_validity" as "url_summary":
	// the requests and errors per --url of a run with several (AIPerf has
	// no such key). Marshalled like InputConfig.
	URLs any
	// Title is the console table's metrics title, e.g. "LLM Metrics"; ""
	// writes "LLM Metrics".
	Title string
	// ShowTraceTiming adds the "NVIDIA AIPerf | HTTP Trace Timing" table
	// of the http_req_* results (--show-trace-timing): after the metrics
	// table in the 1.0 layout, before it in 1.4's, as AIPerf 0.13 prints
	// it.
	ShowTraceTiming bool
	// Duration is the benchmark duration printed under the console report
	// when the summary has no benchmark_duration result; zero prints nothing.
	Duration time.Duration
	// CSVPath, JSONPath and LogPath are printed under the console report, as
	// "CSV Export: ...", "JSON Export: ..." and "Log File: ...", when non-empty.
	CSVPath, JSONPath, LogPath string
	// Notes are extra lines printed under the export paths (where the run
	// is stored, how record delivery went).
	Notes []string
	// UsageDiffThresholdPct is the usage discrepancy threshold shown in the
	// Token Count Discrepancy Warning; 0 means AIPerf's default, 10.
	UsageDiffThresholdPct float64
	// OSLMismatchThresholdPct and OSLMismatchMaxTokens are the thresholds
	// shown in the Output Sequence Length Mismatch Warning; 0 means AIPerf's
	// defaults, 5 and 50.
	OSLMismatchThresholdPct float64
	OSLMismatchMaxTokens    int
	// GPUTelemetry, when not nil, is written in the summary JSON as
	// "telemetry_data" (see gputelemetry.go).
	GPUTelemetry *telemetry.GPUSummary
	// TelemetryHealth is every telemetry source's health; its KindGPU
	// sources are the GPU endpoints configured, reachable or not.
	TelemetryHealth []telemetry.Health
	// ShowGPUTelemetry prints the GPU Telemetry Summary on the console
	// (--gpu-telemetry given), as AIPerf does only then.
	ShowGPUTelemetry bool
	// GPUEndpoints14 are telemetry_data's endpoint lists under schema 1.4,
	// as AIPerf 0.13 makes them (see GPUEndpointLists).
	GPUEndpoints14 GPUEndpointLists
}

func (info *RunInfo) schemaVersion() string {
	if info.SchemaVersion == "" {
		return "1.0"
	}
	return info.SchemaVersion
}

func (info *RunInfo) title() string {
	if info.Title == "" {
		return "LLM Metrics"
	}
	return info.Title
}

func (info *RunInfo) location() *time.Location {
	if info.Location == nil {
		return time.Local
	}
	return info.Location
}

func orDefault(v, def float64) float64 {
	if v == 0 {
		return def
	}
	return v
}

// label is the "<Header> (<unit>)" text that names a metric in the CSV and
// console tables; sep goes between header and unit.
func label(r *metrics.Result, sep string) string {
	if r.Unit == "" {
		return r.Header
	}
	return r.Header + sep + "(" + r.Unit + ")"
}
