package main

import (
	"context"
	"fmt"
	"io"
	"runtime"

	"github.com/peterbourgon/ff/v4"
)

// newVersionCommand prints the version, commit and Go version.
func newVersionCommand(stdout io.Writer) *ff.Command {
	return &ff.Command{
		Name:      "version",
		Usage:     "aiperf version",
		ShortHelp: "print version, commit and Go version",
		Flags:     ff.NewFlagSet("version"),
		Exec: func(context.Context, []string) error {
			_, err := fmt.Fprintf(stdout, "aiperf %s (commit %s, %s %s/%s)\n", Version, Commit, runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return err
		},
	}
}
