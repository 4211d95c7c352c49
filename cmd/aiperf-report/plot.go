package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/peterbourgon/ff/v4"

	"github.com/aiperf-go/aiperf/internal/command"
	"github.com/aiperf-go/aiperf/plot"
)

// newPlotCommand is `aiperf-report plot --output DIR [RUN_ID...]`: charts
// as PNG and SVG plus a self-contained report.html (see plot.Render).
func newPlotCommand(rc *rootConfig, parent *ff.FlagSet) *ff.Command {
	fs := ff.NewFlagSet("plot").SetParent(parent)
	output := fs.StringLong("output", "", "write the charts and report.html into this `DIR` (created if needed)")
	groupBy := fs.StringLong("group-by", "", "group runs on the charts by model, endpoint and labels (the default, so that unrelated runs never share a line), by `model`, or by one run label, label:KEY (runs tagged with aiperf profile --label KEY=VALUE)")
	where := fs.StringLong("where", "", "keep only the runs for which this SQL `PREDICATE` over the runs table holds, such as \"model = 'llama' AND (labels->>'gpu') = 'h100'\" (one predicate, never a statement)")
	return &ff.Command{
		Name:      "plot",
		Usage:     "aiperf-report plot --output DIR [--where PREDICATE] [--group-by model|label:KEY] [RUN_ID...]",
		ShortHelp: "draw sweeps, Pareto frontiers and per-run charts as PNG, SVG and one interactive HTML page",
		LongHelp: "Without run ids, the sweep and Pareto charts cover every run (those --where keeps), failed, " +
			"partial and degraded runs marked and never on a frontier, and the per-run charts (TTFT over time, " +
			"request latency histogram, …) the newest complete one; with run ids, both cover those runs. " +
			"report.html is one self-contained file (Chart.js embedded): hover a point for its run, click a " +
			"legend entry to hide a group, switch the metric (TTFT, ITL, request latency) and the statistic " +
			"(p50, p90, p99, avg).",
		Flags: fs,
		Exec: func(ctx context.Context, args []string) error {
			if *output == "" {
				return command.Usage(errors.New("plot needs --output DIR"))
			}
			db, err := rc.openDB(ctx)
			if err != nil {
				return err
			}
			defer db.Close()
			paths, err := plot.Render(ctx, db.SQL(), *output, args, plot.Options{GroupBy: *groupBy, Where: *where})
			if errors.Is(err, plot.ErrRunNotFound) || errors.Is(err, plot.ErrGroupBy) || errors.Is(err, plot.ErrWhere) {
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
