package endpoint

import (
	"reflect"
	"testing"

	"github.com/aiperf-go/aiperf/record"
)

// Chunks as the mock server (mockserver/encode.go) and vLLM send them.
const (
	flatRole      = `{"id":"chatcmpl-7","object":"chat.completion.chunk","created":1764000000,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}`
	flatContent   = `{"id":"chatcmpl-7","object":"chat.completion.chunk","created":1764000000,"model":"m","choices":[{"index":0,"delta":{"content":"lorem "},"logprobs":null,"finish_reason":null}]}`
	flatReasoning = `{"id":"chatcmpl-7","object":"chat.completion.chunk","created":1764000000,"model":"m","choices":[{"index":0,"delta":{"reasoning_content":"ipsum "},"logprobs":null,"finish_reason":null}]}`
	flatFinish    = `{"id":"chatcmpl-7","object":"chat.completion.chunk","created":1764000000,"model":"m","choices":[{"index":0,"delta":{"content":"dolor"},"logprobs":null,"finish_reason":"length"}]}`
	flatUsage     = `{"id":"chatcmpl-7","object":"chat.completion.chunk","created":1764000000,"model":"m","choices":[],"usage":{"prompt_tokens":64,"completion_tokens":20,"total_tokens":84,"completion_tokens_details":{"reasoning_tokens":3}}}`
	flatText      = `{"id":"cmpl-7","object":"text_completion","created":1764000000,"model":"m","choices":[{"index":0,"text":"lorem ","logprobs":null,"finish_reason":null}]}`
	flatTextUsage = `{"id":"cmpl-7","object":"text_completion","created":1764000000,"model":"m","choices":[],"usage":{"prompt_tokens":64,"completion_tokens":20,"total_tokens":84,"completion_tokens_details":{"reasoning_tokens":0}}}`
)

func TestParseFlat(t *testing.T) {
	cases := []struct {
		name, endpoint, data string
		done, ok             bool
		text, reason         string
		usage                *record.Usage
	}{
		{"role only", "chat", flatRole, true, false, "", "", nil},
		{"content", "chat", flatContent, true, true, "lorem ", "", nil},
		{"reasoning_content", "chat", flatReasoning, true, true, "", "ipsum ", nil},
		{"finish", "chat", flatFinish, true, true, "dolor", "", nil},
		{"usage", "chat", flatUsage, true, true, "", "",
			&record.Usage{PromptTokens: n(64), CompletionTokens: n(20), TotalTokens: n(84), ReasoningTokens: n(3)}},
		{"completion text", "completions", flatText, true, true, "lorem ", "", nil},
		{"completion usage", "completions", flatTextUsage, true, true, "", "",
			&record.Usage{PromptTokens: n(64), CompletionTokens: n(20), TotalTokens: n(84), ReasoningTokens: n(0)}},
		{"done", "chat", " [DONE] ", true, false, "", "", nil},
		{"empty", "chat", "", true, false, "", "", nil},
		{"no object", "chat", `{"choices":[{"delta":{"content":"a"}}]}`, true, true, "a", "", nil},
		{"null object and delta", "chat", `{"object":null,"choices":[{"delta":null}]}`, true, false, "", "", nil},
		{"escapes", "chat", `{"choices":[{"delta":{"content":"a\n\"b\"\\\/\t\u00e9\u4e2d"}}]}`, true, true,
			"a\n\"b\"\\/\t\u00e9\u4e2d", "", nil},
		{"reasoning fallback", "chat", `{"choices":[{"delta":{"reasoning_content":"","reasoning":"r"}}]}`, true, true, "", "r", nil},
		{"tool calls skipped", "chat", `{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"name":"f","arguments":"{\"x\":[1,2.5e-3,true,false,null]}"}}]}}]}`,
			true, false, "", "", nil},
		{"cached tokens", "chat", `{"choices":[],"usage":{"prompt_tokens":5,"prompt_tokens_details":{"cached_tokens":2}}}`, true, true, "", "",
			&record.Usage{PromptTokens: n(5), CachedTokens: n(2)}},
		{"empty usage", "chat", `{"choices":[],"usage":{}}`, true, false, "", "", nil},
		{"second choice skipped", "chat", `{"choices":[{"delta":{"content":"a"}},{"delta":{"content":"b"}}]}`, true, true, "a", "", nil},
		{"whitespace", "chat", "{ \"choices\" :\n[ { \"delta\" : { \"content\" : \"a\" } } ] }", true, true, "a", "", nil},
		// Declined: Parse decides.
		{"surrogate pair", "chat", `{"choices":[{"delta":{"content":"\ud83d\ude00"}}]}`, false, false, "", "", nil},
		{"unknown escape", "chat", `{"choices":[{"delta":{"content":"\q"}}]}`, false, false, "", "", nil},
		{"escaped key", "chat", `{"choices":[{"delta":{"cont\u0065nt":"a"}}]}`, false, false, "", "", nil},
		{"repeated content", "chat", `{"choices":[{"delta":{"content":null,"content":"a"}}]}`, false, false, "", "", nil},
		{"message", "chat", `{"choices":[{"message":{"content":"a"}}]}`, false, false, "", "", nil},
		{"whole completion", "chat", `{"object":"chat.completion","choices":[{"delta":{"content":"a"}}]}`, false, false, "", "", nil},
		{"error object", "chat", `{"error":{"message":"x"}}`, false, false, "", "", nil},
		{"content number", "chat", `{"choices":[{"delta":{"content":1}}]}`, false, false, "", "", nil},
		{"fraction count", "chat", `{"usage":{"prompt_tokens":1.5}}`, false, false, "", "", nil},
		{"negative count", "chat", `{"usage":{"prompt_tokens":-1}}`, false, false, "", "", nil},
		{"trailing comma", "chat", `{"choices":[],}`, false, false, "", "", nil},
		{"tail", "chat", `{"choices":[]} {}`, false, false, "", "", nil},
		{"not an object", "chat", `[1]`, false, false, "", "", nil},
		{"other type", "embeddings", `{"object":"list","data":[]}`, false, false, "", "", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := mustLookup(t, tc.endpoint)
			resp, ok, done := e.parseFlat([]byte(tc.data))
			if done != tc.done {
				t.Fatalf("done = %v, want %v", done, tc.done)
			}
			if !done {
				return
			}
			if ok != tc.ok || resp.Text != tc.text || resp.Reasoning != tc.reason {
				t.Errorf("got ok=%v text=%q reasoning=%q, want %v %q %q", ok, resp.Text, resp.Reasoning, tc.ok, tc.text, tc.reason)
			}
			if usageString(resp.Usage) != usageString(tc.usage) {
				t.Errorf("usage %s, want %s", usageString(resp.Usage), usageString(tc.usage))
			}
		})
	}
}

