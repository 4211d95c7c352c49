package awsstream

import (
	"bytes"
	"fmt"
	"io"
	"testing"

	"github.com/aiperf-go/aiperf/internal/sse"
)

// chatEvent is a vLLM-style chat chunk, the payload both benchmarks carry.
const chatEvent = `{"id":"chatcmpl-9f2c","object":"chat.completion.chunk","created":1732000000,"model":"meta-llama/Llama-3.1-8B-Instruct","choices":[{"index":0,"delta":{"content":" word%d"},"logprobs":null,"finish_reason":null}]}`

// frameReader returns one whole frame (or SSE event) per Read, as a
// server flushing each token does.
type frameReader struct {
	frames [][]byte
	i      int
}

func (r *frameReader) Read(p []byte) (int, error) {
	if r.i == len(r.frames) {
		return 0, io.EOF
	}
	n := copy(p, r.frames[r.i])
	if n < len(r.frames[r.i]) {
		r.frames[r.i] = r.frames[r.i][n:]
	} else {
		r.i++
	}
	return n, nil
}

const benchEvents = 1000

// BenchmarkEventPerRead compares the read of one token event, each
// delivered by its own Read, as an SSE message (chat), as a Bedrock
// ConverseStream frame (contentBlockDelta) and as a SageMaker PayloadPart
// frame carrying an SSE message; ns/event is the cost per event.
func BenchmarkEventPerRead(b *testing.B) {
	var sseFrames, bedrock, sagemaker [][]byte
	for i := range benchEvents {
		ev := fmt.Sprintf(chatEvent, i)
		sseFrames = append(sseFrames, []byte("data: "+ev+"\n\n"))
		bedrock = append(bedrock, frame(b, MessageEvent, "contentBlockDelta",
			[]byte(fmt.Sprintf(`{"contentBlockIndex":0,"delta":{"text":" word%d"},"p":"abcdefghijklmnopqrstuvwxyzABCDEFGHIJ"}`, i))))
		sagemaker = append(sagemaker, frame(b, MessageEvent, PayloadPartEvent, []byte("data: "+ev+"\n\n")))
	}
	clone := func(fs [][]byte) *frameReader {
		out := make([][]byte, len(fs))
		copy(out, fs)
		return &frameReader{frames: out}
	}
	now := func() int64 { return 1 }
	run := func(b *testing.B, next func() func() error) {
		b.ReportAllocs()
		events := 0
		for b.Loop() {
			n := next()
			for n() == nil {
				events++
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(events), "ns/event")
	}
	b.Run("sse-chat", func(b *testing.B) {
		run(b, func() func() error {
			r := sse.NewReader(clone(sseFrames), now)
			return func() error { _, err := r.Next(); return err }
		})
	})
	b.Run("eventstream-bedrock", func(b *testing.B) {
		run(b, func() func() error {
			r := NewReader(clone(bedrock), now)
			return func() error { _, err := r.Next(); return err }
		})
	})
	b.Run("eventstream-sagemaker-sse", func(b *testing.B) {
		run(b, func() func() error {
			pr := NewPayloadReader(NewReader(clone(sagemaker), now))
			r := sse.NewReader(pr, pr.Stamp)
			return func() error { _, err := r.Next(); return err }
		})
	})
	_ = bytes.MinRead
}
