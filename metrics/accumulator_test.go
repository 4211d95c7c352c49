package metrics

import (
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/record"
)

// threeWords is a streaming record: "a" at +2ms, " b c" at +6ms, " d" at
// +9ms. TTFT 2 ms, latency 9 ms, OSL 4, ICL [4, 3] ms, ITL 7/3 ms.
func threeWords(start int64) *record.Record {
	return rec(start, true, 3,
		chunk{at: 2 * ms, text: "a"}, chunk{at: 6 * ms, text: " b c"}, chunk{at: 9 * ms, text: " d"})
}

func failedRec(start int64, isl int, code int, typ, msg string) *record.Record {
	return &record.Record{
		Phase: record.PhaseProfiling, StartNS: start, EndNS: start + ms, InputTokens: isl,
		Error: &record.Error{Code: code, Type: typ, Message: msg},
	}
}

func TestSummaryStreaming(t *testing.T) {
	cfg := streamingChat()
	recs := []*record.Record{
		reasoningStream(0),        // TTFT 10, latency 26, OSL 6, ISL 7, ICL [5 5 6]
		threeWords(50 * ms),       // TTFT 2, latency 9, OSL 4, ISL 3, ICL [4 3]
		reasoningStream(100 * ms), // ends at 126 ms: the last response
		failedRec(10*ms, 20, 500, "Internal Server Error", "boom"),
		failedRec(20*ms, 30, 0, "TimeoutError", "timed out"),
		failedRec(30*ms, -1, 0, "TimeoutError", "timed out"),
		failedRec(40*ms, 40, 500, "Internal Server Error", "boom"),
		failedRec(45*ms, 50, 0, "TimeoutError", "timed out"),
		{Phase: record.PhaseProfiling, StartNS: 60 * ms, InputTokens: 5}, // no responses: invalid, no error
		{Phase: record.PhaseWarmup, StartNS: -time.Hour.Nanoseconds(), Responses: []record.Response{{PerfNS: 1}}},
	}
	a := NewAccumulator(cfg)
	for _, r := range recs {
		a.Add(r, Compute(cfg, r))
	}
	clock := record.NewClockAt(time.Unix(1000, 0))
	s := a.Summary(clock)

	if s.Valid != 3 || s.Failed != 6 {
		t.Errorf("valid/failed = %d/%d, want 3/6", s.Valid, s.Failed)
	}
	if s.StartWallNS != 1000e9 || s.EndWallNS != 1000e9+126*ms {
		t.Errorf("wall bounds = %d..%d", s.StartWallNS, s.EndWallNS)
	}
	wantErrs := []ErrorCount{
		{record.Error{Code: 0, Type: "TimeoutError", Message: "timed out"}, 3},
		{record.Error{Code: 500, Type: "Internal Server Error", Message: "boom"}, 2},
	}
	if !reflect.DeepEqual(s.Errors, wantErrs) {
		t.Errorf("errors = %+v", s.Errors)
	}

	// TTFT values [10 10 2] ms: mean 22/3, population std sqrt(128/9),
	// p1 = 2 + 0.02*(10-2), p50 = 10.
	ttft := result(t, s, "time_to_first_token")
	if ttft.Scalar || !ttft.Console || ttft.Unit != "ms" || ttft.Count != 3 || ttft.DisplayOrder != 100 {
		t.Errorf("ttft result = %+v", ttft)
	}
	checkNear(t, "ttft avg", ttft.Avg, 22.0/3)
	checkNear(t, "ttft std", ttft.Std, math.Sqrt(128.0/9))
	checkNear(t, "ttft sum", ttft.Sum, 22)
	checkNear(t, "ttft min", ttft.Min, 2)
	checkNear(t, "ttft p1", ttft.P[0], 2.16)
	checkNear(t, "ttft p50", ttft.P[4], 10)
	checkNear(t, "ttft p99", ttft.P[8], 10)

	// ICL is flattened: [5 5 6 4 3 5 5 6] ms.
	icl := result(t, s, "inter_chunk_latency")
	if icl.Count != 8 || icl.Console {
		t.Errorf("icl count %d console %v", icl.Count, icl.Console)
	}
	checkNear(t, "icl avg", icl.Avg, 39.0/8)
	checkNear(t, "icl min", icl.Min, 3)
	checkNear(t, "icl max", icl.Max, 6)

	itl := result(t, s, "inter_token_latency")
	checkNear(t, "itl avg", itl.Avg, (3.2+7.0/3+3.2)/3)

	// Duration 0 → 126 ms over valid records; 3 valid, OSL 16, ISL 17.
	scalars := map[string]float64{
		"benchmark_duration":      0.126,
		"request_count":           3,
		"request_throughput":      3 / 0.126,
		"output_token_throughput": 16 / 0.126,
		"total_token_throughput":  33 / 0.126,
		"total_osl":               16,
		"total_isl":               17,
		"total_output_tokens":     3 + 4 + 3,
		"total_reasoning_tokens":  6,
		"error_request_count":     6,
		"total_error_isl":         20 + 30 + 40 + 50 + 5,
	}
	for tag, want := range scalars {
		r := result(t, s, tag)
		if !r.Scalar {
			t.Errorf("%s not scalar", tag)
		}
		checkNear(t, tag, r.Avg, want)
	}
	errISL := result(t, s, "error_isl")
	if errISL.Count != 5 || errISL.Scalar {
		t.Errorf("error_isl = %+v", errISL)
	}
	for _, tag := range []string{"min_request_timestamp", "max_response_timestamp", "goodput", "good_request_count", "osl_mismatch_count"} {
		if s.Get(tag) != nil {
			t.Errorf("%s exported", tag)
		}
	}
	for i := 1; i < len(s.Results); i++ {
		if s.Results[i-1].DisplayOrder > s.Results[i].DisplayOrder {
			t.Errorf("results out of order at %s", s.Results[i].Tag)
		}
	}
	if again := a.Summary(clock); !reflect.DeepEqual(again, s) {
		t.Error("a second Summary differs")
	}
}

