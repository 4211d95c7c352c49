package timeslice

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/metrics"
	"github.com/aiperf-go/aiperf/record"
)

// words is a whitespace tokenizer: one token per field, so token counts can
// be computed by hand.
type words struct{}

func (words) Name() string { return "words" }

func (words) Encode(text string) []int { return make([]int, len(strings.Fields(text))) }

func (words) Decode(ids []int) string { return strings.Repeat("w ", len(ids)) }

func (words) Count(text string) int { return len(strings.Fields(text)) }

const (
	ms  = int64(1_000_000)
	sec = 1000 * ms
	// t0 is the earliest request start of the test runs: the grid anchor.
	t0 = 5 * sec
)

func streamingChat() *metrics.Config {
	return &metrics.Config{Streaming: true, ProducesTokens: true, TokenizesInput: true, Tokenizer: words{}}
}

// chunk is one streamed response at an offset from the request start.
type chunk struct {
	at   int64
	text string
}

// stream builds a valid streaming record starting at start.
func stream(start int64, isl int, chunks ...chunk) *record.Record {
	r := &record.Record{Phase: record.PhaseProfiling, StartNS: start, Streaming: true, InputTokens: isl}
	for _, c := range chunks {
		r.Responses = append(r.Responses, record.Response{PerfNS: start + c.at, Text: c.text})
		r.EndNS = start + c.at
	}
	return r
}

func failed(start int64, isl int) *record.Record {
	return &record.Record{
		Phase: record.PhaseProfiling, StartNS: start, EndNS: start + 10*ms, InputTokens: isl,
		Error: &record.Error{Code: 500, Type: "Internal Server Error", Message: "boom"},
	}
}

// twoAndAHalf are records over 2.5 windows of 1 s from t0, added out of
// start order (the earliest start comes second):
//
//	window 0 [t0, t0+1s):     B, A, C        TTFT 50, 100, 200 ms; OSL 3, 2, 2; ISL 20, 10, 30
//	window 1 [t0+1s, t0+2s):  D, E(error), F TTFT 80, 120 ms;      OSL 2, 4;    ISL 10, 40 (E: 99)
//	window 2 [t0+2s, t0+2.5s): G             TTFT 100 ms;          OSL 2;       ISL 10; ends t0+2.5s
//
// C starts in window 0 but ends in window 1 (t0+1.5s); D starts exactly on
// the boundary t0+1s.
func twoAndAHalf() []*record.Record {
	return []*record.Record{
		stream(t0+200*ms, 20, chunk{50 * ms, "a"}, chunk{250 * ms, " b c"}), // B
		stream(t0, 10, chunk{100 * ms, "a"}, chunk{300 * ms, " b"}),         // A
		{Phase: record.PhaseWarmup, StartNS: 1, EndNS: 2},                   // ignored
		stream(t0+1000*ms, 10, chunk{80 * ms, "a"}, chunk{400 * ms, " b"}),  // D
		stream(t0+900*ms, 30, chunk{200 * ms, "x"}, chunk{600 * ms, " y"}),  // C
		failed(t0+1500*ms, 99), // E
		stream(t0+1700*ms, 40, chunk{120 * ms, "a"}, chunk{320 * ms, " b c d"}), // F
		stream(t0+2100*ms, 10, chunk{100 * ms, "a"}, chunk{400 * ms, " b"}),     // G
	}
}

// run feeds recs to a new Accumulator and returns its slices.
func run(cfg *metrics.Config, slice int64, recs []*record.Record) []Slice {
	a := New(cfg, time.Duration(slice), 0)
	for _, r := range recs {
		a.Add(r, metrics.Compute(cfg, r))
	}
	return a.Slices()
}

func result(t *testing.T, s *metrics.Summary, tag string) *metrics.Result {
	t.Helper()
	r := s.Get(tag)
	if r == nil {
		t.Fatalf("summary has no %s", tag)
	}
	return r
}

func checkNear(t *testing.T, what string, got, want float64) {
	t.Helper()
	if got == want {
		return
	}
	if math.Abs(got-want) > 1e-12*math.Max(math.Abs(want), math.Abs(got)) {
		t.Errorf("%s = %.17g, want %.17g", what, got, want)
	}
}
