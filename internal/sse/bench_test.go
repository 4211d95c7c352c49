package sse

import (
	"bytes"
	"fmt"
	"io"
	"testing"
)

// chatStream returns n vLLM-style chat chunks, a usage chunk and [DONE].
func chatStream(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`data: {"id":"chatcmpl-9f2c","object":"chat.completion.chunk","created":1732000000,"model":"meta-llama/Llama-3.1-8B-Instruct","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}` + "\n\n")
	for i := range n {
		fmt.Fprintf(&b, `data: {"id":"chatcmpl-9f2c","object":"chat.completion.chunk","created":1732000000,"model":"meta-llama/Llama-3.1-8B-Instruct","choices":[{"index":0,"delta":{"content":" word%d"},"logprobs":null,"finish_reason":null}]}`+"\n\n", i)
	}
	b.WriteString(`data: {"id":"chatcmpl-9f2c","object":"chat.completion.chunk","created":1732000000,"model":"meta-llama/Llama-3.1-8B-Instruct","choices":[],"usage":{"prompt_tokens":550,"total_tokens":1550,"completion_tokens":1000}}` + "\n\n")
	b.WriteString("data: [DONE]\n\n")
	return b.Bytes()
}

// eventReader returns one SSE event per Read, as a server flushing each
// token does.
type eventReader struct{ b []byte }

func (e *eventReader) Read(p []byte) (int, error) {
	if len(e.b) == 0 {
		return 0, io.EOF
	}
	i := bytes.Index(e.b, []byte("\n\n"))
	if i < 0 {
		i = len(e.b)
	} else {
		i += 2
	}
	n := copy(p, e.b[:i])
	e.b = e.b[n:]
	return n, nil
}

func BenchmarkReader(b *testing.B) {
	stream := chatStream(1000)
	var clk counter
	for _, bc := range []struct {
		name string
		src  func() io.Reader
	}{
		{"event-per-read", func() io.Reader { return &eventReader{b: stream} }},
		{"bulk", func() io.Reader { return bytes.NewReader(stream) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(stream)))
			events := 0
			for b.Loop() {
				r := NewReader(bc.src(), clk.now)
				for {
					if _, err := r.Next(); err != nil {
						break
					}
					events++
				}
			}
			b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
		})
	}
}
