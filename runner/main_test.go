package runner

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/mockserver"
)

// mockEnv, when set, makes the test binary serve as a mock server in its own
// process (configured by the JSON of a mockserver.Config) until its stdin
// closes. Timing tests use it so that the server does not share the client's
// Go scheduler, as a real inference server does not.
const mockEnv = "AIPERF_TEST_MOCK_CONFIG"

// runEnv, when set, makes the test binary run one benchmark (configured by
// the JSON of a Config) in its own process, so a test can kill it.
const runEnv = "AIPERF_TEST_RUN_CONFIG"

func TestMain(m *testing.M) {
	if js := os.Getenv(mockEnv); js != "" {
		os.Exit(serveMockProcess(js))
	}
	if js := os.Getenv(runEnv); js != "" {
		os.Exit(runProcess(js))
	}
	if parkAlways {
		parkOpen = 0 // every request that waits parks (see flight.read)
	}
	os.Exit(m.Run())
}

// parkAlways makes every waiting request park, so that the tests go through
// parked turns whatever their concurrency. The timing tests turn it off
// (timing_test.go): they measure what a run of their size does, which parks
// nothing under parkOpen.
var parkAlways = true

func runProcess(js string) int {
	var cfg Config
	if err := json.Unmarshal([]byte(js), &cfg); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	if _, err := Run(context.Background(), &cfg, Options{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

func serveMockProcess(js string) int {
	var cfg mockserver.Config
	if err := json.Unmarshal([]byte(js), &cfg); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	cfg.Addr = "127.0.0.1:0"
	srv, err := mockserver.New(cfg)
	if err == nil {
		err = srv.Start(context.Background())
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println(srv.URL())
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n') // parent closes stdin to stop us
	_ = srv.Close()
	return 0
}

// startMockProcess runs a mock server in a child process and returns its URL.
func startMockProcess(t *testing.T, cfg mockserver.Config) string { return startMockProcessTB(t, cfg) }

// startMockProcessTB is startMockProcess for tests and benchmarks.
func startMockProcessTB(t testing.TB, cfg mockserver.Config) string {
	t.Helper()
	js, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), mockEnv+"="+string(js))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("mock process: %v", err)
	}
	return strings.TrimSpace(line)
}
