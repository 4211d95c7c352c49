package mockserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// startServer starts a server for cfg on a free local port and closes it
// when the test ends.
func startServer(t testing.TB, cfg Config) *Server {
	t.Helper()
	cfg.Addr = "127.0.0.1:0"
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return s
}

// post sends body as JSON to path with an optional X-Request-ID.
func post(t testing.TB, s *Server, path, requestID, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, s.URL()+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if requestID != "" {
		req.Header.Set("X-Request-ID", requestID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// readSSE returns the data payloads of resp's events, in order, and the
// error that ended the stream early, if any.
func readSSE(resp *http.Response) ([]string, error) {
	var events []string
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if data, ok := strings.CutPrefix(line, "data: "); ok {
			events = append(events, data)
		}
	}
	return events, sc.Err()
}

// decode unmarshals data into a generic JSON map.
func decode(t testing.TB, data []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("invalid JSON %q: %v", data, err)
	}
	return m
}

func readAll(t testing.TB, r io.Reader) []byte {
	t.Helper()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestHealthAndModels(t *testing.T) {
	s := startServer(t, Config{})
	for _, tc := range []struct{ path, want string }{
		{"/health", `{"status":"ok"}`},
		{"/v1/models", `"id":"mock-model"`},
	} {
		resp, err := http.Get(s.URL() + tc.path)
		if err != nil {
			t.Fatal(err)
		}
		body := readAll(t, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !bytes.Contains(body, []byte(tc.want)) {
			t.Errorf("GET %s = %d %s, want 200 containing %s", tc.path, resp.StatusCode, body, tc.want)
		}
		decode(t, body)
	}
}

func TestRouting(t *testing.T) {
	s := startServer(t, Config{})
	for _, tc := range []struct {
		method, path string
		want         int
	}{
		{http.MethodGet, "/v1/chat/completions", http.StatusMethodNotAllowed},
		{http.MethodPost, "/v1/nope", http.StatusNotFound},
		{http.MethodPost, "/health", http.StatusMethodNotAllowed},
	} {
		req, _ := http.NewRequest(tc.method, s.URL()+tc.path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("%s %s = %d, want %d", tc.method, tc.path, resp.StatusCode, tc.want)
		}
	}
}

func TestBadRequests(t *testing.T) {
	s := startServer(t, Config{})
	for _, tc := range []struct{ path, body string }{
		{"/v1/chat/completions", `{not json`},
		{"/v1/chat/completions", `{"messages":[],"max_tokens":-1}`},
		{"/v1/completions", `{"prompt":{"a":1}}`},
		{"/v1/embeddings", `{"model":"m"}`},
		{"/v1/embeddings", `{"input":"x","dimensions":100000}`},
	} {
		resp := post(t, s, tc.path, "", tc.body)
		body := readAll(t, resp.Body)
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%s %s = %d, want 400", tc.path, tc.body, resp.StatusCode)
		}
		if m := decode(t, body); m["error"] == nil {
			t.Errorf("%s %s: body %s has no error", tc.path, tc.body, body)
		}
	}
}

func TestNewRejectsInvalidConfig(t *testing.T) {
	for _, cfg := range []Config{
		{TTFT: -time.Millisecond},
		{ITLStddev: -1},
		{TokensPerChunk: -1},
		{ErrorRate: 1.5},
		{ResetRate: -0.1},
		{ErrorStatus: 42},
		{EmbeddingDims: maxEmbeddingDims + 1},
		{MaxNumSeqs: -1},
		{BlockSize: -16},
		{NumGPUBlocks: -1},
		{MaxModelLen: -1},
		{FakeGPUs: -1},
		{FakeGPUs: maxFakeGPUs + 1},
		{DCGMAddr: "127.0.0.1:9401"}, // without fake GPUs
		{Version: "1.0 beta"},
		{Version: `1"`},
	} {
		if _, err := New(cfg); err == nil {
			t.Errorf("New(%+v) succeeded, want an error", cfg)
		}
	}
}

func TestStartCloseLifecycle(t *testing.T) {
	s, err := New(Config{Addr: "127.0.0.1:0", EstimatePromptTokens: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Addr(); got != "127.0.0.1:0" {
		t.Errorf("Addr before Start = %q", got)
	}
	if err := s.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(s.Addr(), ":0") || !strings.HasPrefix(s.URL(), "http://127.0.0.1:") {
		t.Errorf("Addr = %q, URL = %q: want the actual port", s.Addr(), s.URL())
	}
	if err := s.Start(t.Context()); err == nil {
		t.Error("second Start succeeded")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, err := http.Get(s.URL() + "/health"); err == nil {
		t.Error("server still answers after Close")
	}
}

func TestStartStopsWhenContextDone(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	s, err := New(Config{Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestCloseAbortsSlowStreams checks that Close does not wait for scripted
// delays: a stream due to last a minute ends at once.
func TestCloseAbortsSlowStreams(t *testing.T) {
	s, err := New(Config{Addr: "127.0.0.1:0", TTFT: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() {
		resp, err := http.Post(s.URL()+"/v1/chat/completions", "application/json",
			strings.NewReader(`{"model":"m","messages":[{"role":"user","content":"hi"}],"stream":true}`))
		if err == nil {
			_, err = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		errc <- err
	}()
	for s.m.inFlight.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	start := time.Now()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	<-errc
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Close took %v", d)
	}
}

// TestHandlerWithoutStart serves through a caller's own server.
func TestHandlerWithoutStart(t *testing.T) {
	s, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	resp, err := http.Post(ts.URL+"/v1/completions", "application/json", strings.NewReader(`{"model":"m","prompt":"hi","max_tokens":3}`))
	if err != nil {
		t.Fatal(err)
	}
	body := readAll(t, resp.Body)
	resp.Body.Close()
	if m := decode(t, body); resp.StatusCode != 200 || m["object"] != "text_completion" {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/v1/completions", strings.NewReader(`{}`)))
	if rec.Code != http.StatusServiceUnavailable {
		t.Errorf("after Close: status %d, want 503", rec.Code)
	}
}
