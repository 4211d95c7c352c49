package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/peterbourgon/ff/v4"

	"github.com/aiperf-go/aiperf/export"
	"github.com/aiperf-go/aiperf/internal/command"
	"github.com/aiperf-go/aiperf/query"
	"github.com/aiperf-go/aiperf/report"
	"github.com/aiperf-go/aiperf/sink"
	"github.com/aiperf-go/aiperf/sink/opener"
)

// openDB opens the report database named by --db.
func (rc *rootConfig) openDB(ctx context.Context) (*query.DB, error) {
	return query.Open(ctx, rc.db)
}

// print renders a table in --format.
func (rc *rootConfig) print(t *report.Table) error {
	if err := report.Write(rc.stdout, t, rc.format); err != nil {
		return command.Usage(fmt.Errorf("--format: %w", err))
	}
	return nil
}

func newIngestCommand(rc *rootConfig, parent *ff.FlagSet) *ff.Command {
	fs := ff.NewFlagSet("ingest").SetParent(parent)
	return &ff.Command{
		Name:      "ingest",
		Usage:     "aiperf-report ingest STORE...",
		ShortHelp: "load new or changed runs from stores (directories or s3://, gs://, azblob://, file:// URLs)",
		LongHelp:  "Directories may also hold artifact directories of NVIDIA's Python aiperf.",
		Flags:     fs,
		Exec: func(ctx context.Context, args []string) error {
			if len(args) == 0 {
				return command.Usage(errors.New("ingest needs at least one store: a directory or a URL such as s3://bucket/prefix"))
			}
			db, err := rc.openDB(ctx)
			if err != nil {
				return err
			}
			defer db.Close()
			// A run that cannot be read is reported and the others still
			// load; the command then exits non-zero.
			var failed []error
			for _, src := range args {
				store, err := sink.Open(ctx, src, opener.Mux())
				if err != nil {
					return err
				}
				st, err := db.Ingest(ctx, src, store)
				store.Close()
				if err != nil {
					failed = append(failed, fmt.Errorf("ingest %s: %w", src, err))
				}
				if !sink.IsURL(src) {
					more, err := db.IngestAIPerfDir(ctx, src)
					if err != nil {
						failed = append(failed, fmt.Errorf("ingest %s: %w", src, err))
					}
					st.RunsSeen += more.RunsSeen
					st.RunsLoaded += more.RunsLoaded
					st.RunsSkipped += more.RunsSkipped
					st.RunsFailed += more.RunsFailed
					st.Records += more.Records
					st.Duration += more.Duration
				}
				rate := 0.0
				if s := st.Duration.Seconds(); s > 0 {
					rate = float64(st.Records) / s
				}
				fmt.Fprintf(rc.stdout, "%s: %d runs seen, %d loaded, %d unchanged, %d failed; %d records in %.2fs (%.0f records/s)\n",
					src, st.RunsSeen, st.RunsLoaded, st.RunsSkipped, st.RunsFailed, st.Records, st.Duration.Seconds(), rate)
			}
			return errors.Join(failed...)
		},
	}
}

func newRunsCommand(rc *rootConfig, parent *ff.FlagSet) *ff.Command {
	fs := ff.NewFlagSet("runs").SetParent(parent)
	model := fs.StringLong("model", "", "only runs of this `MODEL`")
	workload := fs.StringLong("workload", "", "only runs of this `WORKLOAD` id")
	since := fs.StringLong("since", "", "only runs started at or after this `TIME` (e.g. 2026-11-01 or 2026-11-01T08:00:00Z)")
	status := fs.StringLong("status", "", "only runs with this `STATUS`: complete, failed, interrupted or partial (a run group with a shard missing)")
	return &ff.Command{
		Name:      "runs",
		Usage:     "aiperf-report runs [--model M] [--workload W] [--since T] [--status S]",
		ShortHelp: "list runs with their headline metrics, oldest first",
		Flags:     fs,
		Exec: func(ctx context.Context, args []string) error {
			db, err := rc.openDB(ctx)
			if err != nil {
				return err
			}
			defer db.Close()
			rows, err := db.SQL().QueryContext(ctx, `SELECT * FROM run_summary
				WHERE (? = '' OR model = ?) AND (? = '' OR workload_id = ?) AND (? = '' OR status = ?)
				  AND (? = '' OR start_time >= CAST(? AS TIMESTAMP))
				ORDER BY start_time, run_id`, *model, *model, *workload, *workload, *status, *status, *since, *since)
			if err != nil {
				return fmt.Errorf("runs: %w", err)
			}
			t, err := report.FromRows(rows)
			if err != nil {
				return err
			}
			return rc.print(t)
		},
	}
}

