package mockserver

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tiktoken-go/tokenizer"
)

// o200kCount counts tokens with tiktoken-go directly, independently of the
// server's own counter.
func o200kCount(t testing.TB, s string) int {
	t.Helper()
	c, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	n, err := c.Count(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// chunk is a streamed chat or completion chunk.
type chunk struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	Model   string `json:"model"`
	Choices []struct {
		Index int    `json:"index"`
		Text  string `json:"text"`
		Delta struct {
			Role             *string `json:"role"`
			Content          *string `json:"content"`
			ReasoningContent *string `json:"reasoning_content"`
		} `json:"delta"`
		Message struct {
			Role             string `json:"role"`
			Content          string `json:"content"`
			ReasoningContent string `json:"reasoning_content"`
		} `json:"message"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens            int `json:"prompt_tokens"`
		CompletionTokens        int `json:"completion_tokens"`
		TotalTokens             int `json:"total_tokens"`
		CompletionTokensDetails struct {
			ReasoningTokens int `json:"reasoning_tokens"`
		} `json:"completion_tokens_details"`
	} `json:"usage"`
}

func parseChunk(t testing.TB, data string) chunk {
	t.Helper()
	var c chunk
	if err := json.Unmarshal([]byte(data), &c); err != nil {
		t.Fatalf("chunk %q: %v", data, err)
	}
	return c
}

const testPrompt = "Explain, in three short sentences, why the sky looks blue at noon but red at sunset."

func TestNonStreaming(t *testing.T) {
	s := startServer(t, Config{ReasoningTokens: 3})
	promptTokens := o200kCount(t, testPrompt)
	for _, tc := range []struct {
		name, path, body   string
		object, idPrefix   string
		content, reasoning int
		finish             string
		promptTokens       int
	}{
		{"chat max_completion_tokens", "/v1/chat/completions",
			`{"model":"m \"q\" é","messages":[{"role":"user","content":"` + testPrompt + `"}],"max_completion_tokens":10,"max_tokens":99}`,
			"chat.completion", "chatcmpl-", 7, 3, "length", promptTokens},
		{"chat max_tokens", "/v1/chat/completions",
			`{"model":"m \"q\" é","messages":[{"role":"user","content":[{"type":"text","text":"` + testPrompt + `"},{"type":"image_url","image_url":{"url":"x"}}]}],"max_tokens":5}`,
			"chat.completion", "chatcmpl-", 2, 3, "length", promptTokens},
		{"chat default length", "/v1/chat/completions",
			`{"model":"m \"q\" é","messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"` + testPrompt + `"}]}`,
			"chat.completion", "chatcmpl-", DefaultOutputTokens, 3, "stop", o200kCount(t, "Be brief. "+testPrompt)},
		{"completion", "/v1/completions",
			`{"model":"m \"q\" é","prompt":"` + testPrompt + `","max_tokens":9}`,
			"text_completion", "cmpl-", 9, 0, "length", promptTokens},
		{"completion prompt list", "/v1/completions",
			`{"model":"m \"q\" é","prompt":["` + testPrompt + `","again"],"max_tokens":4}`,
			"text_completion", "cmpl-", 4, 0, "length", o200kCount(t, testPrompt+" again")},
		{"completion token ids", "/v1/completions",
			`{"model":"m \"q\" é","prompt":[1,2,3,4,5],"max_tokens":2}`,
			"text_completion", "cmpl-", 2, 0, "length", 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := time.Now().Unix()
			resp := post(t, s, tc.path, "", tc.body)
			body := readAll(t, resp.Body)
			if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" {
				t.Fatalf("status %d, type %q: %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
			}
			c := parseChunk(t, string(body))
			if c.Object != tc.object || !strings.HasPrefix(c.ID, tc.idPrefix) || c.Model != `m "q" é` ||
				c.Created < before || c.Created > time.Now().Unix() {
				t.Errorf("header fields: %s", body)
			}
			if len(c.Choices) != 1 || c.Choices[0].FinishReason == nil || *c.Choices[0].FinishReason != tc.finish {
				t.Fatalf("choices: %s", body)
			}
			ch := c.Choices[0]
			text, reasoning := ch.Text, ""
			if tc.object == "chat.completion" {
				if ch.Message.Role != "assistant" {
					t.Errorf("role %q", ch.Message.Role)
				}
				text, reasoning = ch.Message.Content, ch.Message.ReasoningContent
			}
			if got := o200kCount(t, text); got != tc.content {
				t.Errorf("content %q has %d tokens, want %d", text, got, tc.content)
			}
			if got := o200kCount(t, reasoning); got != tc.reasoning {
				t.Errorf("reasoning %q has %d tokens, want %d", reasoning, got, tc.reasoning)
			}
			u := c.Usage
			if u == nil || u.PromptTokens != tc.promptTokens || u.CompletionTokens != tc.content+tc.reasoning ||
				u.TotalTokens != u.PromptTokens+u.CompletionTokens || u.CompletionTokensDetails.ReasoningTokens != tc.reasoning {
				t.Errorf("usage: %s, want prompt %d completion %d reasoning %d", body, tc.promptTokens, tc.content+tc.reasoning, tc.reasoning)
			}
		})
	}
}

