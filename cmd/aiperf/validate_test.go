package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestValidateExitStatus: a valid file exits 0 saying so; a broken one
// exits 1 listing each problem on stdout (file:line: field); bad flags
// exit 2. AIPerf's own spelling, `validate mooncake-trace --input FILE`,
// works too.
func TestValidateExitStatus(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.jsonl")
	bad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(good, []byte(`{"input_length": 10, "output_length": 2}`+"\n"+`{"text_input": "hi"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte(`{"input_length": 10}`+"\n"+`{"input_length": -3}`+"\n"+`{"output_length": 2}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stdout []string
		stderr string
	}{
		{"valid", []string{"validate", "--target", "mooncake-trace", "--input", good}, 0, []string{good + ": valid mooncake-trace (2 rows)"}, ""},
		{"aiperf spelling", []string{"validate", "mooncake-trace", "--input", good}, 0, []string{"valid"}, ""},
		{"positional", []string{"validate", "mooncake_trace", good}, 0, []string{"valid"}, ""},
		{"problems", []string{"validate", "--target", "mooncake-trace", "--input", bad}, 1,
			[]string{bad + `:2: field "input_length": must be > 0, got -3`, bad + ":3: exactly one of"}, "2 problem(s)"},
		{"missing file", []string{"validate", "--target", "single-turn", "--input", filepath.Join(dir, "none.jsonl")}, 1,
			[]string{"does not exist"}, "1 problem(s)"},
		{"unknown target", []string{"validate", "--target", "sharegpt", "--input", good}, 2, nil, "--target: unknown target \"sharegpt\""},
		{"no target", []string{"validate", "--input", good}, 2, nil, "validate needs --target"},
		{"no input", []string{"validate", "--target", "inputs-json"}, 2, nil, "validate needs --input"},
		{"extra argument", []string{"validate", "mooncake-trace", good, "more"}, 2, nil, "extra arguments"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout %s\nstderr %s", code, tc.code, stdout, stderr)
			}
			for _, s := range tc.stdout {
				if !strings.Contains(stdout, s) {
					t.Errorf("stdout lacks %q:\n%s", s, stdout)
				}
			}
			if !strings.Contains(stderr, tc.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tc.stderr, stderr)
			}
		})
	}
}
