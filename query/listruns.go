package query

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"gocloud.dev/blob"

	"github.com/aiperf-go/aiperf/sink"
)

// RunError is a run of a store that could not be read or loaded: its id
// and why. Ingest's error joins one per such run, so that a caller can
// name each.
type RunError struct {
	Run string
	Err error
}

func (e *RunError) Error() string { return fmt.Sprintf("run %s: %v", e.Run, e.Err) }
func (e *RunError) Unwrap() error { return e.Err }

// listRuns is sink.Store.ListRuns that does not give up on the first run
// whose manifest cannot be read: it returns the readable runs, oldest
// first, and a *RunError for each other one. err is a failure to list the
// store itself.
func listRuns(ctx context.Context, store *sink.Store) (runs []sink.RunSummary, bad []error, err error) {
	it := store.Bucket.List(&blob.ListOptions{Prefix: sink.RunsPrefix, Delimiter: "/"})
	for {
		obj, err := it.Next(ctx)
		if errors.Is(err, io.EOF) {
			return runs, bad, nil
		}
		if err != nil {
			return runs, bad, fmt.Errorf("list runs: %w", err)
		}
		if !obj.IsDir {
			continue
		}
		id := strings.TrimSuffix(strings.TrimPrefix(obj.Key, sink.RunsPrefix), "/")
		rs, err := store.ReadRun(ctx, id)
		if err != nil {
			// ReadRun names the run itself.
			bad = append(bad, &RunError{Run: id, Err: errors.New(strings.TrimPrefix(err.Error(), "run "+id+": "))})
			continue
		}
		runs = append(runs, rs)
	}
}
