package runner

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/aiperf-go/aiperf/mockserver"
	"github.com/aiperf-go/aiperf/mockserver/mocktest"
)

// consoleTitles returns the table titles of a console report in order
// ("NVIDIA AIPerf | Error Summary", …) and whether it ends its tables with
// AIPerf 0.13's prompt-cache hint (the three lines after the last table).
func consoleTitles(out string) (titles []string, hint string) {
	lines := strings.Split(out, "\n")
	last := 0
	for i, line := range lines {
		if t := strings.TrimSpace(line); strings.HasPrefix(t, "NVIDIA AIPerf | ") {
			titles = append(titles, t)
		}
		if strings.HasPrefix(line, "└") {
			last = i
		}
	}
	if rest := lines[last+1:]; len(rest) > 4 && rest[0] == "" && strings.HasPrefix(rest[1], "Token usage is reported") {
		hint = strings.Join(rest[1:4], "\n")
	}
	return titles, hint
}

// TestConsole14MatchesAIPerf013 runs aiperf013Dir's configuration (with
// injected 500s) and compares our console report with the one AIPerf 0.13
// printed: the error summary first, then the Effective, Active, Usage and
// default metrics tables in that order, then the prompt-cache hint, word
// for word and wrapped as 0.13 wraps it. A 1.0 run keeps AIPerf 0.8's
// order: the metrics table, then the error summary, and no hint.
func TestConsole14MatchesAIPerf013(t *testing.T) {
	want, err := os.ReadFile(filepath.Join(aiperf013Dir, "profile_export_console.txt"))
	if err != nil {
		t.Fatal(err)
	}
	wantTitles, wantHint := consoleTitles(string(want))
	if len(wantTitles) != 5 || wantHint == "" {
		t.Fatalf("fixture: titles %q, hint %q", wantTitles, wantHint)
	}
	srv := mocktest.Start(t, mockserver.Config{TTFT: 2 * time.Millisecond, ITL: 200 * time.Microsecond,
		OutputTokens: 8, ErrorRate: 0.3, Seed: 5})
	run := func(schema string) string {
		cfg := testConfig(t, srv.URL())
		cfg.OutputSchema = schema
		cfg.Streaming = true
		cfg.Concurrency, cfg.RequestCount = 2, 12
		cfg.ISLMean, cfg.OSLMean = 20, 8
		cfg.RandomSeed = 7
		cfg.NoServerMetrics, cfg.NoGPUTelemetry = true, true
		if err := cfg.Validate(); err != nil {
			t.Fatal(err)
		}
		var stdout bytes.Buffer
		res, err := Run(context.Background(), cfg, Options{Version: "test", Stdout: &stdout})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Summary.Errors) == 0 {
			t.Fatal("no injected errors: the comparison needs the error summary")
		}
		return stdout.String()
	}

	out := run("1.4")
	titles, hint := consoleTitles(out)
	if !slices.Equal(titles, wantTitles) {
		t.Errorf("1.4 console tables:\n ours %q\n 0.13 %q\n%s", titles, wantTitles, out)
	}
	if hint != wantHint {
		t.Errorf("1.4 console hint:\n ours %q\n 0.13 %q", hint, wantHint)
	}
	// 0.13 pads a centered title to its table's width on both sides.
	for _, text := range []string{string(want), out} {
		lines := strings.Split(text, "\n")
		for i, line := range lines[:len(lines)-1] {
			if strings.Contains(line, "NVIDIA AIPerf | ") && utf8.RuneCountInString(line) != utf8.RuneCountInString(lines[i+1]) {
				t.Errorf("title %q is not as wide as its table (%d)", line, utf8.RuneCountInString(lines[i+1]))
			}
		}
	}
	if !strings.HasPrefix(out, "\n\n") || !strings.HasPrefix(strings.TrimLeft(out, " \n"), "NVIDIA AIPerf | Error Summary") {
		t.Errorf("the 1.4 console must open with two empty lines and the error summary:\n%s", out)
	}

	out = run("1.0")
	titles, hint = consoleTitles(out)
	if want := []string{"NVIDIA AIPerf | LLM Metrics", "NVIDIA AIPerf | Error Summary"}; !slices.Equal(titles, want) || hint != "" ||
		strings.Contains(out, "prompt-cache") {
		t.Errorf("1.0 console: tables %q (want %q), hint %q\n%s", titles, want, hint, out)
	}
}
