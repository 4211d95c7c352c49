// Command aiperf-report loads every run of one or more stores into DuckDB
// and answers questions about them: SQL, run history, summaries, run
// comparisons and CI regression verdicts.
package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/peterbourgon/ff/v4"

	"github.com/aiperf-go/aiperf/internal/command"
)

// Version information, injected with -ldflags -X.
var (
	Version = "dev"
	Commit  = "unknown"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() { <-ctx.Done(); stop() }()
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(exitCode(err, os.Stderr))
}

// withVersionFlag gives root `--version`: print the version line (as
// `aiperf-report version`) and exit. Without it, root still needs a
// subcommand.
func withVersionFlag(root *ff.Command, rc *rootConfig) {
	show := root.Flags.(*ff.FlagSet).BoolLong("version", "print the version and exit (as aiperf-report version)")
	root.Exec = func(ctx context.Context, _ []string) error {
		if !*show {
			return ff.ErrNoExec
		}
		return newVersionCommand(rc, nil).Exec(ctx, nil)
	}
}

func exitCode(err error, stderr io.Writer) int {
	return command.ExitCode("aiperf-report", err, stderr)
}

// rootConfig holds the flags every subcommand shares.
type rootConfig struct {
	db          string
	format      string
	lockTimeout time.Duration
	stdin       io.Reader
	stdout      io.Writer
	stderr      io.Writer
}

// run parses args and runs the selected subcommand.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	rc := &rootConfig{stdin: stdin, stdout: stdout, stderr: stderr}
	root := newRootCommand(rc)
	withVersionFlag(root, rc)
	return command.Run(ctx, root, flagsFirst(root, args), stdout, stderr, ff.WithEnvVarPrefix("AIPERF_REPORT"))
}

// newRootCommand returns the command tree, its flags bound to rc.
func newRootCommand(rc *rootConfig) *ff.Command {
	fs := ff.NewFlagSet("aiperf-report")
	fs.StringVar(&rc.db, 0, "db", "aiperf.duckdb", "DuckDB database `FILE` holding the ingested runs")
	fs.StringVar(&rc.format, 0, "format", "table", "output `FORMAT`: table, csv, json or markdown")
	fs.DurationVar(&rc.lockTimeout, 0, "lock-timeout", 30*time.Second, "wait this `DURATION` for another process's lock on --db")
	return &ff.Command{
		Name:      "aiperf-report",
		Usage:     "aiperf-report [--db FILE] <ingest|runs|show|compare|regress|merge|sql|export|plot|analyze-trace> ...",
		ShortHelp: "SQL, history and regression verdicts over aiperf runs",
		LongHelp:  exitHelp,
		Flags:     fs,
		Subcommands: []*ff.Command{
			newIngestCommand(rc, fs), newRunsCommand(rc, fs), newShowCommand(rc, fs),
			newCompareCommand(rc, fs), newRegressCommand(rc, fs), newMergeCommand(rc, fs), newSQLCommand(rc, fs),
			newExportCommand(rc, fs), newPlotCommand(rc, fs), newAnalyzeTraceCommand(rc, fs),
			newVersionCommand(rc, fs),
		},
	}
}
