package endpoint

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/record"
)

func n(v int64) *int64 { return &v }

func usageString(u *record.Usage) string {
	if u == nil {
		return "nil"
	}
	s := func(p *int64) string {
		if p == nil {
			return "-"
		}
		return fmt.Sprint(*p)
	}
	return fmt.Sprintf("{prompt %s completion %s total %s reasoning %s cached %s}",
		s(u.PromptTokens), s(u.CompletionTokens), s(u.TotalTokens), s(u.ReasoningTokens), s(u.CachedTokens))
}

type parseCase struct {
	name     string
	endpoint string
	data     string
	ok       bool
	text     string
	reason   string
	embed    int
	usage    *record.Usage
	err      bool
}

var parseCases = []parseCase{
	// vLLM chat stream.
	{name: "vllm role-only", endpoint: "chat",
		data: `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}`},
	{name: "vllm content", endpoint: "chat", ok: true, text: "Hello",
		data: `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"Hello"},"logprobs":null,"finish_reason":null}]}`},
	{name: "vllm reasoning_content", endpoint: "chat", ok: true, reason: "Let me think",
		data: `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"reasoning_content":"Let me think"},"logprobs":null,"finish_reason":null}]}`},
	{name: "vllm reasoning field", endpoint: "chat", ok: true, reason: "hmm",
		data: `{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"reasoning":"hmm","content":null}}]}`},
	{name: "reasoning_content wins over reasoning", endpoint: "chat", ok: true, reason: "a",
		data: `{"object":"chat.completion.chunk","choices":[{"delta":{"reasoning_content":"a","reasoning":"b"}}]}`},
	{name: "empty reasoning_content falls back", endpoint: "chat", ok: true, reason: "b",
		data: `{"object":"chat.completion.chunk","choices":[{"delta":{"reasoning_content":"","reasoning":"b"}}]}`},
	{name: "vllm finish chunk", endpoint: "chat",
		data: `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"length","stop_reason":null}]}`},
	{name: "vllm usage chunk", endpoint: "chat", ok: true,
		usage: &record.Usage{PromptTokens: n(10), CompletionTokens: n(5), TotalTokens: n(15)},
		data:  `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":10,"total_tokens":15,"completion_tokens":5}}`},
	{name: "vllm continuous usage", endpoint: "chat", ok: true, text: "x",
		usage: &record.Usage{PromptTokens: n(10), CompletionTokens: n(1), TotalTokens: n(11)},
		data:  `{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"x"}}],"usage":{"prompt_tokens":10,"total_tokens":11,"completion_tokens":1}}`},
	{name: "done", endpoint: "chat", data: "[DONE]"},
	{name: "done with space", endpoint: "chat", data: " [DONE]\n"},
	{name: "empty", endpoint: "chat", data: ""},

	// SGLang chat stream.
	{name: "sglang content", endpoint: "chat", ok: true, text: "Hi",
		data: `{"id":"a1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":null,"content":"Hi","reasoning_content":null,"tool_calls":null},"logprobs":null,"finish_reason":null,"matched_stop":null}],"usage":null}`},
	{name: "sglang role-only", endpoint: "chat",
		data: `{"id":"a1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":null,"reasoning_content":null,"tool_calls":null},"logprobs":null,"finish_reason":null,"matched_stop":null}],"usage":null}`},
	{name: "sglang reasoning", endpoint: "chat", ok: true, reason: "think",
		data: `{"id":"a1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":null,"content":null,"reasoning_content":"think","tool_calls":null},"logprobs":null,"finish_reason":null}],"usage":null}`},
	{name: "sglang usage", endpoint: "chat", ok: true,
		usage: &record.Usage{PromptTokens: n(7), CompletionTokens: n(3), TotalTokens: n(10)},
		data:  `{"id":"a1","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":7,"total_tokens":10,"completion_tokens":3,"prompt_tokens_details":null}}`},

	// llama.cpp chat stream.
	{name: "llama.cpp role-only", endpoint: "chat",
		data: `{"choices":[{"finish_reason":null,"index":0,"delta":{"role":"assistant","content":null}}],"created":1,"id":"chatcmpl-x","model":"tiny","system_fingerprint":"b1-abc","object":"chat.completion.chunk"}`},
	{name: "llama.cpp content", endpoint: "chat", ok: true, text: " the",
		data: `{"choices":[{"finish_reason":null,"index":0,"delta":{"content":" the"}}],"created":1,"id":"chatcmpl-x","model":"tiny","system_fingerprint":"b1-abc","object":"chat.completion.chunk"}`},
	{name: "llama.cpp usage with timings", endpoint: "chat", ok: true,
		usage: &record.Usage{PromptTokens: n(5), CompletionTokens: n(16), TotalTokens: n(21), CachedTokens: n(0)},
		data:  `{"choices":[],"created":1,"id":"chatcmpl-x","model":"tiny","system_fingerprint":"b1-abc","object":"chat.completion.chunk","usage":{"completion_tokens":16,"prompt_tokens":5,"total_tokens":21,"prompt_tokens_details":{"cached_tokens":0}},"timings":{"prompt_n":5,"predicted_ms":27.1}}`},

	// Non-streaming chat bodies.
	{name: "vllm chat body", endpoint: "chat", ok: true, text: "Hello there",
		usage: &record.Usage{PromptTokens: n(9), CompletionTokens: n(3), TotalTokens: n(12)},
		data:  `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"Hello there","reasoning_content":null,"tool_calls":[]},"logprobs":null,"finish_reason":"stop","stop_reason":null}],"usage":{"prompt_tokens":9,"total_tokens":12,"completion_tokens":3,"prompt_tokens_details":null},"prompt_logprobs":null}`},
	{name: "chat body with reasoning and details", endpoint: "chat", ok: true, text: "42", reason: "so",
		usage: &record.Usage{PromptTokens: n(9), CompletionTokens: n(30), TotalTokens: n(39), ReasoningTokens: n(20), CachedTokens: n(4)},
		data: "{\n  \"object\": \"chat.completion\",\n  \"choices\": [{\"message\": {\"content\": \"42\", \"reasoning_content\": \"so\"}}],\n" +
			`  "usage": {"prompt_tokens": 9, "completion_tokens": 30, "total_tokens": 39, "completion_tokens_details": {"reasoning_tokens": 20}, "prompt_tokens_details": {"cached_tokens": 4}}}`},
	{name: "empty usage object is none", endpoint: "chat",
		data: `{"object":"chat.completion.chunk","choices":[],"usage":{}}`},

	// Shapes without "object".
	{name: "no object delta", endpoint: "chat", ok: true, text: "x", data: `{"choices":[{"delta":{"content":"x"}}]}`},
	{name: "no object message", endpoint: "chat", ok: true, text: "y", data: `{"choices":[{"message":{"content":"y"}}]}`},
	{name: "no object usage only", endpoint: "chat", ok: true, usage: &record.Usage{TotalTokens: n(3)},
		data: `{"choices":[],"usage":{"total_tokens":3}}`},
	{name: "no object text", endpoint: "completions", ok: true, text: "z", data: `{"choices":[{"text":"z"}]}`},
	{name: "no object embeddings", endpoint: "embeddings", ok: true, embed: 1, data: `{"data":[{"embedding":[1,2]}]}`},

	// Foreign object types give no data.
	{name: "completion into chat", endpoint: "chat",
		data: `{"object":"text_completion","choices":[{"text":"a"}],"usage":{"total_tokens":3}}`},
	{name: "chat into completions", endpoint: "completions",
		data: `{"object":"chat.completion.chunk","choices":[{"delta":{"content":"a"}}]}`},
	{name: "chat into embeddings", endpoint: "embeddings", data: `{"object":"chat.completion","choices":[]}`},

	// Completions.
	{name: "vllm completions chunk", endpoint: "completions", ok: true, text: " world",
		data: `{"id":"cmpl-1","object":"text_completion","created":1,"model":"m","choices":[{"index":0,"text":" world","logprobs":null,"finish_reason":null,"stop_reason":null}],"usage":null}`},
	{name: "completions empty text", endpoint: "completions",
		data: `{"id":"cmpl-1","object":"text_completion","choices":[{"index":0,"text":"","finish_reason":"length"}],"usage":null}`},
	{name: "completions usage", endpoint: "completions", ok: true,
		usage: &record.Usage{PromptTokens: n(2), CompletionTokens: n(4), TotalTokens: n(6)},
		data:  `{"id":"cmpl-1","object":"text_completion","choices":[],"usage":{"prompt_tokens":2,"total_tokens":6,"completion_tokens":4}}`},

	// Embeddings.
	{name: "embeddings list", endpoint: "embeddings", ok: true, embed: 2,
		usage: &record.Usage{PromptTokens: n(4), CompletionTokens: n(0), TotalTokens: n(4)},
		data:  `{"id":"embd-1","object":"list","created":1,"model":"e5","data":[{"index":0,"object":"embedding","embedding":[0.1,-0.2e-3]},{"index":1,"object":"embedding","embedding":"AAAA"}],"usage":{"prompt_tokens":4,"total_tokens":4,"completion_tokens":0}}`},
	{name: "embeddings other items", endpoint: "embeddings", ok: true, embed: 1,
		data: `{"object":"list","data":[{"object":"embedding","embedding":[1]},{"object":"model","id":"x"}]}`},

	// Tolerated foreign fields and errors.
	{name: "foreign message field", endpoint: "chat", ok: true, text: "a",
		data: `{"object":"chat.completion.chunk","message":{"x":1},"type":7,"error":null,"choices":[{"delta":{"content":"a"}}]}`},
	{name: "malformed", endpoint: "chat", err: true, data: `{"choices":`},
	{name: "not json", endpoint: "chat", err: true, data: `hello`},
	{name: "wrong shape", endpoint: "chat", err: true, data: `{"choices":{}}`},
	{name: "trailing garbage", endpoint: "completions", err: true, data: `{"choices":[]}x`},
}

