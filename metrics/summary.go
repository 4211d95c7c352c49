package metrics

import "github.com/aiperf-go/aiperf/record"

// ErrorCount is one row of the error summary: identical errors and how often
// they occurred.
type ErrorCount struct {
	Error record.Error
	Count int
}

// Summary is everything the exporters need about a finished run's metrics.
type Summary struct {
	// Results are the exported metrics, ordered by DisplayOrder then Tag.
	Results []Result
	// Errors groups failed profiling requests by (code, type, message),
	// most frequent first.
	Errors []ErrorCount
	// StartWallNS and EndWallNS bound the profiling phase
	// (min request start, max response end over valid records).
	StartWallNS int64
	EndWallNS   int64
	// UsageDiscrepancies is the number of requests whose usage token counts
	// differ from the client's counts by more than the threshold (10 %).
	UsageDiscrepancies int
	// OSLMismatches is the number of requests whose output length differs
	// from the requested max tokens by more than min(5 %, 50 tokens).
	OSLMismatches int
	// Valid and Failed count the profiling records.
	Valid, Failed int
}

// Get returns the result with the given tag, or nil.
func (s *Summary) Get(tag string) *Result {
	for i := range s.Results {
		if s.Results[i].Tag == tag {
			return &s.Results[i]
		}
	}
	return nil
}