// streamCase describes a streamed request and the events it must produce.
type streamCase struct {
	name       string
	cfg        Config
	path, body string
	// want is the event sequence: "role", "r<n>" (reasoning chunk of n
	// tokens), "c<n>" (content chunk), "usage", "[DONE]".
	want   []string
	finish string
}

func TestStreaming(t *testing.T) {
	chat := func(extra string) string {
		return `{"model":"mock","messages":[{"role":"user","content":"hello there"}],"stream":true` + extra + `}`
	}
	for _, tc := range []streamCase{
		{"chat default", Config{}, "/v1/chat/completions", chat(`,"max_tokens":3`),
			[]string{"role", "c1", "c1", "c1", "[DONE]"}, "length"},
		{"chat tokens per chunk 4 with usage", Config{TokensPerChunk: 4}, "/v1/chat/completions",
			chat(`,"max_completion_tokens":10,"stream_options":{"include_usage":true}`),
			[]string{"role", "c4", "c4", "c2", "usage", "[DONE]"}, "length"},
		{"chat reasoning before content", Config{ReasoningTokens: 5, TokensPerChunk: 2}, "/v1/chat/completions",
			chat(`,"max_tokens":9,"stream_options":{"include_usage":true}`),
			[]string{"role", "r2", "r2", "r1", "c2", "c2", "usage", "[DONE]"}, "length"},
		{"chat no usage", Config{NoUsage: true}, "/v1/chat/completions",
			chat(`,"max_tokens":2,"stream_options":{"include_usage":true}`),
			[]string{"role", "c1", "c1", "[DONE]"}, "length"},
		{"chat no role chunk", Config{NoRoleChunk: true, OutputTokens: 2}, "/v1/chat/completions", chat(``),
			[]string{"c1", "c1", "[DONE]"}, "stop"},
		{"chat eos", Config{EOSTokens: 2}, "/v1/chat/completions", chat(`,"max_tokens":5`),
			[]string{"role", "c1", "c1", "[DONE]"}, "stop"},
		{"chat ignore_eos", Config{EOSTokens: 2}, "/v1/chat/completions", chat(`,"max_tokens":3,"ignore_eos":true`),
			[]string{"role", "c1", "c1", "c1", "[DONE]"}, "length"},
		{"chat zero tokens", Config{}, "/v1/chat/completions", chat(`,"max_tokens":0`),
			[]string{"role", "c0", "[DONE]"}, "length"},
		{"completion", Config{TokensPerChunk: 3, ReasoningTokens: 4}, "/v1/completions",
			`{"model":"mock","prompt":"hello there","stream":true,"max_tokens":7,"stream_options":{"include_usage":true}}`,
			[]string{"c3", "c3", "c1", "usage", "[DONE]"}, "length"},
	} {
		t.Run(tc.name, func(t *testing.T) { checkStream(t, tc) })
	}
}

