package metrics

import (
	"math/rand/v2"
	"testing"

	"github.com/aiperf-go/aiperf/record"
	"github.com/aiperf-go/aiperf/tokenizer"
)

// nonStreaming14 is a non-streaming chat record of the default layout
// (schema 1.4, HTTP trace on) as the runner hands it over: one reply with
// usage, a full trace.
func nonStreaming14(tb testing.TB) (*Config, *record.Record) {
	tok, err := tokenizer.Builtin()
	if err != nil {
		tb.Fatal(err)
	}
	cfg := &Config{ProducesTokens: true, TokenizesInput: true, Tokenizer: tok, HTTPTrace: true, Schema14: true}
	p, c, tot, r := int64(16), int64(1), int64(17), int64(0)
	rec := &record.Record{
		XRequestID: "331d1ef2-980e-42b5-bc06-f2f80c3d7b37", XCorrelationID: "d493feca-5170-4058-b342-af46f85b9784",
		ConversationID: "session_000003", WorkerID: "worker_7c3c1046", Phase: record.PhaseProfiling,
		CreditIssuedNS: 1_000_000, StartNS: 1_001_000, AckNS: 1_530_000, EndNS: 1_531_000,
		InputTokens: 16, RequestedOutputTokens: 1,
		Responses: []record.Response{{PerfNS: 1_531_000, Text: " or",
			Usage: &record.Usage{PromptTokens: &p, CompletionTokens: &c, TotalTokens: &tot, ReasoningTokens: &r}}},
		HTTPTrace: &record.HTTPTrace{GetConnNS: 1_001_000, GotConnNS: 1_001_100, Reused: true,
			WroteHeadersNS: 1_001_900, WroteRequestNS: 1_002_000, FirstByteNS: 1_529_000, HeadersNS: 1_530_000,
			BodyStartNS: 1_530_500, BodyEndNS: 1_531_000, Counted: true, BytesSent: 426, BytesReceived: 460},
	}
	return cfg, rec
}

// BenchmarkComputeNonStreaming14 is Compute's cost per record of the
// default layout (issue 19).
func BenchmarkComputeNonStreaming14(b *testing.B) {
	cfg, rec := nonStreaming14(b)
	if n := len(Compute(cfg, rec)); n < 20 {
		b.Fatalf("%d values", n)
	}
	b.ReportAllocs()
	for b.Loop() {
		Compute(cfg, rec)
	}
}

// synthSweepLog is the sweep log of a streaming benchmark: streams
// sessions of two requests back to back, each request with gaps
// inter-chunk latencies (osl gaps+1 tokens), in ns since the run's clock
// origin as the runner records them (record.Clock), whole numbers well
// below 2^53 so a chunk's end is exactly the next chunk's start. The times
// are pseudo-random but fixed by the seed.
func synthSweepLog(streams, gaps int) *sweepLog {
	rng := rand.New(rand.NewPCG(19, 2026))
	const base = 3_000_000_000.0
	l := &sweepLog{}
	icl := make([]float64, gaps)
	for range streams {
		// Streams ramp up over 2 s; each sends two requests in turn.
		start := base + float64(rng.IntN(2_000_000_000))
		for range 2 {
			ttft := float64(50_000_000 + rng.IntN(100_000_000))
			sum := 0.0
			for k := range icl {
				icl[k] = float64(5_000_000 + rng.IntN(25_000_000))
				sum += icl[k]
			}
			end := start + ttft + sum
			l.log(interval{
				start: start, gen: start + ttft, end: end,
				isl: float64(100 + rng.IntN(100)), osl: float64(gaps + 1),
			}, start-1000, icl)
			l.lastEnd = max(l.lastEnd, int64(end))
			start = end + float64(rng.IntN(1_000_000))
		}
	}
	l.phaseStart, l.phaseSet = int64(base)-1_000_000, true
	return l
}

// BenchmarkSweepResults is the summary's sweep-line metrics of a 10,000
// stream benchmark: 20,000 streaming requests of 20 inter-chunk latencies
// each (issue 19).
func BenchmarkSweepResults(b *testing.B) {
	l := synthSweepLog(10_000, 20)
	if n := len(l.results(nil)); n != len(sweepSpecs) {
		b.Fatalf("%d results", n)
	}
	b.ReportAllocs()
	for b.Loop() {
		l.results(nil)
	}
}
