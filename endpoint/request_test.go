package endpoint

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/dataset"
)

// requestCase is one golden body: turn ti of conv on endpoint, with history.
type requestCase struct {
	golden   string
	endpoint string
	conv     dataset.Conversation
	ti       int
	history  []json.RawMessage
	opts     *Options
}

func raw(s string) json.RawMessage { return json.RawMessage(s) }

func oneTurn(t dataset.Turn) dataset.Conversation {
	return dataset.Conversation{Turns: []dataset.Turn{t}}
}

// threeTurns is a conversation with a system prompt and a user context whose
// turns 0 and 1 have been answered "r0" and "r1".
var threeTurns = dataset.Conversation{
	SessionID:    "s1",
	SystemPrompt: "You are terse.",
	UserContext:  "Context: \"quoted\" 日本",
	Turns: []dataset.Turn{
		{Texts: []string{"first"}, Model: "m", MaxTokens: 10},
		{Texts: []string{"second", "more"}, Model: "m", MaxTokens: 20},
		{Texts: []string{"third"}, Model: "m", MaxTokens: 30},
	},
}

func requestCases(t testing.TB) []requestCase {
	chat := mustLookup(t, "chat")
	c := &threeTurns
	hist := []json.RawMessage{
		chat.UserMessage(&c.Turns[0]), AssistantMessage("r0"),
		chat.UserMessage(&c.Turns[1]), AssistantMessage("r1 \"x\"\n"),
	}
	toolsA := raw(`[ {"type":"function","function":{"name":"get_weather","parameters":{"type":"object"}}} ]`)
	deltaConv := dataset.Conversation{
		SystemPrompt: "sys",
		Turns: []dataset.Turn{
			{Messages: raw(`[{"role":"user","content":"a"}, {"role":"assistant","content":"canned"}]`), Tools: toolsA, Model: "m"},
			{Messages: raw(` [ {"role":"user", "content":[{"type":"text","text":"b"}]} ] `), Model: "m", MaxTokens: 5},
			{Messages: raw(`[]`), Model: "m"},
		},
	}
	deltaHist := []json.RawMessage{chat.UserMessage(&deltaConv.Turns[0]), AssistantMessage("live")}
	verbatimConv := dataset.Conversation{
		SystemPrompt: "ignored", UserContext: "ignored", ContextMode: dataset.MessageArrayWithResponses,
		Turns: []dataset.Turn{{Model: "m", MaxTokens: 7, Tools: toolsA,
			Messages: raw("[\n {\"role\": \"system\", \"content\": \"s\"},\n {\"role\": \"user\", \"content\": \"u\\u00e9\"}\n]")}},
	}
	payload := raw("{ \"model\": \"raw\",\n \"messages\": [ {\"role\":\"user\",\"content\":\"hi\"} ], \"stream\": true }")
	runExtra := []Field{field("a", "1"), field("b", "2"), field("max_completion_tokens", "5")}
	turnExtra := raw(`{"b": 3, "c": [1, 2], "max_completion_tokens": 7, "a": {"x": null}}`)
	rank := dataset.Turn{Query: "what is \"ml\"?", Passages: []string{"p1", "p2 é"}, Model: "rr", MaxTokens: 9}
	rankTexts := dataset.Turn{Texts: []string{"q", "a", "b"}, Model: "rr"}
	return []requestCase{
		{"chat_history_turn0", "chat", *c, 0, nil, nil},
		{"chat_history_turn2", "chat", *c, 2, hist, &Options{Streaming: true}},
		{"chat_history_deltas_with_responses", "chat", dataset.Conversation{
			ContextMode: dataset.DeltasWithResponses,
			Turns:       []dataset.Turn{{Texts: []string{"q1"}}, {Role: "assistant", Texts: []string{"a1"}}, {Texts: []string{"q2"}, Model: "m"}},
		}, 2, []json.RawMessage{raw(`{"role":"user","content":"q1"}`), raw(` { "role" : "assistant", "content" : "a1" } `)}, nil},
		{"chat_history_verbatim_mode_ignores_history", "chat", dataset.Conversation{
			ContextMode: dataset.MessageArrayWithResponses, SystemPrompt: "sys",
			Turns: []dataset.Turn{{Texts: []string{"row"}, Model: "m", MaxTokens: 3}},
		}, 0, hist, nil},
		{"chat_multimodal", "chat", oneTurn(dataset.Turn{
			Texts:  []string{"describe", "", "both"},
			Images: []string{"https://x/a.png", "", "data:image/png;base64,iVBO"},
			Audios: []string{"wav,UklGRg==", "", "data:audio/mp3;base64,SUQz", "data:audio/;base64,AAA"},
			Videos: []string{"", "https://x/v.mp4"}, Model: "m",
		}), 0, nil, nil},
		{"chat_audio_only", "chat", oneTurn(dataset.Turn{Audios: []string{"mp3,SUQzBA=="}, Model: "m"}), 0, nil, nil},
		{"chat_one_text_one_image", "chat", oneTurn(dataset.Turn{Texts: []string{"what?"}, Images: []string{"https://x/a.png"}, Model: "m"}), 0, nil, nil},
		{"chat_messages_verbatim", "chat", verbatimConv, 0, hist, &Options{Streaming: true}},
		{"chat_messages_delta", "chat", deltaConv, 1, deltaHist, nil},
		{"chat_messages_delta_empty", "chat", deltaConv, 2, append(deltaHist, chat.UserMessage(&deltaConv.Turns[1]), AssistantMessage("live2")), nil},
		{"chat_tools", "chat", oneTurn(dataset.Turn{Texts: []string{"weather?"}, Tools: toolsA, Model: "m", MaxTokens: 64}),
			0, nil, &Options{Streaming: true, LegacyMaxTokens: true}},
		{"payload_verbatim_chat", "chat", oneTurn(dataset.Turn{Payload: payload, Texts: []string{"unused"}, Model: "m",
			MaxTokens: 3, Extra: raw(`{"x":1}`)}), 0, hist, &Options{Streaming: true, Extra: runExtra}},
		{"payload_verbatim_rankings", "cohere_rankings", oneTurn(dataset.Turn{Payload: raw(` {"query": "q", "documents": []} `)}), 0, nil, nil},
		{"chat_turn_extra", "chat", oneTurn(dataset.Turn{Texts: []string{"hi"}, Model: "m", MaxTokens: 100, Extra: turnExtra}),
			0, nil, &Options{Streaming: true, Extra: runExtra}},
		{"completions_ignores_context", "completions", *c, 2, hist, &Options{Extra: runExtra}},
		{"embeddings_turn_extra", "embeddings", oneTurn(dataset.Turn{Texts: []string{"a", "b"}, Model: "e", Extra: raw(`{"model":"e2","dimensions":8}`)}), 0, nil, nil},
		{"nim_embeddings_text_image", "nim_embeddings", oneTurn(dataset.Turn{Texts: []string{"cat", ""}, Images: []string{"", "data:image/png;base64,AA"}, Model: "e"}), 0, nil, nil},
		{"nim_embeddings_images", "nim_embeddings", oneTurn(dataset.Turn{Images: []string{"u1", "u2"}, Model: "e"}), 0, nil, nil},
		{"nim_embeddings_texts", "nim_embeddings", oneTurn(dataset.Turn{Texts: []string{"a", "", "b"}, Model: "e"}), 0, nil, nil},
		{"nim_rankings", "nim_rankings", oneTurn(rank), 0, hist, &Options{Streaming: true}},
		{"nim_rankings_texts", "rankings", oneTurn(rankTexts), 0, nil, nil},
		{"nim_rankings_extra", "nim_rankings", oneTurn(dataset.Turn{Query: "q", Model: "rr", Extra: raw(`{"truncate":"END"}`)}),
			0, nil, &Options{Extra: []Field{field("model", `"override"`), field("top_n", "3")}}},
		{"hf_tei_rankings", "hf_tei_rankings", oneTurn(rank), 0, nil, nil},
		{"hf_tei_rankings_texts", "hf_tei_rankings", oneTurn(rankTexts), 0, nil, &Options{Extra: []Field{field("raw_scores", "false")}}},
		{"cohere_rankings", "cohere_rankings", oneTurn(rank), 0, nil, nil},
		{"cohere_rankings_query_texts", "cohere_rankings", oneTurn(dataset.Turn{Query: "q", Texts: []string{"d1", "d2"}, Model: "rr"}), 0, nil, nil},
	}
}

