package main

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// buildAiperf builds the real binary once per test run.
func buildAiperf(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := filepath.Join(t.TempDir(), "aiperf")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// startMockServer runs `aiperf mock-server` with flags on a free port and
// returns its URL.
func startMockServer(t *testing.T, bin string, flags ...string) string {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"mock-server", "--port", "0"}, flags...)...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("mock server: %v", err)
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	return strings.TrimSpace(strings.TrimPrefix(line, "mock server listening on "))
}

// serverRunning reads the requests the mock server is answering now.
func serverRunning(t *testing.T, url string) int {
	resp, err := http.Get(url + "/metrics")
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	m := regexp.MustCompile(`(?m)^vllm:num_requests_running\{[^}]*\} (\d+)`).FindSubmatch(b)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(string(m[1]))
	return n
}

// syncBuffer is a bytes.Buffer a process writes while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestSignalsAsOrchestratorsSendThem runs the real `aiperf profile`
// against `aiperf mock-server`: SIGTERM mid-run exits 143 within
// --shutdown-grace + 1 s, with the in-flight requests recorded as
// cancelled and the run stored as interrupted; with the store down, a
// second SIGINT during the shutdown's store retries exits 130 at once,
// before the shutdown grace is over.
func TestSignalsAsOrchestratorsSendThem(t *testing.T) {
	bin := buildAiperf(t)
	// A minute per answer: the requests are in flight when the signal comes.
	url := startMockServer(t, bin, "--ttft", "1", "--itl", "1000", "--output-tokens", "60")
	const workers, grace = 2, 2 * time.Second
	for _, tc := range []struct {
		name      string
		signals   []os.Signal
		storeDown bool
		code      int
	}{
		{"SIGTERM", []os.Signal{syscall.SIGTERM}, false, 143},
		{"SIGTERM, store down", []os.Signal{syscall.SIGTERM}, true, 143},
		{"SIGINT twice, store down", []os.Signal{os.Interrupt, os.Interrupt}, true, 130},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			cmd := exec.Command(bin, "profile", "-m", "mock-model", "--url", url, "--streaming",
				"--concurrency", strconv.Itoa(workers), "--request-count", "1000", "--ui-type", "none",
				"--no-server-metrics", "--artifact-dir", dir, "--spool-dir", t.TempDir(),
				"--shutdown-grace", strconv.Itoa(int(grace.Seconds())))
			cmd.Env = append(os.Environ(), "HF_HUB_OFFLINE=1")
			var stdout, stderr syncBuffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			// The server answers nothing for a minute: wait until it has
			// every worker's request.
			base := serverRunning(t, url)
			for deadline := time.Now().Add(30 * time.Second); serverRunning(t, url) < base+workers; {
				if time.Now().After(deadline) {
					_ = cmd.Process.Kill()
					t.Fatalf("requests never arrived; stderr:\n%s", stderr.String())
				}
				time.Sleep(20 * time.Millisecond)
			}
			if tc.storeDown {
				// The store goes down (its directory becomes a file): the
				// shutdown retries for the whole grace unless cut short.
				if err := os.Rename(dir, dir+".gone"); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(dir, nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			var signalled time.Time
			for i, s := range tc.signals {
				if i > 0 {
					// The second signal once the first was taken.
					for deadline := time.Now().Add(grace); !strings.Contains(stderr.String(), "stopping"); {
						if time.Now().After(deadline) {
							t.Fatalf("the first signal was not taken; stderr:\n%s", stderr.String())
						}
						time.Sleep(5 * time.Millisecond)
					}
				}
				signalled = time.Now()
				if err := cmd.Process.Signal(s); err != nil {
					t.Fatal(err)
				}
			}
			var err error
			select {
			case err = <-done:
			case <-time.After(grace + 10*time.Second):
				_ = cmd.Process.Kill()
				t.Fatalf("still running %v after %s", grace+10*time.Second, tc.name)
			}
			took := time.Since(signalled)
			t.Logf("%s: exited %v after the signal (--shutdown-grace %v)", tc.name, took, grace)
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != tc.code {
				t.Fatalf("exit %v, want status %d; stderr:\n%s", err, tc.code, stderr.String())
			}
			if took > grace+time.Second {
				t.Errorf("exited %v after the signal, want < shutdown grace %v + 1 s", took, grace)
			}
			if len(tc.signals) > 1 {
				// At once: not after the store retries the grace allows.
				if took >= grace || !strings.Contains(stderr.String(), "exiting at once") {
					t.Errorf("exited %v after the second signal (grace %v); stderr:\n%s", took, grace, stderr.String())
				}
				return
			}
			if tc.storeDown {
				// Retried until the grace ended; the records are spooled.
				if !strings.Contains(stderr.String(), "local spool") {
					t.Errorf("stderr names no spool file:\n%s", stderr.String())
				}
				return
			}
			// Every request the server had was recorded, as cancelled.
			records, _ := os.ReadFile(filepath.Join(dir, "profile_export.jsonl"))
			lines := strings.Split(strings.TrimSpace(string(records)), "\n")
			if len(lines) != workers || strings.Count(string(records), `"type":"CancelledError"`) != workers ||
				strings.Count(string(records), `"was_cancelled":true`) != workers {
				t.Errorf("records, want %d cancelled:\n%s", workers, records)
			}
			manifests, _ := filepath.Glob(filepath.Join(dir, "runs", "*", "manifest.json"))
			if len(manifests) != 1 {
				t.Fatalf("manifests %v", manifests)
			}
			m, _ := os.ReadFile(manifests[0])
			if !strings.Contains(string(m), `"status": "interrupted"`) {
				t.Errorf("manifest:\n%s", m)
			}
			for _, want := range []string{"received SIGTERM", "partial results stored in " + dir} {
				if !strings.Contains(stderr.String(), want) {
					t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
				}
			}
		})
	}
}
