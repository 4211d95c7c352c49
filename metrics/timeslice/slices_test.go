package timeslice

import (
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/metrics"
	"github.com/aiperf-go/aiperf/record"
)

func TestSlicesTwoAndAHalfWindows(t *testing.T) {
	got := run(streamingChat(), sec, twoAndAHalf())
	if len(got) != 3 {
		t.Fatalf("got %d slices, want 3", len(got))
	}

	// Bounds: anchored at the earliest start t0 (added second), the last
	// window clipped at G's end, t0+2.5s.
	bounds := []struct {
		start, end int64
		partial    bool
	}{
		{t0, t0 + sec, false},
		{t0 + sec, t0 + 2*sec, false},
		{t0 + 2*sec, t0 + 2500*ms, true},
	}
	for i, b := range bounds {
		s := got[i]
		if s.Index != i || s.Start != b.start || s.End != b.end || s.Partial != b.partial {
			t.Errorf("slice %d = index %d [%d, %d) partial %v, want index %d [%d, %d) partial %v",
				i, s.Index, s.Start, s.End, s.Partial, i, b.start, b.end, b.partial)
		}
	}

	type want struct {
		valid, failed         int
		ttftAvg, ttftP50      float64 // ms
		reqTput, outTput      float64 // per second of window
		totalTput, durationS  float64
		latencyAvg, latencyP1 float64 // ms
	}
	wants := []want{
		// TTFT [50 100 200]: avg 350/3, p50 100. Latency [250 300 600]:
		// p1 = 250 + 0.02*50. 3 requests, OSL 3+2+2, ISL 60 over 1 s.
		// Duration: C ends at t0+1.5s, past the window.
		{3, 0, 350.0 / 3, 100, 3, 7, 67, 1.5, 1150.0 / 3, 251},
		// D and F valid, E failed. TTFT [80 120]; latency [400 320]:
		// p1 = 320 + 0.01*80. OSL 2+4, ISL 50. Duration t0+1s .. t0+2.02s.
		{2, 1, 100, 100, 2, 6, 56, 1.02, 360, 320.8},
		// G alone over the clipped 0.5 s window: 1/0.5 req/s, 2/0.5 tok/s.
		{1, 0, 100, 100, 2, 4, 24, 0.4, 400, 400},
	}
	for i, w := range wants {
		s := got[i].Summary
		if s.Valid != w.valid || s.Failed != w.failed {
			t.Errorf("slice %d: valid/failed = %d/%d, want %d/%d", i, s.Valid, s.Failed, w.valid, w.failed)
		}
		ttft := result(t, s, "time_to_first_token")
		if ttft.Count != w.valid {
			t.Errorf("slice %d: TTFT count = %d, want %d", i, ttft.Count, w.valid)
		}
		checkNear(t, "TTFT avg", ttft.Avg, w.ttftAvg)
		checkNear(t, "TTFT p50", ttft.P[4], w.ttftP50)
		lat := result(t, s, "request_latency")
		checkNear(t, "latency avg", lat.Avg, w.latencyAvg)
		checkNear(t, "latency p1", lat.P[0], w.latencyP1)
		checkNear(t, "request_count", result(t, s, "request_count").Avg, float64(w.valid))
		checkNear(t, "request_throughput", result(t, s, "request_throughput").Avg, w.reqTput)
		checkNear(t, "output_token_throughput", result(t, s, "output_token_throughput").Avg, w.outTput)
		checkNear(t, "total_token_throughput", result(t, s, "total_token_throughput").Avg, w.totalTput)
		checkNear(t, "benchmark_duration", result(t, s, "benchmark_duration").Avg, w.durationS)
	}

	// Window 0's TTFT distribution in full: sorted [50 100 200] ms; pq at
	// index q/100*2, e.g. p5 = 50 + 0.1*50, p90 = 100 + 0.8*100.
	ttft := result(t, got[0].Summary, "time_to_first_token")
	wantP := [...]float64{51, 55, 60, 75, 100, 150, 180, 190, 198}
	for i, p := range wantP {
		checkNear(t, "window 0 TTFT p"+percent(i), ttft.P[i], p)
	}
	checkNear(t, "window 0 TTFT min", ttft.Min, 50)
	checkNear(t, "window 0 TTFT max", ttft.Max, 200)
	checkNear(t, "window 0 TTFT sum", ttft.Sum, 350)
	checkNear(t, "window 0 TTFT std", ttft.Std, math.Sqrt(35000.0/9))

	// The failed request of window 1.
	if r := result(t, got[1].Summary, "error_request_count"); r.Avg != 1 {
		t.Errorf("window 1 error_request_count = %v, want 1", r.Avg)
	}
	checkNear(t, "window 1 error_isl", result(t, got[1].Summary, "error_isl").Avg, 99)
	wantErrs := []metrics.ErrorCount{{Error: record.Error{Code: 500, Type: "Internal Server Error", Message: "boom"}, Count: 1}}
	if !reflect.DeepEqual(got[1].Summary.Errors, wantErrs) {
		t.Errorf("window 1 errors = %+v", got[1].Summary.Errors)
	}
	for _, i := range []int{0, 2} {
		if r := got[i].Summary.Get("error_request_count"); r != nil {
			t.Errorf("window %d has error_request_count %v", i, r.Avg)
		}
	}
}

func percent(i int) string {
	return [...]string{"1", "5", "10", "25", "50", "75", "90", "95", "99"}[i]
}