func TestParse(t *testing.T) {
	for _, tc := range parseCases {
		t.Run(tc.name, func(t *testing.T) {
			resp, ok, err := mustLookup(t, tc.endpoint).Parse([]byte(tc.data))
			if (err != nil) != tc.err {
				t.Fatalf("err = %v, want error %v", err, tc.err)
			}
			if ok != tc.ok || resp.Text != tc.text || resp.Reasoning != tc.reason || resp.Embeddings() != tc.embed ||
				usageString(resp.Usage) != usageString(tc.usage) || resp.PerfNS != 0 {
				t.Errorf("got ok=%v text=%q reasoning=%q embeddings=%d usage=%s perf=%d\nwant ok=%v text=%q reasoning=%q embeddings=%d usage=%s",
					ok, resp.Text, resp.Reasoning, resp.Embeddings(), usageString(resp.Usage), resp.PerfNS,
					tc.ok, tc.text, tc.reason, tc.embed, usageString(tc.usage))
			}
		})
	}
}

func TestParseServerError(t *testing.T) {
	tests := []struct {
		data, typ, msg string
	}{
		{`{"object":"error","message":"prompt too long","type":"BadRequestError","param":null,"code":400}`,
			"BadRequestError", "prompt too long"},
		{`{"error":{"message":"boom","type":"internal_error","code":500}}`, "internal_error", "boom"},
		{`{"error":"oops"}`, "", "oops"},
		{`{"error":{"code":1}}`, "", "unknown error"},
	}
	for _, tc := range tests {
		_, ok, err := mustLookup(t, "chat").Parse([]byte(tc.data))
		var se *ServerError
		if ok || !errors.As(err, &se) || se.Type != tc.typ || se.Message != tc.msg {
			t.Errorf("%s: ok=%v err=%v, want ServerError{%q, %q}", tc.data, ok, err, tc.typ, tc.msg)
		}
	}
}

