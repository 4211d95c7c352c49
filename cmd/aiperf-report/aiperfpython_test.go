//go:build integration

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/mockserver"
	"github.com/aiperf-go/aiperf/mockserver/mocktest"
)

// pythonAIPerf returns NVIDIA's Python aiperf from scripts/aiperf-python.sh,
// or skips (fails under AIPERF_TEST_REQUIRE_PYTHON_AIPERF).
func pythonAIPerf(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("AIPERF_TEST_PYTHON_AIPERF")
	if bin == "" {
		if os.Getenv("AIPERF_TEST_REQUIRE_PYTHON_AIPERF") != "" {
			t.Fatal(`AIPERF_TEST_PYTHON_AIPERF is not set: eval "$(scripts/aiperf-python.sh install >&2 && scripts/aiperf-python.sh env)"`)
		}
		t.Skip("AIPERF_TEST_PYTHON_AIPERF not set (scripts/aiperf-python.sh)")
	}
	return bin
}

// TestPythonAIPerfDirIngest runs Python AIPerf 0.13 itself against our
// mock server (12 streaming requests, a quarter of them failing, its
// builtin o200k tokenizer, offline) in the America/Los_Angeles zone, then
// ingests the directory it wrote: show prints the console AIPerf printed
// (schema 1.4: its Effective, Active, Usage and metrics tables, with its
// own throughputs, and, from the records, its error summary), with and
// without the records, and the run's start is AIPerf's local start time
// placed in its zone (as the records' wall clock shows), not read as UTC.
func TestPythonAIPerfDirIngest(t *testing.T) {
	bin := pythonAIPerf(t)
	srv := mocktest.Start(t, mockserver.Config{TTFT: 5 * time.Millisecond, ITL: time.Millisecond,
		ErrorRate: 0.25, Seed: 3})
	dir := filepath.Join(t.TempDir(), "py")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "profile", "--model", "mock-model", "--url", srv.URL(),
		"--endpoint-type", "chat", "--streaming", "--tokenizer", "builtin", "--concurrency", "2",
		"--request-count", "12", "--isl", "20", "--osl", "8", "--random-seed", "7", "--ui", "none",
		"--no-server-metrics", "--no-gpu-telemetry", "--artifact-dir", dir)
	cmd.Env = append(os.Environ(), "TZ=America/Los_Angeles", "HF_HUB_OFFLINE=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("aiperf profile: %v\n%s", err, out)
	}
	printed, err := os.ReadFile(filepath.Join(dir, "profile_export_console.txt"))
	if err != nil {
		t.Fatal(err)
	}
	titles := []string{"LLM Metrics: Effective", "LLM Metrics: Active", "LLM Metrics: Usage", "LLM Metrics"}
	for _, title := range append(titles, "Error Summary") {
		if consoleTable14(string(printed), title) == "" {
			t.Fatalf("no %s table in AIPerf's console:\n%s", title, printed)
		}
	}

	summaryOnly := filepath.Join(t.TempDir(), "summary-only")
	if err := os.CopyFS(summaryOnly, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(summaryOnly, "profile_export.jsonl")); err != nil {
		t.Fatal(err)
	}
	for name, d := range map[string]string{"with records": dir, "summary only": summaryOnly} {
		t.Run(name, func(t *testing.T) {
			titles := titles
			if d == dir { // the error summary comes from the records
				titles = append(titles, "Error Summary")
			}
			db := filepath.Join(t.TempDir(), "runs.duckdb")
			if code, out, errs := reportCLI(t, "--db", db, "ingest", d); code != 0 || !strings.Contains(out, "1 loaded") {
				t.Fatalf("ingest: %d %s %s", code, out, errs)
			}
			code, out, errs := reportCLI(t, "--db", db, "--format", "json", "sql",
				`SELECT run_id, model, concurrency, osl_mean, epoch_ns(start_time) AS start_ns FROM runs`)
			if code != 0 {
				t.Fatalf("sql: %d %s", code, errs)
			}
			var rows []struct {
				RunID       string  `json:"run_id"`
				Model       string  `json:"model"`
				Concurrency int     `json:"concurrency"`
				OSL         float64 `json:"osl_mean"`
				StartNS     int64   `json:"start_ns"`
			}
			if err := json.Unmarshal([]byte(out), &rows); err != nil || len(rows) != 1 {
				t.Fatalf("runs %s: %v", out, err)
			}
			r := rows[0]
			if r.Model != "mock-model" || r.Concurrency != 2 || r.OSL != 8 {
				t.Errorf("run %+v", r)
			}
			first := firstRequestStart(t, filepath.Join(dir, "profile_export.jsonl"))
			if d := time.Duration(first - r.StartNS); d < 0 || d > time.Minute {
				t.Errorf("start_time %v is %v before the first request %v: not placed in AIPerf's zone",
					time.Unix(0, r.StartNS).UTC(), d, time.Unix(0, first).UTC())
			}
			code, out, errs = reportCLI(t, "--db", db, "show", r.RunID)
			if code != 0 {
				t.Fatalf("show: %d %s", code, errs)
			}
			for _, title := range titles {
				want := sortAdjusted(consoleTable14(string(printed), title))
				if got := sortAdjusted(consoleTable14(out, title)); got != want {
					t.Errorf("show's %s differs from AIPerf's own table:\n--- show\n%s--- AIPerf\n%s", title, got, want)
				}
			}
		})
	}
}

// firstRequestStart returns the smallest request_start_ns of a
// profile_export.jsonl.
func firstRequestStart(t *testing.T, path string) int64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var first int64
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var rec struct {
			Metadata struct {
				RequestStartNS int64 `json:"request_start_ns"`
			} `json:"metadata"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatal(err)
		}
		if ns := rec.Metadata.RequestStartNS; ns > 0 && (first == 0 || ns < first) {
			first = ns
		}
	}
	if first == 0 {
		t.Fatal("no request_start_ns in the records")
	}
	return first
}

// consoleTable14 returns the "NVIDIA AIPerf | <title>" table of a console
// output (title through bottom border), without trailing blanks, or "".
func consoleTable14(out, title string) string {
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		if strings.TrimSpace(l) != "NVIDIA AIPerf | "+title {
			continue
		}
		var b strings.Builder
		for _, l := range lines[i:] {
			b.WriteString(strings.TrimRight(l, " ") + "\n")
			if strings.HasPrefix(l, "└") {
				return b.String()
			}
		}
	}
	return ""
}

// sortAdjusted sorts the error-adjusted rows (with their unit lines)
// among their places: AIPerf's order of them changes from run to run.
func sortAdjusted(table string) string {
	lines := strings.Split(table, "\n")
	var blocks []string
	var at []int
	for i := 0; i < len(lines); i++ {
		if !strings.Contains(lines[i], "(error-adjusted)") {
			continue
		}
		block := lines[i]
		if i+1 < len(lines) && strings.HasPrefix(strings.TrimLeft(strings.TrimPrefix(lines[i+1], "│"), " "), "(") {
			block += "\n" + lines[i+1]
			lines[i+1] = ""
		}
		blocks, at = append(blocks, block), append(at, i)
	}
	slices.Sort(blocks)
	for k, i := range at {
		lines[i] = blocks[k]
	}
	return strings.Join(slices.DeleteFunc(lines, func(l string) bool { return l == "" }), "\n")
}
