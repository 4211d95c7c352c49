package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/peterbourgon/ff/v4"

	"github.com/aiperf-go/aiperf/internal/command"
	"github.com/aiperf-go/aiperf/report"
)

func newSQLCommand(rc *rootConfig, parent *ff.FlagSet) *ff.Command {
	fs := ff.NewFlagSet("sql").SetParent(parent)
	file := fs.String('f', "file", "", "read the query from `FILE`")
	write := fs.Bool(0, "write", "allow statements that change the database (it is opened read-only otherwise)")
	return &ff.Command{
		Name:      "sql",
		Usage:     "aiperf-report sql [--write] 'SELECT ...' | -f Q.sql | - (stdin)",
		ShortHelp: "run any SQL over runs, requests and run_metrics (see docs/schema.md)",
		LongHelp: "The query is one argument (quote it), a file (-f FILE) or standard input (-). The database is opened " +
			"read-only, so readers never lock each other out; --write takes the write lock for statements that change it.",
		Flags: fs,
		Exec: func(ctx context.Context, args []string) error {
			q, err := rc.sqlQuery(*file, args)
			if err != nil {
				return err
			}
			if err := report.CheckFormat(rc.format); err != nil {
				return command.Usage(fmt.Errorf("--format: %w", err))
			}
			open := rc.openDB
			if *write {
				open = rc.openWriteDB
			}
			db, err := open(ctx)
			if err != nil {
				return err
			}
			defer db.Close()
			rows, err := db.SQL().QueryContext(ctx, q)
			if err != nil {
				if !*write && strings.Contains(err.Error(), "read-only mode") {
					return fmt.Errorf("sql: %w (the database is opened read-only: pass --write to change it)", err)
				}
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

// sqlQuery returns the query from -f FILE, the one argument, or standard
// input for "-": more than one argument is an error, never words joined
// into SQL that the user did not write.
func (rc *rootConfig) sqlQuery(file string, args []string) (string, error) {
	var q string
	switch {
	case file != "" && len(args) > 0:
		return "", command.Usage(fmt.Errorf("sql: give the query either with -f %s or as an argument, not both", file))
	case file != "":
		b, err := os.ReadFile(file)
		if err != nil {
			return "", fmt.Errorf("-f: %w", err)
		}
		q = string(b)
	case len(args) > 1:
		return "", command.Usage(fmt.Errorf("sql takes the query as one argument (quote it), got %d: %q", len(args), args))
	case len(args) == 1 && args[0] != "-":
		q = args[0]
	case len(args) == 1:
		b, err := io.ReadAll(rc.stdin)
		if err != nil {
			return "", fmt.Errorf("sql: read stdin: %w", err)
		}
		q = string(b)
	}
	if strings.TrimSpace(q) == "" {
		return "", command.Usage(errors.New("sql needs a query: one argument, -f FILE or - for standard input"))
	}
	return q, nil
}
