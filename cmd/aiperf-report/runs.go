package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/peterbourgon/ff/v4"

	"github.com/aiperf-go/aiperf/internal/command"
	"github.com/aiperf-go/aiperf/query"
	"github.com/aiperf-go/aiperf/report"
)

// runStatuses are the values of runs.status that --status accepts.
var runStatuses = []string{"complete", "failed", "interrupted", "partial"}

func newRunsCommand(rc *rootConfig, parent *ff.FlagSet) *ff.Command {
	fs := ff.NewFlagSet("runs").SetParent(parent)
	model := fs.StringLong("model", "", "only runs of this `MODEL`")
	workload := fs.StringLong("workload", "", "only runs of this `WORKLOAD` id")
	since := fs.StringLong("since", "", "only runs started at or after this `TIME`: "+sinceForms)
	status := fs.StringLong("status", "", "only runs with this `STATUS`: complete, failed, interrupted or partial (a run group with a shard missing)")
	return &ff.Command{
		Name:      "runs",
		Usage:     "aiperf-report runs [--model M] [--workload W] [--since T] [--status S]",
		ShortHelp: "list runs with their headline metrics, oldest first",
		LongHelp:  "A --model or --workload that no run has is an error naming the known ones.",
		Flags:     fs,
		Exec: func(ctx context.Context, args []string) error {
			if len(args) > 0 {
				return command.Usage(fmt.Errorf("runs takes no arguments, got %q (filters are flags: --model, --workload, --since, --status)", args))
			}
			if err := report.CheckFormat(rc.format); err != nil {
				return command.Usage(fmt.Errorf("--format: %w", err))
			}
			if *status != "" && !contains(runStatuses, *status) {
				return command.Usage(fmt.Errorf("--status %q: use one of %s", *status, strings.Join(runStatuses, ", ")))
			}
			var from time.Time
			if *since != "" {
				t, err := parseSince(*since, time.Now())
				if err != nil {
					return command.Usage(err)
				}
				from = t
			}
			db, err := rc.openDB(ctx)
			if err != nil {
				return err
			}
			defer db.Close()
			if err := knownValue(ctx, db, "--model", "model", *model); err != nil {
				return err
			}
			if err := knownValue(ctx, db, "--workload", "workload_id", *workload); err != nil {
				return err
			}
			rows, err := db.SQL().QueryContext(ctx, `SELECT * FROM run_summary
				WHERE (? = '' OR model = ?) AND (? = '' OR workload_id = ?) AND (? = '' OR status = ?)
				  AND (? OR start_time >= ?)
				ORDER BY start_time, run_id`, *model, *model, *workload, *workload, *status, *status, from.IsZero(), from.UTC())
			if err != nil {
				return fmt.Errorf("runs: %w", err)
			}
			t, err := report.FromRows(rows)
			if err != nil {
				return fmt.Errorf("runs: %w", err)
			}
			return rc.print(t)
		},
	}
}

// sinceForms lists what --since accepts.
const sinceForms = "a date (2026-11-01), a time (2026-11-01T08:00:00Z, 2026-11-01 08:00:00; UTC unless it has a zone) or an age (36h, 7d)"

// parseSince reads --since relative to now.
func parseSince(s string, now time.Time) (time.Time, error) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02T15:04", "2006-01-02 15:04", time.DateOnly} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	if n, ok := strings.CutSuffix(s, "d"); ok {
		if d, err := strconv.Atoi(n); err == nil && d >= 0 {
			return now.Add(-time.Duration(d) * 24 * time.Hour), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, fmt.Errorf("--since %q: use %s", s, sinceForms)
}

// knownValue returns an error naming the known values of run_summary's
// column unless value is "" or one of them: a filter that matches no run
// is most likely a typo, and an empty answer would hide it.
func knownValue(ctx context.Context, db *query.DB, flag, column, value string) error {
	if value == "" {
		return nil
	}
	rows, err := db.SQL().QueryContext(ctx, `SELECT DISTINCT `+column+` FROM run_summary WHERE `+column+` IS NOT NULL ORDER BY 1`)
	if err != nil {
		return fmt.Errorf("%s: %w", flag, err)
	}
	defer rows.Close()
	var known []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			return fmt.Errorf("%s: %w", flag, err)
		}
		if v == value {
			return nil
		}
		known = append(known, v)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("%s: %w", flag, err)
	}
	if len(known) == 0 {
		return fmt.Errorf("%s %q: no runs in %s", flag, value, "the database")
	}
	return fmt.Errorf("%s %q: no run has it; known: %s", flag, value, strings.Join(known, ", "))
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
