package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"os"

	"github.com/peterbourgon/ff/v4"

	"github.com/aiperf-go/aiperf/internal/command"
	"github.com/aiperf-go/aiperf/query"
	"github.com/aiperf-go/aiperf/report"
)

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
		ShortHelp: "compare the newest run of each workload with a baseline; exit 3 on a regression",
		LongHelp: "Exit status: 0 nothing regressed; 3 a workload regressed; 1 could not check (no matching runs, " +
			"a metric, workload or baseline run the database does not have); 2 invalid flags.",
		Flags: fs,
		Exec: func(ctx context.Context, args []string) error {
			if len(args) > 0 {
				return command.Usage(fmt.Errorf("regress takes no arguments, got %q", args))
			}
			check, err := report.ParseCheck(*metric, *inc, *dec)
			if err != nil {
				return command.Usage(err)
			}
			if err := report.CheckFormat(rc.format); err != nil {
				return command.Usage(fmt.Errorf("--format: %w", err))
			}
			db, err := rc.openDB(ctx)
			if err != nil {
				return err
			}
			defer db.Close()
			if err := checkRegressInputs(ctx, db, check, *workload, *baseline); err != nil {
				return err
			}
			findings, err := report.Regress(ctx, db.SQL(), report.RegressOptions{Check: check, Previous: *previous, BaselineRun: *baseline, Workload: *workload})
			if err != nil {
				return fmt.Errorf("could not check: %w", err)
			}
			if len(findings) == 0 {
				return errors.New("could not check: no workload has a complete run to compare with a baseline (ingest more runs, or name one with --baseline)")
			}
			t := report.FindingsTable(check, findings)
			if err := rc.print(t); err != nil {
				return err
			}
			if *summary != "" {
				if err := appendSummary(*summary, check, t); err != nil {
					return err
				}
			}
			checked := 0
			for _, f := range findings {
				if f.Regressed {
					return errRegressed
				}
				if !math.IsNaN(f.BaselineValue) {
					checked++
				}
			}
			if checked == 0 {
				// The first run of a workload has no history: a nightly's
				// first night passes, but says that it checked nothing.
				fmt.Fprintln(rc.stderr, "aiperf-report: regress: no workload has a baseline run yet, so nothing was checked (ingest more runs, or name one with --baseline)")
			}
			return nil
		},
	}
}

// checkRegressInputs returns a "could not check" error when the database
// has no value of the checked metric, no such workload or no such
// baseline run: a check of nothing must not pass.
func checkRegressInputs(ctx context.Context, db *query.DB, check report.Check, workload, baseline string) error {
	var n int
	err := db.SQL().QueryRowContext(ctx, `SELECT count(*) FROM run_metrics WHERE tag = ?`, check.Tag).Scan(&n)
	if err != nil {
		return fmt.Errorf("could not check: %w", err)
	}
	if n == 0 {
		return command.Usage(fmt.Errorf("--metric %s.%s: no run has the metric %q (see aiperf-report sql \"SELECT DISTINCT tag FROM run_metrics\")", check.Tag, check.Stat, check.Tag))
	}
	if err := knownValue(ctx, db, "--workload", "workload_id", workload); err != nil {
		return fmt.Errorf("could not check: %w", err)
	}
	if baseline == "" {
		return nil
	}
	var v sql.NullFloat64
	err = db.SQL().QueryRowContext(ctx, `SELECT `+check.Stat+` FROM run_metrics WHERE run_id = ? AND tag = ?`, baseline, check.Tag).Scan(&v)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return fmt.Errorf("could not check: --baseline %s: no such run with %s (see aiperf-report runs)", baseline, check.Tag)
	case err != nil:
		return fmt.Errorf("could not check: %w", err)
	case !v.Valid:
		return fmt.Errorf("could not check: --baseline %s has no %s.%s", baseline, check.Tag, check.Stat)
	}
	return nil
}

// appendSummary appends the verdicts as Markdown to file.
func appendSummary(file string, check report.Check, t *report.Table) error {
	f, err := os.OpenFile(file, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
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
	return nil
}
