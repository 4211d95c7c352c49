package main

import (
	"bytes"
	"context"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/peterbourgon/ff/v4"

	"github.com/aiperf-go/aiperf/internal/command"
	"github.com/aiperf-go/aiperf/runner"
)

// parseCompat parses a profile command line (after "profile") as `aiperf
// profile` does, without running anything, and returns the configuration
// and the warnings it would print; err is the usage error.
func parseCompat(args ...string) (*runner.Config, []string, error) {
	cfg := runner.Defaults()
	var verbose int
	var configFile string
	fs := profileFlags(&cfg, &verbose, &configFile)
	args = expandMultiValue(append([]string{"profile"}, args...))[1:]
	if err := ff.Parse(fs, args); err != nil {
		return nil, nil, command.Usage(err)
	}
	if err := finishProfileConfig(&cfg, fs, verbose, fs.GetArgs(), args); err != nil {
		return &cfg, nil, err
	}
	return &cfg, compatWarnings(&cfg, fs), nil
}

// compatBase is a valid command line the cases extend.
var compatBase = []string{"-m", "m", "--url", "localhost:8000", "--tokenizer", "builtin"}

// TestCompatAliasesSetTheirFlag checks that every alias sets what its
// reference says, against values written out by hand.
func TestCompatAliasesSetTheirFlag(t *testing.T) {
	for _, tt := range []struct {
		args  []string
		check func(c *runner.Config) any
		want  any
	}{
		{[]string{"--batch-size", "4", "--endpoint-type", "embeddings"}, func(c *runner.Config) any { return c.PromptBatchSize }, 4},
		{[]string{"-b", "3", "--endpoint-type", "embeddings"}, func(c *runner.Config) any { return c.PromptBatchSize }, 3},
		{[]string{"--output-artifact-dir", "/tmp/x"}, func(c *runner.Config) any { return c.ArtifactDir }, "/tmp/x"},
		{[]string{"--conversation-turn-mean", "3"}, func(c *runner.Config) any { return c.SessionTurnsMean }, 3.0},
		{[]string{"--conversation-turn-stddev", "1.5"}, func(c *runner.Config) any { return c.SessionTurnsStddev }, 1.5},
		{[]string{"--conversation-turn-delay-mean", "20"}, func(c *runner.Config) any { return c.SessionTurnDelayMean }, 20.0},
		{[]string{"--conversation-turn-delay-stddev", "5"}, func(c *runner.Config) any { return c.SessionTurnDelayStddev }, 5.0},
		{[]string{"--conversation-turn-delay-ratio", "0.5"}, func(c *runner.Config) any { return c.SessionDelayRatio }, 0.5},
		{[]string{"--prompt-prefix-pool-size", "7"}, func(c *runner.Config) any { return c.NumPrefixPrompts }, 7},
		{[]string{"--prefix-prompt-pool-size", "8"}, func(c *runner.Config) any { return c.NumPrefixPrompts }, 8},
		{[]string{"--prompt-prefix-length", "64", "--num-prefix-prompts", "2"}, func(c *runner.Config) any { return c.PrefixPromptLength }, 64},
		{[]string{"--prompt-input-tokens-block-size", "32"}, func(c *runner.Config) any { return c.ISLBlockSize }, 32},
		{[]string{"--synthetic-input-tokens-block-size", "16"}, func(c *runner.Config) any { return c.ISLBlockSize }, 16},
		{[]string{"--session-concurrency", "5"}, func(c *runner.Config) any { return c.Concurrency }, 5},
		{[]string{"--profile-export-level", "summary"}, func(c *runner.Config) any { return c.ExportLevel }, "summary"},
		{[]string{"--server-metrics-url", "http://h:8002/metrics", "http://g:8002/metrics"}, func(c *runner.Config) any { return c.ServerMetrics },
			[]string{"http://h:8002/metrics", "http://g:8002/metrics"}},
		{[]string{"-g", "time_to_first_token:250", "request_latency:300"}, func(c *runner.Config) any { return c.Goodput }, "time_to_first_token:250 request_latency:300"},
		{[]string{"--goodput", "time_to_first_token:250 request_latency:300"}, func(c *runner.Config) any { return c.Goodput }, "time_to_first_token:250 request_latency:300"},
		{[]string{"-m", "a", "b"}, func(c *runner.Config) any { return c.Models }, []string{"m", "a", "b"}},
		{[]string{"--audio-depths", "8", "16", "--audio-sample-rates", "16,44.1", "48"}, func(c *runner.Config) any { return [2]any{c.AudioDepths, c.AudioSampleRates} },
			[2]any{[]int{8, 16}, []float64{16, 44.1, 48}}},
		{[]string{"--extra-verbose"}, func(c *runner.Config) any { return c.LogLevel }, "TRACE"},
		{nil, func(c *runner.Config) any { return [2]bool{c.SetConsistentSeed, c.ProfileRunDisableWarmupAfterFirst} }, [2]bool{true, true}},
		{[]string{"--no-set-consistent-seed", "--no-profile-run-disable-warmup-after-first"},
			func(c *runner.Config) any { return [2]bool{c.SetConsistentSeed, c.ProfileRunDisableWarmupAfterFirst} }, [2]bool{false, false}},
	} {
		cfg, _, err := parseCompat(append(append([]string{}, compatBase...), tt.args...)...)
		if err != nil {
			t.Errorf("%q: %v", tt.args, err)
			continue
		}
		if got := tt.check(cfg); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%q: got %#v, want %#v", tt.args, got, tt.want)
		}
	}
}

