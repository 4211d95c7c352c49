package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/mockserver"
	"github.com/aiperf-go/aiperf/mockserver/mocktest"
)

// TestSweepFlagsAndAnalyze runs the new sweeps end to end: lists and
// ranges on profile's dataset flags, and aiperf analyze.
func TestSweepFlagsAndAnalyze(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{})
	common := []string{"-m", "mock-model", "--url", srv.URL(), "--streaming", "--ui-type", "none", "--request-count", "2", "--isl", "16", "--isl-stddev", "0", "--osl", "8"}
	for _, tt := range []struct {
		name  string
		args  []string
		files []string
		out   string
	}{
		{"isl list", []string{"profile", "--isl", "32,64"},
			[]string{"isl_32/profile_export_aiperf.json", "isl_64/profile_export_aiperf.json", "sweep_summary.csv"}, "Sweep Summary"},
		{"entries range", []string{"profile", "--num-dataset-entries", "3:5"},
			[]string{"num_dataset_entries_3/inputs.json", "num_dataset_entries_4/inputs.json", "num_dataset_entries_5/inputs.json"}, "Sweep Summary"},
		{"zip of isl and osl", []string{"profile", "--synthetic-input-tokens-mean", "32,64", "--output-tokens-mean", "4:8", "--sweep-type", "zip"},
			[]string{"isl_32__osl_4/inputs.json", "isl_64__osl_8/inputs.json"}, "Sweep Summary"},
		{"analyze", []string{"analyze", "--sweep-type", "input_sequence_length", "--sweep-range", "32:64"},
			[]string{"mock-model-openai-chat-input_sequence_length32/profile_export_aiperf.json",
				"mock-model-openai-chat-input_sequence_length64/inputs.json", "analyze_export_genai_perf.csv"}, "Analyze Summary"},
		{"analyze batch size", []string{"analyze", "--endpoint-type", "embeddings", "--sweep-type", "batch_size", "--sweep-list", "1,2"},
			[]string{"mock-model-openai-embeddings-runtime_batch_size1/inputs.json", "mock-model-openai-embeddings-runtime_batch_size2/inputs.json",
				"analyze_export_genai_perf.csv"}, "Analyze Summary"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			args := append(append(tt.args[:1:1], common...), "--artifact-dir", dir)
			if slices.Contains(tt.args, "embeddings") {
				args = slices.DeleteFunc(args, func(a string) bool { return a == "--streaming" })
			}
			code, stdout, stderr := runCLI(t, append(args, tt.args[1:]...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			for _, f := range tt.files {
				if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(f))); err != nil {
					t.Error(err)
				}
			}
			if !strings.Contains(stdout, tt.out) {
				t.Errorf("stdout lacks %q:\n%s", tt.out, stdout)
			}
		})
	}
}

// TestBadSweepsExitTwo checks that a bad sweep value or combination is one
// message naming the flag and the fix, exit 2, before any request.
func TestBadSweepsExitTwo(t *testing.T) {
	t.Setenv("HF_HUB_OFFLINE", "1")
	srv, hits := countingServer(t)
	base := []string{"-m", "x", "--tokenizer", "builtin", "--url", srv.URL, "--ui-type", "none", "--artifact-dir", t.TempDir()}
	for _, tt := range []struct {
		name string
		args []string
		want []string
	}{
		{"reversed isl range", []string{"profile", "--isl", "64:32"}, []string{"--isl", "stop 32 must be greater than start 64"}},
		{"zero osl step", []string{"profile", "--osl", "8:64:0"}, []string{"--osl", "the step must be >= 1"}},
		{"fractional entries", []string{"profile", "--num-dataset-entries", "10.5,20"}, []string{"--num-dataset-entries", `"10.5" is not a whole number`}},
		{"batch alias", []string{"profile", "--batch-size-text", "1,x"}, []string{"--batch-size-text", `"x" is not an integer`}},
		{"no power of two", []string{"profile", "--concurrency", "5:7"}, []string{"--concurrency", "holds no power of two: give a step (5:7:1)"}},
		{"rate range", []string{"profile", "--request-rate", "10:5:1"}, []string{"--request-rate", "stop 5 must be greater than start 10"}},
		{"fractional isl list", []string{"profile", "--isl", "32.5,64"}, []string{"--isl", `"32.5" is not a whole number`}},
		{"zip of unequal lists", []string{"profile", "--isl", "32,64", "--osl", "1,2,3", "--sweep-type", "zip"},
			[]string{"--sweep-type zip pairs the lists element-wise, but --isl has 2 values and --osl has 3"}},
		{"unknown sweep type", []string{"profile", "--isl", "32,64", "--sweep-type", "diagonal"}, []string{`--sweep-type "diagonal"`, "use grid"}},
		{"bad point", []string{"profile", "--prompt-batch-size", "1,0"}, []string{"sweep point prompt_batch_size 0", "--prompt-batch-size must be >= 1"}},
		{"analyze without type", []string{"analyze", "--sweep-list", "1,2"}, []string{"--sweep-type is required"}},
		{"analyze reversed range", []string{"analyze", "--sweep-type", "concurrency", "--sweep-range", "8:4"},
			[]string{"--sweep-range", "stop 4 must be greater than start 8"}},
		{"analyze no values", []string{"analyze", "--sweep-type", "concurrency"}, []string{"give --sweep-range min:max[:step] or --sweep-list a,b,c"}},
		{"analyze osl", []string{"analyze", "--sweep-type", "osl", "--sweep-list", "1,2"}, []string{`--sweep-type "osl" is not a setting analyze sweeps`}},
		{"analyze list and range", []string{"analyze", "--sweep-type", "batch_size", "--sweep-list", "1,2", "--sweep-range", "1:4"},
			[]string{"--sweep-range and --sweep-list are both given"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			args := append(append(tt.args[:1:1], base...), tt.args[1:]...)
			code, _, stderr := runCLI(t, args...)
			if code != exitUsage {
				t.Errorf("exit %d, want %d: %s", code, exitUsage, stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			if n := strings.Count(strings.TrimSpace(stderr), "\n"); n > 0 {
				t.Errorf("%d lines, want one:\n%s", n+1, stderr)
			}
		})
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("%d requests sent", n)
	}
}