func TestParseUnknownEndpoint(t *testing.T) {
	if _, _, err := (&Endpoint{Name: "x"}).Parse([]byte(`{}`)); err == nil {
		t.Error("no error")
	}
}

func FuzzParse(f *testing.F) {
	for _, tc := range parseCases {
		f.Add(tc.endpoint, []byte(tc.data))
	}
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		e, err := Lookup(name)
		if err != nil {
			e = mustLookup(t, Names()[len(name)%len(Names())])
		}
		resp, ok, err := e.Parse(data)
		if err != nil && ok {
			t.Fatalf("ok with error %v", err)
		}
		if ok != (resp.HasContent() || resp.Usage != nil) {
			t.Fatalf("ok=%v for %+v", ok, resp)
		}
		countsOnly := e.Name == "embeddings" || e.Name == "nim_embeddings" || e.rankings()
		if countsOnly && (resp.Text != "" || resp.Reasoning != "") {
			t.Fatalf("%s gave text %+v", e.Name, resp)
		}
		if !countsOnly && e.Name != "template" && resp.Embeddings() != 0 { // template auto-detects both
			t.Fatalf("%s gave embeddings", e.Name)
		}
		if strings.TrimSpace(string(data)) == "[DONE]" && (ok || err != nil) {
			t.Fatal("[DONE] not dropped")
		}
	})
}
