package main

import (
	"io"

	"github.com/peterbourgon/ff/v4"
)

// newMockServerCommand is a placeholder; the mock-server helper replaces it.
func newMockServerCommand(stdout, stderr io.Writer) *ff.Command {
	return &ff.Command{Name: "mock-server", Flags: ff.NewFlagSet("mock-server")}
}
