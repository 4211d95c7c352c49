package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/internal/command"
)

// lockedBuffer is a bytes.Buffer safe to write and read concurrently.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestMockServerCommandServesUntilCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	var stdout, stderr lockedBuffer
	errc := make(chan error, 1)
	go func() {
		errc <- run(ctx, []string{"mock-server", "--port", "0", "--ttft", "0", "--itl", "0"}, &stdout, &stderr)
	}()
	var url string
	for deadline := time.Now().Add(10 * time.Second); url == "" && time.Now().Before(deadline); {
		if line, ok := strings.CutPrefix(stdout.String(), "mock server listening on "); ok {
			url = strings.TrimSpace(line)
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if !strings.HasPrefix(url, "http://127.0.0.1:") || strings.Count(stdout.String(), "\n") != 1 {
		cancel()
		t.Fatalf("stdout %q, stderr %q", stdout.String(), stderr.String())
	}
	resp, err := http.Post(url+"/v1/chat/completions", "application/json",
		strings.NewReader(`{"model":"m","messages":[{"role":"user","content":"hi"}],"max_tokens":2}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"completion_tokens":2`) {
		t.Errorf("status %d body %s", resp.StatusCode, body)
	}
	cancel()
	select {
	case err := <-errc:
		if err != nil {
			t.Errorf("run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("mock-server did not stop after cancel")
	}
}

func TestMockServerCommandServesTelemetry(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	var stdout, stderr lockedBuffer
	errc := make(chan error, 1)
	go func() {
		errc <- run(ctx, []string{"mock-server", "--port", "0", "--fake-gpus", "2", "--dcgm-address", "127.0.0.1:0",
			"--max-num-seqs", "8", "--num-gpu-blocks", "64"}, &stdout, &stderr)
	}()
	defer func() {
		cancel()
		if err := <-errc; err != nil {
			t.Errorf("run: %v", err)
		}
	}()
	var lines []string
	for deadline := time.Now().Add(10 * time.Second); len(lines) < 2 && time.Now().Before(deadline); {
		lines = strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
		time.Sleep(5 * time.Millisecond)
	}
	url, ok := strings.CutPrefix(lines[0], "mock server listening on ")
	dcgm, ok2 := strings.CutPrefix(lines[len(lines)-1], "fake DCGM exporter (2 GPUs) listening on ")
	if len(lines) != 2 || !ok || !ok2 || !strings.HasSuffix(dcgm, "/metrics") {
		t.Fatalf("stdout %q, stderr %q", stdout.String(), stderr.String())
	}
	get := func(u string) (string, http.Header) {
		t.Helper()
		resp, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			t.Fatalf("GET %s: %d %s", u, resp.StatusCode, body)
		}
		return string(body), resp.Header
	}
	body, h := get(url + "/version")
	if body != `{"version":"`+Version+`"}` || h.Get("Server") != "aiperf-mock/"+Version {
		t.Errorf("GET /version = %s with Server %q", body, h.Get("Server"))
	}
	body, _ = get(url + "/metrics")
	for _, want := range []string{"vllm:num_requests_running{", `num_gpu_blocks="64"`} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	for _, u := range []string{url + "/dcgm/metrics", dcgm} {
		if body, _ := get(u); !strings.Contains(body, `DCGM_FI_DEV_POWER_USAGE{gpu="1",`) {
			t.Errorf("%s lacks GPU 1's power:\n%s", u, body)
		}
	}
}

func TestMockServerCommandRejectsBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"mock-server", "--dcgm-address", "127.0.0.1:0"},
		{"mock-server", "--fake-gpus", "-1"},
		{"mock-server", "--max-num-seqs", "-1"},
		{"mock-server", "--error-rate", "2"},
		{"mock-server", "--ttft", "-1"},
		{"mock-server", "--bogus"},
		{"mock-server", "extra"},
	} {
		var stdout, stderr bytes.Buffer
		err := run(t.Context(), args, &stdout, &stderr)
		var ue *command.UsageError
		if !errors.As(err, &ue) {
			t.Errorf("%q: error %v, want a usage error", args, err)
		}
	}
}
