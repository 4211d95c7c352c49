package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/peterbourgon/ff/v4"

	"github.com/aiperf-go/aiperf/internal/command"
	"github.com/aiperf-go/aiperf/query"
	"github.com/aiperf-go/aiperf/sink"
	"github.com/aiperf-go/aiperf/sink/opener"
)

// newMergeCommand is `merge GROUP`: the merged AIPerf files of a run group
// (GenAI-Perf's process-export-files, for shards of one run).
func newMergeCommand(rc *rootConfig, parent *ff.FlagSet) *ff.Command {
	fs := ff.NewFlagSet("merge").SetParent(parent)
	storeFlag := fs.StringLong("store", "", "read the group from this `STORE` (default: the store it was ingested from, per --db)")
	out := fs.StringLong("out", "", "write the files to this `DIR` or store URL (default: ./merged-GROUP)")
	return &ff.Command{
		Name:      "merge",
		Usage:     "aiperf-report merge [--store STORE] [--out DIR|URL] GROUP",
		ShortHelp: "write a run group's merged profile_export.jsonl and profile_export_aiperf.json/.csv",
		LongHelp: "The shards' records are concatenated in request order and the summary is recomputed over all " +
			"of them, as if one machine had run the benchmark.",
		Flags: fs,
		Exec: func(ctx context.Context, args []string) error {
			if len(args) != 1 {
				return command.Usage(errors.New("merge needs one run group id"))
			}
			group := args[0]
			src := *storeFlag
			if src == "" {
				var err error
				if src, err = rc.ingestedFrom(ctx, group); err != nil {
					return err
				}
			}
			dest := *out
			if dest == "" {
				dest = "merged-" + group
			}
			store, err := sink.Open(ctx, src, opener.Mux())
			if err != nil {
				return err
			}
			defer store.Close()
			to, err := sink.Open(ctx, dest, opener.Mux())
			if err != nil {
				return err
			}
			defer to.Close()
			st, err := query.MergeGroup(ctx, store, group, to.Bucket)
			if err != nil {
				return err
			}
			fmt.Fprintf(rc.stdout, "%s: %d of %d shards present (status %s), %d records\n",
				group, st.Shards-st.Missing, st.Shards, st.Status, st.Records)
			for _, f := range st.Files {
				fmt.Fprintf(rc.stdout, "wrote %s\n", to.ObjectURL(f))
			}
			return nil
		},
	}
}

// ingestedFrom returns the store a run was ingested from (runs.source).
func (rc *rootConfig) ingestedFrom(ctx context.Context, runID string) (string, error) {
	db, err := rc.openDB(ctx)
	if err != nil {
		return "", err
	}
	defer db.Close()
	var src string
	err = db.SQL().QueryRowContext(ctx, `SELECT source FROM runs WHERE run_id = ?`, runID).Scan(&src)
	if errors.Is(err, sql.ErrNoRows) {
		return "", command.Usage(fmt.Errorf("no run %q in %s: ingest its store first, or name it with --store", runID, rc.db))
	}
	if err != nil {
		return "", fmt.Errorf("merge %s: %w", runID, err)
	}
	return src, nil
}
