package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/peterbourgon/ff/v4"

	"github.com/aiperf-go/aiperf/internal/command"
	"github.com/aiperf-go/aiperf/plot"
	"github.com/aiperf-go/aiperf/query"
)

// newPlotCommand is `aiperf-report plot --output DIR [RUN_ID...]`: charts
// as PNG and SVG plus a self-contained report.html (see plot.Render) of
// runs in --db; or `aiperf-report plot DIR... [--output OUT]`, as Python
// `aiperf plot` takes artifact directories, of the runs under DIR...
// loaded into an in-memory database.
func newPlotCommand(rc *rootConfig, parent *ff.FlagSet) *ff.Command {
	fs := ff.NewFlagSet("plot").SetParent(parent)
	output := fs.StringLong("output", "", "write the charts and report.html into this `DIR` (created if needed)")
	groupBy := fs.StringLong("group-by", "", "group runs on the charts by model, endpoint and labels (the default, so that unrelated runs never share a line), by `model`, or by one run label, label:KEY (runs tagged with aiperf profile --label KEY=VALUE)")
	theme := fs.StringLong("theme", plot.ThemeLight, "colours of the charts and report.html: `light` or dark")
	where := fs.StringLong("where", "", "keep only the runs for which this SQL `PREDICATE` over the runs table holds, such as \"model = 'llama' AND (labels->>'gpu') = 'h100'\" (one predicate, never a statement)")
	return &ff.Command{
		Name:      "plot",
		Usage:     "aiperf-report plot --output DIR [--where PREDICATE] [--group-by model|label:KEY] [--theme light|dark] [RUN_ID...|ARTIFACT_DIR...]",
		ShortHelp: "draw sweeps, Pareto frontiers and per-run charts as PNG, SVG and one interactive HTML page",
		LongHelp: "Without run ids, the sweep and Pareto charts cover every run (those --where keeps), failed, " +
			"partial and degraded runs marked and never on a frontier, and the per-run charts (TTFT over time, " +
			"request latency histogram, …) the newest complete one; with run ids, both cover those runs. " +
			"report.html is one self-contained file (Chart.js embedded): hover a point for its run, click a " +
			"legend entry to hide a group, switch the metric (TTFT, ITL, request latency) and the statistic " +
			"(p50, p90, p99, avg). " +
			"Given artifact directories instead of run ids (as Python aiperf plot takes them: directories written by " +
			"aiperf profile or by Python aiperf, or directories holding several of them), plot loads their runs into " +
			"an in-memory database (no ingest, --db unused) and writes to --output, by default <first DIR>/plots: " +
			"one run draws its per-run charts (single-run mode), several runs the sweep and Pareto charts across " +
			"them with the newest run's per-run charts (multi-run mode).",
		Flags: fs,
		Exec: func(ctx context.Context, args []string) error {
			dirs, err := plotDirs(args)
			if err != nil {
				return command.Usage(err)
			}
			if *output == "" && !dirs {
				return command.Usage(errors.New("plot needs --output DIR (or artifact directories to plot, which default it to <first>/plots)"))
			}
			opts := plot.Options{GroupBy: *groupBy, Where: *where, Theme: *theme}
			if err := plot.CheckTheme(*theme); err != nil {
				return command.Usage(fmt.Errorf("--theme: %w", err))
			}
			var db *query.DB
			if dirs {
				var ids []string
				if db, ids, err = rc.ingestDirs(ctx, args); err != nil {
					return err
				}
				if *output == "" {
					*output = filepath.Join(args[0], "plots")
				}
				args = nil // multi-run mode: every run, the newest one's per-run charts
				if len(ids) == 1 {
					args = ids // single-run mode
				}
			} else if db, err = rc.openDB(ctx); err != nil {
				return err
			}
			defer db.Close()
			paths, err := plot.Render(ctx, db.SQL(), *output, args, opts)
			if errors.Is(err, plot.ErrRunNotFound) || errors.Is(err, plot.ErrGroupBy) || errors.Is(err, plot.ErrWhere) || errors.Is(err, plot.ErrTheme) {
				return command.Usage(err)
			}
			if err != nil {
				return err
			}
			for _, p := range paths {
				fmt.Fprintln(rc.stdout, p)
			}
			return nil
		},
	}
}
