package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/aiperf-go/aiperf/query"
)

// plotDirs reports whether plot's arguments name artifact directories
// rather than run ids: any argument that is an existing directory or
// looks like a path (holds a separator, or starts with "." or "~"). An
// argument of each kind at once is a usage error.
func plotDirs(args []string) (bool, error) {
	var dirs, ids []string
	for _, a := range args {
		if isDirArg(a) {
			dirs = append(dirs, a)
		} else {
			ids = append(ids, a)
		}
	}
	if len(dirs) > 0 && len(ids) > 0 {
		return false, fmt.Errorf("plot takes either artifact directories or run ids of --db, not both: %s is a directory, %s is not", dirs[0], ids[0])
	}
	return len(dirs) > 0, nil
}

// isDirArg reports whether a plot argument is meant as a directory.
func isDirArg(a string) bool {
	if fi, err := os.Stat(a); err == nil && fi.IsDir() {
		return true
	}
	return strings.ContainsRune(a, '/') || strings.ContainsRune(a, filepath.Separator) ||
		strings.HasPrefix(a, ".") || strings.HasPrefix(a, "~")
}

// ingestDirs loads the artifact directories dirs (aiperf-go stores or
// run directories, or Python AIPerf artifact directories, found at any
// depth) into a new in-memory database, as `aiperf plot DIR...` needs no
// separate ingest. It returns the database and the ids of the runs it
// holds, oldest first. A directory that does not exist or holds no run is
// an error; a run that cannot be read is named on stderr and left out.
func (rc *rootConfig) ingestDirs(ctx context.Context, dirs []string) (*query.DB, []string, error) {
	for _, d := range dirs {
		if err := checkStore(d); err != nil {
			return nil, nil, err
		}
	}
	db, err := query.Open(ctx, "")
	if err != nil {
		return nil, nil, err
	}
	ok := false
	defer func() {
		if !ok {
			db.Close()
		}
	}()
	db.OnPartialRun = func(run, what string) {
		fmt.Fprintf(rc.stderr, "aiperf-report: run %s loaded in part: %s\n", run, what)
	}
	for _, d := range dirs {
		st, errs, err := ingestStore(ctx, db, d)
		if err != nil {
			return nil, nil, err
		}
		for _, e := range errs {
			fmt.Fprintf(rc.stderr, "aiperf-report: plot %s: %v\n", d, e)
		}
		if st.RunsSeen == 0 {
			return nil, nil, fmt.Errorf("plot %s: no runs found (neither runs/<run_id>/ of aiperf-go nor profile_export_aiperf.json of Python aiperf)", d)
		}
	}
	db.OnPartialRun = nil
	ids, err := runIDs(ctx, db)
	if err != nil {
		return nil, nil, err
	}
	if len(ids) == 0 {
		return nil, nil, errors.New("plot: none of the runs could be loaded (named above)")
	}
	ok = true
	return db, ids, nil
}

// runIDs lists the runs in db, oldest first.
func runIDs(ctx context.Context, db *query.DB) ([]string, error) {
	rows, err := db.SQL().QueryContext(ctx, `SELECT run_id FROM runs ORDER BY start_time NULLS LAST, run_id`)
	if err != nil {
		return nil, fmt.Errorf("plot: list runs: %w", err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("plot: list runs: %w", err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("plot: list runs: %w", err)
	}
	return ids, nil
}
