package mockserver

import (
	"bufio"
	"io"
	"strings"
	"testing"

	ep "github.com/aiperf-go/aiperf/endpoint"
	"github.com/aiperf-go/aiperf/record"
)

// framedCase is one request to a framed route and the token counts the
// endpoint type's parser must find in the answer.
type framedCase struct {
	name, endpoint, path, body string
	stream                     bool
	reasoning, content         int // tokens
	prompt                     int // usage prompt tokens; -1: no usage expected
	completion                 int // usage completion tokens; -1: none
}

func TestFramedRoutes(t *testing.T) {
	s := startServer(t, Config{ReasoningTokens: 3, OutputTokens: 5, TokensPerChunk: 2})
	prompt := o200kCount(t, "be brief hello world")
	cases := []framedCase{
		{"tgi", "huggingface_generate", "/generate", `{"inputs":"be brief hello world","parameters":{"max_new_tokens":7}}`,
			false, 0, 7, -1, -1},
		{"tgi stream", "huggingface_generate", "/generate_stream", `{"inputs":"be brief hello world","parameters":{"max_new_tokens":7}}`,
			true, 0, 7, -1, 7},
		{"tgi default length", "huggingface_generate", "/generate_stream", `{"inputs":"x","parameters":{}}`,
			true, 0, 5, -1, 5},
		{"responses", "responses", "/v1/responses",
			`{"input":[{"role":"user","content":[{"type":"input_text","text":"hello"},{"type":"input_text","text":"world"}],"type":"message"}],"model":"m","stream":false,"instructions":"be brief","max_output_tokens":9}`,
			false, 3, 6, prompt, 9},
		{"responses stream", "responses", "/v1/responses",
			`{"input":[{"type":"message","role":"user","content":"hello world"}],"model":"m","stream":true,"instructions":"be brief","max_output_tokens":9}`,
			true, 3, 6, prompt, 9},
		{"responses stream no limit", "responses", "/v1/responses",
			`{"input":"hello world","model":"m","stream":true}`, true, 3, 5, o200kCount(t, "hello world"), 8},
		{"messages", "messages", "/v1/messages",
			`{"model":"m","messages":[{"role":"user","content":"hello world"}],"max_tokens":4,"system":"be brief"}`,
			false, 3, 1, prompt, 4},
		{"messages stream", "messages", "/v1/messages",
			`{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"hello"},{"type":"text","text":"world"}]}],"max_tokens":10,"stream":true,"system":"be brief"}`,
			true, 3, 7, prompt, 10},
		{"messages stream reasoning only", "messages", "/v1/messages",
			`{"model":"m","messages":[{"role":"user","content":"x"}],"max_tokens":2,"stream":true}`,
			true, 2, 0, o200kCount(t, "x"), 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp := post(t, s, tc.path, "", tc.body)
			if resp.StatusCode != 200 {
				t.Fatalf("status %d: %s", resp.StatusCode, readAll(t, resp.Body))
			}
			if got := resp.Header.Get("Content-Type") == "text/event-stream"; got != tc.stream {
				t.Fatalf("streamed %v, want %v", got, tc.stream)
			}
			e, err := ep.Lookup(tc.endpoint)
			if err != nil {
				t.Fatal(err)
			}
			var rs []record.Response
			var st ep.Stream
			for _, data := range framedEvents(t, resp.Body, tc.stream) {
				r, ok, err := e.ParseStream(&st, []byte(data))
				if err != nil {
					t.Fatalf("parse %s: %v", data, err)
				}
				if ok {
					rs = append(rs, r)
				}
			}
			var text, reasoning strings.Builder
			var u record.Usage
			for _, r := range rs {
				text.WriteString(r.Text)
				reasoning.WriteString(r.Reasoning)
				if r.Usage != nil {
					if r.Usage.PromptTokens != nil {
						u.PromptTokens = r.Usage.PromptTokens
					}
					if r.Usage.CompletionTokens != nil {
						u.CompletionTokens = r.Usage.CompletionTokens
					}
				}
			}
			if n := o200kCount(t, text.String()); n != tc.content {
				t.Errorf("content %q: %d tokens, want %d", text.String(), n, tc.content)
			}
			if n := o200kCount(t, reasoning.String()); n != tc.reasoning {
				t.Errorf("reasoning %q: %d tokens, want %d", reasoning.String(), n, tc.reasoning)
			}
			checkCount(t, "prompt", u.PromptTokens, tc.prompt)
			checkCount(t, "completion", u.CompletionTokens, tc.completion)
		})
	}
}

func checkCount(t *testing.T, what string, got *int64, want int) {
	t.Helper()
	switch {
	case want < 0 && got != nil:
		t.Errorf("%s tokens %d, want none", what, *got)
	case want >= 0 && (got == nil || *got != int64(want)):
		t.Errorf("%s tokens %v, want %d", what, got, want)
	}
}

// framedEvents returns the data of each SSE event ("data:" with or
// without a space, as TGI writes it), or the whole body.
func framedEvents(t *testing.T, r io.Reader, stream bool) []string {
	t.Helper()
	if !stream {
		return []string{string(readAll(t, r))}
	}
	var events []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data:"); ok {
			events = append(events, strings.TrimPrefix(data, " "))
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return events
}

func TestFramedBadRequests(t *testing.T) {
	s := startServer(t, Config{})
	for _, tc := range []struct{ path, body string }{
		{"/generate", `{"parameters":{}}`},
		{"/generate_stream", `{"inputs":"x","parameters":{"max_new_tokens":-1}}`},
		{"/v1/responses", `{"input":{"x":1}}`},
		{"/v1/messages", `{"model":"m","messages":[{"role":"user","content":"x"}]}`},
	} {
		if resp := post(t, s, tc.path, "", tc.body); resp.StatusCode != 400 {
			t.Errorf("%s %s: status %d, want 400", tc.path, tc.body, resp.StatusCode)
		}
	}
}

// BenchmarkFramedStreaming is BenchmarkStreaming for each framed API:
// requests of 256 tokens, one per chunk; token events/s is the rate.
func BenchmarkFramedStreaming(b *testing.B) {
	const tokens = 256
	for _, bc := range []struct{ name, path, body string }{
		{"chat", "/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"hi"}],"max_tokens":256,"stream":true}`},
		{"huggingface_generate", "/generate_stream", `{"inputs":"hi","parameters":{"max_new_tokens":256}}`},
		{"responses", "/v1/responses", `{"input":[{"role":"user","content":"hi","type":"message"}],"model":"m","stream":true,"max_output_tokens":256}`},
		{"messages", "/v1/messages", `{"model":"m","messages":[{"role":"user","content":"hi"}],"max_tokens":256,"stream":true}`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			s := startServer(b, Config{})
			client := benchClient()
			url := s.URL() + bc.path
			b.SetParallelism(4)
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					resp, err := client.Post(url, "application/json", strings.NewReader(bc.body))
					if err != nil {
						b.Error(err)
						return
					}
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			})
			b.ReportMetric(float64(b.N)*tokens/b.Elapsed().Seconds(), "tokens/s")
		})
	}
}
