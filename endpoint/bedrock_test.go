package endpoint

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/aiperf-go/aiperf/dataset"
	"github.com/aiperf-go/aiperf/record"
)

func TestBedrockRequestGolden(t *testing.T) {
	chat := mustLookup(t, "chat")
	c := &threeTurns
	hist := []json.RawMessage{chat.UserMessage(&c.Turns[0]), AssistantMessage("r0"),
		chat.UserMessage(&c.Turns[1]), AssistantMessage("r1")}
	checkRequestGolden(t, []requestCase{
		{"bedrock_converse_turn0", "bedrock_converse", *c, 0, nil, &Options{Streaming: true}},
		{"bedrock_converse_history_turn2", "bedrock_converse", *c, 2, hist, nil},
		{"bedrock_converse_images", "bedrock_converse", oneTurn(dataset.Turn{Texts: []string{"what?", ""},
			Images: []string{"s3://bucket/a.jpg", "data:image/jpeg;base64,/9j/", "data:;base64,AA"}, Model: "m"}), 0, nil,
			&Options{Extra: []Field{field("additionalModelRequestFields", `{"top_k":5}`)}}},
		{"bedrock_messages_turn0", "bedrock_messages", *c, 0, nil, &Options{Streaming: true}},
	})
	for _, turn := range []dataset.Turn{{Audios: []string{"wav,AA"}}, {Videos: []string{"v"}},
		{Texts: []string{"t"}, Tools: raw(`[{"name":"x"}]`)}} {
		if _, err := mustLookup(t, "bedrock_converse").Payload(&turn, nil); err == nil {
			t.Errorf("%+v: no error", turn)
		}
	}
}

func TestBedrockAuthorize(t *testing.T) {
	for _, name := range []string{"bedrock_converse", "bedrock_messages"} {
		h := http.Header{}
		mustLookup(t, name).Authorize(h, "")
		if len(h) != 0 {
			t.Errorf("%s: headers %v without a key", name, h)
		}
		mustLookup(t, name).Authorize(h, "bedrock-api-key")
		if h.Get("Authorization") != "Bearer bedrock-api-key" {
			t.Errorf("%s: headers %v", name, h)
		}
	}
}

var bedrockParseCases = []parseCase{
	{name: "converse text delta", endpoint: "bedrock_converse", ok: true, text: "Hello",
		data: `{"contentBlockDelta":{"contentBlockIndex":0,"delta":{"text":"Hello"},"p":"abc"}}`},
	{name: "converse reasoning delta", endpoint: "bedrock_converse", ok: true, reason: "hmm",
		data: `{"contentBlockDelta":{"contentBlockIndex":0,"delta":{"reasoningContent":{"text":"hmm"}}}}`},
	{name: "converse empty delta", endpoint: "bedrock_converse",
		data: `{"contentBlockDelta":{"contentBlockIndex":0,"delta":{"text":""}}}`},
	{name: "converse tool delta", endpoint: "bedrock_converse",
		data: `{"contentBlockDelta":{"contentBlockIndex":0,"delta":{"toolUse":{"input":"{"}}}}`},
	{name: "converse message start", endpoint: "bedrock_converse", data: `{"messageStart":{"role":"assistant"}}`},
	{name: "converse block stop", endpoint: "bedrock_converse", data: `{"contentBlockStop":{"contentBlockIndex":0}}`},
	{name: "converse message stop", endpoint: "bedrock_converse", data: `{"messageStop":{"stopReason":"end_turn"}}`},
	{name: "converse metadata", endpoint: "bedrock_converse", ok: true,
		usage: &record.Usage{PromptTokens: n(25), CompletionTokens: n(7), TotalTokens: n(32)},
		data:  `{"metadata":{"usage":{"inputTokens":25,"outputTokens":7,"totalTokens":32},"metrics":{"latencyMs":120}}}`},
	{name: "converse cached input", endpoint: "bedrock_converse", ok: true,
		usage: &record.Usage{PromptTokens: n(35), CompletionTokens: n(1), CachedTokens: n(8)},
		data:  `{"metadata":{"usage":{"inputTokens":25,"cacheReadInputTokens":8,"cacheWriteInputTokens":2,"outputTokens":1}}}`},
	{name: "converse body", endpoint: "bedrock_converse", ok: true, text: "Hi there", reason: "think",
		usage: &record.Usage{PromptTokens: n(3), CompletionTokens: n(4), TotalTokens: n(7)},
		data: `{"output":{"message":{"role":"assistant","content":[{"reasoningContent":{"reasoningText":{"text":"think","signature":"s"}}},` +
			`{"text":"Hi "},{"text":"there"}]}},"stopReason":"end_turn","usage":{"inputTokens":3,"outputTokens":4,"totalTokens":7},"metrics":{"latencyMs":1}}`},
	{name: "converse body no message", endpoint: "bedrock_converse", data: `{"output":{}}`},
	{name: "converse unknown", endpoint: "bedrock_converse", data: `{"somethingNew":{}}`},
	{name: "converse bad usage", endpoint: "bedrock_converse", err: true, data: `{"metadata":{"usage":{"inputTokens":"x"}}}`},
	{name: "converse bad text", endpoint: "bedrock_converse", err: true, data: `{"contentBlockDelta":{"delta":{"text":5}}}`},
	{name: "converse not an object", endpoint: "bedrock_converse", err: true, data: `[1]`},
	{name: "bedrock messages delta", endpoint: "bedrock_messages", ok: true, text: "Hello",
		data: `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}`},
	{name: "bedrock messages body", endpoint: "bedrock_messages", ok: true, text: "Hi",
		usage: &record.Usage{PromptTokens: n(3), CompletionTokens: n(1)},
		data:  `{"id":"msg_1","type":"message","role":"assistant","content":[{"type":"text","text":"Hi"}],"usage":{"input_tokens":3,"output_tokens":1}}`},
}

func TestBedrockParse(t *testing.T) { runParseCases(t, bedrockParseCases) }

func FuzzParseBedrockConverse(f *testing.F) {
	for _, tc := range bedrockParseCases {
		f.Add([]byte(tc.data))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var st Stream
		fuzzCodec(t, mustLookup(t, "bedrock_converse"), &st, data)
	})
}

func FuzzParseBedrockMessages(f *testing.F) {
	for _, tc := range append(bedrockParseCases, anthropicParseCases...) {
		f.Add([]byte(tc.data))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var st Stream
		fuzzCodec(t, mustLookup(t, "bedrock_messages"), &st, data)
	})
}

// BenchmarkParseEvent compares the parse of one token event: a chat SSE
// chunk and a ConverseStream contentBlockDelta as the runner hands it over
// ({"contentBlockDelta": payload}).
func BenchmarkParseEvent(b *testing.B) {
	for _, bc := range []struct{ name, typ, data string }{
		{"chat", "chat", `{"id":"chatcmpl-9f2c","object":"chat.completion.chunk","created":1732000000,"model":"meta-llama/Llama-3.1-8B-Instruct","choices":[{"index":0,"delta":{"content":" word%d"},"logprobs":null,"finish_reason":null}]}`},
		{"bedrock_converse", "bedrock_converse", `{"contentBlockDelta":{"contentBlockIndex":0,"delta":{"text":" word%d"},"p":"abcdefghijklmnopqrstuvwxyzABCDEFGHIJ"}}`},
	} {
		e := mustLookup(b, bc.typ)
		data := []byte(fmt.Sprintf(bc.data, 7))
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			var st Stream
			for b.Loop() {
				if _, ok, err := e.ParseStream(&st, data); !ok || err != nil {
					b.Fatal(ok, err)
				}
			}
		})
	}
}
