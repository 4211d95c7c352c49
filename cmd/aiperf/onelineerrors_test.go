package main

import (
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// assertOneErrorLine runs the CLI with args and asserts that it fails with
// exit status 1 and that its stderr is exactly one line, "aiperf: …",
// containing want: the failure printed once, not also logged.
func assertOneErrorLine(t *testing.T, want string, args ...string) {
	t.Helper()
	code, _, stderr := runCLI(t, args...)
	if code != exitFailed {
		t.Errorf("exit %d, want %d; stderr:\n%s", code, exitFailed, stderr)
	}
	lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n")
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "aiperf: ") || !strings.Contains(lines[0], want) {
		t.Errorf("stderr has %d lines, want one \"aiperf: …%s…\":\n%s", len(lines), want, stderr)
	}
}

// failingServer answers every request with a 500.
func failingServer(t *testing.T) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "boom", http.StatusInternalServerError)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestEachFailureIsOneLine runs the real CLI into failures that end a run
// after it started, and asserts each is printed once on stderr.
func TestEachFailureIsOneLine(t *testing.T) {
	t.Setenv("HF_HUB_OFFLINE", "1")
	profile := func(t *testing.T, url string, args ...string) []string {
		return append([]string{"profile", "-m", "x", "--url", url, "--tokenizer", "builtin", "--ui-type", "none",
			"--spool-dir", t.TempDir(), "--no-server-metrics"}, args...)
	}
	t.Run("unreachable server", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		dead := "http://" + ln.Addr().String()
		ln.Close()
		assertOneErrorLine(t, "cannot reach the server", profile(t, dead, "--artifact-dir", t.TempDir(), "--request-count", "3")...)
	})
	t.Run("store that cannot be written", func(t *testing.T) {
		blocker := filepath.Join(t.TempDir(), "file")
		if err := os.WriteFile(blocker, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		assertOneErrorLine(t, "artifact dir", profile(t, failingServer(t), "--artifact-dir", filepath.Join(blocker, "store"), "--request-count", "3")...)
	})
	t.Run("all requests failing", func(t *testing.T) {
		assertOneErrorLine(t, "every request failed", profile(t, failingServer(t), "--artifact-dir", t.TempDir(), "--request-count", "20")...)
	})
	t.Run("all requests failing until the target is declared down", func(t *testing.T) {
		assertOneErrorLine(t, "target down", profile(t, failingServer(t), "--artifact-dir", t.TempDir(),
			"--benchmark-duration", "30", "--failure-window", "0.5", "--concurrency", "1")...)
	})
}
