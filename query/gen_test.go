package query

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"time"

	"github.com/aiperf-go/aiperf/export"
	"github.com/aiperf-go/aiperf/metrics"
	"github.com/aiperf-go/aiperf/record"
)

// genOptions shapes synthetic records.
type genOptions struct {
	Records   int
	Streaming bool
	// OSL is the mean output length in tokens (one token per chunk); each
	// record's length is uniform in [OSL/2, 3*OSL/2].
	OSL int
	ISL int
	// ErrorEvery makes every n-th record a 500 error (0: none).
	ErrorEvery int
	Seed       uint64
}

// writeRecords writes o.Records realistic profile_export.jsonl lines to w:
// records with chunk timings and server usage, turned into metric values by
// metrics.Compute and encoded by export.RecordWriter, as the runner does.
func writeRecords(w io.Writer, o genOptions) error {
	rng := rand.New(rand.NewPCG(o.Seed, 7))
	clock := record.NewClockAt(time.Date(2026, 11, 22, 4, 0, 0, 0, time.UTC))
	bw := bufio.NewWriterSize(w, 1<<20)
	rw := export.NewRecordWriter(bw, clock)
	cfg := &metrics.Config{Streaming: o.Streaming, ProducesTokens: true, TokenizesInput: true, UseServerTokenCount: true}
	var t int64 = 1_000_000
	resp := make([]record.Response, 0, 2*o.OSL+1)
	for i := range o.Records {
		rec := record.Record{
			RequestNum: i, SessionNum: i, ConversationID: fmt.Sprintf("conv-%06d", i%1000),
			XRequestID:     fmt.Sprintf("%08x-0000-4000-8000-%012x", rng.Uint32(), i),
			XCorrelationID: fmt.Sprintf("%08x-0000-4000-8000-%012x", rng.Uint32(), i+1),
			Phase:          record.PhaseProfiling, WorkerID: fmt.Sprintf("worker_%08x", i%8),
			CreditIssuedNS: t, StartNS: t + 20_000, Streaming: o.Streaming,
			InputTokens: o.ISL, RequestedOutputTokens: o.OSL,
		}
		t += 50_000
		if o.ErrorEvery > 0 && i%o.ErrorEvery == o.ErrorEvery-1 {
			rec.EndNS = rec.StartNS + 3_000_000
			rec.Error = &record.Error{Code: 500, Type: "Internal Server Error", Message: "boom"}
			if err := rw.Write(&rec, metrics.Compute(cfg, &rec)); err != nil {
				return err
			}
			continue
		}
		osl := o.OSL/2 + rng.IntN(o.OSL+1)
		now := rec.StartNS + 100_000_000 + rng.Int64N(100_000_000)
		chunks := 1
		if o.Streaming {
			chunks = osl
			rec.AckNS = now - 1_000_000
		}
		resp = resp[:0]
		for c := range chunks {
			if c > 0 {
				now += 3_000_000 + rng.Int64N(5_000_000)
			}
			resp = append(resp, record.Response{PerfNS: now, Text: "x"})
		}
		isl, out, total := int64(o.ISL), int64(osl), int64(o.ISL+osl)
		resp[len(resp)-1].Usage = &record.Usage{PromptTokens: &isl, CompletionTokens: &out, TotalTokens: &total}
		rec.Responses = resp
		rec.EndNS = now
		if err := rw.Write(&rec, metrics.Compute(cfg, &rec)); err != nil {
			return err
		}
	}
	if err := rw.Flush(); err != nil {
		return err
	}
	return bw.Flush()
}
