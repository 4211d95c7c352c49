package report

import "testing"

// TestIsSchema14: the manifest's artifact_schema decides; without it, a
// stored summary with a metric only the 1.4 layout writes is of 1.4.
func TestIsSchema14(t *testing.T) {
	with := func(tags ...string) map[string]storedStat {
		m := map[string]storedStat{"request_latency": {}, "request_count": {}}
		for _, tag := range tags {
			m[tag] = storedStat{}
		}
		return m
	}
	tests := []struct {
		name     string
		manifest string
		stored   map[string]storedStat
		want     bool
	}{
		{"manifest 1.4", "1.4", with(), true},
		{"manifest 1.0 wins over the summary", "1.0", with("completed_request_count"), false},
		{"summary with completed requests", "", with("completed_request_count"), true},
		{"summary with sweep-line metrics", "", with("effective_concurrency"), true},
		{"0.8 summary", "", with("error_request_count"), false},
		{"no summary", "", nil, false},
	}
	for _, tt := range tests {
		if got := isSchema14(tt.manifest, tt.stored); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}