// TestFixedScheduleValue checks GenAI-Perf's `--fixed-schedule true`
// (argparse type=bool): the value joins the flag; a bare flag stays bare.
func TestFixedScheduleValue(t *testing.T) {
	for _, tt := range []struct{ in, want []string }{
		{[]string{"profile", "--fixed-schedule", "true", "--streaming"}, []string{"profile", "--fixed-schedule=true", "--streaming"}},
		{[]string{"profile", "--fixed-schedule", "False"}, []string{"profile", "--fixed-schedule=false"}},
		{[]string{"profile", "--fixed-schedule", "--streaming"}, []string{"profile", "--fixed-schedule", "--streaming"}},
		{[]string{"profile", "--fixed-schedule", "extra"}, []string{"profile", "--fixed-schedule", "extra"}},
	} {
		if got := expandMultiValue(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("expandMultiValue(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestChoicesIgnoreCaseAndDashes checks AIPerf's enum matching: any case,
// '-' for '_', stored in the canonical spelling.
func TestChoicesIgnoreCaseAndDashes(t *testing.T) {
	cfg, _, err := parseCompat(append(append([]string{}, compatBase...),
		"--model-selection-strategy", "Round-Robin", "--endpoint-type", "CHAT", "--arrival-pattern", "POISSON",
		"--dataset-sampling-strategy", "Shuffle", "--ui-type", "NONE", "--log-level", "warning",
		"--image-format", "PNG", "--image-width-mean", "8", "--image-height-mean", "8",
		"--audio-format", "MP3", "--connection-reuse-strategy", "sticky_user_sessions", "--export-level", "RECORDS")...)
	if err != nil {
		t.Fatal(err)
	}
	got := []string{cfg.ModelSelectionStrategy, cfg.EndpointType, cfg.ArrivalPattern, cfg.DatasetSampling, cfg.UIType,
		cfg.LogLevel, cfg.ImageFormat, cfg.AudioFormat, cfg.ConnectionReuse, cfg.ExportLevel}
	want := []string{"round_robin", "chat", "poisson", "shuffle", "none", "WARNING", "png", "mp3", "sticky-user-sessions", "records"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	for _, typ := range []string{"vision", "MultiModal"} {
		if cfg, _, err := parseCompat(append(append([]string{}, compatBase...), "--endpoint-type", typ)...); err != nil || cfg.EndpointType != "chat" {
			t.Errorf("GenAI-Perf's --endpoint-type %s: %v, want chat", typ, err)
		}
	}
	if _, _, err := parseCompat(append(append([]string{}, compatBase...), "--model-selection-strategy", "round-robbin")...); err == nil ||
		!strings.Contains(err.Error(), `--model-selection-strategy "round-robbin" is not valid`) {
		t.Errorf("a misspelt choice: %v", err)
	}
}

// TestIgnoredFlagsWarnOnce checks the service-architecture flags: accepted,
// one warning each naming the flag and what aiperf does instead.
func TestIgnoredFlagsWarnOnce(t *testing.T) {
	for _, f := range ignoredFlags {
		args := append(append([]string{}, compatBase...), "--"+f.name)
		if !f.isBool {
			args = append(args, "8")
		}
		_, warnings, err := parseCompat(args...)
		if err != nil {
			t.Errorf("--%s: %v", f.name, err)
			continue
		}
		if len(warnings) != 1 || !strings.HasPrefix(warnings[0], "--"+f.name+" is accepted and ignored: ") || !strings.Contains(warnings[0], "aiperf") {
			t.Errorf("--%s: warnings %q, want one naming the flag and what aiperf does", f.name, warnings)
		}
	}
	if _, warnings, _ := parseCompat(compatBase...); len(warnings) != 0 {
		t.Errorf("no compatibility flag, warnings %q", warnings)
	}
}

// TestCompatWarningsPrintedBeforeTheRun checks the whole command: the
// warning goes to stderr, then the run starts (here: no server).
func TestCompatWarningsPrintedBeforeTheRun(t *testing.T) {
	code, _, stderr := runCLI(t, "profile", "-m", "m", "--url", "127.0.0.1:1", "--tokenizer", "builtin", "--ui-type", "none",
		"--artifact-dir", t.TempDir(), "--workers-max", "4", "--generate-plots", "--request-count", "1")
	if n := strings.Count(stderr, "aiperf: warning: --workers-max is accepted and ignored"); n != 1 {
		t.Errorf("%d --workers-max warnings, want 1:\n%s", n, stderr)
	}
	if !strings.Contains(stderr, "after the run: aiperf-report plot ") {
		t.Errorf("no aiperf-report plot line:\n%s", stderr)
	}
	if code == exitUsage {
		t.Errorf("exit %d: the flags were refused:\n%s", code, stderr)
	}
}

// TestStabilityFlags checks GenAI-Perf's -p/-s and their defaults.
func TestStabilityFlags(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want runner.StabilityConfig
	}{
		{nil, runner.StabilityConfig{}},
		{[]string{"-p", "4000"}, runner.StabilityConfig{Interval: 4 * time.Second, Percentage: 999}},
		{[]string{"--measurement-interval", "250", "-s", "10"}, runner.StabilityConfig{Interval: 250 * time.Millisecond, Percentage: 10}},
		{[]string{"--stability-percentage", "5"}, runner.StabilityConfig{Interval: 10 * time.Second, Percentage: 5}},
	} {
		cfg, _, err := parseCompat(append(append([]string{}, compatBase...), tt.args...)...)
		if err != nil {
			t.Errorf("%q: %v", tt.args, err)
			continue
		}
		if cfg.Stability != tt.want {
			t.Errorf("%q: %+v, want %+v", tt.args, cfg.Stability, tt.want)
		}
		if tt.args != nil && cfg.EffectiveRequestCount() != 0 {
			t.Errorf("%q: request count %d, want none (stability ends the run)", tt.args, cfg.EffectiveRequestCount())
		}
	}
	for _, bad := range [][]string{{"-p", "0"}, {"-p", "-5"}, {"-s", "-1"}} {
		if _, _, err := parseCompat(append(append([]string{}, compatBase...), bad...)...); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestOutputTokensMeanDeterministic checks GenAI-Perf's flag per endpoint:
// the fields each server reads as a minimum output length.
func TestOutputTokensMeanDeterministic(t *testing.T) {
	for _, tt := range []struct {
		args      []string
		wantExtra []string
		warn      string
	}{
		{[]string{"--osl", "128"}, []string{"min_tokens:128", "ignore_eos:true"}, ""},
		{[]string{"--osl", "64", "--endpoint-type", "completions", "--extra-inputs", "ignore_eos:false"}, []string{"ignore_eos:false", "min_tokens:64"}, ""},
		{[]string{"--osl", "32", "--service-kind", "triton"}, []string{"min_length:32"}, ""},
		{[]string{"--osl", "16", "--service-kind", "triton", "--backend", "vllm"}, []string{`sampling_parameters:"{\"max_tokens\":\"16\",\"min_tokens\":\"16\"}"`}, ""},
		{[]string{"--osl", "16", "--osl-stddev", "4"}, nil, "no minimum is pinned"},
		{[]string{"--osl", "16", "--endpoint-type", "embeddings"}, nil, "has no effect with --endpoint-type embeddings"},
	} {
		cfg, warnings, err := parseCompat(append(append(append([]string{}, compatBase...), "--output-tokens-mean-deterministic"), tt.args...)...)
		if err != nil {
			t.Errorf("%q: %v", tt.args, err)
			continue
		}
		if !reflect.DeepEqual(cfg.ExtraInputs, tt.wantExtra) {
			t.Errorf("%q: extra inputs %q, want %q", tt.args, cfg.ExtraInputs, tt.wantExtra)
		}
		if tt.warn != "" && (len(warnings) != 1 || !strings.Contains(warnings[0], tt.warn)) {
			t.Errorf("%q: warnings %q, want one with %q", tt.args, warnings, tt.warn)
		}
	}
	if _, _, err := parseCompat(append(append([]string{}, compatBase...), "--output-tokens-mean-deterministic")...); err == nil ||
		!strings.Contains(err.Error(), "needs --output-tokens-mean (--osl)") {
		t.Errorf("without --osl: %v", err)
	}
}

// TestVersionFlag checks `aiperf --version`: the `aiperf version` line.
func TestVersionFlag(t *testing.T) {
	var flagOut, cmdOut bytes.Buffer
	if err := run(context.Background(), []string{"--version"}, &flagOut, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	if err := run(context.Background(), []string{"version"}, &cmdOut, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	if flagOut.String() != cmdOut.String() || !strings.HasPrefix(flagOut.String(), "aiperf "+Version+" (commit ") {
		t.Errorf("--version %q, version %q", flagOut.String(), cmdOut.String())
	}
	if code, _, stderr := runCLI(t); code != exitUsage || !strings.Contains(stderr, "a subcommand is required") {
		t.Errorf("no arguments: exit %d, %s", code, stderr)
	}
}

// TestPerfAnalyzerPassthrough checks GenAI-Perf's `-- PA-ARGS`: accepted
// with one warning naming them; a stray argument before -- is still
// refused.
func TestPerfAnalyzerPassthrough(t *testing.T) {
	code, _, stderr := runCLI(t, "profile", "-m", "m", "--url", "127.0.0.1:1", "--tokenizer", "builtin", "--ui-type", "none",
		"--artifact-dir", t.TempDir(), "--request-count", "1", "--streaming", "--", "--max-threads", "256")
	if code == exitUsage || strings.Count(stderr, "aiperf: warning: the arguments after -- (--max-threads 256) are Perf Analyzer's") != 1 {
		t.Errorf("exit %d, stderr:\n%s", code, stderr)
	}
	code, _, stderr = runCLI(t, "profile", "-m", "m", "--streaming", "extra", "--", "--max-threads", "256")
	if code != exitUsage || !strings.Contains(stderr, `unexpected argument "extra"`) || strings.Contains(stderr, "max-threads\"") {
		t.Errorf("stray argument: exit %d, stderr:\n%s", code, stderr)
	}
}

// FuzzExpandMultiValue checks the command-line rewriting on any arguments
// (NUL-separated): what follows "--" is kept as it is, and every argument
// before it survives, alone or joined to its flag.
func FuzzExpandMultiValue(f *testing.F) {
	for _, s := range []string{"profile\x00-m\x00a\x00b", "profile\x00--fixed-schedule\x00true\x00--\x00-x", "profile\x00-g\x00--goodput\x00a:1", "profile\x00--url"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		in := splitNUL(s)
		out := expandMultiValue(in)
		if i := slices.Index(in, "--"); i >= 0 {
			j := slices.Index(out, "--")
			if j < 0 || !slices.Equal(in[i:], out[j:]) {
				t.Fatalf("expandMultiValue(%q) = %q: the arguments after -- changed", in, out)
			}
			in, out = in[:i], out[:j]
		}
		joined := strings.Join(out, "\x00")
		for _, a := range in {
			if !strings.Contains(joined, a) && !strings.EqualFold(a, "true") && !strings.EqualFold(a, "false") {
				if _, err := strconv.ParseBool(a); err != nil {
					t.Fatalf("expandMultiValue(%q) = %q: %q lost", in, out, a)
				}
			}
		}
	})
}
