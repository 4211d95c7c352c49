package export

import (
	"fmt"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/aiperf-go/aiperf/internal/pyjson"
	"github.com/aiperf-go/aiperf/metrics"
	"github.com/aiperf-go/aiperf/record"
)

// The artifact layouts --output-schema picks (see docs/metrics.md,
// "Artifact layouts"). Schema10 is AIPerf 0.8's layout, byte for byte;
// Schema14 is AIPerf 0.13's.
const (
	Schema10 = "1.0"
	Schema14 = "1.4"
)

// RunIdentity is AIPerf 0.13's run_info block of the summary JSON (schema
// 1.4): the run's place and seed, so that the file alone reproduces it.
type RunIdentity struct {
	// RandomSeed is the seed the run used; nil leaves random_seed out.
	RandomSeed *uint64
	// Trial is the zero-based trial index (always 0 for a single run).
	Trial int
}

// is14 reports whether info asks for AIPerf 0.13's layout.
func (info *RunInfo) is14() bool { return info.SchemaVersion == Schema14 }

// writeSummaryJSON14 writes profile_export_aiperf.json as AIPerf 0.13
// (schema 1.4) does, orjson-indented by two spaces with no trailing newline.
// Its key order is JsonExportData's: the header keys, the declared metrics,
// telemetry_data, input_config, run_info, was_cancelled, is_complete,
// incomplete_reason, error_summary, start_time, end_time, then every other
// metric in the summary's order (pydantic extras), then aiperf-go's own
// run_validity and url_summary. Every metric block is exclude_none: a scalar
// is {unit, avg}; a distribution adds the percentiles, min, max, std, count
// and (with at least one value) sum, each left out when the result lacks it.
func writeSummaryJSON14(w io.Writer, s *metrics.Summary, info *RunInfo) error {
	iw := &indentWriter{b: make([]byte, 0, 24<<10)}
	iw.b = append(iw.b, '{')
	first := true
	member := func(name string) {
		iw.key(first, 1, name)
		first = false
	}
	member("schema_version")
	iw.b = pyjson.AppendString(iw.b, Schema14)
	member("aiperf_version")
	iw.b = pyjson.AppendString(iw.b, info.AIPerfVersion)
	member("benchmark_id")
	iw.b = pyjson.AppendString(iw.b, info.BenchmarkID)

	declared := make(map[string]bool, len(declaredTags))
	for _, tag := range declaredTags {
		declared[tag] = true
		if r := s.Get(tag); r != nil {
			member(tag)
			appendStats14(iw, r)
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
	member("run_info")
	appendRunIdentity(iw, info)
	member("was_cancelled")
	iw.b = strconv.AppendBool(iw.b, info.WasCancelled)
	member("is_complete")
	iw.b = strconv.AppendBool(iw.b, info.IncompleteReason == "")
	if info.IncompleteReason != "" {
		member("incomplete_reason")
		iw.b = pyjson.AppendString(iw.b, info.IncompleteReason)
	}
	member("error_summary")
	appendErrorSummary14(iw, s.Errors)
	appendRunTimes(iw, member, s, info)
	for i := range s.Results {
		r := &s.Results[i]
		if declared[r.Tag] {
			continue
		}
		member(r.Tag)
		appendStats14(iw, r)
	}
	for _, extra := range []struct {
		name string
		v    any
	}{{"run_validity", info.Validity}, {"url_summary", info.URLs}} {
		if extra.v == nil {
			continue
		}
		member(extra.name)
		if err := iw.encodeValue(reflect.ValueOf(extra.v), 1); err != nil {
			return fmt.Errorf("%s: %w", extra.name, err)
		}
	}
	iw.newline(0)
	iw.b = append(iw.b, '}')
	if _, err := w.Write(iw.b); err != nil {
		return fmt.Errorf("write summary json: %w", err)
	}
	return nil
}

// appendStats14 writes r's JsonMetricResult at depth 1 in 0.13's field
// order: unit, avg, p1 … p99, min, max, std, count, sum. A scalar has only
// unit and avg; statistics named in r.Missing ("count" and "sum" included:
// 0.13 writes neither for its derived sweep-line distributions) are left out.
func appendStats14(iw *indentWriter, r *metrics.Result) { appendStats14At(iw, r, 1) }

// appendStats14At writes r's JsonMetricResult as appendStats14 does, as a
// member value at depth.
func appendStats14At(iw *indentWriter, r *metrics.Result, depth int) {
	iw.b = append(iw.b, '{')
	iw.key(true, depth+1, "unit")
	iw.b = pyjson.AppendString(iw.b, r.Unit)
	if r.Scalar {
		if !slices.Contains(r.Missing, "avg") {
			iw.key(false, depth+1, "avg")
			iw.b = pyjson.AppendFloatOrjson(iw.b, r.Avg)
		}
		iw.newline(depth)
		iw.b = append(iw.b, '}')
		return
	}
	vals := statValues(r)
	for i, name := range statNames {
		if slices.Contains(r.Missing, name) {
			continue
		}
		iw.key(false, depth+1, name)
		iw.b = pyjson.AppendFloatOrjson(iw.b, vals[i])
	}
	if !slices.Contains(r.Missing, "count") {
		iw.key(false, depth+1, "count")
		iw.b = strconv.AppendInt(iw.b, int64(r.Count), 10)
	}
	if r.Count > 0 && !slices.Contains(r.Missing, "sum") {
		iw.key(false, depth+1, "sum")
		iw.b = pyjson.AppendFloatOrjson(iw.b, r.Sum)
	}
	iw.newline(depth)
	iw.b = append(iw.b, '}')
}

// appendRunIdentity writes run_info: benchmark_id, random_seed, trial and
// cli_command, each left out when unknown (exclude_none).
func appendRunIdentity(iw *indentWriter, info *RunInfo) {
	iw.b = append(iw.b, '{')
	iw.key(true, 2, "benchmark_id")
	iw.b = pyjson.AppendString(iw.b, info.BenchmarkID)
	if info.Run.RandomSeed != nil {
		iw.key(false, 2, "random_seed")
		iw.b = strconv.AppendUint(iw.b, *info.Run.RandomSeed, 10)
	}
	iw.key(false, 2, "trial")
	iw.b = strconv.AppendInt(iw.b, int64(info.Run.Trial), 10)
	if info.CLICommand != "" {
		iw.key(false, 2, "cli_command")
		iw.b = pyjson.AppendString(iw.b, info.CLICommand)
	}
	iw.newline(1)
	iw.b = append(iw.b, '}')
}

// appendErrorSummary14 writes 0.13's error_summary: each error mapped by
// Error14, with cause and cause_chain when it has them. Errors that map to
// the same details (resets that we tell apart by their messages, which
// 0.13 reports as one ClientPayloadError) are one entry, in order of first
// appearance, as 0.13 groups them.
func appendErrorSummary14(iw *indentWriter, errs []metrics.ErrorCount) {
	if len(errs) == 0 {
		iw.b = append(iw.b, '[', ']')
		return
	}
	type entry struct {
		e     ErrorDetails14
		count int
	}
	var entries []entry
	at := map[string]int{}
	for _, ec := range errs {
		e := Error14(ec.Error)
		key := fmt.Sprintf("%d\x00%s\x00%s\x00%s\x00%q", e.Code, e.Type, e.Message, e.Cause, e.CauseChain)
		if i, ok := at[key]; ok {
			entries[i].count += ec.Count
			continue
		}
		at[key] = len(entries)
		entries = append(entries, entry{e, ec.Count})
	}
	iw.b = append(iw.b, '[')
	for i, ec := range entries {
		if i > 0 {
			iw.b = append(iw.b, ',')
		}
		e := ec.e
		iw.newline(2)
		iw.b = append(iw.b, '{')
		iw.key(true, 3, "error_details")
		iw.b = append(iw.b, '{')
		firstDetail := true
		field := func(name string) {
			iw.key(firstDetail, 4, name)
			firstDetail = false
		}
		if e.Code != 0 {
			field("code")
			iw.b = strconv.AppendInt(iw.b, int64(e.Code), 10)
		}
		if e.Type != "" {
			field("type")
			iw.b = pyjson.AppendString(iw.b, e.Type)
		}
		field("message")
		iw.b = pyjson.AppendString(iw.b, e.Message)
		if e.Cause != "" {
			field("cause")
			iw.b = pyjson.AppendString(iw.b, e.Cause)
		}
		if len(e.CauseChain) > 0 {
			field("cause_chain")
			iw.b = append(iw.b, '[')
			for j, c := range e.CauseChain {
				if j > 0 {
					iw.b = append(iw.b, ',')
				}
				iw.newline(5)
				iw.b = pyjson.AppendString(iw.b, c)
			}
			iw.newline(4)
			iw.b = append(iw.b, ']')
		}
		iw.newline(3)
		iw.b = append(iw.b, '}')
		iw.key(false, 3, "count")
		iw.b = strconv.AppendInt(iw.b, int64(ec.count), 10)
		iw.newline(2)
		iw.b = append(iw.b, '}')
	}
	iw.newline(1)
	iw.b = append(iw.b, ']')
}

// ErrorDetails14 is a request error as AIPerf 0.13 records it (its
// ErrorDetails): the exception's class name as Type, its repr as Message,
// the repr of its __cause__ as Cause and the class names of the whole
// chain as CauseChain. An HTTP error status has neither cause.
type ErrorDetails14 struct {
	Code       int
	Type       string
	Message    string
	Cause      string
	CauseChain []string
}

// Error14 maps a record's error, as aiperf-go records it (AIPerf 0.8's
// types), to 0.13's: an `event: error` in a stream (StreamError) is code 502
// SSEResponseError, a stream cut mid-event (IncompleteStream) or reset
// while it was read is aiohttp's ClientPayloadError caused by a
// TransferEncodingError, a connection reset before any response is
// aiohttp's ClientOSError caused by the ConnectionResetError, an HTTP
// status keeps
// its code, reason and body, and any other failure (an exception in 0.13)
// gets its type as the cause chain. The record model stays one; the mapping
// is done only when writing schema 1.4.
func Error14(e record.Error) ErrorDetails14 {
	switch {
	case e.Code != 0:
		return ErrorDetails14{Code: e.Code, Type: e.Type, Message: e.Message}
	case e.Type == "StreamError":
		return ErrorDetails14{Code: 502, Type: "SSEResponseError",
			Message:    "SSEResponseError(" + pyRepr("Error occurred in SSE response: "+e.Message) + ")",
			CauseChain: []string{"SSEResponseError"}}
	case e.Type == "IncompleteStream" || (e.Type == "ConnectionResetError" && strings.HasPrefix(e.Message, "sse: ")):
		const cause = "<TransferEncodingError: 400, message='Not enough data to satisfy transfer length header.'>"
		msg := "Response payload is not completed: " + cause
		if e.Type == "ConnectionResetError" {
			msg += ". ConnectionResetError(104, 'Connection reset by peer')"
		}
		return ErrorDetails14{Type: "ClientPayloadError",
			Message:    "ClientPayloadError(" + pyRepr(msg) + ")",
			Cause:      cause,
			CauseChain: []string{"ClientPayloadError", "TransferEncodingError"}}
	case e.Type == "ConnectionResetError":
		// Reset before a response: aiohttp raises ClientOSError from the
		// socket's ConnectionResetError.
		const cause = "ConnectionResetError(104, 'Connection reset by peer')"
		return ErrorDetails14{Type: "ClientOSError", Message: "ClientOSError(104, 'Connection reset by peer')",
			Cause: cause, CauseChain: []string{"ClientOSError", "ConnectionResetError"}}
	case e.Type == "":
		return ErrorDetails14{Message: e.Message}
	}
	return ErrorDetails14{Type: e.Type, Message: e.Message, CauseChain: []string{e.Type}}
}

// pyRepr quotes s as Python's repr of a str does: single quotes, unless s
// holds a single quote and no double quote.
func pyRepr(s string) string {
	q := byte('\'')
	if strings.ContainsRune(s, '\'') && !strings.ContainsRune(s, '"') {
		q = '"'
	}
	b := make([]byte, 0, len(s)+2)
	b = append(b, q)
	for _, r := range s {
		switch {
		case r == '\\':
			b = append(b, `\\`...)
		case r == rune(q):
			b = append(b, '\\', q)
		case r == '\n':
			b = append(b, `\n`...)
		case r == '\r':
			b = append(b, `\r`...)
		case r == '\t':
			b = append(b, `\t`...)
		case r < 0x20 || r == 0x7f:
			b = fmt.Appendf(b, `\x%02x`, r)
		default:
			b = append(b, string(r)...)
		}
	}
	return string(append(b, q))
}