func TestSummaryGoodput(t *testing.T) {
	cfg := streamingChat()
	var err error
	if cfg.Goodput, err = ParseGoodput("time_to_first_token:9 output_token_throughput_per_user:300"); err != nil {
		t.Fatal(err)
	}
	recs := []*record.Record{
		reasoningStream(0),  // TTFT 10 > 9: bad
		threeWords(50 * ms), // TTFT 2, OTPU 1/(7/3 ms) = 428.6 >= 300: good
		rec(200*ms, true, 1, chunk{at: ms, text: "a"}, chunk{at: 5 * ms, text: " b"}), // OTPU 250 < 300: bad
		rec(300*ms, true, 1, chunk{at: ms, text: "x"}),                                // no OTPU (OSL 1): bad
		failedRec(10*ms, 3, 500, "Internal Server Error", "boom"),
	}
	s := summarise(cfg, recs...)
	checkNear(t, "good_request_count", result(t, s, "good_request_count").Avg, 1)
	checkNear(t, "goodput", result(t, s, "goodput").Avg, 1/0.301) // duration 0 → 301 ms
	checkNear(t, "good_request_fraction", result(t, s, "good_request_fraction").Avg, 1.0/5)
	if g := result(t, s, "goodput"); !g.Console || g.DisplayOrder != 1000 || g.Unit != "requests/sec" {
		t.Errorf("goodput = %+v", g)
	}

	// Without records the fraction is 0 and nothing else is reported.
	empty := NewAccumulator(cfg).Summary(nil)
	if len(empty.Results) != 1 || empty.Results[0].Tag != "good_request_fraction" || empty.Results[0].Avg != 0 {
		t.Errorf("empty summary = %+v", empty.Results)
	}
}

// words n returns n whitespace-separated words.
func wordsN(n int) string { return strings.Repeat("w ", n) }

func TestSummaryUsageAndOSLMismatch(t *testing.T) {
	withUsage := func(start int64, out int, u *record.Usage) *record.Record {
		return rec(start, false, 100, chunk{at: ms, text: wordsN(out), usage: u})
	}
	recs := []*record.Record{
		withUsage(0, 10, usage(105, 12, 117, -1)),    // prompt 5 %, completion 20 %: discrepancy
		withUsage(ms, 10, usage(100, 10, 110, -1)),   // exact
		withUsage(2*ms, 10, usage(111, 10, 121, -1)), // prompt 11 %: discrepancy
		withUsage(3*ms, 10, nil),                     // no usage: no diff, not counted
	}
	s := summarise(plainChat(), recs...)
	if s.UsageDiscrepancies != 2 {
		t.Errorf("UsageDiscrepancies = %d, want 2", s.UsageDiscrepancies)
	}
	dc := result(t, s, "usage_discrepancy_count")
	if !dc.Scalar || dc.Avg != 2 || dc.Unit != "requests" {
		t.Errorf("usage_discrepancy_count = %+v", dc)
	}
	pd := result(t, s, "usage_prompt_tokens_diff_pct")
	if pd.Count != 3 || pd.Header != "Usage Prompt Diff" || pd.Unit != "%" {
		t.Errorf("prompt diff = %+v", pd)
	}
	checkNear(t, "prompt diff avg", pd.Avg, 16.0/3)
	checkNear(t, "completion diff max", result(t, s, "usage_completion_tokens_diff_pct").Max, 20)
	checkNear(t, "total_usage_prompt_tokens", result(t, s, "total_usage_prompt_tokens").Avg, 316)
	checkNear(t, "total_usage_total_tokens", result(t, s, "total_usage_total_tokens").Avg, 348)

	strict := plainChat()
	strict.UsageDiffThresholdPct = 15
	if s := summarise(strict, recs...); s.UsageDiscrepancies != 1 {
		t.Errorf("threshold 15: %d discrepancies, want 1", s.UsageDiscrepancies)
	}

	// OSL mismatch: |actual - requested| > min(requested*5%, 50).
	mismatch := func(start int64, requested, osl int) *record.Record {
		r := rec(start, false, 1, chunk{at: ms, text: wordsN(osl)})
		r.RequestedOutputTokens = requested
		return r
	}
	s = summarise(plainChat(),
		mismatch(0, 100, 94),                          // 6 > 5
		mismatch(ms, 100, 96),                         // 4 <= 5
		mismatch(2*ms, 2000, 1940),                    // 60 > 50 (capped)
		mismatch(3*ms, 2000, 1960),                    // 40 <= 50
		rec(4*ms, false, 1, chunk{at: ms, text: "a"}), // no max tokens
	)
	if s.OSLMismatches != 2 || result(t, s, "osl_mismatch_count").Avg != 2 {
		t.Errorf("OSLMismatches = %d, want 2", s.OSLMismatches)
	}
	od := result(t, s, "osl_mismatch_diff_pct")
	if od.Count != 4 {
		t.Errorf("osl diff count = %d", od.Count)
	}
	checkNear(t, "osl diff min", od.Min, -6)
}

