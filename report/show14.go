package report

import (
	"github.com/aiperf-go/aiperf/export"
	"github.com/aiperf-go/aiperf/metrics"
)

// schema14Tags are summary metrics that only the 1.4 layout (AIPerf 0.13's,
// aiperf-go's --output-schema 1.4) writes: a stored summary with one of
// them is of schema 1.4. Every run with a request has
// completed_request_count, and every run with a record
// effective_concurrency.
var schema14Tags = []string{"completed_request_count", "effective_concurrency"}

// isSchema14 reports whether a run's console is AIPerf 0.13's: the layout
// its manifest records (artifact_schema, aiperf-go's runs), else whether
// its stored summary has a metric only the 1.4 layout writes (Python
// AIPerf 0.13 directories, and aiperf-go runs from before the manifest
// recorded the layout).
func isSchema14(artifactSchema string, stored map[string]storedStat) bool {
	if artifactSchema != "" {
		return artifactSchema == export.Schema14
	}
	for _, tag := range schema14Tags {
		if _, ok := stored[tag]; ok {
			return true
		}
	}
	return false
}

// placeSchema14 puts the results of a 1.4 run that are not in the
// catalogue where the runner's console has them (metrics.LookupResult14):
// the error-adjusted rows already in s get their order, and the stored
// sweep-line results, effective_latency and credit_to_start_latency, which
// only the stored summary has, are added in their Effective and Active
// tables.
func placeSchema14(s *metrics.Summary, stored map[string]storedStat) {
	have := map[string]bool{}
	for i := range s.Results {
		r := &s.Results[i]
		have[r.Tag] = true
		if p, ok := metrics.LookupResult14(r.Tag); ok {
			r.Header, r.Unit, r.Group, r.Console, r.DisplayOrder = p.Header, p.Unit, p.Group, p.Console, p.DisplayOrder
		}
	}
	for tag, st := range stored {
		p, ok := metrics.LookupResult14(tag)
		if !ok || have[tag] {
			continue
		}
		r := st.result(tag, p.Header, p.Unit, p.DisplayOrder, p.Console)
		r.Group = p.Group
		s.Results = append(s.Results, r)
	}
}
