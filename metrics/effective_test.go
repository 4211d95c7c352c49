package metrics

import (
	"math"
	"slices"
	"testing"

	"github.com/aiperf-go/aiperf/record"
)

// schema14Records are three profiling requests (times in ms):
//
//	R1: credit 9, start 10, chunks at 12 "a ", 13 "b c ", 16 "d e": TTFT 2,
//	    OSL 5, ISL 4, gaps 1 and 3, end 16
//	R2: credit 12, start 14, chunks at 15 "x ", 20 "y z": TTFT 1, OSL 3,
//	    ISL 2, gap 5, end 20
//	R3: credit 20, start 21, fails with a 500 at 23, ISL 3
func schema14Records() []*record.Record {
	r1 := rec(10*ms, true, 4, chunk{at: 2 * ms, text: "a "}, chunk{at: 3 * ms, text: "b c "}, chunk{at: 6 * ms, text: "d e"})
	r1.CreditIssuedNS = 9 * ms
	r2 := rec(14*ms, true, 2, chunk{at: 1 * ms, text: "x "}, chunk{at: 6 * ms, text: "y z"})
	r2.CreditIssuedNS = 12 * ms
	r3 := &record.Record{
		Phase: record.PhaseProfiling, CreditIssuedNS: 20 * ms, StartNS: 21 * ms, EndNS: 23 * ms,
		Streaming: true, InputTokens: 3, Error: &record.Error{Code: 500, Type: "Internal Server Error"},
	}
	return []*record.Record{r1, r2, r3}
}

func schema14Config() *Config {
	cfg := streamingChat()
	cfg.Schema14 = true
	return cfg
}

func TestSummarySchema14(t *testing.T) {
	recs := schema14Records()
	windowed := func(cfg *Config, recs ...*record.Record) *Summary {
		a := NewAccumulator(cfg)
		for _, r := range recs {
			a.Add(r, Compute(cfg, r))
		}
		a.SetPhaseStart(8 * ms)
		return a.Summary(nil)
	}
	plain := summarise(schema14Config(), recs...)
	inWindow := windowed(schema14Config(), recs...)

	tests := []struct {
		name string
		s    *Summary
		tag  string
		want float64
	}{
		// Concurrency 1 over [10,14), 2 over [14,16), 1 over [16,20),
		// 0 over [20,21), 1 over [21,23): 14 ms·requests.
		{"concurrency over the records' span", plain, "effective_concurrency", 14.0 / 13},
		{"concurrency over the window", inWindow, "effective_concurrency", 14.0 / 15},
		// By the chunks: R1's 4 decode tokens and R2's 2 over 13 ms.
		{"decode throughput", plain, "effective_decode_throughput", 6 / 0.013},
		// Decode runs over [12,20): 6 tokens over 8 ms.
		{"active decode throughput", plain, "active_decode_throughput", 6 / 0.008},
		// R1 prefills 4 tokens over [10,12), R2 2 over [14,15): rate 2
		// tokens/ms whenever a prefill is in flight.
		{"active prefill throughput", plain, "active_prefill_throughput", 2000},
		{"prefill throughput", plain, "effective_prefill_throughput", 6 / 0.013},
		// end - credit: 7, 8 and 3 ms.
		{"effective latency", plain, "effective_latency", 6},
		// start - credit: 1, 2 and 1 ms.
		{"credit to start", plain, "credit_to_start_latency", 4.0 / 3},
		{"completed requests", plain, "completed_request_count", 3},
		{"error rate", plain, "request_error_rate", 100.0 / 3},
		{"context overflows", plain, "context_overflow_count", 0},
		// total_isl 6 over benchmark_duration 10 ms, or the 15 ms window.
		{"input throughput", plain, "input_token_throughput", 600},
		{"input throughput in the window", inWindow, "input_token_throughput", 400},
		{"request throughput in the window", inWindow, "request_throughput", 2 / 0.015},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkNear(t, tt.tag, result(t, tt.s, tt.tag).Avg, tt.want)
		})
	}

	el := result(t, plain, "effective_latency")
	if el.Count != 3 || el.Min != 3 || el.Max != 8 || el.Sum != 18 || el.P[4] != 7 {
		t.Errorf("effective_latency = %+v, want count 3, min 3, max 8, sum 18, p50 7", el)
	}
	ec := result(t, plain, "effective_concurrency")
	if ec.Group != GroupEffective || !ec.Console || ec.Max != 2 || ec.Min != 0 ||
		!slices.Equal(ec.Missing, []string{"p1", "p5", "p10", "p25", "p75", "count", "sum"}) {
		t.Errorf("effective_concurrency = %+v", ec)
	}
	if r := result(t, plain, "active_total_throughput"); r.Group != GroupActive {
		t.Errorf("active_total_throughput group = %q, want %q", r.Group, GroupActive)
	}
	if r := result(t, plain, "credit_to_start_latency"); r.Console {
		t.Error("credit_to_start_latency is on the console; AIPerf 0.13 keeps it to the files")
	}
	var sweeps int
	for _, r := range plain.Results {
		if r.DisplayOrder >= orderSweep && r.DisplayOrder < orderCreditLat {
			sweeps++
		}
	}
	if sweeps != 14 {
		t.Errorf("%d sweep-line results, want 14", sweeps)
	}
}

