package export

import (
	"testing"

	"github.com/aiperf-go/aiperf/metrics"
)

// TestRecordMetricsKeyCache writes records whose metrics change from one
// record to the next (more, fewer, another tag or unit at a position, names
// that need escaping; UTF-8 stays as it is, as pydantic writes it) through
// one cache: every line must be what is written by hand here, cached or not.
func TestRecordMetricsKeyCache(t *testing.T) {
	lat := metrics.RecordValue{Tag: "request_latency", Unit: "ms", Value: 1.5}
	isl := metrics.RecordValue{Tag: "input_sequence_length", Unit: "tokens", Value: 16, Int: true}
	odd := metrics.RecordValue{Tag: "a\"b\u00e9", Unit: "µs\n", Value: 2}
	tests := []struct {
		name string
		vals []metrics.RecordValue
		want string
	}{
		{"two", []metrics.RecordValue{isl, lat},
			`"input_sequence_length":{"value":16,"unit":"tokens"},"request_latency":{"value":1.5,"unit":"ms"}`},
		{"same again", []metrics.RecordValue{isl, lat},
			`"input_sequence_length":{"value":16,"unit":"tokens"},"request_latency":{"value":1.5,"unit":"ms"}`},
		{"swapped", []metrics.RecordValue{lat, isl},
			`"request_latency":{"value":1.5,"unit":"ms"},"input_sequence_length":{"value":16,"unit":"tokens"}`},
		{"fewer", []metrics.RecordValue{isl}, `"input_sequence_length":{"value":16,"unit":"tokens"}`},
		{"unit changed", []metrics.RecordValue{{Tag: "input_sequence_length", Unit: "chars", Value: 3, Int: true}},
			`"input_sequence_length":{"value":3,"unit":"chars"}`},
		{"escapes", []metrics.RecordValue{lat, odd, isl},
			`"request_latency":{"value":1.5,"unit":"ms"},"a\"bé":{"value":2.0,"unit":"µs\n"},"input_sequence_length":{"value":16,"unit":"tokens"}`},
		{"none", nil, ``},
		{"back", []metrics.RecordValue{isl, lat},
			`"input_sequence_length":{"value":16,"unit":"tokens"},"request_latency":{"value":1.5,"unit":"ms"}`},
	}
	var mk metricKeys
	for _, tt := range tests {
		got := string(appendRecordMetrics(nil, tt.vals, &mk))
		if got != tt.want {
			t.Errorf("%s: cached\n got %s\nwant %s", tt.name, got, tt.want)
		}
		if plain := string(appendRecordMetrics(nil, tt.vals, nil)); plain != tt.want {
			t.Errorf("%s: uncached\n got %s\nwant %s", tt.name, plain, tt.want)
		}
	}
}
