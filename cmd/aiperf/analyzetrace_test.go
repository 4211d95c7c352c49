package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/command"
)

// docsTrace is the mooncake example of AIPerf's docs
// (shared/spec/fixtures/docs-examples/custom_trace.jsonl).
const docsTrace = `{"timestamp": 0, "input_length": 1200, "output_length": 52, "hash_ids": [0, 1, 2]}
{"timestamp": 105, "input_length": 1800, "output_length": 26, "hash_ids": [0, 3, 4, 5]}
{"timestamp": 274, "input_length": 1300, "output_length": 52, "hash_ids": [1, 4, 6]}
`

// runAnalyzeTrace runs "aiperf analyze-trace args..." in-process: through
// run when main.go wires the subcommand in, else through the command's own
// Parse and Run, so that the test works before and after the wiring.
func runAnalyzeTrace(t *testing.T, args ...string) (stdout string, err error) {
	t.Helper()
	var out, errb bytes.Buffer
	var probe bytes.Buffer
	if run(context.Background(), []string{"analyze-trace", "--help"}, &probe, &probe) == nil &&
		strings.Contains(probe.String(), "--input-file") {
		err = run(context.Background(), append([]string{"analyze-trace"}, args...), &out, &errb)
		return out.String(), err
	}
	cmd := newAnalyzeTraceCommand(&out, &errb)
	if err := cmd.Parse(args); err != nil {
		return out.String(), command.Usage(err) // as run reports parse errors
	}
	err = cmd.Run(context.Background())
	return out.String(), err
}

func writeTrace(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "trace.jsonl")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestAnalyzeTraceReportsAndWritesJSON(t *testing.T) {
	in := writeTrace(t, docsTrace)
	outFile := filepath.Join(t.TempDir(), "nested", "dir", "analysis.json")
	stdout, err := runAnalyzeTrace(t, "--input-file", in, "--output-file", outFile)
	if err != nil {
		t.Fatal(err)
	}
	// The values worked out by hand in trace's TestAnalyzeDocsExample.
	for _, want := range []string{
		"Trace Analysis Report\n" + strings.Repeat("=", 60) + "\n",
		"Total requests:        3\n",
		"Unique prefixes:       9\n",
		"Cache hit rate:        30.6%\n",
		"Prefix reuse ratio:    20.0%\n",
		"ISL (Input Sequence Length):\n  Min:     1,200\n  P25:     1,250\n  Median:  1,300\n  P75:     1,550\n  Max:     1,800\n  Mean:    1,433.3\n",
		"OSL (Output Sequence Length):\n  Min:     26\n",
		"Analysis report saved to " + outFile + "\n",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	data, err := os.ReadFile(outFile)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	for k, want := range map[string]any{
		"total_requests": 3.0, "unique_prefixes": 9.0, "num_prefix_groups": 1.0,
		"cache_hit_rate":     0.3055555555555555, // (0 + 1/4 + 2/3)/3 = 11/36, as the floats sum
		"prefix_reuse_ratio": 0.2, "min_isl": 1200.0, "avg_osl": 130.0 / 3,
	} {
		if got[k] != want {
			t.Errorf("%s = %v, want %v", k, got[k], want)
		}
	}
	if s, ok := got["context_length_stats"].(map[string]any); !ok || s["p25"] != 256.0 {
		t.Errorf("context_length_stats = %v", got["context_length_stats"])
	}
}

func TestAnalyzeTraceOptions(t *testing.T) {
	in := writeTrace(t, docsTrace)
	// The input as a positional argument, as AIPerf accepts it; block size
	// 1: context lengths become 1 1 0, which the report does not show, so
	// check that it runs and prints no saved-file line.
	stdout, err := runAnalyzeTrace(t, "--block-size", "1", in)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout, "Total requests:        3\n") || strings.Contains(stdout, "saved to") {
		t.Errorf("stdout:\n%s", stdout)
	}
}

func TestAnalyzeTraceErrors(t *testing.T) {
	good := writeTrace(t, docsTrace)
	bad := writeTrace(t, `{"input_length": 1}`+"\n"+`{"input_length": "many"}`+"\n")
	missing := filepath.Join(t.TempDir(), "missing.jsonl")
	tests := []struct {
		name  string
		args  []string
		want  string
		usage bool
	}{
		{"no input", nil, "--input-file is required", true},
		{"zero block size", []string{"--input-file", good, "--block-size", "0"}, "--block-size must be >= 1, got 0", true},
		{"two inputs", []string{"--input-file", good, good}, "analyze-trace takes one input file", true},
		{"unknown flag", []string{"--input-file", good, "--bogus"}, "bogus", true},
		{"missing file", []string{"--input-file", missing}, "analyze-trace: open " + missing + ": no such file or directory", false},
		{"malformed line", []string{"--input-file", bad}, "analyze-trace: " + bad + ": line 2: input_length: not an integer", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := runAnalyzeTrace(t, tt.args...)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.want)
			}
			if got := exitCode(err, &bytes.Buffer{}); got != map[bool]int{true: exitUsage, false: exitFailed}[tt.usage] {
				t.Errorf("exit code %d, usage error %v", got, tt.usage)
			}
		})
	}
}
