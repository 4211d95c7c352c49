package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/peterbourgon/ff/v4"

	"github.com/aiperf-go/aiperf/runner"
)

// referenceFlag is one line of testdata/reference_flags.txt.
type referenceFlag struct {
	flag, command, sources, example, expect string
}

func readReferenceFlags(t *testing.T) []referenceFlag {
	t.Helper()
	f, err := os.Open("testdata/reference_flags.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []referenceFlag
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		c := strings.Split(line, "\t")
		if len(c) != 5 {
			t.Fatalf("reference_flags.txt: %q has %d columns, want 5", line, len(c))
		}
		out = append(out, referenceFlag{c[0], c[1], c[2], c[3], c[4]})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestReferenceFlags checks every flag of AIPerf 0.13's `profile --help`,
// AIPerf's CLI reference and GenAI-Perf's parser against our parser (parse
// only, no request): ok is accepted without a warning, warn with exactly
// one, and pending is still refused as unknown, so that a flag that lands
// is moved to ok here (and to docs/cli.md).
func TestReferenceFlags(t *testing.T) {
	flags := readReferenceFlags(t)
	seen := map[string]bool{}
	for _, rf := range flags {
		key := rf.command + " " + rf.flag
		if seen[key] {
			t.Errorf("%s listed twice", key)
		}
		seen[key] = true
		for _, s := range strings.Split(rf.sources, ",") {
			if !slices.Contains([]string{"aiperf-0.13", "cli-options", "genai-perf"}, s) {
				t.Errorf("%s: unknown source %q", rf.flag, s)
			}
		}
		args := []string{rf.flag}
		if rf.example != "-" {
			args = append(args, rf.example)
		}
		var err error
		warnings := 0
		switch rf.command {
		case "profile":
			cfg := runner.Defaults()
			var verbose int
			var configFile string
			fs := profileFlags(&cfg, &verbose, &configFile)
			expanded := expandMultiValue(append([]string{"profile"}, args...))[1:]
			if err = ff.Parse(fs, expanded); err == nil && len(fs.GetArgs()) > 0 {
				t.Errorf("%s %q: left %q unparsed", rf.flag, rf.example, fs.GetArgs())
			}
			if err == nil {
				warnings = len(compatWarnings(&cfg, fs))
			}
		case "root":
			err = run(context.Background(), append(args, "--help"), &bytes.Buffer{}, &bytes.Buffer{})
		default:
			err = run(context.Background(), append(append([]string{rf.command}, args...), "--help"), &bytes.Buffer{}, &bytes.Buffer{})
		}
		switch {
		case strings.HasPrefix(rf.expect, "pending: "):
			if err == nil || !errors.Is(err, ff.ErrUnknownFlag) && rf.command == "profile" {
				t.Errorf("%s %s is accepted now (err %v): mark it ok or warn in testdata/reference_flags.txt and document it in docs/cli.md", rf.command, rf.flag, err)
			}
		case rf.expect == "ok" || rf.expect == "warn":
			want := 0
			if rf.expect == "warn" {
				want = 1
			}
			if err != nil {
				t.Errorf("%s %s %s: refused: %v", rf.command, rf.flag, rf.example, err)
			} else if warnings != want {
				t.Errorf("%s %s: %d warnings, want %d", rf.command, rf.flag, warnings, want)
			}
		default:
			t.Errorf("%s: unknown expectation %q", rf.flag, rf.expect)
		}
	}
}

// TestReferenceFlagsListCompatFlags checks that every alias and ignored
// flag aiperf registers for compatibility is in the reference list (so
// that the list, and docs/cli.md, name them all).
func TestReferenceFlagsListCompatFlags(t *testing.T) {
	listed := map[string]string{}
	for _, rf := range readReferenceFlags(t) {
		listed[rf.flag] = rf.expect
	}
	for _, a := range compatAliases {
		if listed["--"+a.alias] != "ok" {
			t.Errorf("alias --%s: %q in reference_flags.txt, want ok", a.alias, listed["--"+a.alias])
		}
	}
	for _, f := range ignoredFlags {
		if listed["--"+f.name] != "warn" {
			t.Errorf("ignored --%s: %q in reference_flags.txt, want warn", f.name, listed["--"+f.name])
		}
	}
}
