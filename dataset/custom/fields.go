package custom

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// Typed decoding of the fields of one record. The decode* functions take a
// field's raw value (not absent, not null: see isNull) and return the value
// and "" or, when the value has the wrong type or shape, the message for
// the record's LineError (the caller names the field). The messages are
// worded in a voice: the JSONL record formats say "must be a string, got a
// number" (as pydantic), the trace formats "want a string, got a number".
// The get* methods of jsonObject wrap them for the record formats.

// voice words a type mismatch.
type voice string

const (
	voiceMust voice = "must be" // single_turn, multi_turn, random_pool
	voiceWant voice = "want"    // mooncake_trace, bailian_trace
)

// mismatch says that raw is not what was wanted.
func (v voice) mismatch(what string, raw json.RawMessage) string {
	return fmt.Sprintf("%s %s, got %s", v, what, jsonKind(raw))
}

// jsonKind names the JSON type of a raw value for error messages.
func jsonKind(raw json.RawMessage) string {
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
	default:
		return "a number"
	}
}

// isNull reports whether a field is missing or JSON null, which all formats
// treat alike (pydantic's None).
func isNull(raw json.RawMessage) bool {
	return len(raw) == 0 || string(raw) == "null"
}

// wrongType is the error for a field holding the wrong JSON type.
func wrongType(field, want string, raw json.RawMessage) *LineError {
	return &LineError{Field: field, Msg: voiceMust.mismatch(want, raw)}
}

// decodeString decodes a string.
func decodeString(raw json.RawMessage, v voice) (string, string) {
	var s string
	if jsonKind(raw) != "a string" || json.Unmarshal(raw, &s) != nil {
		return "", v.mismatch("a string", raw)
	}
	return s, ""
}

