package query

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// TestParseMetricTypes reads types from an export and gives up on a
// document it cannot read.
func TestParseMetricTypes(t *testing.T) {
	got := parseMetricTypes([]byte(`{"schema_version":"1","metrics":{"a":{"description":"x","type":"counter"},"b":{"type":"unknown"},"c":null,"d":{"type":"Histogram"}}}`))
	want := map[string]uint8{"a": typeCounter, "b": typeUntyped, "d": typeHistogram}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("types %v, want %v", got, want)
	}
	// aiperf-go's server_metrics_metadata.json
	got = parseMetricTypes([]byte(`{"endpoints":{"http://h/metrics":{"endpoint_url":"http://h/metrics",
		"metric_schemas":{"vllm:prompt_tokens":{"type":"counter","help":"h","unique_label_values":{"a":["b"]}},"g":{"type":"gauge"}}}}}`))
	want = map[string]uint8{"vllm:prompt_tokens": typeCounter, "g": typeGauge}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("metadata types %v, want %v", got, want)
	}
	if got := parseMetricTypes([]byte(`{"metrics":[`)); got != nil {
		t.Errorf("broken document gave %v", got)
	}
}

// refMetricTypes reads the types parseMetricTypes reads, with
// encoding/json: ok is false when a member is of an unexpected shape.
func refMetricTypes(data []byte) (types map[string]uint8, ok bool) {
	var doc map[string]json.RawMessage
	if json.Unmarshal(data, &doc) != nil {
		return nil, false
	}
	types = map[string]uint8{}
	read := func(raw json.RawMessage) bool {
		var metrics map[string]map[string]json.RawMessage
		if json.Unmarshal(raw, &metrics) != nil {
			return false
		}
		for name, m := range metrics {
			var typ *string
			if json.Unmarshal(m["type"], &typ) == nil && typ != nil {
				types[name] = parseMetricType(*typ)
			}
		}
		return true
	}
	if raw, has := doc["metrics"]; has && !read(raw) {
		return nil, false
	}
	if raw, has := doc["endpoints"]; has {
		var eps map[string]map[string]json.RawMessage
		if json.Unmarshal(raw, &eps) != nil {
			return nil, false
		}
		for _, ep := range eps {
			if raw, has := ep["metric_schemas"]; has && !read(raw) {
				return nil, false
			}
		}
	}
	return types, true
}

// FuzzParseMetricTypes: any document parses without panicking; one that
// encoding/json reads without duplicate keys gives the same types.
func FuzzParseMetricTypes(f *testing.F) {
	f.Add([]byte(`{"metrics":{"a":{"type":"counter"},"b":{"type":5},"c":null}}`))
	f.Add([]byte(`{"endpoints":{"u":{"metric_schemas":{"g":{"type":"Gauge","help":"h"}}},"v":null}}`))
	f.Add([]byte(`{"metrics":{"a":[]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		got := parseMetricTypes(data)
		for name, typ := range got {
			if int(typ) >= len(ServerMetricTypes) {
				t.Fatalf("%q: %s has type %d", data, name, typ)
			}
		}
		if !jsonComparable(data) || hasDuplicateKeys(data) {
			return
		}
		want, ok := refMetricTypes(data)
		if ok != (got != nil) || ok && !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\n got %v\nwant %v (%v)", data, got, want, ok)
		}
	})
}

// hasDuplicateKeys reports whether an object of a valid JSON document
// has a key twice (encoding/json keeps the last, the scanner reads all).
func hasDuplicateKeys(data []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	type level struct {
		keys   map[string]bool
		object bool
		key    bool // the next token of an object is a key
	}
	var stack []*level
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		if n := len(stack); n > 0 && stack[n-1].object {
			top := stack[n-1]
			if k, ok := tok.(string); ok && top.key {
				if top.keys[k] {
					return true
				}
				top.keys[k], top.key = true, false
				continue
			}
			top.key = true // after a value
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &level{keys: map[string]bool{}, object: true, key: true})
		case json.Delim('['):
			stack = append(stack, &level{})
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
			if n := len(stack); n > 0 && stack[n-1].object {
				stack[n-1].key = true
			}
		}
	}
}
