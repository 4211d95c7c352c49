package endpoint

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/aiperf-go/aiperf/dataset"
	"github.com/aiperf-go/aiperf/record"
)

func TestResponsesRequestGolden(t *testing.T) {
	chat := mustLookup(t, "chat")
	c := &threeTurns
	hist := []json.RawMessage{chat.UserMessage(&c.Turns[0]), AssistantMessage("r0"),
		chat.UserMessage(&c.Turns[1]), AssistantMessage("r1")}
	tools := raw(`[ {"type":"function","name":"get_weather","parameters":{"type":"object"}} ]`)
	checkRequestGolden(t, []requestCase{
		{"responses_turn0", "responses", *c, 0, nil, &Options{Streaming: true}},
		{"responses_history_turn2", "responses", *c, 2, hist, &Options{Streaming: true, Extra: []Field{field("store", "false")}}},
		{"responses_multimodal", "responses", oneTurn(dataset.Turn{Texts: []string{"describe", ""},
			Images: []string{"https://x/a.png", "data:image/png;base64,iVBO"}, Audios: []string{"wav,UklGRg=="},
			Model: "m", Tools: tools, Extra: raw(`{"reasoning":{"effort":"low"}}`)}), 0, nil, nil},
		{"responses_empty_parts", "responses", oneTurn(dataset.Turn{Texts: []string{""}, Images: []string{""}, Model: "m"}), 0, nil, nil},
	})
	_, err := mustLookup(t, "responses").Payload(&dataset.Turn{Videos: []string{"v"}}, nil)
	if err == nil {
		t.Error("video turn: no error")
	}
}

var responsesParseCases = []parseCase{
	{name: "responses delta", endpoint: "responses", ok: true, text: "Hel",
		data: `{"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":"Hel","sequence_number":4}`},
	{name: "responses reasoning delta", endpoint: "responses", ok: true, reason: "think",
		data: `{"type":"response.reasoning_text.delta","item_id":"rs_1","output_index":0,"content_index":0,"delta":"think"}`},
	{name: "responses summary delta ignored", endpoint: "responses",
		data: `{"type":"response.reasoning_summary_text.delta","item_id":"rs_1","output_index":0,"summary_index":0,"delta":"s"}`},
	{name: "responses done alone", endpoint: "responses", ok: true, text: "Hello",
		data: `{"type":"response.output_text.done","output_index":1,"content_index":0,"text":"Hello"}`},
	{name: "responses tool args", endpoint: "responses", ok: true, text: `{"a"`,
		data: `{"type":"response.function_call_arguments.delta","output_index":0,"delta":"{\"a\""}`},
	{name: "responses completed", endpoint: "responses", ok: true,
		usage: &record.Usage{PromptTokens: n(12), CompletionTokens: n(30), TotalTokens: n(42), ReasoningTokens: n(10), CachedTokens: n(4)},
		data:  `{"type":"response.completed","sequence_number":9,"response":{"id":"resp_1","object":"response","status":"completed","output":[],"usage":{"input_tokens":12,"input_tokens_details":{"cached_tokens":4},"output_tokens":30,"output_tokens_details":{"reasoning_tokens":10},"total_tokens":42}}}`},
	{name: "responses created", endpoint: "responses",
		data: `{"type":"response.created","response":{"id":"resp_1","object":"response","status":"in_progress","output":[]}}`},
	{name: "responses body", endpoint: "responses", ok: true, text: "Hi there", reason: "because",
		usage: &record.Usage{PromptTokens: n(5), CompletionTokens: n(7), TotalTokens: n(12)},
		data: `{"id":"resp_1","object":"response","status":"completed","output":[{"type":"reasoning","summary":[{"type":"summary_text","text":"because"}]},` +
			`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Hi "},{"type":"refusal","refusal":"x"},{"type":"output_text","text":"there"}]}],` +
			`"usage":{"input_tokens":5,"output_tokens":7,"total_tokens":12}}`},
	{name: "responses body tool call", endpoint: "responses", ok: true, text: `get_weather{"city":"Paris"}`,
		data: `{"object":"response","output":[{"type":"function_call","name":"get_weather","arguments":"{\"city\":\"Paris\"}"}]}`},
	{name: "responses body output_text", endpoint: "responses", ok: true, text: "short",
		data: `{"object":"response","output_text":"short"}`},
	{name: "responses foreign object", endpoint: "responses", data: `{"object":"chat.completion","choices":[]}`},
	{name: "responses error event", endpoint: "responses", err: true,
		data: `{"type":"error","code":"server_error","message":"boom","param":null}`},
	{name: "responses failed", endpoint: "responses", err: true,
		data: `{"type":"response.failed","response":{"status":"failed","error":{"code":"server_error","message":"x"}}}`},
	{name: "responses body error", endpoint: "responses", err: true, data: `{"error":{"message":"bad","type":"invalid_request_error"}}`},
	{name: "responses delta not string", endpoint: "responses", err: true, data: `{"type":"response.output_text.delta","delta":1}`},
	{name: "responses not object", endpoint: "responses", err: true, data: `[1]`},
}

