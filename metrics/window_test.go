package metrics

import (
	"slices"
	"testing"

	"github.com/aiperf-go/aiperf/record"
)

func TestWindowSummary(t *testing.T) {
	cfg := streamingChat()
	cfg.Goodput = []SLO{{Tag: "time_to_first_token", Threshold: 5}}
	a := NewAccumulator(cfg)
	// Each threeWords: TTFT 2 ms (good), latency 9 ms, OSL 4, ISL 3. The
	// span is 0 .. 59 ms; the window is 2 s.
	for _, r := range []*record.Record{threeWords(0), threeWords(50 * ms)} {
		a.Add(r, Compute(cfg, r))
	}
	run := a.Summary(nil)
	s := a.WindowSummary(nil, 2_000*ms)

	checkNear(t, "request_throughput", result(t, s, "request_throughput").Avg, 2.0/2)
	checkNear(t, "goodput", result(t, s, "goodput").Avg, 2.0/2)
	checkNear(t, "output_token_throughput", result(t, s, "output_token_throughput").Avg, 8.0/2)
	checkNear(t, "total_token_throughput", result(t, s, "total_token_throughput").Avg, (6.0+8)/2)
	// benchmark_duration is still the records' span, 59 ms.
	checkNear(t, "benchmark_duration", result(t, s, "benchmark_duration").Avg, 0.059)
	// The run summary divides by that span instead.
	checkNear(t, "run request_throughput", result(t, run, "request_throughput").Avg, 2/0.059)

	tagsOf := func(rs []Result) []string {
		out := make([]string, len(rs))
		for i := range rs {
			out[i] = rs[i].Tag
		}
		return out
	}
	if !slices.Equal(tagsOf(s.Results), tagsOf(run.Results)) {
		t.Errorf("window order %v\nwant run order %v", tagsOf(s.Results), tagsOf(run.Results))
	}

	// A zero-length window has no throughputs; everything else stays.
	zero := a.WindowSummary(nil, 0)
	for _, tag := range []string{"request_throughput", "goodput", "output_token_throughput", "total_token_throughput"} {
		if zero.Get(tag) != nil {
			t.Errorf("zero window has %s", tag)
		}
	}
	if got, want := len(zero.Results), len(run.Results)-4; got != want {
		t.Errorf("zero window has %d results, want %d", got, want)
	}
}