func newShowCommand(rc *rootConfig, parent *ff.FlagSet) *ff.Command {
	fs := ff.NewFlagSet("show").SetParent(parent)
	return &ff.Command{
		Name:      "show",
		Usage:     "aiperf-report show RUN_ID",
		ShortHelp: "print a run's AIPerf console table, computed in SQL from its requests, and its GPU and server telemetry",
		Flags:     fs,
		Exec: func(ctx context.Context, args []string) error {
			if len(args) != 1 {
				return command.Usage(errors.New("show needs one run id (see aiperf-report runs)"))
			}
			db, err := rc.openDB(ctx)
			if err != nil {
				return err
			}
			defer db.Close()
			s, info, err := report.Show(ctx, db.SQL(), args[0])
			if err != nil {
				return err
			}
			if err := export.WriteConsoleExport(rc.stdout, s, info); err != nil {
				return err
			}
			line, err := report.ShardLine(ctx, db.SQL(), args[0])
			if err != nil {
				return err
			}
			if line != "" {
				fmt.Fprintln(rc.stdout, line)
			}
			return report.ShowTelemetry(ctx, db.SQL(), rc.stdout, args[0])
		},
	}
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

func newRegressCommand(rc *rootConfig, parent *ff.FlagSet) *ff.Command {
	fs := ff.NewFlagSet("regress").SetParent(parent)
	metric := fs.StringLong("metric", "time_to_first_token.p99", "the statistic to check, `TAG.STAT`")
	inc := fs.StringLong("max-increase", "", "fail when the statistic rises more than this (`PCT`, e.g. 10%)")
	dec := fs.StringLong("max-decrease", "", "fail when the statistic falls more than this (`PCT`), e.g. for throughput")
	previous := fs.IntLong("previous", 1, "baseline: the mean of the previous `N` complete runs of the same workload")
	baseline := fs.StringLong("baseline", "", "baseline: this `RUN_ID` instead, for every workload")
	workload := fs.StringLong("workload", "", "check only this `WORKLOAD` id")
	summary := fs.StringLong("summary-file", "", "also append the verdicts as Markdown to this `FILE` (e.g. $GITHUB_STEP_SUMMARY)")
	return &ff.Command{
		Name:      "regress",
		Usage:     "aiperf-report regress --metric TAG.STAT --max-increase PCT [--previous N | --baseline RUN]",
		ShortHelp: "compare the newest run of each workload with a baseline; exit 1 on a regression",
		Flags:     fs,
		Exec: func(ctx context.Context, args []string) error {
			check, err := report.ParseCheck(*metric, *inc, *dec)
			if err != nil {
				return command.Usage(err)
			}
			db, err := rc.openDB(ctx)
			if err != nil {
				return err
			}
			defer db.Close()
			findings, err := report.Regress(ctx, db.SQL(), report.RegressOptions{Check: check, Previous: *previous, BaselineRun: *baseline, Workload: *workload})
			if err != nil {
				return err
			}
			t := report.FindingsTable(check, findings)
			if err := rc.print(t); err != nil {
				return err
			}
			if *summary != "" {
				f, err := os.OpenFile(*summary, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
				if err != nil {
					return fmt.Errorf("--summary-file: %w", err)
				}
				fmt.Fprintf(f, "### aiperf regression check: %s.%s\n\n", check.Tag, check.Stat)
				werr := report.Write(f, t, "markdown")
				if cerr := f.Close(); werr == nil {
					werr = cerr
				}
				if werr != nil {
					return fmt.Errorf("--summary-file: %w", werr)
				}
			}
			for _, f := range findings {
				if f.Regressed {
					return errRegressed
				}
			}
			return nil
		},
	}
}

func newSQLCommand(rc *rootConfig, parent *ff.FlagSet) *ff.Command {
	fs := ff.NewFlagSet("sql").SetParent(parent)
	file := fs.StringLong("file", "", "read the query from `FILE`")
	return &ff.Command{
		Name:      "sql",
		Usage:     "aiperf-report sql 'SELECT ...' | --file Q.sql | - (stdin)",
		ShortHelp: "run any SQL over runs, requests and run_metrics (see docs/schema.md)",
		Flags:     fs,
		Exec: func(ctx context.Context, args []string) error {
			q := strings.Join(args, " ")
			switch {
			case *file != "":
				b, err := os.ReadFile(*file)
				if err != nil {
					return fmt.Errorf("--file: %w", err)
				}
				q = string(b)
			case q == "" || q == "-":
				b, err := io.ReadAll(rc.stdin)
				if err != nil {
					return err
				}
				q = string(b)
			}
			if strings.TrimSpace(q) == "" {
				return command.Usage(errors.New("sql needs a query: an argument, --file or standard input"))
			}
			db, err := rc.openDB(ctx)
			if err != nil {
				return err
			}
			defer db.Close()
			rows, err := db.SQL().QueryContext(ctx, q)
			if err != nil {
				return fmt.Errorf("sql: %w", err)
			}
			t, err := report.FromRows(rows)
			if err != nil {
				return fmt.Errorf("sql: %w", err)
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
