package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/peterbourgon/ff/v4"

	"github.com/aiperf-go/aiperf/runner"
)

// compatAliases are the other names AIPerf 0.13 and GenAI-Perf give
// aiperf's flags (see docs/cli.md): alias → the flag it sets. Each means
// exactly what its flag does.
var compatAliases = []struct{ alias, flag string }{
	{"batch-size", "prompt-batch-size"}, // GenAI-Perf's --batch-size is --batch-size-text
	{"output-artifact-dir", "artifact-dir"},
	{"conversation-turn-mean", "session-turns-mean"},
	{"conversation-turn-stddev", "session-turns-stddev"},
	{"conversation-turn-delay-mean", "session-turn-delay-mean"},
	{"conversation-turn-delay-stddev", "session-turn-delay-stddev"},
	{"conversation-turn-delay-ratio", "session-delay-ratio"},
	{"prompt-prefix-pool-size", "num-prefix-prompts"},
	{"prefix-prompt-pool-size", "num-prefix-prompts"},
	{"prompt-prefix-length", "prefix-prompt-length"},
	{"prompt-input-tokens-block-size", "isl-block-size"},
	{"synthetic-input-tokens-block-size", "isl-block-size"},
	// GenAI-Perf's concurrent sessions: aiperf's concurrency slots each
	// run one session's turns in order.
	{"session-concurrency", "concurrency"},
	{"profile-export-level", "export-level"},
	// GenAI-Perf's Triton metrics URLs (full URLs with /metrics).
	{"server-metrics-url", "server-metrics"},
	{"server-metrics-urls", "server-metrics"},
}

// aliasValue sets another flag: an alias registered apart from its flag.
// Setting it sets (and marks as set) the flag itself. Its own value reads
// empty, so that the help shows the default once, on the flag.
type aliasValue struct{ target ff.Flag }

func (a aliasValue) String() string     { return "" }
func (a aliasValue) Set(s string) error { return a.target.SetValue(s) }

// addAliases registers compatAliases in g; every target must be a flag of
// root (g itself or a group root reaches through its parents).
func addAliases(g flagGroup, root *ff.FlagSet) {
	for _, a := range compatAliases {
		target, ok := root.GetFlag(a.flag)
		if !ok {
			panic("alias of an unknown flag --" + a.flag) // a programming error
		}
		usage := "alias of --" + a.flag
		if ph := target.GetPlaceholder(); ph != "" {
			usage += " (`" + ph + "`)"
		}
		g.add(0, a.alias, aliasValue{target}, usage)
	}
}

// addCompatGroup adds the Compatibility section of the help after last
// (the final group) and registers its flags, bound to cfg and verbose;
// root is the first group.
func addCompatGroup(root, last *ff.FlagSet, cfg *runner.Config, verbose *int) {
	g := flagGroup{ff.NewFlagSet("Compatibility (AIPerf 0.13, GenAI-Perf; see docs/cli.md)")}
	last.SetParent(g.fs)
	addCompatFlags(g, cfg, verbose)
	addAliases(g, root)
}

// printCompatWarnings prints the warnings of the compatibility flags set in
// fs (see compatWarnings) and of Perf Analyzer arguments in given (the
// command line), one line each.
func printCompatWarnings(w io.Writer, cfg *runner.Config, fs *ff.FlagSet, given []string) {
	warnings := compatWarnings(cfg, fs)
	if pa := passthrough(given); len(pa) > 0 {
		warnings = append(warnings, fmt.Sprintf("the arguments after -- (%s) are Perf Analyzer's, which aiperf does not run: they are ignored, and aiperf's own flags set the load",
			strings.Join(pa, " ")))
	}
	for _, s := range warnings {
		fmt.Fprintf(w, "aiperf: warning: %s\n", s)
	}
}

// passthrough returns the arguments after "--" in given: GenAI-Perf hands
// them to Perf Analyzer (`genai-perf profile ... -- --max-threads 256`).
func passthrough(given []string) []string {
	if i := slices.Index(given, "--"); i >= 0 {
		return given[i+1:]
	}
	return nil
}

// withoutPassthrough returns rest, the positional arguments the parser
// left, without the Perf Analyzer arguments of given, which the parser
// puts last.
func withoutPassthrough(rest, given []string) []string {
	n := len(passthrough(given))
	if n > 0 && n <= len(rest) && slices.Equal(rest[len(rest)-n:], passthrough(given)) {
		return rest[:len(rest)-n]
	}
	return rest
}