func checkStream(t *testing.T, tc streamCase) {
	s := startServer(t, tc.cfg)
	resp := post(t, s, tc.path, "", tc.body)
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != 200 || ct != "text/event-stream" {
		t.Fatalf("status %d, Content-Type %q", resp.StatusCode, ct)
	}
	events, err := readSSE(resp)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	var id string
	var content, reasoning strings.Builder
	tokenEvents, contentTokens, reasoningTokens := 0, 0, 0
	for i, data := range events {
		if data == "[DONE]" {
			got = append(got, data)
			continue
		}
		c := parseChunk(t, data)
		if id == "" {
			id = c.ID
		}
		wantObject := "chat.completion.chunk"
		if tc.path == "/v1/completions" {
			wantObject = "text_completion"
		}
		if c.ID != id || c.Object != wantObject || c.Model != "mock" {
			t.Errorf("event %d: id/object/model: %s", i, data)
		}
		if c.Usage != nil {
			if len(c.Choices) != 0 {
				t.Errorf("usage chunk has choices: %s", data)
			}
			if c.Usage.CompletionTokens != contentTokens+reasoningTokens ||
				c.Usage.CompletionTokensDetails.ReasoningTokens != reasoningTokens ||
				c.Usage.PromptTokens != o200kCount(t, "hello there") ||
				c.Usage.TotalTokens != c.Usage.PromptTokens+c.Usage.CompletionTokens {
				t.Errorf("usage %s, want completion %d reasoning %d", data, contentTokens+reasoningTokens, reasoningTokens)
			}
			got = append(got, "usage")
			continue
		}
		if len(c.Choices) != 1 {
			t.Fatalf("event %d: %s", i, data)
		}
		ch := c.Choices[0]
		d := ch.Delta
		var kind, text string
		switch {
		case tc.path == "/v1/completions":
			kind, text = "c", ch.Text
		case d.Role != nil:
			if *d.Role != "assistant" || d.Content == nil || *d.Content != "" {
				t.Errorf("role chunk %s", data)
			}
			got = append(got, "role")
			continue
		case d.ReasoningContent != nil:
			kind, text = "r", *d.ReasoningContent
		case d.Content != nil:
			kind, text = "c", *d.Content
		default:
			t.Fatalf("event %d carries nothing: %s", i, data)
		}
		n := o200kCount(t, text)
		got = append(got, fmt.Sprintf("%s%d", kind, n))
		if kind == "r" {
			reasoning.WriteString(text)
			reasoningTokens += n
		} else {
			content.WriteString(text)
			contentTokens += n
		}
		tokenEvents++
		last := i+1 < len(events) && (events[i+1] == "[DONE]" || strings.Contains(events[i+1], `"usage"`))
		switch {
		case last && (ch.FinishReason == nil || *ch.FinishReason != tc.finish):
			t.Errorf("last token event finish_reason %v, want %q", ch.FinishReason, tc.finish)
		case !last && ch.FinishReason != nil:
			t.Errorf("event %d finish_reason %q, want null", i, *ch.FinishReason)
		}
	}
	if strings.Join(got, " ") != strings.Join(tc.want, " ") {
		t.Errorf("events %v, want %v", got, tc.want)
	}
	// Concatenations re-tokenize to the sum of the chunks' tokens.
	if n := o200kCount(t, content.String()); n != contentTokens {
		t.Errorf("content %q is %d tokens, chunks carried %d", content.String(), n, contentTokens)
	}
	if n := o200kCount(t, reasoning.String()); n != reasoningTokens {
		t.Errorf("reasoning is %d tokens, chunks carried %d", n, reasoningTokens)
	}
}

// TestEmittedWordsTokenizeExactly asks the server for N tokens and checks,
// with tiktoken-go's o200k_base, that the text it emits is N tokens.
func TestEmittedWordsTokenizeExactly(t *testing.T) {
	s := startServer(t, Config{TokensPerChunk: 7})
	for _, n := range []int{1, 2, 3, 16, 100, 255, 256, 257, 1000} {
		for _, stream := range []bool{false, true} {
			body := fmt.Sprintf(`{"model":"m","messages":[{"role":"user","content":"hi"}],"max_tokens":%d,"stream":%v}`, n, stream)
			resp := post(t, s, "/v1/chat/completions", "", body)
			var text strings.Builder
			if stream {
				events, err := readSSE(resp)
				if err != nil {
					t.Fatal(err)
				}
				for _, e := range events[1 : len(events)-1] {
					text.WriteString(*parseChunk(t, e).Choices[0].Delta.Content)
				}
			} else {
				text.WriteString(parseChunk(t, string(readAll(t, resp.Body))).Choices[0].Message.Content)
			}
			if got := o200kCount(t, text.String()); got != n {
				t.Errorf("N=%d stream=%v: emitted text is %d tokens", n, stream, got)
			}
		}
	}
}

func TestWordList(t *testing.T) {
	seen := map[string]bool{}
	for _, w := range wordList {
		if seen[w] {
			t.Errorf("duplicate word %q", w)
		}
		seen[w] = true
		if n := o200kCount(t, " "+w); n != 1 {
			t.Errorf("%q is %d tokens", " "+w, n)
		}
	}
	// Any run, including across the cycle's end, is as many tokens as words.
	for _, tc := range []struct{ from, count int }{{0, 1}, {250, 10}, {255, 257}, {3, 600}} {
		text := words.appendTokens(nil, tc.from, tc.count)
		if got := o200kCount(t, string(text)); got != tc.count {
			t.Errorf("appendTokens(%d, %d) is %d tokens", tc.from, tc.count, got)
		}
		if got := strings.Count(string(text), " "); got != tc.count {
			t.Errorf("appendTokens(%d, %d) has %d words", tc.from, tc.count, got)
		}
	}
}

func TestEstimatePromptTokens(t *testing.T) {
	s := startServer(t, Config{EstimatePromptTokens: true})
	prompt := strings.Repeat("abcd", 25) + "xyz" // 103 bytes → 25
	resp := post(t, s, "/v1/completions", "", `{"model":"m","prompt":"`+prompt+`","max_tokens":1}`)
	if c := parseChunk(t, string(readAll(t, resp.Body))); c.Usage == nil || c.Usage.PromptTokens != 25 {
		t.Errorf("usage %+v, want prompt_tokens 25", c.Usage)
	}
}
