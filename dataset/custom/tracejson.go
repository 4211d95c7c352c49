package custom

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// The trace* value helpers decode one field of a trace row. Each returns the
// value and "" or, when the value has the wrong type or shape, a message for
// the row's LineError (the caller names the field).

// traceAbsent reports whether a field is missing or JSON null, which trace
// rows treat alike (AIPerf's optional fields default to None).
func traceAbsent(raw json.RawMessage) bool {
	return len(raw) == 0 || string(raw) == "null"
}

// traceKind names the JSON type of raw, for messages.
func traceKind(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// traceInt decodes an integer. An integral number written as a float (3.0,
// 1e3) is accepted, as pydantic's lax int; a fractional one is not.
func traceInt(raw json.RawMessage) (int, string) {
	if traceKind(raw) != "a number" {
		return 0, "want an integer, got " + traceKind(raw)
	}
	if n, err := strconv.ParseInt(string(raw), 10, strconv.IntSize); err == nil {
		return int(n), ""
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	switch {
	case err != nil || math.Abs(f) > 1<<53:
		return 0, fmt.Sprintf("integer %s out of range", raw)
	case f != math.Trunc(f):
		return 0, fmt.Sprintf("want an integer, got %s", raw)
	}
	return int(f), ""
}

// traceNum decodes a finite number.
func traceNum(raw json.RawMessage) (float64, string) {
	if traceKind(raw) != "a number" {
		return 0, "want a number, got " + traceKind(raw)
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || math.IsInf(f, 0) {
		return 0, fmt.Sprintf("number %s out of range", raw)
	}
	return f, ""
}

// traceStr decodes a string.
func traceStr(raw json.RawMessage) (string, string) {
	var s string
	if traceKind(raw) != "a string" || json.Unmarshal(raw, &s) != nil {
		return "", "want a string, got " + traceKind(raw)
	}
	return s, ""
}

// traceInts decodes an array of integers, naming the first bad element.
func traceInts(raw json.RawMessage) ([]int, string) {
	if traceKind(raw) != "an array" {
		return nil, "want an array of integers, got " + traceKind(raw)
	}
	var ids []int
	// Unmarshal leaves a null element 0; the slow path names it.
	if !bytes.Contains(raw, []byte("null")) && json.Unmarshal(raw, &ids) == nil {
		return ids, ""
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, "want an array of integers"
	}
	ids = make([]int, len(items))
	for i, it := range items {
		var msg string
		if ids[i], msg = traceInt(it); msg != "" {
			return nil, fmt.Sprintf("element %d: %s", i, msg)
		}
	}
	return ids, ""
}

// traceObject returns a JSON object compacted, refusing an empty one when
// nonEmpty.
func traceObject(raw json.RawMessage, nonEmpty bool) (json.RawMessage, string) {
	if traceKind(raw) != "an object" {
		return nil, "want an object, got " + traceKind(raw)
	}
	out := traceCompact(raw)
	if nonEmpty && string(out) == "{}" {
		return nil, "must be a non-empty object"
	}
	return out, ""
}

// traceObjects returns a non-empty JSON array of objects compacted, and the
// objects' top-level fields, for the caller's own checks.
func traceObjects(raw json.RawMessage) (json.RawMessage, []map[string]json.RawMessage, string) {
	if traceKind(raw) != "an array" {
		return nil, nil, "want an array of objects, got " + traceKind(raw)
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, nil, "want an array of objects"
	}
	if len(items) == 0 {
		return nil, nil, "must be a non-empty array"
	}
	objs := make([]map[string]json.RawMessage, len(items))
	for i, it := range items {
		if traceKind(it) != "an object" || json.Unmarshal(it, &objs[i]) != nil {
			return nil, nil, fmt.Sprintf("element %d: want an object, got %s", i, traceKind(it))
		}
	}
	return traceCompact(raw), objs, ""
}

// traceCompact returns a compacted copy of valid JSON.
func traceCompact(raw json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	b.Grow(len(raw))
	if json.Compact(&b, raw) != nil {
		return bytes.Clone(raw) // unreachable: raw was decoded already
	}
	return b.Bytes()
}

// traceObjectLine checks that a trace line holds one JSON object and decodes
// it into v (a struct of json.RawMessage fields), returning a message
// otherwise.
func traceObjectLine(b []byte, v any) string {
	if len(b) == 0 || b[0] != '{' {
		return "not a JSON object (want one object per line)"
	}
	if err := json.Unmarshal(b, v); err != nil {
		if syn, ok := err.(*json.SyntaxError); ok {
			return fmt.Sprintf("invalid JSON at byte %d: %v", syn.Offset, syn)
		}
		return "invalid JSON: " + err.Error()
	}
	return ""
}
