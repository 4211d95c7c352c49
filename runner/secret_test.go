package runner

import (
	"bytes"
	"context"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/aiperf-go/aiperf/internal/secret"
	"github.com/aiperf-go/aiperf/mockserver"
	"github.com/aiperf-go/aiperf/mockserver/mocktest"
)

// sentRequests is a transport that keeps a copy of every request it sends.
type sentRequests struct {
	mu    sync.Mutex
	urls  []string
	auth  []string
	bodys []string
}

func (s *sentRequests) RoundTrip(req *http.Request) (*http.Response, error) {
	body, err := io.ReadAll(req.Body)
	if err != nil {
		return nil, err
	}
	req.Body = io.NopCloser(bytes.NewReader(body))
	s.mu.Lock()
	s.urls = append(s.urls, req.URL.String())
	s.auth = append(s.auth, req.Header.Get("Authorization"))
	s.bodys = append(s.bodys, string(body))
	s.mu.Unlock()
	return http.DefaultTransport.RoundTrip(req)
}

// TestNoSecretInAnyShape runs against the mock server with a secret in
// every place one can be given and checks that none reaches a file of the
// run, its log or its console, while the requests still carry them all.
func TestNoSecretInAnyShape(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{})
	host := strings.TrimPrefix(srv.URL(), "http://")
	secrets := []string{"url-pass-S1", "query-key-S2", "nested-S3", "array-S4", "kv-nested-S5", "header-S6", "apikey-S7"}
	rawURL := "http://alice:url-pass-S1@" + host + "?api_key=query-key-S2"
	args := []string{"profile", "-m", "mock-model", "--url", rawURL,
		"--extra-inputs", `{"metadata":{"client":{"api_key":"nested-S3"}},"tools":[{"name":"t","token":"array-S4"}],"max_tokens":7}`,
		"--extra-inputs", `opts:{"password":"kv-nested-S5","top_k":2}`,
		"-HAuthorization: Bearer header-S6", "--api-key=apikey-S7"}
	cfg := testConfig(t, rawURL)
	cfg.ExtraInputs = []string{args[6], args[8]}
	cfg.Headers = []string{"Authorization: Bearer header-S6"}
	cfg.APIKey = "apikey-S7"
	cfg.RequestCount = 3
	cfg.CLICommand = ShellQuote(append([]string{"aiperf"}, secret.Args(args)...))
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr, logs bytes.Buffer
	sent := &sentRequests{}
	if _, err := Run(context.Background(), cfg, Options{Version: "test", Stdout: &stdout, Stderr: &stderr,
		Logger: newTestLogger(&logs), Transport: sent}); err != nil {
		t.Fatal(err)
	}

	for name, text := range map[string]string{"stdout": stdout.String(), "stderr": stderr.String(), "log": logs.String()} {
		for _, s := range secrets {
			if strings.Contains(text, s) {
				t.Errorf("%s holds %s:\n%s", name, s, text)
			}
		}
	}
	files := 0
	err := filepath.WalkDir(cfg.ArtifactDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files++
		for _, s := range secrets {
			if bytes.Contains(b, []byte(s)) {
				t.Errorf("%s holds %s", p, s)
			}
		}
		return nil
	})
	if err != nil || files < 5 {
		t.Fatalf("walked %d files: %v", files, err)
	}
	// What is stored keeps everything else, and says where a secret was.
	inputs, _ := os.ReadFile(filepath.Join(cfg.ArtifactDir, "inputs.json"))
	for _, want := range []string{`"max_tokens": 7`, `"top_k": 2`, `"name": "t"`, `"token": "<redacted>"`, `"password": "<redacted>"`} {
		if !strings.Contains(string(inputs), want) {
			t.Errorf("inputs.json lacks %s", want)
		}
	}
	summary, _ := os.ReadFile(filepath.Join(cfg.ArtifactDir, "profile_export_aiperf.json"))
	if strings.Contains(string(summary), "alice") || !strings.Contains(string(summary), "@"+host) {
		t.Errorf("summary lacks the redacted URL:\n%s", summary)
	}

	if len(sent.urls) == 0 {
		t.Fatal("no request sent")
	}
	for i, u := range sent.urls {
		if !strings.Contains(u, "alice:url-pass-S1@") || !strings.Contains(u, "api_key=query-key-S2") {
			t.Errorf("request %d went to %s, without the URL's credentials", i, u)
		}
		if sent.auth[i] == "" {
			t.Errorf("request %d has no Authorization", i)
		}
		for _, s := range []string{"nested-S3", "array-S4", "kv-nested-S5"} {
			if !strings.Contains(sent.bodys[i], s) {
				t.Errorf("request %d body lacks %s: %s", i, s, sent.bodys[i])
			}
		}
	}
}

// TestConfigErrorsHideSecrets checks that a refused --url or --extra-inputs
// is quoted with its secrets redacted.
func TestConfigErrorsHideSecrets(t *testing.T) {
	cfg := testConfig(t, "http://u:pw-S8@localhost:bad")
	cfg.ExtraInputs = []string{`{"api_key":"pw-S9", broken`}
	err := cfg.Validate()
	if err == nil {
		t.Fatal("accepted a bad URL and extra input")
	}
	msg := err.Error()
	if strings.Contains(msg, "pw-S8") || strings.Contains(msg, "pw-S9") || !strings.Contains(msg, "--url") || !strings.Contains(msg, "--extra-inputs") {
		t.Fatalf("error %s", msg)
	}
}
