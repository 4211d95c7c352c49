package mockserver

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestSolido checks /rag/api/prompt: a body, or events when streaming, with
// exactly OutputTokens (or max_tokens) tokens of content and the sources.
func TestSolido(t *testing.T) {
	s := startServer(t, Config{OutputTokens: 7, TokensPerChunk: 2})
	for _, tc := range []struct {
		name, body string
		tokens     int
		stream     bool
	}{
		{"body", `{"query":["what is SDE?"],"filters":{"family":"Solido","tool":"SDE"},"inference_model":"m"}`, 7, false},
		{"stream", `{"query":["a","b"],"filters":{},"inference_model":"m","stream":true}`, 7, true},
		{"max tokens", `{"query":["a"],"stream":true,"max_tokens":3}`, 3, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := post(t, s, "/rag/api/prompt", "", tc.body)
			body := string(readAll(t, resp.Body))
			if resp.StatusCode != 200 {
				t.Fatalf("status %d: %s", resp.StatusCode, body)
			}
			if got := resp.Header.Get("Content-Type") == "text/event-stream"; got != tc.stream {
				t.Fatalf("streamed %v: %s", got, body)
			}
			var content strings.Builder
			datas := []string{body}
			if tc.stream {
				datas = nil
				for ev := range strings.SplitSeq(strings.TrimSpace(body), "\n\n") {
					datas = append(datas, strings.TrimPrefix(ev, "data: "))
				}
				if want := (tc.tokens + 1) / 2; len(datas) != want {
					t.Errorf("%d events, want %d", len(datas), want)
				}
			}
			for i, d := range datas {
				var m struct {
					Content string          `json:"content"`
					Sources json.RawMessage `json:"sources"`
				}
				if err := json.Unmarshal([]byte(d), &m); err != nil {
					t.Fatalf("event %q: %v", d, err)
				}
				if (i == 0) != (m.Sources != nil) {
					t.Errorf("event %d sources %s", i, m.Sources)
				}
				content.WriteString(m.Content)
			}
			if n := o200kCount(t, content.String()); n != tc.tokens {
				t.Errorf("content %q is %d tokens, want %d", content.String(), n, tc.tokens)
			}
		})
	}
	resp := post(t, s, "/rag/api/prompt", "", `{"query":"not a list"}`)
	if resp.StatusCode != 400 {
		t.Errorf("bad query: status %d", resp.StatusCode)
	}
	resp.Body.Close()
}
