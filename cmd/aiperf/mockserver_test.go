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

func TestMockServerCommandRejectsBadFlags(t *testing.T) {
	for _, args := range [][]string{
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
