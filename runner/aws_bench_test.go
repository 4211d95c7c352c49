package runner

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"

	"github.com/aiperf-go/aiperf/endpoint"
	"github.com/aiperf-go/aiperf/internal/sse"
	"github.com/aiperf-go/aiperf/record"
)

// BenchmarkAWSSign measures what SigV4 adds to a request before its send
// stamp (awsSigner.prepare: the body's SHA-256, the cached credentials,
// the canonical request and the HMAC chain), for a 4,000-token prompt
// (~16 KiB) and a short one.
func BenchmarkAWSSign(b *testing.B) {
	setAWSEnv(b, testAWSKeyID, testAWSSecret, "us-east-1")
	c := &Config{AWSService: AWSBedrock, EndpointType: "bedrock_converse", URL: "http://127.0.0.1:1", Streaming: true}
	ep, _ := endpoint.Lookup(c.EndpointType)
	s, err := newAWS(context.Background(), c, ep)
	if err != nil {
		b.Fatal(err)
	}
	header := staticHeaders(c, ep, "bench")
	target := s.target("http://127.0.0.1:1/model/%7Bmodel%7D/converse-stream", "anthropic.claude-3-haiku-20240307-v1:0")
	for _, size := range []int{200, 16 << 10} {
		payload := []byte(`{"messages":[{"role":"user","content":[{"text":"` + strings.Repeat("a", size) + `"}]}]}`)
		b.Run(fmt.Sprintf("body=%dB", len(payload)), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				req, _ := http.NewRequest(http.MethodPost, target, bytes.NewReader(payload))
				req.Header = header.Clone()
				req.Header.Set("X-Request-ID", "6f1c1f4e-0b7e-4a7e-9a39-3f1f0d7f9c11")
				if err := s.prepare(context.Background(), req, payload); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// benchFrame encodes one event frame as Bedrock and SageMaker send it.
func benchFrame(b testing.TB, typ string, payload []byte) []byte {
	var hs eventstream.Headers
	hs.Set(":message-type", eventstream.StringValue("event"))
	hs.Set(":event-type", eventstream.StringValue(typ))
	hs.Set(":content-type", eventstream.StringValue("application/json"))
	var buf bytes.Buffer
	if err := eventstream.NewEncoder().Encode(&buf, eventstream.Message{Headers: hs, Payload: payload}); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

// perRead returns one frame (or SSE event) per Read, as a server flushing
// each token does.
type perRead struct{ parts [][]byte }

func (p *perRead) Read(b []byte) (int, error) {
	if len(p.parts) == 0 {
		return 0, io.EOF
	}
	n := copy(b, p.parts[0])
	if p.parts[0] = p.parts[0][n:]; len(p.parts[0]) == 0 {
		p.parts = p.parts[1:]
	}
	return n, nil
}

// BenchmarkStreamPerEvent measures the client's whole per-event path
// (read, stamp, frame or SSE decode, parse into a response) for a stream
// of 1,000 token events, one per Read: chat over SSE, Bedrock
// ConverseStream, Bedrock InvokeModelWithResponseStream (Anthropic events
// in base64 chunks) and SageMaker PayloadParts carrying chat SSE.
// ns/event is the cost per token event.
func BenchmarkStreamPerEvent(b *testing.B) {
	const n = 1000
	chunk := `{"id":"chatcmpl-9f2c","object":"chat.completion.chunk","created":1732000000,"model":"meta-llama/Llama-3.1-8B-Instruct","choices":[{"index":0,"delta":{"content":" word%d"},"logprobs":null,"finish_reason":null}]}`
	var sseParts, converse, invoke, sagemaker [][]byte
	for i := range n {
		ev := fmt.Sprintf(chunk, i)
		sseParts = append(sseParts, []byte("data: "+ev+"\n\n"))
		sagemaker = append(sagemaker, benchFrame(b, "PayloadPart", []byte("data: "+ev+"\n\n")))
		converse = append(converse, benchFrame(b, "contentBlockDelta",
			[]byte(fmt.Sprintf(`{"contentBlockIndex":0,"delta":{"text":" word%d"},"p":"abcdefghijklmnopqrstuvwxyzABCDEFGHIJ"}`, i))))
		anth := fmt.Sprintf(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" word%d"}}`, i)
		invoke = append(invoke, benchFrame(b, "chunk", []byte(`{"bytes":"`+base64.StdEncoding.EncodeToString([]byte(anth))+`"}`)))
	}
	for _, bc := range []struct {
		name, typ, service string
		parts              [][]byte
	}{
		{"sse-chat", "chat", "", sseParts},
		{"eventstream-bedrock-converse", "bedrock_converse", AWSBedrock, converse},
		{"eventstream-bedrock-messages", "bedrock_messages", AWSBedrock, invoke},
		{"eventstream-sagemaker-chat", "chat", AWSSageMaker, sagemaker},
	} {
		ep, _ := endpoint.Lookup(bc.typ)
		s := &sender{ep: ep, clock: record.NewClock()}
		if bc.service != "" {
			s.aws = &awsSigner{service: bc.service}
		}
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			events := 0
			for b.Loop() {
				rec := &record.Record{Responses: make([]record.Response, 0, n)}
				src := &perRead{parts: append([][]byte(nil), bc.parts...)}
				if s.aws != nil {
					s.readEventStream(context.Background(), rec, src)
				} else {
					s.readMessages(context.Background(), rec, sse.NewReader(src, s.clock.Now))
				}
				if len(rec.Responses) != n {
					b.Fatalf("%d responses, error %+v", len(rec.Responses), rec.Error)
				}
				events += n
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(events), "ns/event")
		})
	}
}
