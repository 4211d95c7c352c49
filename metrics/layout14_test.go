package metrics

import (
	"slices"
	"testing"
)

// TestLookupResult14 checks a few placements against AIPerf 0.13's
// console (its Effective and Active tables, the error-adjusted rows last
// in the default table) and that the catalogue's tags and unknown tags
// have none.
func TestLookupResult14(t *testing.T) {
	tests := []struct {
		tag, header, unit, group string
		console                  bool
	}{
		{"effective_concurrency", "Effective Concurrency", "requests", GroupEffective, true},
		{"tokens_in_flight", "Tokens In Flight", "tokens", GroupEffective, true},
		{"active_total_throughput", "Active Total Throughput", "tokens/sec", GroupActive, true},
		{"effective_latency", "Effective Latency (CO-aware)", "ms", GroupEffective, true},
		{"credit_to_start_latency", "Credit-to-Start Latency", "ms", GroupDefault, false},
		{"adj_request_latency", "Request Latency (error-adjusted)", "ms", GroupDefault, true},
		{"adj_inter_token_latency", "Inter Token Latency (error-adjusted)", "ms", GroupDefault, true},
	}
	for _, tt := range tests {
		r, ok := LookupResult14(tt.tag)
		if !ok || r.Tag != tt.tag || r.Header != tt.header || r.Unit != tt.unit || r.Group != tt.group || r.Console != tt.console {
			t.Errorf("%s: %v %+v", tt.tag, ok, r)
		}
	}
	for _, tag := range []string{"request_latency", "adj_output_sequence_length", "effective", "adj_", ""} {
		if _, ok := LookupResult14(tag); ok {
			t.Errorf("%q has a placement", tag)
		}
	}
	// The error-adjusted rows follow the other rows of the default table.
	lat, _ := LookupResult14("adj_request_latency")
	count, _ := Lookup("request_count")
	if lat.DisplayOrder <= count.DisplayOrder {
		t.Errorf("adj_request_latency order %d, not after request_count's %d", lat.DisplayOrder, count.DisplayOrder)
	}
}

// TestLookupResult14MatchesSummary: every result of a Schema14 summary
// that is not in the catalogue is placed by LookupResult14 as the summary
// placed it, so that a summary read back from its files shows the same
// console.
func TestLookupResult14MatchesSummary(t *testing.T) {
	s := summarise(schema14Config(), schema14Records()...)
	n := 0
	for _, r := range s.Results {
		if _, known := Lookup(r.Tag); known {
			continue
		}
		n++
		got, ok := LookupResult14(r.Tag)
		if !ok {
			t.Errorf("%s: no placement", r.Tag)
			continue
		}
		if got.Header != r.Header || got.Unit != r.Unit || got.Group != r.Group || got.Console != r.Console ||
			got.DisplayOrder != r.DisplayOrder {
			t.Errorf("%s: placed %+v, summary has %+v", r.Tag, got, r)
		}
		for _, m := range got.Missing {
			if !slices.Contains(r.Missing, m) {
				t.Errorf("%s: %s missing by the placement, not in the summary's %v", r.Tag, m, r.Missing)
			}
		}
	}
	// 14 sweep-line results, the two latencies, and the adjusted TTFT,
	// request latency, decode duration and ITL (one request failed).
	if n != 20 {
		t.Errorf("%d results outside the catalogue, want 20", n)
	}
}
