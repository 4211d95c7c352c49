package export

import (
	"fmt"
	"io"
	"math"
	"reflect"
	"strconv"
	"time"

	"github.com/aiperf-go/aiperf/internal/pyjson"
	"github.com/aiperf-go/aiperf/metrics"
)

// declaredTags are the metrics that AIPerf's JsonExportData declares as
// fields, in declaration order. They are written first, right after the
// header keys, and a scalar one carries only unit and avg. Every other metric
// is a pydantic "extra": it comes after end_time, in the summary's order, and
// a scalar one spells out its missing statistics as null.
var declaredTags = []string{
	"request_throughput",
	"request_latency",
	"request_count",
	"time_to_first_token",
	"time_to_second_token",
	"inter_token_latency",
	"output_token_throughput",
	"output_token_throughput_per_user",
	"output_sequence_length",
	"input_sequence_length",
	"goodput",
	"good_request_count",
	"output_token_count",
	"reasoning_token_count",
	"min_request_timestamp",
	"max_response_timestamp",
	"inter_chunk_latency",
	"total_output_tokens",
	"total_reasoning_tokens",
	"benchmark_duration",
	"total_isl",
	"total_osl",
	"error_request_count",
	"error_isl",
	"total_error_isl",
}

// statNames are the statistics of a stats block after "unit", in order.
var statNames = [...]string{"avg", "p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99", "min", "max", "std"}

// WriteSummaryJSON writes profile_export_aiperf.json: schema_version,
// aiperf_version, benchmark_id, a stats block per metric tag,
// telemetry_data (when info.GPUTelemetry is set), input_config,
// was_cancelled, error_summary, start_time and end_time, indented by two
// spaces with no trailing newline, as AIPerf (schema 1.0) writes it.
// start_time and end_time are left out when unknown (zero). With
// info.SchemaVersion Schema14 it writes AIPerf 0.13's layout instead (see
// writeSummaryJSON14).
func WriteSummaryJSON(w io.Writer, s *metrics.Summary, info *RunInfo) error {
	if info == nil {
		info = &RunInfo{}
	}
	if info.is14() {
		return writeSummaryJSON14(w, s, info)
	}
	iw := &indentWriter{b: make([]byte, 0, 16<<10)}
	iw.b = append(iw.b, '{')
	first := true
	member := func(name string) {
		iw.key(first, 1, name)
		first = false
	}
	member("schema_version")
	iw.b = pyjson.AppendString(iw.b, info.schemaVersion())
	member("aiperf_version")
	iw.b = pyjson.AppendString(iw.b, info.AIPerfVersion)
	member("benchmark_id")
	iw.b = pyjson.AppendString(iw.b, info.BenchmarkID)

	declared := make(map[string]bool, len(declaredTags))
	for _, tag := range declaredTags {
		declared[tag] = true
		if r := s.Get(tag); r != nil {
			member(tag)
			appendStats(iw, r, false)
		}
	}

	if info.GPUTelemetry != nil {
		member("telemetry_data")
		appendTelemetryData(iw, info.GPUTelemetry, info)
	}
	if info.InputConfig != nil {
		member("input_config")
		if err := iw.encodeValue(reflect.ValueOf(info.InputConfig), 1); err != nil {
			return fmt.Errorf("input_config: %w", err)
		}
	}
	member("was_cancelled")
	iw.b = strconv.AppendBool(iw.b, info.WasCancelled)
	member("error_summary")
	appendErrorSummary(iw, s.Errors)
	appendRunTimes(iw, member, s, info)

	for i := range s.Results {
		r := &s.Results[i]
		if declared[r.Tag] {
			continue
		}
		member(r.Tag)
		appendStats(iw, r, true)
	}
	if info.Validity != nil {
		member("run_validity")
		if err := iw.encodeValue(reflect.ValueOf(info.Validity), 1); err != nil {
			return fmt.Errorf("run_validity: %w", err)
		}
	}
	if info.URLs != nil {
		member("url_summary")
		if err := iw.encodeValue(reflect.ValueOf(info.URLs), 1); err != nil {
			return fmt.Errorf("url_summary: %w", err)
		}
	}
	iw.newline(0)
	iw.b = append(iw.b, '}')
	if _, err := w.Write(iw.b); err != nil {
		return fmt.Errorf("write summary json: %w", err)
	}
	return nil
}

