package export

import (
	"io"
	"testing"

	"github.com/aiperf-go/aiperf/metrics"
	"github.com/aiperf-go/aiperf/record"
	"github.com/aiperf-go/aiperf/tokenizer"
)

// BenchmarkRecordWriterNonStreaming14 is the cost of writing one
// non-streaming record of the default layout (schema 1.4, HTTP trace on:
// 27 metrics) to profile_export.jsonl (issue 19).
func BenchmarkRecordWriterNonStreaming14(b *testing.B) {
	tok, err := tokenizer.Builtin()
	if err != nil {
		b.Fatal(err)
	}
	cfg := &metrics.Config{ProducesTokens: true, TokenizesInput: true, Tokenizer: tok, HTTPTrace: true, Schema14: true}
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
	vals := metrics.Compute(cfg, rec)
	rw := NewRecordWriter(io.Discard, record.NewClock())
	rw.Schema, rw.WarmupPhase = Schema14, true
	b.ReportAllocs()
	for b.Loop() {
		if err := rw.Write(rec, vals); err != nil {
			b.Fatal(err)
		}
	}
}
