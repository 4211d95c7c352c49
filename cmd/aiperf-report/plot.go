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
	groupBy := fs.StringLong("group-by", "model", "group runs on the Pareto charts by `model` or by a run label, label:KEY (runs tagged with aiperf profile --label KEY=VALUE)")
	return &ff.Command{
		Name:      "plot",
		Usage:     "aiperf-report plot --output DIR [RUN_ID...]",
		ShortHelp: "draw a throughput/TTFT Pareto chart and per-run charts as PNG, SVG and one HTML page",
		LongHelp: "Without run ids, the Pareto chart covers every complete run and the per-run charts " +
			"(TTFT over time, request latency histogram) the newest one; with run ids, both cover those runs.",
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
			paths, err := plot.Render(ctx, db.SQL(), *output, args, plot.Options{GroupBy: *groupBy})
			if errors.Is(err, plot.ErrRunNotFound) || errors.Is(err, plot.ErrGroupBy) {
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
