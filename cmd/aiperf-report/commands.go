package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/peterbourgon/ff/v4"

	"github.com/aiperf-go/aiperf/internal/command"
	"github.com/aiperf-go/aiperf/report"
	"github.com/aiperf-go/aiperf/sink"
	"github.com/aiperf-go/aiperf/sink/opener"
)

// print renders a table in --format.
func (rc *rootConfig) print(t *report.Table) error {
	if err := report.Write(rc.stdout, t, rc.format); err != nil {
		return command.Usage(fmt.Errorf("--format: %w", err))
	}
	return nil
}

func newCompareCommand(rc *rootConfig, parent *ff.FlagSet) *ff.Command {
	fs := ff.NewFlagSet("compare").SetParent(parent)
	return &ff.Command{
		Name:      "compare",
		Usage:     "aiperf-report compare RUN_A RUN_B",
		ShortHelp: "side-by-side summary of two runs with deltas",
		Flags:     fs,
		Exec: func(ctx context.Context, args []string) error {
			if len(args) != 2 {
				return command.Usage(errors.New("compare needs two run ids"))
			}
			db, err := rc.openDB(ctx)
			if err != nil {
				return err
			}
			defer db.Close()
			t, err := report.Compare(ctx, db.SQL(), args[0], args[1])
			if err != nil {
				return err
			}
			return rc.print(t)
		},
	}
}

func newVersionCommand(rc *rootConfig, parent *ff.FlagSet) *ff.Command {
	return &ff.Command{
		Name:      "version",
		ShortHelp: "print version, commit and Go version",
		Flags:     ff.NewFlagSet("version").SetParent(parent),
		Exec: func(context.Context, []string) error {
			_, err := fmt.Fprintf(rc.stdout, "aiperf-report %s (commit %s, %s)\n", Version, Commit, runtime.Version())
			return err
		},
	}
}

func newExportCommand(rc *rootConfig, parent *ff.FlagSet) *ff.Command {
	fs := ff.NewFlagSet("export").SetParent(parent)
	return &ff.Command{
		Name:      "export",
		Usage:     "aiperf-report export DIR | STORE_URL",
		ShortHelp: "write runs, requests and run_metrics as Parquet files to a directory or a store",
		Flags:     fs,
		Exec: func(ctx context.Context, args []string) error {
			if len(args) != 1 {
				return command.Usage(errors.New("export needs one destination: a directory or a store URL such as s3://bucket/tables"))
			}
			db, err := rc.openDB(ctx)
			if err != nil {
				return err
			}
			defer db.Close()
			dest := args[0]
			dir := dest
			if sink.IsURL(dest) {
				if dir, err = os.MkdirTemp("", "aiperf-export-"); err != nil {
					return err
				}
				defer os.RemoveAll(dir)
			}
			files, err := report.ExportParquet(ctx, db.SQL(), dir)
			if err != nil {
				return err
			}
			if sink.IsURL(dest) {
				if err := uploadFiles(ctx, dest, files); err != nil {
					return err
				}
			}
			for _, f := range files {
				fmt.Fprintf(rc.stdout, "wrote %s\n", strings.TrimSuffix(dest, "/")+"/"+filepath.Base(f))
			}
			return nil
		},
	}
}

// uploadFiles copies local files into the store at dest, replacing
// earlier exports of the same names.
func uploadFiles(ctx context.Context, dest string, files []string) error {
	store, err := sink.Open(ctx, dest, opener.Mux())
	if err != nil {
		return err
	}
	defer store.Close()
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		if err := store.Bucket.WriteAll(ctx, filepath.Base(f), data, nil); err != nil {
			return fmt.Errorf("export: %w", err)
		}
	}
	return nil
}
