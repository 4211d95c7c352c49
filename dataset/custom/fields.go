package custom

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
)

// Typed access to the fields of one JSONL record. Each getter returns
// ok=false for an absent or null field (pydantic's None) and a *LineError
// naming the field when the value has the wrong type. pre is the field path
// of the enclosing object ("" at top level, "turns[2]." in multi_turn).

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

func isNull(raw json.RawMessage) bool {
	return len(raw) == 0 || string(raw) == "null"
}

// wrongType is the error for a field holding the wrong JSON type.
func wrongType(field, want string, raw json.RawMessage) *LineError {
	return &LineError{Field: field, Msg: fmt.Sprintf("must be %s, got %s", want, jsonKind(raw))}
}

// getString returns the string field key.
func (o jsonObject) getString(pre, key string) (s string, ok bool, lerr *LineError) {
	raw := o[key]
	if isNull(raw) {
		return "", false, nil
	}
	if raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return "", false, wrongType(pre+key, "a string", raw)
	}
	return s, true, nil
}

// getNumber returns the number field key (int or float, as pydantic's
// int | float), which must be finite.
func (o jsonObject) getNumber(pre, key string) (f float64, ok bool, lerr *LineError) {
	raw := o[key]
	if isNull(raw) {
		return 0, false, nil
	}
	if jsonKind(raw) != "a number" {
		return 0, false, wrongType(pre+key, "a number", raw)
	}
	if err := json.Unmarshal(raw, &f); err != nil || math.IsInf(f, 0) {
		return 0, false, &LineError{Field: pre + key, Msg: fmt.Sprintf("number %s is out of range", raw)}
	}
	return f, true, nil
}

// getInt returns the integer field key. A float with no fraction (5.0) is
// accepted, as pydantic's lax mode does.
func (o jsonObject) getInt(pre, key string) (n int, ok bool, lerr *LineError) {
	f, ok, lerr := o.getNumber(pre, key)
	if !ok {
		return 0, false, lerr
	}
	if f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, false, &LineError{Field: pre + key, Msg: fmt.Sprintf("must be an integer, got %s", o[key])}
	}
	return int(f), true, nil
}

// getStrings returns the field key as a list of strings.
func (o jsonObject) getStrings(pre, key string) (list []string, ok bool, lerr *LineError) {
	items, ok, lerr := o.getArray(pre, key)
	if !ok {
		return nil, false, lerr
	}
	list = make([]string, len(items))
	for i, raw := range items {
		if isNull(raw) || raw[0] != '"' || json.Unmarshal(raw, &list[i]) != nil {
			return nil, false, wrongType(fmt.Sprintf("%s%s[%d]", pre, key, i), "a string", raw)
		}
	}
	return list, true, nil
}

// getArray returns the elements of the array field key, undecoded.
func (o jsonObject) getArray(pre, key string) (items []json.RawMessage, ok bool, lerr *LineError) {
	raw := o[key]
	if isNull(raw) {
		return nil, false, nil
	}
	if raw[0] != '[' || json.Unmarshal(raw, &items) != nil {
		return nil, false, wrongType(pre+key, "an array", raw)
	}
	return items, true, nil
}

// getObject returns the object field key, undecoded, compacted so that
// equal inputs give equal bytes.
func (o jsonObject) getObject(pre, key string) (obj json.RawMessage, ok bool, lerr *LineError) {
	raw := o[key]
	if isNull(raw) {
		return nil, false, nil
	}
	if raw[0] != '{' {
		return nil, false, wrongType(pre+key, "an object", raw)
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return nil, false, &LineError{Field: pre + key, Msg: "invalid JSON object"}
	}
	return json.RawMessage(b.Bytes()), true, nil
}

// has reports whether key is present and not null.
func (o jsonObject) has(key string) bool {
	return !isNull(o[key])
}