// decodeNumber decodes a finite number (int or float, as pydantic's
// int | float).
func decodeNumber(raw json.RawMessage, v voice) (float64, string) {
	if jsonKind(raw) != "a number" {
		return 0, v.mismatch("a number", raw)
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || math.IsInf(f, 0) {
		return 0, fmt.Sprintf("number %s is out of range", raw)
	}
	return f, ""
}

// decodeInt decodes an integer. An integral number written as a float
// (3.0, 1e3) is accepted, as pydantic's lax int; a fractional one is not.
func decodeInt(raw json.RawMessage, v voice) (int, string) {
	if jsonKind(raw) != "a number" {
		return 0, v.mismatch("an integer", raw)
	}
	if n, err := strconv.ParseInt(string(raw), 10, strconv.IntSize); err == nil {
		return int(n), ""
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	switch {
	case err != nil || math.Abs(f) > 1<<53:
		return 0, fmt.Sprintf("integer %s is out of range", raw)
	case f != math.Trunc(f):
		return 0, fmt.Sprintf("%s an integer, got %s", v, raw)
	}
	return int(f), ""
}

// decodeInts decodes an array of integers, naming the first bad element.
func decodeInts(raw json.RawMessage, v voice) ([]int, string) {
	if jsonKind(raw) != "an array" {
		return nil, v.mismatch("an array of integers", raw)
	}
	var ids []int
	// Unmarshal leaves a null element 0; the slow path names it.
	if !bytes.Contains(raw, []byte("null")) && json.Unmarshal(raw, &ids) == nil {
		return ids, ""
	}
	items, msg := decodeArray(raw, v)
	if msg != "" {
		return nil, msg
	}
	ids = make([]int, len(items))
	for i, it := range items {
		if ids[i], msg = decodeInt(it, v); msg != "" {
			return nil, fmt.Sprintf("element %d: %s", i, msg)
		}
	}
	return ids, ""
}

// decodeArray returns the elements of an array, undecoded.
func decodeArray(raw json.RawMessage, v voice) ([]json.RawMessage, string) {
	var items []json.RawMessage
	if jsonKind(raw) != "an array" || json.Unmarshal(raw, &items) != nil {
		return nil, v.mismatch("an array", raw)
	}
	return items, ""
}

// decodeObject returns an object compacted, so that equal inputs give
// equal bytes, refusing an empty one when nonEmpty.
func decodeObject(raw json.RawMessage, v voice, nonEmpty bool) (json.RawMessage, string) {
	if jsonKind(raw) != "an object" {
		return nil, v.mismatch("an object", raw)
	}
	out := compactJSON(raw)
	if nonEmpty && string(out) == "{}" {
		return nil, "must be a non-empty object"
	}
	return out, ""
}

// decodeObjects returns a non-empty array of objects compacted, and the
// objects' top-level fields, for the caller's own checks.
func decodeObjects(raw json.RawMessage, v voice) (json.RawMessage, []jsonObject, string) {
	if jsonKind(raw) != "an array" {
		return nil, nil, v.mismatch("an array of objects", raw)
	}
	items, msg := decodeArray(raw, v)
	switch {
	case msg != "":
		return nil, nil, msg
	case len(items) == 0:
		return nil, nil, "must be a non-empty array"
	}
	objs := make([]jsonObject, len(items))
	for i, it := range items {
		if jsonKind(it) != "an object" || json.Unmarshal(it, &objs[i]) != nil {
			return nil, nil, fmt.Sprintf("element %d: %s", i, v.mismatch("an object", it))
		}
	}
	return compactJSON(raw), objs, ""
}

// compactJSON returns a compacted copy of valid JSON.
func compactJSON(raw json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	b.Grow(len(raw))
	if json.Compact(&b, raw) != nil {
		return bytes.Clone(raw) // unreachable: raw was decoded already
	}
	return b.Bytes()
}

// getField decodes the field key of o with decode, in the record formats'
// voice. It returns ok=false for an absent or null field, and a *LineError
// naming the field (pre+key; pre is the path of the enclosing object, ""
// at top level, "turns[2]." in multi_turn) when decode refuses the value.
func getField[T any](o jsonObject, pre, key string, decode func(json.RawMessage, voice) (T, string)) (val T, ok bool, lerr *LineError) {
	raw := o[key]
	if isNull(raw) {
		return val, false, nil
	}
	val, msg := decode(raw, voiceMust)
	if msg != "" {
		var zero T
		return zero, false, &LineError{Field: pre + key, Msg: msg}
	}
	return val, true, nil
}

// getString returns the string field key.
func (o jsonObject) getString(pre, key string) (string, bool, *LineError) {
	return getField(o, pre, key, decodeString)
}

// getNumber returns the number field key, which must be finite.
func (o jsonObject) getNumber(pre, key string) (float64, bool, *LineError) {
	return getField(o, pre, key, decodeNumber)
}

// getInt returns the integer field key (5.0 accepted, see decodeInt).
func (o jsonObject) getInt(pre, key string) (int, bool, *LineError) {
	return getField(o, pre, key, decodeInt)
}

// getArray returns the elements of the array field key, undecoded.
func (o jsonObject) getArray(pre, key string) ([]json.RawMessage, bool, *LineError) {
	return getField(o, pre, key, decodeArray)
}

// getObject returns the object field key, compacted.
func (o jsonObject) getObject(pre, key string) (json.RawMessage, bool, *LineError) {
	return getField(o, pre, key, func(raw json.RawMessage, v voice) (json.RawMessage, string) {
		return decodeObject(raw, v, false)
	})
}

// getStrings returns the field key as a list of strings; a bad element is
// named by its index (key[i]).
func (o jsonObject) getStrings(pre, key string) (list []string, ok bool, lerr *LineError) {
	items, ok, lerr := o.getArray(pre, key)
	if !ok {
		return nil, false, lerr
	}
	list = make([]string, len(items))
	for i, raw := range items {
		var msg string
		if list[i], msg = decodeString(raw, voiceMust); msg != "" {
			return nil, false, &LineError{Field: fmt.Sprintf("%s%s[%d]", pre, key, i), Msg: msg}
		}
	}
	return list, true, nil
}

// has reports whether key is present and not null.
func (o jsonObject) has(key string) bool {
	return !isNull(o[key])
}
