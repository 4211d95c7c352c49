package endpoint

import (
	"encoding/json"
	"errors"
	"net/http"
	"testing"

	"github.com/aiperf-go/aiperf/dataset"
	"github.com/aiperf-go/aiperf/record"
)

func TestAnthropicRequestGolden(t *testing.T) {
	chat := mustLookup(t, "chat")
	c := &threeTurns
	hist := []json.RawMessage{chat.UserMessage(&c.Turns[0]), AssistantMessage("r0"),
		chat.UserMessage(&c.Turns[1]), AssistantMessage("r1")}
	tools := raw(`[ {"name":"get_weather","description":"w","input_schema":{"type":"object"}} ]`)
	checkRequestGolden(t, []requestCase{
		{"messages_turn0", "messages", *c, 0, nil, &Options{Streaming: true}},
		{"messages_history_turn2", "messages", *c, 2, hist, &Options{Streaming: true}},
		{"messages_default_max_tokens", "messages", oneTurn(dataset.Turn{Texts: []string{"hi"}, Model: "claude", Tools: tools}),
			0, nil, &Options{Extra: []Field{field("temperature", "0"), field("max_tokens", "64")}}},
		{"messages_images", "messages", oneTurn(dataset.Turn{Texts: []string{"what?", ""},
			Images: []string{"https://x/a.png", "data:image/jpeg;base64,/9j/", "data:;base64,AA"}, Model: "m", MaxTokens: 8,
			Extra: raw(`{"thinking":{"type":"enabled","budget_tokens":1024}}`)}), 0, nil, nil},
	})
	for _, turn := range []dataset.Turn{{Audios: []string{"wav,AA"}}, {Videos: []string{"v"}}} {
		if _, err := mustLookup(t, "messages").Payload(&turn, nil); err == nil {
			t.Errorf("%+v: no error", turn)
		}
	}
}

func TestAnthropicAuthorize(t *testing.T) {
	e := mustLookup(t, "messages")
	h := http.Header{}
	e.Authorize(h, "sk-ant")
	if h.Get("X-Api-Key") != "sk-ant" || h.Get("Authorization") != "" || h.Get("Anthropic-Version") != "2023-06-01" {
		t.Errorf("headers %v", h)
	}
	h = http.Header{"Anthropic-Version": {"2024-01-01"}}
	e.Authorize(h, "")
	if h.Get("X-Api-Key") != "" || h.Get("Anthropic-Version") != "2024-01-01" {
		t.Errorf("headers %v", h)
	}
}

var anthropicParseCases = []parseCase{
	{name: "anthropic message_start", endpoint: "messages", ok: true,
		usage: &record.Usage{PromptTokens: n(25), CompletionTokens: n(1)},
		data:  `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"claude","stop_reason":null,"usage":{"input_tokens":25,"output_tokens":1}}}`},
	{name: "anthropic cached input", endpoint: "messages", ok: true,
		usage: &record.Usage{PromptTokens: n(35), CompletionTokens: n(1), CachedTokens: n(8)},
		data:  `{"type":"message_start","message":{"usage":{"input_tokens":25,"cache_creation_input_tokens":2,"cache_read_input_tokens":8,"output_tokens":1}}}`},
	{name: "anthropic text delta", endpoint: "messages", ok: true, text: "Hello",
		data: `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}`},
	{name: "anthropic thinking delta", endpoint: "messages", ok: true, reason: "hmm",
		data: `{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"hmm"}}`},
	{name: "anthropic signature delta", endpoint: "messages",
		data: `{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQB"}}`},
	{name: "anthropic tool json delta", endpoint: "messages", ok: true, text: `{"city":`,
		data: `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"city\":"}}`},
	{name: "anthropic message_delta", endpoint: "messages", ok: true, usage: &record.Usage{CompletionTokens: n(15)},
		data: `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":15}}`},
	{name: "anthropic ping", endpoint: "messages", data: `{"type": "ping"}`},
	{name: "anthropic block start", endpoint: "messages", data: `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`},
	{name: "anthropic stop", endpoint: "messages", data: `{"type":"message_stop"}`},
	{name: "anthropic body", endpoint: "messages", ok: true, text: "Hi!", reason: "let me think",
		usage: &record.Usage{PromptTokens: n(10), CompletionTokens: n(20)},
		data: `{"id":"msg_1","type":"message","role":"assistant","content":[{"type":"thinking","thinking":"let me think","signature":"x"},{"type":"text","text":"Hi!"}],` +
			`"stop_reason":"end_turn","usage":{"input_tokens":10,"output_tokens":20}}`},
	{name: "anthropic body tool", endpoint: "messages", ok: true, text: `Sure.get_weather{"city":"Paris"}`,
		data: `{"type":"message","content":[{"type":"text","text":"Sure."},{"type":"tool_use","id":"t1","name":"get_weather","input":{"city":"Paris"}}]}`},
	{name: "anthropic error", endpoint: "messages", err: true,
		data: `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`},
	{name: "anthropic text not string", endpoint: "messages", err: true,
		data: `{"type":"content_block_delta","delta":{"type":"text_delta","text":3}}`},
	{name: "anthropic malformed", endpoint: "messages", err: true, data: `{"type":"message_start",`},
}

func TestAnthropicParse(t *testing.T) { runParseCases(t, anthropicParseCases) }

func TestAnthropicServerError(t *testing.T) {
	_, _, err := mustLookup(t, "messages").Parse([]byte(`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`))
	var se *ServerError
	if !errors.As(err, &se) || se.Type != "overloaded_error" || se.Message != "Overloaded" {
		t.Errorf("err = %v", err)
	}
}

func FuzzParseAnthropic(f *testing.F) {
	for _, tc := range anthropicParseCases {
		f.Add([]byte(tc.data))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var st Stream
		fuzzCodec(t, mustLookup(t, "messages"), &st, data)
	})
}