// appendStats writes r's stats block at depth 1. A scalar result has only
// avg; with nulls its other statistics are written as null, else left out.
func appendStats(iw *indentWriter, r *metrics.Result, nulls bool) {
	iw.b = append(iw.b, '{')
	iw.key(true, 2, "unit")
	iw.b = pyjson.AppendString(iw.b, r.Unit)
	vals := statValues(r)
	for i, name := range statNames {
		if r.Scalar && i > 0 && !nulls {
			break
		}
		iw.key(false, 2, name)
		if r.Scalar && i > 0 {
			iw.b = append(iw.b, "null"...)
			continue
		}
		iw.b = pyjson.AppendFloat(iw.b, vals[i])
	}
	iw.newline(1)
	iw.b = append(iw.b, '}')
}

// statValues returns r's statistics in statNames order.
func statValues(r *metrics.Result) [len(statNames)]float64 {
	var v [len(statNames)]float64
	v[0] = r.Avg
	copy(v[1:], r.P[:])
	v[10], v[11], v[12] = r.Min, r.Max, r.Std
	return v
}

// appendErrorSummary writes [{"error_details":{code,type,message},"count"}].
// Like pydantic's exclude_none, a code of 0 (no HTTP status) and an empty
// type are left out.
func appendErrorSummary(iw *indentWriter, errs []metrics.ErrorCount) {
	if len(errs) == 0 {
		iw.b = append(iw.b, '[', ']')
		return
	}
	iw.b = append(iw.b, '[')
	for i, e := range errs {
		if i > 0 {
			iw.b = append(iw.b, ',')
		}
		iw.newline(2)
		iw.b = append(iw.b, '{')
		iw.key(true, 3, "error_details")
		iw.b = append(iw.b, '{')
		firstDetail := true
		if e.Error.Code != 0 {
			iw.key(true, 4, "code")
			iw.b = strconv.AppendInt(iw.b, int64(e.Error.Code), 10)
			firstDetail = false
		}
		if e.Error.Type != "" {
			iw.key(firstDetail, 4, "type")
			iw.b = pyjson.AppendString(iw.b, e.Error.Type)
			firstDetail = false
		}
		iw.key(firstDetail, 4, "message")
		iw.b = pyjson.AppendString(iw.b, e.Error.Message)
		iw.newline(3)
		iw.b = append(iw.b, '}')
		iw.key(false, 3, "count")
		iw.b = strconv.AppendInt(iw.b, int64(e.Count), 10)
		iw.newline(2)
		iw.b = append(iw.b, '}')
	}
	iw.newline(1)
	iw.b = append(iw.b, ']')
}

// pyDatetime formats t as Python's datetime.fromtimestamp(ns/1e9).isoformat()
// does: a local datetime in loc without offset, microseconds rounded from the
// float seconds (half to even), the fraction left out when it is zero.
func pyDatetime(t time.Time, loc *time.Location) string {
	secs := float64(t.UnixNano()) / 1e9
	whole, frac := math.Modf(secs)
	us := math.RoundToEven(frac * 1e6)
	if us >= 1e6 {
		whole++
		us -= 1e6
	} else if us < 0 {
		whole--
		us += 1e6
	}
	lt := time.Unix(int64(whole), int64(us)*1000).In(loc)
	if us == 0 {
		return lt.Format("2006-01-02T15:04:05")
	}
	return lt.Format("2006-01-02T15:04:05.000000")
}

// appendRunTimes writes the start_time and end_time members (member writes
// a key): the run's own times, else the summary's first and last request,
// each left out when unknown.
func appendRunTimes(iw *indentWriter, member func(string), s *metrics.Summary, info *RunInfo) {
	start, end := info.Start, info.End
	if start.IsZero() && s.StartWallNS != 0 {
		start = time.Unix(0, s.StartWallNS)
	}
	if end.IsZero() && s.EndWallNS != 0 {
		end = time.Unix(0, s.EndWallNS)
	}
	if !start.IsZero() {
		member("start_time")
		iw.b = pyjson.AppendString(iw.b, pyDatetime(start, info.location()))
	}
	if !end.IsZero() {
		member("end_time")
		iw.b = pyjson.AppendString(iw.b, pyDatetime(end, info.location()))
	}
}
