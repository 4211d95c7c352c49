package mockserver

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// exposition matches the lines of the Prometheus text format 0.0.4 that
// the server writes: HELP, TYPE, and samples with optional labels.
var exposition = regexp.MustCompile(`^(# HELP [a-zA-Z_:][a-zA-Z0-9_:]* .+|# TYPE [a-zA-Z_:][a-zA-Z0-9_:]* (counter|gauge|histogram)|[a-zA-Z_:][a-zA-Z0-9_:]*(\{[a-zA-Z_][a-zA-Z0-9_]*="[^"\\]*"(,[a-zA-Z_][a-zA-Z0-9_]*="[^"\\]*")*\})? (\+Inf|-?[0-9.eE+-]+))$`)

func TestMetrics(t *testing.T) {
	s := startServer(t, Config{ReasoningTokens: 2, StallRate: 1, StallDuration: 1})
	for _, body := range []string{
		`{"messages":[{"role":"user","content":"hello world"}],"max_tokens":5,"stream":true}`,
		`{"messages":[{"role":"user","content":"hello world"}],"max_tokens":5}`,
	} {
		resp := post(t, s, "/v1/chat/completions", "", body)
		readAll(t, resp.Body)
	}
	resp := post(t, s, "/v1/completions", "", `{"prompt":[1,2,3],"max_tokens":4}`)
	readAll(t, resp.Body)

	r, err := http.Get(s.URL() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
		t.Errorf("Content-Type %q", ct)
	}
	text := string(readAll(t, r.Body))
	for i, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		if !exposition.MatchString(line) {
			t.Errorf("line %d is not valid exposition format: %q", i+1, line)
		}
	}
	// 2 prompts of "hello world" (2 tokens each) and 3 token ids; content 3+3+4,
	// reasoning 2+2; 3 stalls; one streaming TTFT observation.
	for _, want := range []string{
		`mock_requests_total{endpoint="chat"} 2`,
		`mock_requests_total{endpoint="completions"} 1`,
		`mock_requests_total{endpoint="embeddings"} 0`,
		`mock_faults_injected_total{fault="stall"} 3`,
		`mock_prompt_tokens_total 7`,
		`mock_generated_tokens_total{kind="content"} 10`,
		`mock_generated_tokens_total{kind="reasoning"} 4`,
		`mock_requests_in_flight 0`,
		`mock_time_to_first_token_seconds_bucket{le="+Inf"} 1`,
		`mock_time_to_first_token_seconds_count 1`,
	} {
		if !strings.Contains(text, want+"\n") {
			t.Errorf("metrics lack %q:\n%s", want, text)
		}
	}
}