func TestSummaryAdjusted(t *testing.T) {
	s := summarise(schema14Config(), schema14Records()...)
	inf := math.Inf(1)
	// TTFT: successes 1 and 2 ms plus one failure; n = 3, so percentile q
	// picks rank round-half-even(q/100 * 2): 0 up to p25 (0.5 rounds to
	// 0), 1 for p50 and p75 (1.5 rounds to 2: the failure), 2 above.
	ttft := result(t, s, "adj_time_to_first_token")
	wantP := [len(Percentiles)]float64{1, 1, 1, 1, 2, inf, inf, inf, inf}
	if ttft.P != wantP || ttft.Count != 3 || ttft.Min != 1 || !math.IsInf(ttft.Avg, 1) {
		t.Errorf("adj_time_to_first_token = %+v, want p %v, count 3, min 1, avg +Inf", ttft, wantP)
	}
	wantMissing := []string{"avg", "max", "std", "sum", "p75", "p90", "p95", "p99"}
	if !slices.Equal(ttft.Missing, wantMissing) {
		t.Errorf("Missing = %v, want %v", ttft.Missing, wantMissing)
	}
	if ttft.Header != "Time to First Token (error-adjusted)" || ttft.Unit != "ms" || !ttft.Console {
		t.Errorf("adj_time_to_first_token header/unit/console = %q %q %v", ttft.Header, ttft.Unit, ttft.Console)
	}
	// Request latency: 6 and 6 ms plus a failure.
	lat := result(t, s, "adj_request_latency")
	if lat.P[0] != 6 || lat.P[4] != 6 || !math.IsInf(lat.P[5], 1) {
		t.Errorf("adj_request_latency p = %v, want 6 up to p50, +Inf from p75", lat.P)
	}
	for _, tag := range []string{"adj_inter_token_latency", "adj_decode_duration"} {
		result(t, s, tag)
	}

	// Without failures there is nothing to adjust.
	clean := summarise(schema14Config(), schema14Records()[:2]...)
	if clean.Get("adj_request_latency") != nil || clean.Get("context_overflow_count") != nil {
		t.Error("a run without failures has adj_* or context_overflow_count results")
	}
}

// TestSummarySchema10 checks that a run of the 1.0 schema has none of the
// results AIPerf 0.13 added and keeps 0.8's console rows.
func TestSummarySchema10(t *testing.T) {
	s := summarise(streamingChat(), schema14Records()...)
	for _, r := range s.Results {
		if _, ok := Lookup(r.Tag); !ok {
			t.Errorf("schema 1.0 summary has %s", r.Tag)
		}
		if m, _ := Lookup(r.Tag); m.Flags.Has(FlagSchema14Only) {
			t.Errorf("schema 1.0 summary has %s", r.Tag)
		}
		if r.Group != GroupDefault {
			t.Errorf("%s in group %q", r.Tag, r.Group)
		}
	}
	if r := result(t, s, "decode_duration"); r.Console {
		t.Error("decode_duration on the 1.0 console")
	}
	s14 := summarise(schema14Config(), schema14Records()...)
	for _, c := range []struct {
		tag     string
		console bool
	}{
		{"decode_duration", true}, {"e2e_output_token_throughput", true},
		{"input_token_throughput", true}, {"completed_request_count", true},
		{"request_error_rate", true}, {"prefill_throughput_per_user", false},
		{"error_request_count", false}, {"total_token_throughput", false},
	} {
		if r := result(t, s14, c.tag); r.Console != c.console {
			t.Errorf("schema 1.4 %s console = %v, want %v", c.tag, r.Console, c.console)
		}
	}
}
