package runner

import (
	"testing"

	"github.com/aiperf-go/aiperf/mockserver"
	"github.com/aiperf-go/aiperf/mockserver/mocktest"
)

// TestRankingsEndToEnd runs each rankings type against the mock server's
// own rankings API over real HTTP: every request is a valid record with a
// latency and an input length (query and passages), and no streaming
// metrics. The output length follows the layout (docs/metrics.md, "Values
// that follow 0.13"): AIPerf 0.13 (1.4, the default) tokenizes a rankings
// response as "", an output_sequence_length of 0 per record and in the
// summary; 0.8 (1.0) has none.
func TestRankingsEndToEnd(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{})
	for _, typ := range []string{"nim_rankings", "hf_tei_rankings", "cohere_rankings"} {
		for _, schema := range []string{"", "1.0"} {
			t.Run(typ+"/schema="+schemaName(schema), func(t *testing.T) {
				cfg := testConfig(t, srv.URL())
				cfg.EndpointType = typ
				cfg.RequestCount = 4
				if schema != "" {
					cfg.OutputSchema = schema
				}
				res := runOK(t, cfg)
				if res.Summary.Valid != 4 {
					t.Fatalf("%d valid, errors %+v", res.Summary.Valid, res.Summary.Errors)
				}
				for _, tag := range []string{"request_latency", "input_sequence_length"} {
					if m := res.Summary.Get(tag); m == nil || m.Avg <= 0 {
						t.Errorf("%s: %+v", tag, m)
					}
				}
				if res.Summary.Get("time_to_first_token") != nil {
					t.Errorf("unexpected time_to_first_token")
				}
				checkZeroOSL(t, res, cfg.ArtifactDir, schema != "1.0", 4)
			})
		}
	}
}

// schemaName names a table's schema in a subtest: "" is the default.
func schemaName(schema string) string {
	if schema == "" {
		return "default"
	}
	return schema
}

// checkZeroOSL checks the output_sequence_length of a run whose endpoint
// produces no tokens: with zero (the 1.4 layout) an average of 0 over n
// records in the summary and 0 on every record; else none anywhere.
func checkZeroOSL(t *testing.T, res *Result, dir string, zero bool, n int) {
	t.Helper()
	m := res.Summary.Get("output_sequence_length")
	switch {
	case zero && (m == nil || m.Avg != 0 || m.Count != n):
		t.Errorf("summary output_sequence_length %+v, want avg 0 over %d records", m, n)
	case !zero && m != nil:
		t.Errorf("unexpected output_sequence_length %+v", m)
	}
	for _, r := range readRecords(t, dir) {
		v, ok := r.num("output_sequence_length")
		if ok != zero || v != 0 {
			t.Errorf("record %s: output_sequence_length %v (present %v), want present %v", r.Metadata.XRequestID, v, ok, zero)
		}
	}
}
