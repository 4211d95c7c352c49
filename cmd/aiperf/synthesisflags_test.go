package main

import (
	"strings"
	"testing"
)

// TestSynthesisFlags: the --synthesis-* multipliers reach the config, and
// their defaults leave a trace unchanged.
func TestSynthesisFlags(t *testing.T) {
	cfg, err := parseProfile([]string{"-m", "x", "--input-file", writeTrace(t, docsTrace),
		"--synthesis-speedup-ratio", "2.5", "--synthesis-prefix-len-multiplier", "1.5", "--synthesis-prefix-root-multiplier", "3",
		"--synthesis-prompt-len-multiplier", "0.5", "--synthesis-output-len-multiplier", "0"})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.SynthesisSpeedupRatio != 2.5 || cfg.SynthesisPrefixLenMultiplier != 1.5 || cfg.SynthesisPrefixRootMultiplier != 3 ||
		cfg.SynthesisPromptLenMultiplier != 0.5 || cfg.SynthesisOutputLenMultiplier != 0 {
		t.Errorf("config: %+v", cfg)
	}
	cfg, err = parseProfile([]string{"-m", "x"})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.SynthesisSpeedupRatio != 1 || cfg.SynthesisPrefixLenMultiplier != 1 || cfg.SynthesisPrefixRootMultiplier != 1 ||
		cfg.SynthesisPromptLenMultiplier != 1 || cfg.SynthesisOutputLenMultiplier != 1 {
		t.Errorf("defaults: %+v", cfg)
	}
}

// TestSynthesisFlagsExitTwo: a bad multiplier is refused (exit 2, naming
// the flag) before any request.
func TestSynthesisFlagsExitTwo(t *testing.T) {
	srv, hits := countingServer(t)
	in := writeTrace(t, docsTrace)
	base := []string{"profile", "-m", "x", "--url", srv.URL, "--ui-type", "none", "--artifact-dir", t.TempDir()}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--input-file", in, "--synthesis-speedup-ratio", "0"}, "--synthesis-speedup-ratio must be a finite number > 0, got 0"},
		{[]string{"--input-file", in, "--synthesis-prefix-root-multiplier", "0"}, "--synthesis-prefix-root-multiplier must be >= 1, got 0"},
		{[]string{"--synthesis-prompt-len-multiplier", "2"}, "the --synthesis-* multipliers rescale a trace: give --input-file"},
	} {
		code, _, stderr := runCLI(t, append(append([]string(nil), base...), tt.args...)...)
		if code != exitUsage || !strings.Contains(stderr, tt.want) {
			t.Errorf("%q: exit %d, stderr:\n%s\nwant exit 2 and %q", tt.args, code, stderr, tt.want)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("%d requests sent", n)
	}
}
