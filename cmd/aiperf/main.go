// Command aiperf benchmarks generative-AI inference servers: one benchmark
// from flags, AIPERF_* env vars or a YAML file, then a meaningful exit status.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/peterbourgon/ff/v4"
	// Blob store drivers for --artifact-dir URLs (the runner opens plain
	// paths itself).
	"github.com/peterbourgon/ff/v4/ffhelp"
	"github.com/peterbourgon/ff/v4/ffyaml"
	_ "gocloud.dev/blob/azureblob"
	_ "gocloud.dev/blob/fileblob"
	_ "gocloud.dev/blob/gcsblob"
	_ "gocloud.dev/blob/memblob"
	_ "gocloud.dev/blob/s3blob"
)

// Version information, injected with -ldflags -X.
var (
	Version = "dev"
	Commit  = "unknown"
)

// Exit statuses.
const (
	exitOK     = 0
	exitFailed = 1
	exitUsage  = 2
)

// usageError marks an invalid configuration: exit status 2, reported before
// any request is sent.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// The first signal cancels ctx: the run stops sending and writes what it
	// has. Unregistering then restores the default action, so a second
	// signal kills the process without a final flush.
	go func() { <-ctx.Done(); stop() }()
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(exitCode(err, os.Stderr))
}

// exitCode maps run's error to the process exit status, printing it.
func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return exitOK
	}
	fmt.Fprintf(stderr, "aiperf: %v\n", err)
	var ue *usageError
	if errors.As(err, &ue) {
		return exitUsage
	}
	return exitFailed
}

// run parses args and runs the selected subcommand.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	rootFlags := ff.NewFlagSet("aiperf")
	root := &ff.Command{
		Name:      "aiperf",
		Usage:     "aiperf <profile|mock-server|analyze-trace|version> [flags]",
		ShortHelp: "benchmark generative-AI inference servers",
		Flags:     rootFlags,
		Subcommands: []*ff.Command{
			newProfileCommand(args, stdout, stderr),
			newMockServerCommand(stdout, stderr),
			newAnalyzeTraceCommand(stdout, stderr),
			newVersionCommand(stdout),
		},
	}
	err := root.Parse(args,
		ff.WithEnvVarPrefix("AIPERF"),
		ff.WithConfigFileFlag("config"),
		ff.WithConfigFileParser(ffyaml.Parse),
	)
	if errors.Is(err, ff.ErrHelp) {
		fmt.Fprint(stdout, ffhelp.Command(root.GetSelected()))
		return nil
	}
	if err != nil {
		return &usageError{err}
	}
	err = root.Run(ctx)
	if errors.Is(err, ff.ErrNoExec) {
		fmt.Fprint(stderr, ffhelp.Command(root.GetSelected()))
		return &usageError{errors.New("a subcommand is required")}
	}
	return err
}
