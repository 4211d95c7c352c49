package runner

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/mockserver"
	"github.com/aiperf-go/aiperf/mockserver/mocktest"
	"github.com/aiperf-go/aiperf/sink"
)

func TestValidateThresholds(t *testing.T) {
	cfg := Defaults()
	cfg.Models = []string{"m"}
	cfg.Thresholds = []string{"time_to_first_token.p99<300", "ttft<1", "request_latency.p98<1", "error_request_count<one"}
	var ce *ConfigError
	if err := cfg.Validate(); !errors.As(err, &ce) || len(ce.Problems) != 3 {
		t.Fatalf("err %v", err)
	}
	for i, want := range []string{`--threshold "ttft<1": unknown metric tag "ttft"`, `--threshold "request_latency.p98<1": unknown stat "p98"`, `--threshold "error_request_count<one": threshold is not a number`} {
		if !strings.HasPrefix(ce.Problems[i], want) || !strings.Contains(ce.Problems[i], "ms for latencies") {
			t.Errorf("problem %q, want %q…", ce.Problems[i], want)
		}
	}
	cfg.Thresholds = cfg.Thresholds[:1]
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
}

// storedRunFile reads a file of the only run under dir; nil when missing.
func storedRunFile(t *testing.T, dir, name string) []byte {
	t.Helper()
	runs, _ := filepath.Glob(filepath.Join(dir, "runs", "*"))
	if len(runs) != 1 {
		t.Fatalf("runs %v", runs)
	}
	b, _ := os.ReadFile(filepath.Join(runs[0], name))
	return b
}

func TestRunWithoutThresholdsStoresNoVerdict(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{})
	cfg := testConfig(t, srv.URL())
	cfg.RequestCount = 2
	res := runOK(t, cfg)
	if res.Verdict != nil || storedRunFile(t, cfg.ArtifactDir, "verdict.json") != nil {
		t.Fatalf("verdict %+v", res.Verdict)
	}
}

// TestInterruptedRunStoresVerdict: an interrupted run is still judged: its
// verdict.json says so, beside the partial results.
func TestInterruptedRunStoresVerdict(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{ITL: time.Second, OutputTokens: 60, RecordTimelines: true})
	cfg := testConfig(t, srv.URL())
	cfg.Streaming = true
	cfg.Concurrency = 2
	cfg.RequestCount = 100
	cfg.Thresholds = []string{"error_request_count<1", "request_count>=0"}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type outcome struct {
		res *Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := Run(ctx, cfg, Options{})
		done <- outcome{res, err}
	}()
	waitArrived(t, srv, 2)
	cancel()
	out := <-done
	res, err := out.res, out.err
	if !errors.Is(err, ErrInterrupted) || res == nil || res.Verdict == nil {
		t.Fatalf("err %v res %+v", err, res)
	}
	v := res.Verdict
	if v.Pass || v.Failed != 1 || v.RunStatus != sink.StatusInterrupted || !v.Checks[1].Pass {
		t.Fatalf("verdict %+v", v)
	}
	var stored struct {
		RunStatus string `json:"run_status"`
		Failed    int    `json:"failed"`
	}
	if err := json.Unmarshal(storedRunFile(t, cfg.ArtifactDir, "verdict.json"), &stored); err != nil || stored.RunStatus != "interrupted" || stored.Failed != 1 {
		t.Fatalf("verdict.json %+v %v", stored, err)
	}
}
