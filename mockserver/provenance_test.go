package mockserver

import (
	"net/http"
	"strings"
	"testing"
)

func TestProvenance(t *testing.T) {
	for _, tc := range []struct {
		version, wantHeader, wantBody string
	}{
		{"", "aiperf-mock/dev", `{"version":"dev"}`},
		{"v1.2.3-rc.1+abc", "aiperf-mock/v1.2.3-rc.1+abc", `{"version":"v1.2.3-rc.1+abc"}`},
	} {
		s := startServer(t, Config{Version: tc.version, FakeGPUs: 1})
		for _, r := range []struct{ method, path, body string }{
			{http.MethodGet, "/version", ""},
			{http.MethodGet, "/v1/models", ""},
			{http.MethodGet, "/health", ""},
			{http.MethodGet, "/metrics", ""},
			{http.MethodGet, "/dcgm/metrics", ""},
			{http.MethodGet, "/nope", ""},
			{http.MethodPost, "/v1/chat/completions", `{"messages":[{"role":"user","content":"hi"}],"max_tokens":2}`},
			{http.MethodPost, "/v1/chat/completions", `{"messages":[{"role":"user","content":"hi"}],"max_tokens":2,"stream":true}`},
			{http.MethodPost, "/v1/embeddings", `{"input":"hi"}`},
			{http.MethodPost, "/v1/completions", `{not json`},
		} {
			req, err := http.NewRequest(r.method, s.URL()+r.path, strings.NewReader(r.body))
			if err != nil {
				t.Fatal(err)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body := readAll(t, resp.Body)
			resp.Body.Close()
			if got := resp.Header.Get("Server"); got != tc.wantHeader {
				t.Errorf("%s %s: Server %q, want %q", r.method, r.path, got, tc.wantHeader)
			}
			if r.path == "/version" {
				if string(body) != tc.wantBody || resp.Header.Get("Content-Type") != "application/json" {
					t.Errorf("GET /version = %s (%s), want %s", body, resp.Header.Get("Content-Type"), tc.wantBody)
				}
				decode(t, body)
			}
		}
	}
}
