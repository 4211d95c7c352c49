package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/peterbourgon/ff/v4"

	"github.com/aiperf-go/aiperf/internal/command"
	"github.com/aiperf-go/aiperf/query"
	"github.com/aiperf-go/aiperf/report"
	"github.com/aiperf-go/aiperf/sink"
	"github.com/aiperf-go/aiperf/sink/opener"
)

func newIngestCommand(rc *rootConfig, parent *ff.FlagSet) *ff.Command {
	fs := ff.NewFlagSet("ingest").SetParent(parent)
	return &ff.Command{
		Name:      "ingest",
		Usage:     "aiperf-report ingest STORE...",
		ShortHelp: "load new or changed runs from stores (directories or s3://, gs://, azblob://, file:// URLs)",
		LongHelp: "Directories may also hold artifact directories of NVIDIA's Python aiperf. A store that does not " +
			"exist or holds no run is an error; a run that cannot be read is named on stderr with the reason, the " +
			"others load, and the exit status is 4 (partial).",
		Flags: fs,
		Exec: func(ctx context.Context, args []string) error {
			if len(args) == 0 {
				return command.Usage(errors.New("ingest needs at least one store: a directory or a URL such as s3://bucket/prefix"))
			}
			if err := report.CheckFormat(rc.format); err != nil {
				return command.Usage(fmt.Errorf("--format: %w", err))
			}
			for _, src := range args {
				if err := checkStore(src); err != nil {
					return err
				}
			}
			db, err := rc.openWriteDB(ctx)
			if err != nil {
				return err
			}
			defer db.Close()
			return rc.ingest(ctx, db, args)
		},
	}
}

// ingest loads every store of srcs into db and prints a line (or row) per
// store. Each run that could not be loaded, or loaded only in part (its
// records end in a truncated line), is named on stderr; the error is then
// a partial one (exit 4), or a plain one when every run failed.
func (rc *rootConfig) ingest(ctx context.Context, db *query.DB, srcs []string) error {
	t := &report.Table{Columns: []string{"store", "runs_seen", "loaded", "unchanged", "failed", "records", "seconds"}}
	var seen, failed, partial int
	db.OnPartialRun = func(run, what string) {
		partial++
		fmt.Fprintf(rc.stderr, "aiperf-report: run %s loaded in part: %s\n", run, what)
	}
	defer func() { db.OnPartialRun = nil }()
	for _, src := range srcs {
		st, errs, err := ingestStore(ctx, db, src)
		if err != nil {
			return err
		}
		for _, e := range errs {
			fmt.Fprintf(rc.stderr, "aiperf-report: ingest %s: %v\n", src, e)
		}
		if st.RunsSeen == 0 {
			return fmt.Errorf("ingest %s: no runs found (neither runs/<run_id>/ of aiperf-go nor profile_export_aiperf.json of Python aiperf)", src)
		}
		seen, failed = seen+st.RunsSeen, failed+st.RunsFailed
		if rc.format == "table" {
			rate := 0.0
			if s := st.Duration.Seconds(); s > 0 {
				rate = float64(st.Records) / s
			}
			fmt.Fprintf(rc.stdout, "%s: %d runs seen, %d loaded, %d unchanged, %d failed; %d records in %.2fs (%.0f records/s)\n",
				src, st.RunsSeen, st.RunsLoaded, st.RunsSkipped, st.RunsFailed, st.Records, st.Duration.Seconds(), rate)
			continue
		}
		t.Rows = append(t.Rows, []any{src, st.RunsSeen, st.RunsLoaded, st.RunsSkipped, st.RunsFailed, st.Records, st.Duration.Seconds()})
	}
	if rc.format != "table" {
		if err := rc.print(t); err != nil {
			return err
		}
	}
	switch {
	case failed > 0 && failed == seen:
		return fmt.Errorf("none of the %d runs could be loaded (named above)", seen)
	case failed > 0:
		return partialError(failed, seen)
	case partial > 0:
		return &statusError{status: exitPartial, err: fmt.Errorf("partial: %d of %d runs loaded in part (named above)", partial, seen)}
	}
	return nil
}

// ingestStore loads one store, and for a directory also the Python aiperf
// artifact directories under it. errs are the runs that could not be
// loaded, one error each; err is a failure to read the store at all.
func ingestStore(ctx context.Context, db *query.DB, src string) (st query.IngestStats, errs []error, err error) {
	store, err := sink.Open(ctx, src, opener.Mux())
	if err != nil {
		return st, nil, fmt.Errorf("ingest %s: %w", src, err)
	}
	st, err = db.Ingest(ctx, src, store)
	store.Close()
	if errs, err = runErrors(err); err != nil {
		return st, nil, fmt.Errorf("ingest %s: %w", src, err)
	}
	if sink.IsURL(src) {
		return st, errs, nil
	}
	more, err := db.IngestAIPerfDir(ctx, src)
	moreErrs, err := runErrors(err)
	if err != nil {
		return st, nil, err // IngestAIPerfDir names src itself
	}
	st.RunsSeen += more.RunsSeen
	st.RunsLoaded += more.RunsLoaded
	st.RunsSkipped += more.RunsSkipped
	st.RunsFailed += more.RunsFailed
	st.Records += more.Records
	st.Duration += more.Duration
	return st, append(errs, moreErrs...), nil
}

// runErrors splits an ingest's error into the errors of single runs (each
// a *query.RunError, or any part of a joined error naming a run) and the
// rest, which stopped the ingest.
func runErrors(err error) (runs []error, rest error) {
	if err == nil {
		return nil, nil
	}
	parts := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		parts = j.Unwrap()
	}
	var others []error
	for _, e := range parts {
		var re *query.RunError
		if msg := e.Error(); errors.As(e, &re) || strings.HasPrefix(msg, "run ") || strings.HasPrefix(msg, "aiperf dir ") {
			runs = append(runs, e)
			continue
		}
		others = append(others, e)
	}
	return runs, errors.Join(others...)
}

// checkStore returns an error for a directory store, or a file:// one,
// that does not exist: sink.Open would read it as an empty store.
func checkStore(src string) error {
	dir := src
	if sink.IsURL(src) {
		if !strings.HasPrefix(src, "file://") {
			return nil // a bucket that cannot be listed fails on its own
		}
		dir = strings.TrimPrefix(src, "file://")
		if i := strings.IndexByte(dir, '?'); i >= 0 {
			dir = dir[:i]
		}
	}
	fi, err := os.Stat(filepath.FromSlash(dir))
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("ingest %s: no such directory", src)
	case err != nil:
		return fmt.Errorf("ingest %s: %w", src, err)
	case !fi.IsDir():
		return fmt.Errorf("ingest %s: not a directory (a store is a directory or a URL such as s3://bucket/prefix)", src)
	}
	return nil
}
