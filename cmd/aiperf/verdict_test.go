package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/mockserver"
	"github.com/aiperf-go/aiperf/mockserver/mocktest"
)

// TestThresholdErrorsExitTwoBeforeAnyRequest: a bad --threshold is refused
// with exit 2, one message naming the flag and the valid choices, and no
// request sent.
func TestThresholdErrorsExitTwoBeforeAnyRequest(t *testing.T) {
	srv, hits := countingServer(t)
	base := []string{"profile", "-m", "x", "--url", srv.URL, "--ui-type", "none", "--artifact-dir", t.TempDir()}
	for _, tt := range []struct {
		name, threshold string
		want            []string
	}{
		{"unknown tag", "ttft.p99<300", []string{`--threshold "ttft.p99<300": unknown metric tag "ttft": use one of`, "time_to_first_token", "error_request_count"}},
		{"unknown stat", "time_to_first_token.p98<300", []string{`unknown stat "p98"`, "avg, min, max, std, p1, p5, p10, p25, p50, p75, p90, p95, p99"}},
		{"stat of a single value", "request_throughput.p99>5", []string{"request_throughput is a single value"}},
		{"bad comparator", "time_to_first_token.p99=300", []string{"bad comparator", "<, <=, >, >=, ==, !="}},
		{"no comparator", "time_to_first_token.p99", []string{"bad comparator"}},
		{"not a number", "time_to_first_token.p99<fast", []string{`threshold is not a number: "fast"`, "ms"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, append(slices.Clone(base), "--threshold", tt.threshold)...)
			if code != exitUsage {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, exitUsage, stderr)
			}
			for _, w := range append(tt.want, "display unit") {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
		})
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("%d requests sent", n)
	}
}