// FuzzParseFlat checks that whenever parseFlat accepts an input, Parse
// gives no error and the same response.
func FuzzParseFlat(f *testing.F) {
	for _, s := range []string{flatRole, flatContent, flatReasoning, flatFinish, flatUsage, flatText, flatTextUsage,
		`{"choices":[{"delta":{"content":"a\n\"b\"\\\/\t\u00e9","tool_calls":[{"id":"c","function":{"arguments":"{}"}}]}}]}`,
		`{"object":null,"error":null,"choices":null,"usage":{"prompt_tokens":0,"prompt_tokens_details":null}}`,
		`{"choices":[{"delta":{"reasoning":"x","reasoning_content":null}}],"x":[[{}],{"a":[-0.5E+2]}]}`,
	} {
		f.Add(true, []byte(s))
		f.Add(false, []byte(s))
	}
	for _, tc := range parseCases {
		f.Add(tc.endpoint == "chat", []byte(tc.data))
	}
	chat, completions := mustLookup(f, "chat"), mustLookup(f, "completions")
	f.Fuzz(func(t *testing.T, isChat bool, data []byte) {
		e := completions
		if isChat {
			e = chat
		}
		resp, ok, done := e.parseFlat(data)
		if !done {
			return
		}
		want, wantOK, err := e.Parse(data)
		if err != nil {
			t.Fatalf("flat parse accepted %q, Parse: %v", data, err)
		}
		if ok != wantOK || !reflect.DeepEqual(resp, want) {
			t.Fatalf("%q: flat %v %+v (usage %s), Parse %v %+v (usage %s)",
				data, ok, resp, usageString(resp.Usage), wantOK, want, usageString(want.Usage))
		}
	})
}

func BenchmarkParseStreamChunk(b *testing.B) {
	e := mustLookup(b, "chat")
	var st Stream
	data := []byte(flatContent)
	b.ReportAllocs()
	for b.Loop() {
		if _, ok, err := e.ParseStream(&st, data); !ok || err != nil {
			b.Fatal(ok, err)
		}
	}
}