func TestRequestGolden(t *testing.T) {
	for _, tc := range requestCases(t) {
		t.Run(tc.golden, func(t *testing.T) {
			got, err := mustLookup(t, tc.endpoint).Request(&tc.conv, tc.ti, tc.history, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if !json.Valid(got) {
				t.Fatalf("invalid JSON: %s", got)
			}
			checkGolden(t, filepath.Join("testdata", "request", tc.golden+".json"), got)
		})
	}
}

// TestPayloadIsRequest checks that Payload is Request over a one-turn
// conversation, for every golden payload turn.
func TestPayloadIsRequest(t *testing.T) {
	turn := dataset.Turn{Texts: []string{"a"}, Images: []string{"u"}, Model: "m", MaxTokens: 3,
		Tools: raw(`[]`), Extra: raw(`{"k":1}`)}
	for _, name := range Names() {
		e := mustLookup(t, name)
		opts := &Options{Streaming: true, Extra: []Field{field("k", "0")}}
		p, err1 := e.Payload(&turn, opts)
		conv := oneTurn(turn)
		r, err2 := e.Request(&conv, 0, nil, opts)
		if err1 != nil || err2 != nil || !bytes.Equal(p, r) {
			t.Errorf("%s: Payload %s, %v; Request %s, %v", name, p, err1, r, err2)
		}
	}
}

// TestUserMessageInRequest checks that UserMessage gives the bytes Request
// sends for the turn, and AssistantMessage the AIPerf encoding.
func TestUserMessageInRequest(t *testing.T) {
	e := mustLookup(t, "chat")
	for _, turn := range []dataset.Turn{
		{Texts: []string{escText}},
		{Role: "system", Texts: []string{"x"}},
		{Texts: []string{"a"}, Images: []string{"u"}, Audios: []string{"wav,AA"}, Videos: []string{"v"}},
		{},
	} {
		conv := oneTurn(turn)
		body, err := e.Request(&conv, 0, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		msg := e.UserMessage(&turn)
		if want := `{"messages":[` + string(msg) + `],"model":"","stream":false}`; string(body) != want {
			t.Errorf("body %s\nwant %s", body, want)
		}
	}
	if got, want := string(e.UserMessage(&dataset.Turn{Messages: raw(` [ {"role": "user"} ] `)})), `[{"role":"user"}]`; got != want {
		t.Errorf("UserMessage(Messages) = %s, want %s", got, want)
	}
	for _, bad := range []dataset.Turn{{Messages: raw(`{}`)}, {Audios: []string{"nocomma"}}} {
		if got := e.UserMessage(&bad); got != nil {
			t.Errorf("UserMessage(%+v) = %s, want nil", bad, got)
		}
	}
	const want = `{"role":"assistant","content":"He said \"hi\" \\ back\nline2\r\ttab <b>&amp;</b> é 日本 🚀 \u0001\u001f` +
		"\x7f \u2028\u2029" + ` \b\f"}`
	if got := string(AssistantMessage(escText)); got != want {
		t.Errorf("AssistantMessage = %s\nwant %s", got, want)
	}
}

func TestRequestErrors(t *testing.T) {
	chat := mustLookup(t, "chat")
	tests := []struct {
		name, endpoint string
		turn           dataset.Turn
		history        []json.RawMessage
		want           string
	}{
		{"turn extra not object", "chat", dataset.Turn{Texts: []string{"x"}, Extra: raw(`[1]`)}, nil, "turn extra"},
		{"turn extra invalid", "embeddings", dataset.Turn{Texts: []string{"x"}, Extra: raw(`{"a":`)}, nil, "turn extra"},
		{"messages not array", "chat", dataset.Turn{Messages: raw(`{"role":"user"}`)}, nil, "turn messages"},
		{"messages invalid", "chat", dataset.Turn{Messages: raw(`[{"role":}]`)}, nil, "turn messages"},
		{"tools invalid", "chat", dataset.Turn{Texts: []string{"x"}, Tools: raw(`[`)}, nil, "turn tools"},
		{"payload invalid", "completions", dataset.Turn{Payload: raw(`{"a" 1}`)}, nil, "turn payload"},
		{"audio without format", "chat", dataset.Turn{Audios: []string{"UklGRg=="}}, nil, "turn audio 0"},
		{"history invalid", "chat", dataset.Turn{Texts: []string{"x"}}, []json.RawMessage{AssistantMessage("a"), raw(`{"role"`)}, "history entry 1"},
		{"rankings without query", "hf_tei_rankings", dataset.Turn{Passages: []string{"p"}}, nil, "no query"},
		{"nim_embeddings mismatch", "nim_embeddings", dataset.Turn{Texts: []string{"a", "b"}, Images: []string{"u"}}, nil, "2 texts and 1 images"},
	}
	for _, tc := range tests {
		conv := oneTurn(tc.turn)
		_, err := mustLookup(t, tc.endpoint).Request(&conv, 0, tc.history, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want one containing %q", tc.name, err, tc.want)
		}
	}
	for _, ti := range []int{-1, 3} {
		if _, err := chat.Request(&threeTurns, ti, nil, nil); err == nil {
			t.Errorf("turn %d: no error", ti)
		}
	}
	if _, err := chat.Request(nil, 0, nil, nil); err == nil {
		t.Error("nil conversation: no error")
	}
}

func BenchmarkRequestHistory(b *testing.B) {
	e := mustLookup(b, "chat")
	c := &threeTurns
	hist := []json.RawMessage{
		e.UserMessage(&c.Turns[0]), AssistantMessage(strings.Repeat("reply ", 200)),
		e.UserMessage(&c.Turns[1]), AssistantMessage(strings.Repeat("reply ", 200)),
	}
	opts := &Options{Streaming: true}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Request(c, 2, hist, opts); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzRequest checks that every body Request accepts to build is valid JSON
// whatever the turn's verbatim JSON fields, history and texts hold.
func FuzzRequest(f *testing.F) {
	f.Add("hi", []byte(`[{"role":"user","content":"x"}]`), []byte(`{"a":1}`), []byte(`{"role":"assistant","content":"r"}`), uint8(0))
	f.Add("", []byte(`[]`), []byte(`null`), []byte(`[{"a":1},{"b":2}]`), uint8(1))
	f.Add("\x00\"", []byte(` [ ] `), []byte(`{"messages":[]}`), []byte(`[]`), uint8(2))
	f.Add("q", []byte(`{`), []byte(`[`), []byte(`"s"`), uint8(3))
	modes := []string{"", dataset.DeltasWithoutResponses, dataset.MessageArrayWithResponses, dataset.DeltasWithResponses}
	f.Fuzz(func(t *testing.T, text string, messages, extra, hist []byte, sel uint8) {
		turn := dataset.Turn{Texts: []string{text, text}, Audios: []string{text}, Extra: extra, Model: text}
		if sel&4 != 0 {
			turn.Messages = messages
		}
		conv := dataset.Conversation{SystemPrompt: text, ContextMode: modes[int(sel)%len(modes)], Turns: []dataset.Turn{turn}}
		for _, name := range Names() {
			e := mustLookup(t, name)
			body, err := e.Request(&conv, 0, []json.RawMessage{hist, AssistantMessage(text)}, &Options{Streaming: true})
			if err == nil && !json.Valid(body) {
				t.Fatalf("%s: invalid body %q", name, body)
			}
		}
		if m := mustLookup(t, "chat").UserMessage(&turn); m != nil && !json.Valid(m) {
			t.Fatalf("invalid user message %q", m)
		}
	})
}
