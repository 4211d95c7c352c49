package main

import (
	"context"
	"fmt"
	"io"
	"runtime"

	"github.com/peterbourgon/ff/v4"
)

// versionLine is what `aiperf version` and `aiperf --version` print.
func versionLine() string {
	return fmt.Sprintf("aiperf %s (commit %s, %s %s/%s)\n", Version, Commit, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

// newVersionCommand prints the version, commit and Go version.
func newVersionCommand(stdout io.Writer) *ff.Command {
	return &ff.Command{
		Name:      "version",
		Usage:     "aiperf version",
		ShortHelp: "print version, commit and Go version",
		Flags:     ff.NewFlagSet("version"),
		Exec: func(context.Context, []string) error {
			_, err := io.WriteString(stdout, versionLine())
			return err
		},
	}
}

// withVersionFlag gives root AIPerf's and GenAI-Perf's `--version`: print
// the version line (as `aiperf version`) and exit. Without it, root still
// needs a subcommand. root's Flags must be an *ff.FlagSet.
func withVersionFlag(root *ff.Command, stdout io.Writer) *ff.Command {
	show := root.Flags.(*ff.FlagSet).BoolLong("version", "print the version and exit (as aiperf version)")
	root.Exec = func(context.Context, []string) error {
		if !*show {
			return ff.ErrNoExec
		}
		_, err := io.WriteString(stdout, versionLine())
		return err
	}
	return root
}
