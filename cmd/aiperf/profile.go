package main

import (
	"context"
	"io"

	"github.com/peterbourgon/ff/v4"
)

func newProfileCommand(stdout, stderr io.Writer) *ff.Command {
	return &ff.Command{Name: "profile", Flags: ff.NewFlagSet("profile"), Exec: func(context.Context, []string) error { return nil }}
}
