package runner

import (
	"bytes"
	"context"
	"encoding/base64"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"

	"github.com/aiperf-go/aiperf/endpoint"
	"github.com/aiperf-go/aiperf/record"
)

// exceptionFrame encodes a modeled stream error.
func exceptionFrame(t testing.TB, typ, payload string) []byte {
	var hs eventstream.Headers
	hs.Set(":message-type", eventstream.StringValue("exception"))
	hs.Set(":exception-type", eventstream.StringValue(typ))
	var b bytes.Buffer
	if err := eventstream.NewEncoder().Encode(&b, eventstream.Message{Headers: hs, Payload: []byte(payload)}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestAWSStreamRecords reads event streams into records: responses
// stamped per frame, and each way a stream can end badly as its record
// error.
func TestAWSStreamRecords(t *testing.T) {
	delta := benchFrame(t, "contentBlockDelta", []byte(`{"contentBlockIndex":0,"delta":{"text":"Hi"}}`))
	meta := benchFrame(t, "metadata", []byte(`{"usage":{"inputTokens":3,"outputTokens":1,"totalTokens":4}}`))
	chunk := benchFrame(t, "chunk", []byte(`{"bytes":"`+base64.StdEncoding.EncodeToString(
		[]byte(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}`))+`"}`))
	part := func(s string) []byte { return benchFrame(t, "PayloadPart", []byte(s)) }
	bad := bytes.Clone(delta)
	bad[len(bad)-1] ^= 1
	tests := []struct {
		name, typ, service string
		parts              [][]byte
		responses          int
		errType            string
	}{
		{"converse", "bedrock_converse", AWSBedrock, [][]byte{delta, delta, meta}, 3, ""},
		{"converse exception", "bedrock_converse", AWSBedrock, [][]byte{delta, exceptionFrame(t, "throttlingException", `{"message":"slow down"}`)}, 1, "throttlingException"},
		{"converse truncated", "bedrock_converse", AWSBedrock, [][]byte{delta, meta[:20]}, 1, "IncompleteStream"},
		{"converse bad crc", "bedrock_converse", AWSBedrock, [][]byte{bad}, 0, "ResponseParseError"},
		{"converse bad json", "bedrock_converse", AWSBedrock, [][]byte{benchFrame(t, "contentBlockDelta", []byte(`{not json`))}, 0, "ResponseParseError"},
		{"invoke chunks", "bedrock_messages", AWSBedrock, [][]byte{chunk, chunk}, 2, ""},
		{"invoke bad base64", "bedrock_messages", AWSBedrock, [][]byte{benchFrame(t, "chunk", []byte(`{"bytes":"%%%"}`))}, 0, "ResponseParseError"},
		{"sagemaker split sse", "chat", AWSSageMaker, [][]byte{
			part(`data: {"choices":[{"delta":{"content":"Hi"}}]}` + "\n\ndata: {\"choi"),
			part(`ces":[{"delta":{"content":" there"}}]}` + "\n\n"), part("data: [DONE]\n\n")}, 2, ""},
		{"sagemaker model error", "chat", AWSSageMaker, [][]byte{part(`data: {"choices":[{"delta":{"content":"Hi"}}]}` + "\n\n"),
			exceptionFrame(t, "ModelStreamError", `{"Message":"boom","ErrorCode":"500"}`)}, 1, "ModelStreamError"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ep, err := endpoint.Lookup(tt.typ)
			if err != nil {
				t.Fatal(err)
			}
			s := &sender{ep: ep, clock: record.NewClock(), aws: &awsSigner{service: tt.service}}
			rec := &record.Record{}
			s.readEventStream(context.Background(), rec, &perRead{parts: tt.parts})
			errType := ""
			if rec.Error != nil {
				errType = rec.Error.Type
			}
			if len(rec.Responses) != tt.responses || errType != tt.errType {
				t.Fatalf("%d responses, error %+v; want %d, %q", len(rec.Responses), rec.Error, tt.responses, tt.errType)
			}
			for i := 1; i < len(rec.Responses); i++ {
				if rec.Responses[i].PerfNS < rec.Responses[i-1].PerfNS {
					t.Fatal("stamps went back")
				}
			}
		})
	}
}

// FuzzBedrockEvents feeds arbitrary frames to the Bedrock event reader
// and the endpoint parsers behind it: no panic, stamps never go back, and
// a failed stream always says why.
func FuzzBedrockEvents(f *testing.F) {
	f.Add(benchFrame(f, "contentBlockDelta", []byte(`{"delta":{"text":"Hi"}}`)), true)
	f.Add(benchFrame(f, "chunk", []byte(`{"bytes":"eyJ0eXBlIjoibWVzc2FnZSJ9"}`)), false)
	f.Add(benchFrame(f, "metadata", []byte(`{"usage":{"inputTokens":1}}`)), true)
	f.Add(exceptionFrame(f, "x", "{}"), false)
	f.Fuzz(func(t *testing.T, stream []byte, converse bool) {
		typ := "bedrock_messages"
		if converse {
			typ = "bedrock_converse"
		}
		ep, _ := endpoint.Lookup(typ)
		s := &sender{ep: ep, clock: record.NewClock(), aws: &awsSigner{service: AWSBedrock}}
		rec := &record.Record{}
		s.readEventStream(context.Background(), rec, bytes.NewReader(stream))
		for i := 1; i < len(rec.Responses); i++ {
			if rec.Responses[i].PerfNS < rec.Responses[i-1].PerfNS {
				t.Fatal("stamps went back")
			}
		}
		if rec.Error != nil && rec.Error.Type == "" {
			t.Fatalf("error without a type: %+v", rec.Error)
		}
	})
}
