// Package command holds the conventions both binaries follow: how a command
// tree is parsed and run, how help is printed, and how errors map to exit
// statuses (2 for invalid usage, 128 + N after signal N cut a command
// short, an error's own ExitStatus() such as aiperf's 3 for failed
// thresholds, 1 for everything else).
package command

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/peterbourgon/ff/v4"
	"github.com/peterbourgon/ff/v4/ffhelp"
)

// UsageError marks invalid flags or arguments: exit status 2, reported
// before any work is done.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// Usage wraps err as a *UsageError.
func Usage(err error) error { return &UsageError{Err: err} }

// Run parses args into root with opts and runs the selected command. -h and
// --help print that command's help to stdout; a parse error or a command
// without its own action (no subcommand given, or an unknown one, which
// the error names) is a *UsageError.
func Run(ctx context.Context, root *ff.Command, args []string, stdout, stderr io.Writer, opts ...ff.Option) error {
	err := root.Parse(args, opts...)
	if errors.Is(err, ff.ErrHelp) {
		fmt.Fprint(stdout, ffhelp.Command(root.GetSelected()))
		return nil
	}
	if err != nil {
		return Usage(err)
	}
	err = root.Run(ctx)
	if errors.Is(err, ff.ErrNoExec) {
		sel := root.GetSelected()
		fmt.Fprint(stderr, ffhelp.Command(sel))
		if args := sel.Flags.GetArgs(); len(args) > 0 {
			return Usage(fmt.Errorf("unknown command %q: see the SUBCOMMANDS above", args[0]))
		}
		return Usage(errors.New("a subcommand is required"))
	}
	return err
}

// ExitCode prints err (prefixed by the program's name) to stderr and
// returns the exit status: 0 for nil, 2 for a *UsageError, 128 + the
// signal's number for a *SignalError (130 SIGINT, 143 SIGTERM), the
// status of the outermost error in err's chain with an ExitStatus() int
// method (aiperf's failed thresholds: 3), else 1.
func ExitCode(name string, err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	// The flag parser names the root command itself ("prog: parse args:
	// …"); the message carries the name once.
	fmt.Fprintf(stderr, "%s: %s\n", name, strings.TrimPrefix(err.Error(), name+": "))
	var ue *UsageError
	if errors.As(err, &ue) {
		return 2
	}
	var st interface{ ExitStatus() int }
	if errors.As(err, &st) {
		return st.ExitStatus() // *SignalError among them
	}
	return 1
}
