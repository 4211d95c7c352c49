package mockserver

import (
	"encoding/json"
	"slices"
	"testing"
)

func TestParseInputs(t *testing.T) {
	for _, tc := range []struct {
		raw    string
		texts  []string
		tokens int
		count  int
		err    bool
	}{
		{``, nil, 0, 0, false},
		{`null`, nil, 0, 0, false},
		{`"a b"`, []string{"a b"}, 0, 1, false},
		{`["a","b"]`, []string{"a", "b"}, 0, 2, false},
		{`[1,2,3]`, nil, 3, 1, false},
		{`[[1,2],[3]]`, nil, 3, 2, false},
		{`[]`, []string{}, 0, 0, false},
		{`{"a":1}`, nil, 0, 0, true},
		{`[1,"a"]`, nil, 0, 0, true},
	} {
		in, err := parseInputs(json.RawMessage(tc.raw))
		if (err != nil) != tc.err {
			t.Errorf("parseInputs(%s) error %v", tc.raw, err)
			continue
		}
		if len(in.texts) != len(tc.texts) || !slices.Equal(in.texts, tc.texts) || in.tokens != tc.tokens || in.count() != tc.count {
			t.Errorf("parseInputs(%s) = %+v", tc.raw, in)
		}
	}
}

func TestChatTexts(t *testing.T) {
	req, err := decodeRequest([]byte(`{"messages":[
		{"role":"system","content":"sys"},
		{"role":"user","content":[{"type":"text","text":"a\"b"},{"type":"image_url","image_url":{"url":"u"}},{"type":"text","text":"c"}]},
		{"role":"assistant","content":null},
		{"role":"user","content":"tab\tend"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := req.chatTexts(), []string{"sys", `a"b`, "c", "tab\tend"}; !slices.Equal(got, want) {
		t.Errorf("chatTexts = %q, want %q", got, want)
	}
}

func TestPlanTokens(t *testing.T) {
	n := func(v int) *int { return &v }
	for _, tc := range []struct {
		name string
		cfg  Config
		req  request
		chat bool
		want tokenPlan
	}{
		{"default", Config{OutputTokens: 16}, request{}, true, tokenPlan{0, 16, "stop"}},
		{"max_tokens", Config{OutputTokens: 16}, request{MaxTokens: n(5)}, true, tokenPlan{0, 5, "length"}},
		{"max_completion_tokens wins", Config{OutputTokens: 16}, request{MaxTokens: n(5), MaxCompletionTokens: n(7)}, true, tokenPlan{0, 7, "length"}},
		{"reasoning within limit", Config{ReasoningTokens: 3}, request{MaxTokens: n(5)}, true, tokenPlan{3, 2, "length"}},
		{"reasoning exceeds limit", Config{ReasoningTokens: 8}, request{MaxTokens: n(5)}, true, tokenPlan{5, 0, "length"}},
		{"reasoning without limit", Config{ReasoningTokens: 3, OutputTokens: 4}, request{}, true, tokenPlan{3, 4, "stop"}},
		{"no reasoning in completions", Config{ReasoningTokens: 3}, request{MaxTokens: n(5)}, false, tokenPlan{0, 5, "length"}},
		{"eos", Config{EOSTokens: 4}, request{MaxTokens: n(10)}, true, tokenPlan{0, 4, "stop"}},
		{"eos beyond limit", Config{EOSTokens: 40}, request{MaxTokens: n(10)}, true, tokenPlan{0, 10, "length"}},
		{"ignore_eos", Config{EOSTokens: 4}, request{MaxTokens: n(10), IgnoreEOS: true}, true, tokenPlan{0, 10, "length"}},
	} {
		if got := tc.cfg.planTokens(&tc.req, tc.chat); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// FuzzDecodeRequest checks that any body either fails to decode or yields
// texts and inputs without panicking, and that string contents survive the
// fast path exactly.
func FuzzDecodeRequest(f *testing.F) {
	for _, s := range []string{
		`{"model":"m","messages":[{"role":"user","content":"hi"}],"max_tokens":3,"stream":true,"stream_options":{"include_usage":true}}`,
		`{"messages":[{"content":[{"type":"text","text":"a\nb"}]}]}`,
		`{"prompt":[[1,2],[3]],"input":"x"}`,
		`{"messages":[{"content":"\u00e9\\"}]}`,
		`{"max_tokens":-1}`,
		`[]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		req, err := decodeRequest(body)
		if err != nil {
			return
		}
		_ = req.chatTexts()
		_, _ = parseInputs(req.Prompt)
		_, _ = parseInputs(req.Input)
		var ref struct {
			Messages []struct {
				Content any `json:"content"`
			} `json:"messages"`
		}
		if json.Unmarshal(body, &ref) != nil || len(ref.Messages) != len(req.Messages) {
			return
		}
		for i, m := range ref.Messages {
			if s, ok := m.Content.(string); ok && (len(req.Messages[i].Content.texts) != 1 || req.Messages[i].Content.texts[0] != s) {
				t.Errorf("message %d content %q, want %q", i, req.Messages[i].Content.texts, s)
			}
		}
	})
}
