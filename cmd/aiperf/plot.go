package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/peterbourgon/ff/v4"

	"github.com/aiperf-go/aiperf/internal/command"
)

// newPlotCommand returns `aiperf plot`: Python AIPerf draws its plots in
// the benchmark tool itself, but aiperf-go's plots read runs through
// DuckDB, which the runner leaves out; so plot only names the equivalent
// aiperf-report command line and exits 2 (a usage error: nothing ran).
func newPlotCommand() *ff.Command {
	fs := ff.NewFlagSet("plot")
	paths := fs.StringListLong("paths", "profiling run `DIR` (repeatable; as the positional DIR...)")
	output := fs.StringLong("output", "", "directory for the plots (aiperf-report's default: <first DIR>/plots)")
	theme := fs.StringLong("theme", "", "plot theme: light or dark")
	return &ff.Command{
		Name:      "plot",
		Usage:     "aiperf plot [DIR...] [--output DIR] [--theme light|dark]",
		ShortHelp: "name the aiperf-report plot command that plots these artifact directories",
		LongHelp: "aiperf-go draws plots with aiperf-report (it loads runs into DuckDB, which the runner binary " +
			"leaves out): aiperf plot prints the aiperf-report plot command line that does what it was asked " +
			"and exits 2. Without directories, as Python aiperf, it plots ./artifacts.",
		Flags: fs,
		Exec: func(_ context.Context, args []string) error {
			return command.Usage(fmt.Errorf("plot is part of aiperf-report (the runner carries no DuckDB); run: %s",
				plotEquivalent(append(*paths, args...), *output, *theme)))
		},
	}
}

// plotEquivalent is the aiperf-report plot command line for dirs
// (./artifacts when none), output and theme ("" for their defaults),
// each argument quoted for a POSIX shell where it needs it.
func plotEquivalent(dirs []string, output, theme string) string {
	if len(dirs) == 0 {
		dirs = []string{"./artifacts"}
	}
	words := []string{"aiperf-report", "plot"}
	for _, d := range dirs {
		words = append(words, shellQuote(d))
	}
	if output != "" {
		words = append(words, "--output", shellQuote(output))
	}
	if theme != "" {
		words = append(words, "--theme", shellQuote(theme))
	}
	return strings.Join(words, " ")
}

// shellQuote returns s as one POSIX shell word: as it is when it holds
// only characters a shell leaves alone, else in single quotes.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./:=@%+,-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
