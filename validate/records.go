package validate

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
)

// maxRecordLine bounds one profile_export.jsonl line (a record with
// thousands of inter-chunk latencies stays far below it).
const maxRecordLine = 64 << 20

// recordIDs are the metadata members that hold a string when given.
var recordIDs = []string{"x_request_id", "x_correlation_id", "conversation_id", "worker_id", "record_processor_id"}

// recordCounts are the metadata members that hold an integer >= 0 when
// given.
var recordCounts = []string{"session_num", "request_num", "turn_index"}

// recordTimes are the optional metadata times: an integer (ns) or null.
var recordTimes = []string{"credit_issued_ns", "request_ack_ns", "cancellation_time_ns"}

// checkRecords checks profile_export.jsonl (reference §3.2): each line an
// object with metadata (a start time, request_start_ns or the old
// timestamp_ns; a phase, benchmark_phase or the old credit_phase), metrics
// ({tag: {value, unit}}) and error (null or {code, type, message}).
func checkRecords(path string) (Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return Result{}, fmt.Errorf("validate: %w", err)
	}
	defer f.Close()
	var r Result
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), maxRecordLine)
	n := 0
	for sc.Scan() {
		n++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		r.Rows++
		for _, p := range checkRecord(b) {
			p.File, p.Line = path, n
			r.Problems = append(r.Problems, p)
		}
	}
	if err := sc.Err(); err != nil {
		r.Problems = append(r.Problems, Problem{File: path, Line: n + 1, Msg: fmt.Sprintf("cannot be read: %v", err)})
	}
	if r.Rows == 0 && len(r.Problems) == 0 {
		r.Problems = append(r.Problems, Problem{File: path, Msg: "holds no record"})
	}
	return r, nil
}

// checkRecord returns the problems of one record line (File and Line
// unset).
func checkRecord(b []byte) []Problem {
	var rec map[string]json.RawMessage
	if err := json.Unmarshal(b, &rec); err != nil {
		return []Problem{{Msg: fmt.Sprintf("not a JSON object: %v", err)}}
	}
	var ps []Problem
	bad := func(field, format string, args ...any) {
		ps = append(ps, Problem{Field: field, Msg: fmt.Sprintf(format, args...)})
	}
	var meta map[string]json.RawMessage
	if raw, ok := rec["metadata"]; !ok {
		bad("metadata", "missing")
	} else if json.Unmarshal(raw, &meta) != nil || meta == nil {
		bad("metadata", "want an object, got %s", kind(raw))
	}
	if meta != nil {
		checkRecordMeta(meta, bad)
	}
	if raw, ok := rec["metrics"]; !ok {
		bad("metrics", "missing")
	} else if ms, err := objectMembers(raw, 0); err != nil {
		bad("metrics", "want an object, got %s", kind(raw))
	} else {
		for _, m := range ms {
			checkRecordMetric(m, bad)
		}
	}
	if raw, ok := rec["error"]; ok && !isNull(raw) {
		checkRecordError(raw, bad)
	}
	return ps
}

// checkRecordMeta checks a record's metadata.
func checkRecordMeta(meta map[string]json.RawMessage, bad func(field, format string, args ...any)) {
	start, hasStart := int64(0), false
	for _, k := range []string{"request_start_ns", "timestamp_ns"} {
		if raw, ok := meta[k]; ok {
			v, isInt := integer(raw)
			if !isInt || v < 0 {
				bad("metadata."+k, "want an integer >= 0 (ns), got %s", raw)
			}
			start, hasStart = v, true
			break
		}
	}
	if !hasStart {
		bad("metadata.request_start_ns", "missing")
	}
	if raw, ok := meta["request_end_ns"]; ok {
		if v, isInt := integer(raw); !isInt || v < 0 {
			bad("metadata.request_end_ns", "want an integer >= 0 (ns), got %s", raw)
		} else if hasStart && v < start {
			bad("metadata.request_end_ns", "%d is before request_start_ns %d", v, start)
		}
	}
	for _, k := range recordTimes {
		if raw, ok := meta[k]; ok && !isNull(raw) {
			if v, isInt := integer(raw); !isInt || v < 0 {
				bad("metadata."+k, "want an integer >= 0 (ns) or null, got %s", raw)
			}
		}
	}
	for _, k := range recordCounts {
		if raw, ok := meta[k]; ok {
			if v, isInt := integer(raw); !isInt || v < 0 {
				bad("metadata."+k, "want an integer >= 0, got %s", raw)
			}
		}
	}
	for _, k := range recordIDs {
		if raw, ok := meta[k]; ok && !isNull(raw) {
			if _, isStr := str(raw); !isStr {
				bad("metadata."+k, "want a string, got %s", kind(raw))
			}
		}
	}
	hasPhase := false
	for _, k := range []string{"benchmark_phase", "credit_phase"} {
		if raw, ok := meta[k]; ok {
			hasPhase = true
			if s, _ := str(raw); s != "profiling" && s != "warmup" {
				bad("metadata."+k, "want \"profiling\" or \"warmup\", got %s", raw)
			}
			break
		}
	}
	if !hasPhase {
		bad("metadata.benchmark_phase", "missing")
	}
	if raw, ok := meta["was_cancelled"]; ok && kind(raw) != "a boolean" {
		bad("metadata.was_cancelled", "want a boolean, got %s", kind(raw))
	}
}

// checkRecordMetric checks one metric, {"value": number|[number...],
// "unit": string}.
func checkRecordMetric(m member, bad func(field, format string, args ...any)) {
	field := "metrics." + m.Key
	var v struct {
		Value *json.RawMessage `json:"value"`
		Unit  *json.RawMessage `json:"unit"`
	}
	if kind(m.Raw) != "an object" || json.Unmarshal(m.Raw, &v) != nil {
		bad(field, "want {\"value\": …, \"unit\": …}, got %s", kind(m.Raw))
		return
	}
	switch {
	case v.Value == nil:
		bad(field+".value", "missing")
	case kind(*v.Value) == "an array":
		var xs []json.RawMessage
		_ = json.Unmarshal(*v.Value, &xs)
		for i, x := range xs {
			if _, ok := number(x); !ok {
				bad(field+".value", "element %d: want a number, got %s", i, kind(x))
				break
			}
		}
	default:
		if _, ok := number(*v.Value); !ok {
			bad(field+".value", "want a number or an array of numbers, got %s", kind(*v.Value))
		}
	}
	if v.Unit == nil {
		bad(field+".unit", "missing")
	} else if _, ok := str(*v.Unit); !ok {
		bad(field+".unit", "want a string, got %s", kind(*v.Unit))
	}
}

// checkRecordError checks a non-null error, {"code": int|null, "type":
// string, "message": string}.
func checkRecordError(raw json.RawMessage, bad func(field, format string, args ...any)) {
	var e map[string]json.RawMessage
	if kind(raw) != "an object" || json.Unmarshal(raw, &e) != nil {
		bad("error", "want null or {\"code\", \"type\", \"message\"}, got %s", kind(raw))
		return
	}
	if c, ok := e["code"]; ok && !isNull(c) {
		if _, isInt := integer(c); !isInt {
			bad("error.code", "want an integer or null, got %s", c)
		}
	}
	for _, k := range []string{"type", "message"} {
		if v, ok := e[k]; ok && !isNull(v) {
			if _, isStr := str(v); !isStr {
				bad("error."+k, "want a string, got %s", kind(v))
			}
		}
	}
	if _, ok := e["message"]; !ok {
		bad("error.message", "missing")
	}
}
