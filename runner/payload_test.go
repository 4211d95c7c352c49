package runner

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sync"
	"testing"

	"github.com/aiperf-go/aiperf/mockserver"
)

// bodyRecorder serves the mock server's answers and keeps the body of
// every POST it received (the inference requests; a run also GETs the
// server's metrics), in arrival order.
type bodyRecorder struct {
	mu     sync.Mutex
	bodies [][]byte
}

func (b *bodyRecorder) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.Method == http.MethodPost {
			b.mu.Lock()
			b.bodies = append(b.bodies, body)
			b.mu.Unlock()
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		h.ServeHTTP(w, r)
	})
}

// TestPayloadInputFile: --input-file payload:FILE (GenAI-Perf's payload
// input) sends each line once, on the fixed schedule its timestamps give:
// a line without a prompt field as its own body (the line without
// timestamp), a line with text as the endpoint's body for that text with
// output_length as max_tokens and the line's other members merged in.
func TestPayloadInputFile(t *testing.T) {
	ms, err := mockserver.New(mockserver.Config{OutputTokens: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ms.Close() })
	rec := &bodyRecorder{}
	srv := httptest.NewServer(rec.wrap(ms.Handler()))
	t.Cleanup(srv.Close)
	cfg := testConfig(t, srv.URL)
	cfg.InputFile = "payload:" + writeFile(t, "payload.jsonl",
		`{"timestamp": 0, "messages": [{"role": "user", "content": "first"}], "model": "mock-model", "max_tokens": 2}
{"timestamp": 30, "model": "mock-model", "messages": [{"role": "user", "content": "second"}], "temperature": 0.1, "stream": false}
{"timestamp": 60, "text": "third", "output_length": 3, "top_k": 5}
`)
	runOK(t, cfg)
	if n := len(readRecords(t, cfg.ArtifactDir)); n != 3 {
		t.Fatalf("%d records, want one per line", n)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.bodies) != 3 {
		t.Fatalf("%d requests, want 3", len(rec.bodies))
	}
	byContent := map[string]map[string]any{}
	for _, b := range rec.bodies {
		var body map[string]any
		if err := json.Unmarshal(b, &body); err != nil {
			t.Fatalf("body %s: %v", b, err)
		}
		msgs, _ := body["messages"].([]any)
		if len(msgs) != 1 {
			t.Fatalf("body %s: want one message", b)
		}
		byContent[msgs[0].(map[string]any)["content"].(string)] = body
	}
	msg := func(s string) []any { return []any{map[string]any{"role": "user", "content": s}} }
	for content, want := range map[string]map[string]any{
		"first":  {"messages": msg("first"), "model": "mock-model", "max_tokens": 2.0},
		"second": {"model": "mock-model", "messages": msg("second"), "temperature": 0.1, "stream": false},
	} {
		if got := byContent[content]; !reflect.DeepEqual(got, want) {
			t.Errorf("body of %q: %v, want the line as given %v", content, got, want)
		}
	}
	third := byContent["third"]
	// Chat sends max_completion_tokens, as AIPerf (--use-legacy-max-tokens
	// for max_tokens).
	if third["max_completion_tokens"] != 3.0 || third["top_k"] != 5.0 || third["model"] != "mock-model" {
		t.Errorf("body of the text line: %v, want max_completion_tokens 3, top_k 5, model mock-model", third)
	}
}