func TestResponsesParse(t *testing.T) { runParseCases(t, responsesParseCases) }

func TestResponsesServerError(t *testing.T) {
	_, _, err := mustLookup(t, "responses").Parse([]byte(`{"type":"response.failed","response":{"error":{"code":"rate_limit_exceeded","message":"slow down"}}}`))
	var se *ServerError
	if !errors.As(err, &se) || se.Type != "rate_limit_exceeded" || se.Message != "slow down" {
		t.Errorf("err = %v", err)
	}
}

func TestResponsesStream(t *testing.T) {
	delta := func(o, c int, d string) string {
		b, _ := json.Marshal(map[string]any{"type": "response.output_text.delta", "output_index": o, "content_index": c, "delta": d})
		return string(b)
	}
	done := func(o, c int, text string) string {
		b, _ := json.Marshal(map[string]any{"type": "response.output_text.done", "output_index": o, "content_index": c, "text": text})
		return string(b)
	}
	completed := `{"type":"response.completed","response":{"usage":{"input_tokens":3,"output_tokens":2,"total_tokens":5}}}`
	u := &record.Usage{PromptTokens: n(3), CompletionTokens: n(2), TotalTokens: n(5)}
	checkStreams(t, []streamCase{
		{name: "deltas then done", endpoint: "responses",
			events: []string{`{"type":"response.created","response":{}}`, delta(0, 0, "a"), delta(0, 0, "b"), done(0, 0, "ab"), completed},
			want:   []record.Response{{Text: "a"}, {Text: "b"}, {Usage: u}}},
		{name: "done only part beside streamed part", endpoint: "responses",
			events: []string{delta(0, 0, "a"), done(0, 0, "a"), done(1, 0, "zz"), completed},
			want:   []record.Response{{Text: "a"}, {Text: "zz"}, {Usage: u}}},
		{name: "empty delta does not mark", endpoint: "responses",
			events: []string{delta(0, 0, ""), done(0, 0, "x")},
			want:   []record.Response{{Text: "x"}}},
		{name: "many parts", endpoint: "responses",
			events: []string{delta(0, 0, "a"), delta(0, 1, "b"), delta(1, 0, "c"), delta(2, 0, "d"), delta(3, 0, "e"), delta(4, 0, "f"),
				done(4, 0, "f"), done(0, 1, "b"), done(5, 0, "g")},
			want: []record.Response{{Text: "a"}, {Text: "b"}, {Text: "c"}, {Text: "d"}, {Text: "e"}, {Text: "f"}, {Text: "g"}}},
		{name: "error event", endpoint: "responses", err: true,
			events: []string{delta(0, 0, "a"), `{"type":"error","code":"x","message":"y"}`},
			want:   []record.Response{{Text: "a"}}},
	})
}

func FuzzParseResponses(f *testing.F) {
	for _, tc := range responsesParseCases {
		f.Add([]byte(tc.data))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var st Stream
		fuzzCodec(t, mustLookup(t, "responses"), &st, data)
	})
}
