package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/peterbourgon/ff/v4"

	"github.com/aiperf-go/aiperf/internal/command"
	"github.com/aiperf-go/aiperf/sink"
)

// recoverFlags are the recover subcommand's settings.
type recoverFlags struct {
	spoolDir string
	timeout  time.Duration
	stdout   io.Writer
}

// newRecoverCommand returns the "recover" subcommand: it finishes the
// uploads of runs whose process died (sink.Recover), for a job that will not
// run aiperf profile again with the same --spool-dir, and prints what it
// delivered. It fails (exit 1) when something could not be delivered; the
// spool then stays for a later try.
func newRecoverCommand(stdout io.Writer) *ff.Command {
	f := &recoverFlags{stdout: stdout}
	fs := ff.NewFlagSet("recover")
	fs.StringVar(&f.spoolDir, 0, "spool-dir", sink.DefaultSpoolRoot(), "the spool `DIR` of the dead runs (profile's --spool-dir)")
	fs.DurationVar(&f.timeout, 0, "timeout", 5*time.Minute, "give up retrying the store after this long")
	return &ff.Command{
		Name:      "recover",
		Usage:     "aiperf recover [--spool-dir DIR] [--timeout 5m]",
		ShortHelp: "store what runs killed before their end left in the spool",
		LongHelp: "Uploads every dead run's spooled record segments to that run's own place in its store, " +
			"marks a run without a manifest interrupted, and removes the spools it delivered. " +
			"Runs whose process is still alive are left alone.",
		Flags: fs,
		Exec:  f.exec,
	}
}

// exec recovers and reports.
func (f *recoverFlags) exec(ctx context.Context, args []string) error {
	if len(args) > 0 {
		return command.Usage(fmt.Errorf("recover takes no arguments, got %q", args))
	}
	if f.timeout <= 0 {
		return command.Usage(fmt.Errorf("--timeout must be positive, got %v", f.timeout))
	}
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	rep, err := sink.Recover(ctx, f.spoolDir, nil)
	writeRecoveryReport(f.stdout, f.spoolDir, rep)
	if err != nil {
		return fmt.Errorf("recover: %w", err)
	}
	return nil
}

// writeRecoveryReport prints one line per spool, and what is left where.
func writeRecoveryReport(w io.Writer, root string, rep sink.RecoveryReport) {
	if len(rep.Runs) == 0 {
		fmt.Fprintf(w, "No spooled runs in %s\n", root)
		return
	}
	for _, r := range rep.Runs {
		switch {
		case r.Skipped != "":
			fmt.Fprintf(w, "%s: skipped (%s)\n", r.Spool, r.Skipped)
		case r.Live:
			fmt.Fprintf(w, "Run %s: its process is still running; left alone (%s)\n", r.ID, r.Spool)
		default:
			status := "delivered"
			if r.Err != nil {
				status = "NOT fully delivered"
			}
			fmt.Fprintf(w, "Run %s: %s %d objects to %s", r.ID, status, len(r.Delivered), r.Store)
			if r.Manifest {
				fmt.Fprintf(w, "; manifest written (status %s)", sink.StatusInterrupted)
			}
			if r.Removed {
				fmt.Fprintf(w, "; spool removed")
			}
			fmt.Fprintln(w)
			for _, name := range r.Delivered {
				fmt.Fprintf(w, "  stored   %s\n", name)
			}
			for _, file := range r.Undelivered {
				fmt.Fprintf(w, "  left in  %s\n", file)
			}
		}
	}
}
