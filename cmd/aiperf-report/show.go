package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/peterbourgon/ff/v4"

	"github.com/aiperf-go/aiperf/export"
	"github.com/aiperf-go/aiperf/internal/command"
	"github.com/aiperf-go/aiperf/query"
	"github.com/aiperf-go/aiperf/report"
)

func newShowCommand(rc *rootConfig, parent *ff.FlagSet) *ff.Command {
	fs := ff.NewFlagSet("show").SetParent(parent)
	return &ff.Command{
		Name:      "show",
		Usage:     "aiperf-report show RUN_ID [--format table|csv|json|markdown]",
		ShortHelp: "print a run's AIPerf console table (distributions from its requests in SQL, totals and throughputs as the run stored them) and its GPU and server telemetry",
		LongHelp:  "With --format csv, json or markdown, the run's metrics (run_metrics) as one row per metric.",
		Flags:     fs,
		Exec: func(ctx context.Context, args []string) error {
			if len(args) != 1 {
				return command.Usage(errors.New("show needs one run id (see aiperf-report runs)"))
			}
			if err := report.CheckFormat(rc.format); err != nil {
				return command.Usage(fmt.Errorf("--format: %w", err))
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
			if rc.format != "table" && rc.format != "" {
				return rc.showMetrics(ctx, db, args[0])
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

// showMetrics prints a run's run_metrics rows in --format: the machine
// form of show's console table.
func (rc *rootConfig) showMetrics(ctx context.Context, db *query.DB, run string) error {
	rows, err := db.SQL().QueryContext(ctx, `SELECT tag AS metric, unit, avg, min, max, p1, p5, p10, p25, p50, p75, p90, p95, p99, std, count, sum
		FROM run_metrics WHERE run_id = ? ORDER BY tag`, run)
	if err != nil {
		return fmt.Errorf("show %s: %w", run, err)
	}
	t, err := report.FromRows(rows)
	if err != nil {
		return fmt.Errorf("show %s: %w", run, err)
	}
	return rc.print(t)
}
