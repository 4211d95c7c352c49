package runner

import (
	"testing"

	"github.com/aiperf-go/aiperf/mockserver"
	"github.com/aiperf-go/aiperf/mockserver/mocktest"
)

// TestRankingsEndToEnd runs each rankings type against the mock server's
// own rankings API over real HTTP: every request is a valid record with a
// latency and an input length (query and passages), and no output metrics.
func TestRankingsEndToEnd(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{})
	for _, typ := range []string{"nim_rankings", "hf_tei_rankings", "cohere_rankings"} {
		t.Run(typ, func(t *testing.T) {
			cfg := testConfig(t, srv.URL())
			cfg.EndpointType = typ
			cfg.RequestCount = 4
			res := runOK(t, cfg)
			if res.Summary.Valid != 4 {
				t.Fatalf("%d valid, errors %+v", res.Summary.Valid, res.Summary.Errors)
			}
			for _, tag := range []string{"request_latency", "input_sequence_length"} {
				if m := res.Summary.Get(tag); m == nil || m.Avg <= 0 {
					t.Errorf("%s: %+v", tag, m)
				}
			}
			for _, tag := range []string{"output_sequence_length", "time_to_first_token"} {
				if res.Summary.Get(tag) != nil {
					t.Errorf("unexpected %s", tag)
				}
			}
		})
	}
}
