package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/command"
)

// TestSynthesizeCommand runs both spellings in-process on AIPerf's docs
// trace. With --speedup-ratio 2 the shared blocks 0, 1 and 4 stay and the
// unique ones are renumbered from 6, as worked out in trace's tests.
func TestSynthesizeCommand(t *testing.T) {
	want := `{"timestamp": 0, "input_length": 1200, "output_length": 52, "hash_ids": [0, 1, 6]}
{"timestamp": 52, "input_length": 1800, "output_length": 26, "hash_ids": [0, 7, 8, 9]}
{"timestamp": 137, "input_length": 1300, "output_length": 52, "hash_ids": [1, 4, 10]}
`
	in := writeTrace(t, docsTrace)
	dir := t.TempDir()
	a, b, c := filepath.Join(dir, "a", "out.jsonl"), filepath.Join(dir, "b", "out.jsonl"), filepath.Join(dir, "c", "out.jsonl")
	for _, tt := range []struct {
		name, out string
		args      []string
	}{
		{"flags", a, []string{"synthesize", "--input-file", in, "--output-file", a, "--speedup-ratio", "2"}},
		{"positional", b, []string{"synthesize-trace", in, b, "--speedup-ratio=2"}},
		{"flags first", c, []string{"synthesize-trace", "--speedup-ratio", "2", in, "--", c}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if err := run(context.Background(), tt.args, &stdout, &stderr); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(tt.out)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != want {
				t.Errorf("got\n%s\nwant\n%s", got, want)
			}
			for _, line := range []string{"Speedup ratio:             2.00\n", "Generated 3 synthetic traces\n", "Tree nodes: 10\n", "Tree depth: 4\n"} {
				if !strings.Contains(stdout.String(), line) {
					t.Errorf("stdout lacks %q:\n%s", line, stdout.String())
				}
			}
		})
	}
}

// TestSynthesizeCommandUsage: bad invocations are usage errors (exit 2)
// naming the flag, and write nothing.
func TestSynthesizeCommandUsage(t *testing.T) {
	in := writeTrace(t, docsTrace)
	out := filepath.Join(t.TempDir(), "out.jsonl")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"synthesize", "agentic-code", "--num-sessions", "5"}, "synthesize agentic-code (AIPerf 0.13's named agentic-coding workload generator) is not supported"},
		{[]string{"synthesize", in, out}, "synthesize takes no arguments"},
		{[]string{"synthesize", "--input-file", in}, "--output-file is required"},
		{[]string{"synthesize-trace"}, "--input-file is required"},
		{[]string{"synthesize-trace", in, out, "x"}, "takes an input and an output file, got 3 arguments"},
		{[]string{"synthesize-trace", in, out, "--input-file", in}, "give each file once"},
		{[]string{"synthesize-trace", in, out, "--prefix-root-multiplier", "0"}, "--prefix-root-multiplier must be >= 1, got 0"},
		{[]string{"synthesize-trace", in, out, "--prompt-len-multiplier", "-2"}, "--prompt-len-multiplier must be a finite number > 0"},
		{[]string{"synthesize-trace", in, out, "--block-size", "0"}, "--block-size must be >= 1, got 0"},
		{[]string{"synthesize-trace", in, out, "--bogus"}, "bogus"},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), tt.args, &stdout, &stderr)
		var ue *command.UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: %v, want a usage error with %q", tt.args, err, tt.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("%q wrote %s", tt.args, out)
		}
	}
}

// TestSynthesizeCommandBadTrace: a malformed trace fails (exit 1) naming
// the file, line and field.
func TestSynthesizeCommandBadTrace(t *testing.T) {
	in := writeTrace(t, "{\"input_length\": 5}\n{\"input_length\": \"x\"}\n")
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"synthesize-trace", in, filepath.Join(t.TempDir(), "o.jsonl")}, &stdout, &stderr)
	var ue *command.UsageError
	if err == nil || errors.As(err, &ue) || !strings.Contains(err.Error(), in+": line 2: input_length: not an integer") {
		t.Errorf("got %v", err)
	}
}