func TestSummaryServerTokenCount(t *testing.T) {
	cfg := &Config{Streaming: true, ProducesTokens: true, TokenizesInput: true, UseServerTokenCount: true}
	s := summarise(cfg,
		rec(0, true, -1, chunk{at: ms, text: "a"}, chunk{at: 3 * ms, text: " b", usage: usage(40, 5, 45, -1)}),
		rec(ms, true, -1, chunk{at: ms, text: "a"}, chunk{at: 4 * ms, usage: usage(60, 7, 67, 2)}),
	)
	checkNear(t, "total_isl", result(t, s, "total_isl").Avg, 100)
	checkNear(t, "total_osl", result(t, s, "total_osl").Avg, 12)
	checkNear(t, "total_output_tokens", result(t, s, "total_output_tokens").Avg, 10)
	checkNear(t, "total_reasoning_tokens", result(t, s, "total_reasoning_tokens").Avg, 2)
	for _, tag := range []string{"usage_discrepancy_count", "usage_prompt_tokens_diff_pct", "usage_completion_tokens_diff_pct"} {
		if s.Get(tag) != nil {
			t.Errorf("%s reported with server token counts", tag)
		}
	}
}

// TestSummaryMillionValues adds 1,000,000 records whose only value is a
// request latency of i ns, i = 1..1e6, and checks closed forms: mean
// (n+1)/2, population std sqrt((n²-1)/12), p50 (n+1)/2, p99 at index
// 0.99*(n-1) = 989999.01 → 990000.01. Past 250,000 values the percentiles
// are sketched: they must lie within 0.1% of their rank, here 1,000 ns.
func TestSummaryMillionValues(t *testing.T) {
	const n = 1_000_000
	cfg := &Config{}
	a := NewAccumulator(cfg)
	r := &record.Record{Phase: record.PhaseProfiling, Responses: []record.Response{{PerfNS: 1}}}
	vals := []RecordValue{{Tag: "request_latency", Unit: "ms"}}
	for i := 1; i <= n; i++ {
		r.StartNS = int64(i)
		vals[0].Value = float64(i) * nsToMS
		a.Add(r, vals)
	}
	s := a.Summary(nil)
	lat := result(t, s, "request_latency")
	if lat.Count != n {
		t.Fatalf("count = %d", lat.Count)
	}
	checkNear(t, "avg", lat.Avg, (n+1)/2.0*1e-6)
	checkNear(t, "sum", lat.Sum, n*(n+1)/2.0*1e-6)
	checkNear(t, "std", lat.Std, math.Sqrt((n*n-1)/12.0)*1e-6)
	checkNear(t, "min", lat.Min, 1e-6)
	checkNear(t, "max", lat.Max, n*1e-6)
	if math.Abs(lat.P[4]-500000.5e-6) > 1000e-6 {
		t.Errorf("p50 = %v", lat.P[4])
	}
	if math.Abs(lat.P[8]-990000.01e-6) > 1000e-6 {
		t.Errorf("p99 = %v", lat.P[8])
	}
	checkNear(t, "request_count", result(t, s, "request_count").Avg, n)
	// Every record ends at StartNS + i ns, so the last ends at 2e6 ns.
	checkNear(t, "benchmark_duration", result(t, s, "benchmark_duration").Avg, (2*n-1)*1e-9)
}

// BenchmarkAddSummary measures Add for b.N streaming records with 20
// chunks each, then one Summary; it reports ns per record.
func BenchmarkAddSummary(b *testing.B) {
	cfg := streamingChat()
	const templates = 16
	recs := make([]*record.Record, templates)
	vals := make([][]RecordValue, templates)
	for i := range recs {
		chunks := make([]chunk, 20)
		for j := range chunks {
			chunks[j] = chunk{at: int64(10+j*(3+i%4)) * ms, text: " tok en"}
		}
		recs[i] = rec(int64(i)*ms, true, 500+i, chunks...)
		vals[i] = Compute(cfg, recs[i])
	}
	a := NewAccumulator(cfg)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		a.Add(recs[i%templates], vals[i%templates])
	}
	s := a.Summary(nil)
	b.StopTimer()
	if s.Valid != b.N {
		b.Fatalf("valid = %d", s.Valid)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/record")
}
