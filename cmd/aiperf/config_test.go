package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/peterbourgon/ff/v4"

	"github.com/aiperf-go/aiperf/internal/command"
	"github.com/aiperf-go/aiperf/runner"
)

// parseProfile parses profile args the way `aiperf profile` does, without
// running anything.
func parseProfile(args []string) (*runner.Config, error) {
	cfg := runner.Defaults()
	var verbose int
	var configFile string
	fs := profileFlags(&cfg, &verbose, &configFile)
	err := ff.Parse(fs, args,
		ff.WithEnvVarPrefix("AIPERF"),
		ff.WithConfigFileFlag("config"),
		ff.WithConfigFileParser(configFileParser(args)),
	)
	if err != nil {
		return nil, command.Usage(err)
	}
	if err := finishProfileConfig(&cfg, fs, verbose, fs.GetArgs(), args); err != nil {
		return nil, err
	}
	return &cfg, nil
}

func TestConfigSourcesPriority(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "aiperf.yaml")
	yaml := "model: from-file\nconcurrency: 7\nrequest-rate: 3.5\nstreaming: true\nisl: 100\n"
	if err := os.WriteFile(file, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("AIPERF_CONCURRENCY", "9")
	t.Setenv("AIPERF_ISL", "200")
	cfg, err := parseProfile([]string{"--config", file, "--isl", "300"})
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Models; len(got) != 1 || got[0] != "from-file" {
		t.Errorf("model from file: %v", got)
	}
	if cfg.Concurrency != 9 {
		t.Errorf("env must beat file: concurrency %d", cfg.Concurrency)
	}
	if cfg.ISLMean != 300 {
		t.Errorf("flag must beat env: isl %v", cfg.ISLMean)
	}
	if cfg.RequestRate != 3.5 || !cfg.Streaming {
		t.Errorf("file values: rate %v streaming %v", cfg.RequestRate, cfg.Streaming)
	}
}

func TestAliasesAndLists(t *testing.T) {
	cfg, err := parseProfile([]string{"--model-names", "a,b", "-m", "c", "--num-requests", "12",
		"--prompt-input-tokens-mean", "64", "--request-rate-mode", "constant", "--request-rate", "2",
		"-H", "X-A:1", "--header", "Authorization:Bearer secret", "--benchmark-duration", "1.5",
		"--benchmark-grace-period", "inf", "-v"})
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Models) != 3 || cfg.RequestCount != 12 || cfg.ISLMean != 64 || cfg.ArrivalPattern != "constant" {
		t.Fatalf("cfg %+v", cfg)
	}
	if cfg.GracePeriod >= 0 || !cfg.GracePeriodSet || cfg.BenchmarkDuration.Seconds() != 1.5 {
		t.Fatalf("grace %v set %v duration %v", cfg.GracePeriod, cfg.GracePeriodSet, cfg.BenchmarkDuration)
	}
	if cfg.LogLevel != "DEBUG" {
		t.Fatalf("-v: log level %s", cfg.LogLevel)
	}
	if want := "aiperf --model-names 'a,b' -m 'c' --num-requests 12 --prompt-input-tokens-mean 64 --request-rate-mode 'constant' --request-rate 2 -H 'X-A:1' --header 'Authorization:<redacted>' --benchmark-duration 1.5 --benchmark-grace-period 'inf' -v"; cfg.CLICommand != want {
		t.Fatalf("cli command\n got %s\nwant %s", cfg.CLICommand, want)
	}
}

func FuzzProfileArgs(f *testing.F) {
	f.Add("--model\x00m\x00--concurrency\x004")
	f.Add("-m\x00x\x00--request-rate\x00-1\x00--arrival-pattern\x00gamma")
	f.Add("--benchmark-grace-period\x00inf\x00--extra-inputs\x00{\"a\":1}")
	f.Fuzz(func(t *testing.T, joined string) {
		args := splitNUL(joined)
		cfg, err := parseProfile(args)
		if err == nil && cfg.Validate() != nil {
			t.Fatalf("accepted an invalid config: %q", args)
		}
	})
}

func splitNUL(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}