// TestThresholdsFromEnv: AIPERF_THRESHOLD holds several, comma-separated,
// as the other repeatable flags do.
func TestThresholdsFromEnv(t *testing.T) {
	t.Setenv("AIPERF_THRESHOLD", "time_to_first_token.p99<300, request_throughput.avg>50,error_request_count<1")
	cfg, err := parseProfile([]string{"-m", "x"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"time_to_first_token.p99<300", "request_throughput.avg>50", "error_request_count<1"}
	if !slices.Equal(cfg.Thresholds, want) {
		t.Fatalf("thresholds %q", cfg.Thresholds)
	}
}

// storedVerdict reads the verdict.json of the only run under dir, and
// checks that the run's manifest lists it.
func storedVerdict(t *testing.T, dir string) map[string]any {
	t.Helper()
	runs, _ := filepath.Glob(filepath.Join(dir, "runs", "*"))
	if len(runs) != 1 {
		t.Fatalf("runs %v", runs)
	}
	b, err := os.ReadFile(filepath.Join(runs[0], "verdict.json"))
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	m, _ := os.ReadFile(filepath.Join(runs[0], "manifest.json"))
	if !strings.Contains(string(m), `"name": "verdict.json"`) {
		t.Errorf("manifest does not list verdict.json:\n%s", m)
	}
	return v
}

// TestThresholdsEndToEnd runs a passing and a failing benchmark against
// the mock server: exit 0 and 3, the console table, verdict.json, and the
// GitHub step summary appended to (not overwritten).
func TestThresholdsEndToEnd(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{})
	stepSummary := filepath.Join(t.TempDir(), "step_summary.md")
	if err := os.WriteFile(stepSummary, []byte("## an earlier step\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GITHUB_STEP_SUMMARY", stepSummary)
	args := func(dir string, thresholds ...string) []string {
		a := []string{"profile", "-m", "mock-model", "--url", srv.URL(), "--streaming", "--concurrency", "2",
			"--request-count", "6", "--ui-type", "none", "--artifact-dir", dir}
		for _, th := range thresholds {
			a = append(a, "--threshold", th)
		}
		return a
	}

	passDir := t.TempDir()
	code, stdout, stderr := runCLI(t, args(passDir, "time_to_first_token.p99<60000", "request_count==6", "error_request_count<1")...)
	if code != 0 {
		t.Fatalf("passing run: exit %d\n%s", code, stderr)
	}
	for _, want := range []string{"CI verdict (--threshold)", "METRIC", "COMPARATOR", "ACTUAL", "VERDICT",
		"request_count        avg   ==          6 requests", "6.00 requests", "PASS: all 3 thresholds passed"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("passing run's stdout lacks %q:\n%s", want, stdout)
		}
	}
	if v := storedVerdict(t, passDir); v["pass"] != true || v["passed"] != 3.0 || v["run_status"] != "complete" {
		t.Errorf("verdict.json %v", v)
	}

	failDir := t.TempDir()
	code, stdout, stderr = runCLI(t, args(failDir, "time_to_first_token.p99<60000", "request_latency.min<0", "goodput>1")...)
	if code != exitThresholds {
		t.Fatalf("failing run: exit %d, want %d\n%s", code, exitThresholds, stderr)
	}
	if !strings.Contains(stderr, "aiperf: 2 of 3 thresholds failed") || !strings.Contains(stderr, "verdict.json in "+failDir) {
		t.Errorf("stderr:\n%s", stderr)
	}
	for _, want := range []string{"FAIL: 2 of 3 thresholds failed", "goodput>1: the run did not produce goodput; it needs --goodput"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("failing run's stdout lacks %q:\n%s", want, stdout)
		}
	}
	v := storedVerdict(t, failDir)
	checks, _ := v["checks"].([]any)
	if v["pass"] != false || v["failed"] != 2.0 || len(checks) != 3 {
		t.Fatalf("verdict.json %v", v)
	}
	if c := checks[1].(map[string]any); c["metric"] != "request_latency" || c["stat"] != "min" || c["comparator"] != "<" || c["pass"] != false || c["actual"] == nil {
		t.Errorf("check %v", c)
	}
	if c := checks[2].(map[string]any); c["actual"] != nil || !strings.Contains(c["reason"].(string), "did not produce goodput") {
		t.Errorf("check %v", c)
	}

	b, _ := os.ReadFile(stepSummary)
	md := string(b)
	if !strings.HasPrefix(md, "## an earlier step\n### ✅ aiperf thresholds: PASS") || strings.Count(md, "| Metric | Stat | Comparator | Threshold | Actual | Verdict |") != 2 {
		t.Fatalf("step summary:\n%s", md)
	}
	if i := strings.Index(md, "### ❌ aiperf thresholds: FAIL: 2 of 3 thresholds failed"); i < strings.Index(md, "PASS") {
		t.Fatalf("step summary:\n%s", md)
	}
	if !strings.Contains(md, "| `request_latency` | min | `<` | 0 ms |") || !strings.Contains(md, "results in `"+passDir) {
		t.Errorf("step summary:\n%s", md)
	}
}

// TestFailedRunExitStatusWinsOverThresholds: a run whose every request
// failed exits 1, not 3, and still stores and reports its verdict.
func TestFailedRunExitStatusWinsOverThresholds(t *testing.T) {
	srv, _ := countingServer(t) // answers every request with an error
	t.Setenv("GITHUB_STEP_SUMMARY", "")
	dir := t.TempDir()
	code, stdout, stderr := runCLI(t, "profile", "-m", "x", "--tokenizer", "builtin", "--url", srv.URL, "--request-count", "3", "--ui-type", "none",
		"--artifact-dir", dir, "--threshold", "error_request_count<1", "--failure-window", "0")
	if code != exitFailed {
		t.Fatalf("exit %d, want %d\n%s", code, exitFailed, stderr)
	}
	if !strings.Contains(stdout, "FAIL: 1 of 1 threshold failed") {
		t.Errorf("stdout:\n%s", stdout)
	}
	if v := storedVerdict(t, dir); v["pass"] != false || v["run_status"] != "failed" {
		t.Errorf("verdict.json %v", v)
	}
}
