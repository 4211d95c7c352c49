package endpoint

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/aiperf-go/aiperf/internal/pyjson"
)

// Field is one top-level key of a request body with its JSON value, added by
// --extra-inputs. Value must be valid JSON.
type Field struct {
	Key   string
	Value json.RawMessage
}

// ParseExtraInputs parses --extra-inputs values into fields in order. Each
// item is either a whole JSON object (`{"a":1,"b":"x"}`, its keys in order) or
// `key:value`, split on the first colon with space trimmed around both parts.
// The value is used as JSON when it parses as JSON (`ignore_eos:true`,
// `stop:["a","b"]`, `temperature:0.7`); otherwise it becomes a JSON string,
// except that, as in AIPerf, true/false/none/null in any case become booleans
// or null and numbers like ".5" or "5." become numbers. A key given twice
// keeps its first position and takes the last value. The error names the bad
// item.
func ParseExtraInputs(items []string) ([]Field, error) {
	var fields []Field
	for _, item := range items {
		parsed, err := parseExtraItem(item)
		if err != nil {
			return nil, err
		}
		for _, f := range parsed {
			fields = setField(fields, f)
		}
	}
	return fields, nil
}

// setField replaces the value of f.Key in place, or appends f.
func setField(fields []Field, f Field) []Field {
	for i := range fields {
		if fields[i].Key == f.Key {
			fields[i].Value = f.Value
			return fields
		}
	}
	return append(fields, f)
}

func parseExtraItem(item string) ([]Field, error) {
	s := strings.TrimSpace(item)
	if strings.HasPrefix(s, "{") {
		fields, err := parseObject(s)
		if err != nil {
			return nil, fmt.Errorf("endpoint: extra input %q: invalid JSON object: %w", item, err)
		}
		return fields, nil
	}
	key, value, ok := strings.Cut(s, ":")
	if !ok {
		return nil, fmt.Errorf("endpoint: extra input %q: want key:value or a JSON object", item)
	}
	key = strings.TrimSpace(key)
	if key == "" {
		return nil, fmt.Errorf("endpoint: extra input %q: empty key", item)
	}
	return []Field{{Key: key, Value: coerce(strings.TrimSpace(value))}}, nil
}

// coerce returns the JSON form of a key:value value.
func coerce(v string) json.RawMessage {
	if json.Valid([]byte(v)) {
		var b bytes.Buffer
		_ = json.Compact(&b, []byte(v)) // cannot fail: v is valid
		return b.Bytes()
	}
	switch strings.ToLower(v) {
	case "true":
		return json.RawMessage("true")
	case "false":
		return json.RawMessage("false")
	case "none", "null":
		return json.RawMessage("null")
	}
	if f, ok := pythonFloat(v); ok {
		return json.RawMessage(f)
	}
	return pyjson.AppendString(nil, v)
}

// pythonFloat turns the decimal forms AIPerf coerces to floats but JSON
// rejects (".5", "5.", "-.5") into JSON numbers ("0.5", "5.0", "-0.5").
func pythonFloat(v string) (string, bool) {
	digits := strings.TrimPrefix(v, "-")
	intPart, frac, ok := strings.Cut(digits, ".")
	if !ok || intPart+frac == "" || strings.Trim(intPart+frac, "0123456789") != "" {
		return "", false
	}
	if intPart == "" {
		intPart = "0"
	}
	if frac == "" {
		frac = "0"
	}
	n := intPart + "." + frac
	if !json.Valid([]byte(n)) { // e.g. a leading zero: "01."
		return "", false
	}
	if len(digits) < len(v) {
		n = "-" + n
	}
	return n, true
}

// parseObject returns the members of the JSON object s in order, each value
// compacted.
func parseObject(s string) ([]Field, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	if tok, err := dec.Token(); err != nil {
		return nil, err
	} else if tok != json.Delim('{') {
		return nil, errors.New("not an object")
	}
	var fields []Field
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, ok := tok.(string)
		if !ok {
			return nil, errors.New("object key is not a string")
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		var b bytes.Buffer
		if err := json.Compact(&b, raw); err != nil {
			return nil, err
		}
		fields = setField(fields, Field{Key: key, Value: b.Bytes()})
	}
	if _, err := dec.Token(); err != nil { // the closing '}'
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the object")
	}
	return fields, nil
}