func TestSlicesSkipEmptyWindows(t *testing.T) {
	cfg := streamingChat()
	recs := []*record.Record{
		stream(t0+2200*ms, 5, chunk{100 * ms, "a"}, chunk{300 * ms, " b"}),
		stream(t0, 5, chunk{100 * ms, "a"}, chunk{300 * ms, " b"}),
	}
	got := run(cfg, sec, recs)
	if len(got) != 2 {
		t.Fatalf("got %d slices, want 2 (window 1 is empty)", len(got))
	}
	if got[0].Index != 0 || got[0].Start != t0 || got[0].End != t0+sec || got[0].Partial {
		t.Errorf("slice 0 = %+v", got[0])
	}
	// Grid window 2, numbered 1; clipped at t0+2.5s.
	if got[1].Index != 1 || got[1].Start != t0+2*sec || got[1].End != t0+2500*ms || !got[1].Partial {
		t.Errorf("slice 1 = %+v", got[1])
	}
	checkNear(t, "slice 1 request_throughput", result(t, got[1].Summary, "request_throughput").Avg, 2)
}

// TestSlicesAnchorAtFirstStart mirrors AIPerf's boundary test: requests at
// 0.999, 1.000 and 1.001 s share one window, because the grid starts at the
// first of them.
func TestSlicesAnchorAtFirstStart(t *testing.T) {
	cfg := streamingChat()
	var recs []*record.Record
	for _, start := range []int64{999 * ms, 1000 * ms, 1001 * ms} {
		recs = append(recs, stream(start, 5, chunk{10 * ms, "a"}))
	}
	got := run(cfg, sec, recs)
	if len(got) != 1 {
		t.Fatalf("got %d slices, want 1", len(got))
	}
	s := got[0]
	if s.Start != 999*ms || s.End != 1011*ms || !s.Partial {
		t.Errorf("slice = [%d, %d) partial %v, want [999ms, 1011ms) partial", s.Start, s.End, s.Partial)
	}
	if n := result(t, s.Summary, "request_latency").Count; n != 3 {
		t.Errorf("latency count = %d, want 3", n)
	}
	// 3 requests over the 12 ms clipped window.
	checkNear(t, "request_throughput", result(t, s.Summary, "request_throughput").Avg, 3/0.012)
}

func TestSlicesEmpty(t *testing.T) {
	cfg := streamingChat()
	if got := run(cfg, sec, nil); got != nil {
		t.Errorf("no records: got %+v, want nil", got)
	}
	warm := []*record.Record{{Phase: record.PhaseWarmup, StartNS: 1, EndNS: 2}}
	if got := run(cfg, sec, warm); got != nil {
		t.Errorf("warmup only: got %+v, want nil", got)
	}
}

func TestNewPanicsOnNonPositiveSlice(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("New(0) did not panic")
		}
	}()
	New(streamingChat(), 0, 0)
}

// TestReplayMatchesDirect checks the compact storage: with one window
// covering the run, every metric other than the throughputs must equal the
// run summary of the same records, bit for bit.
func TestReplayMatchesDirect(t *testing.T) {
	cfg := streamingChat()
	cfg.Goodput = []metrics.SLO{{Tag: "time_to_first_token", Threshold: 90}}
	u := func(p, c int64) *record.Usage { return &record.Usage{PromptTokens: &p, CompletionTokens: &c} }
	recs := twoAndAHalf()
	reasoning := stream(t0+300*ms, 7, chunk{10 * ms, ""}, chunk{20 * ms, "x y"}, chunk{35 * ms, " z"})
	reasoning.Responses[0].Reasoning = "think hard now"
	reasoning.Responses[2].Usage = u(9, 9)
	reasoning.RequestedOutputTokens = 40
	noResponses := &record.Record{Phase: record.PhaseProfiling, StartNS: t0 + 400*ms, InputTokens: 3}
	recs = append(recs, reasoning, failed(t0+50*ms, -1), failed(t0+60*ms, 4), noResponses)

	direct := metrics.NewAccumulator(cfg)
	a := New(cfg, time.Hour, 0)
	for _, r := range recs {
		vals := metrics.Compute(cfg, r)
		direct.Add(r, vals)
		a.Add(r, vals)
	}
	want := direct.Summary(nil)
	got := a.Slices()
	if len(got) != 1 {
		t.Fatalf("got %d slices, want 1", len(got))
	}
	s := got[0].Summary
	windowed := map[string]bool{"request_throughput": true, "output_token_throughput": true,
		"total_token_throughput": true, "goodput": true}
	strip := func(rs []metrics.Result) []metrics.Result {
		var out []metrics.Result
		for _, r := range rs {
			if !windowed[r.Tag] {
				out = append(out, r)
			}
		}
		return out
	}
	if !reflect.DeepEqual(strip(s.Results), strip(want.Results)) {
		t.Errorf("results differ:\n got %+v\nwant %+v", strip(s.Results), strip(want.Results))
	}
	if s.Valid != want.Valid || s.Failed != want.Failed || !reflect.DeepEqual(s.Errors, want.Errors) ||
		s.UsageDiscrepancies != want.UsageDiscrepancies || s.OSLMismatches != want.OSLMismatches {
		t.Errorf("counts differ: got %+v\nwant %+v", s, want)
	}
	if s.Get("inter_chunk_latency") == nil || s.Get("goodput") == nil || s.Get("good_request_count") == nil {
		t.Error("list, goodput or good count metric missing from the replayed summary")
	}
	// The window spans t0 .. t0+2.5s (G's end): 7 valid requests / 2.5 s.
	checkNear(t, "request_throughput", result(t, s, "request_throughput").Avg, 7/2.5)
}
