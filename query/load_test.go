package query

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/aiperf-go/aiperf/sink"
)

// segmentStore makes a directory store holding one run without a manifest
// whose records are the given segments, and returns it.
func segmentStore(t *testing.T, dir string, segments ...[]string) *sink.Store {
	t.Helper()
	recs := filepath.Join(dir, "runs", partialRunID, "records")
	if err := os.MkdirAll(recs, 0o755); err != nil {
		t.Fatal(err)
	}
	for i, lines := range segments {
		name := filepath.Join(recs, strings.Repeat("0", 5)+string(rune('1'+i))+".jsonl")
		if err := os.WriteFile(name, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return openStore(t, dir)
}

func threadsSetting(t *testing.T, db *DB) int64 {
	t.Helper()
	return queryInt(t, db, `SELECT current_setting('threads')`)
}

// TestFailedLoadKeepsPreviousRows: a reload that fails part-way through
// its records (after rows were inserted) leaves the run's previous rows,
// run row and summary as they were, and the database usable.
func TestFailedLoadKeepsPreviousRows(t *testing.T) {
	dir := t.TempDir()
	first := numberedLines(0, 20000, 80)
	db := openTestDB(t)
	ctx := context.Background()
	threads := threadsSetting(t, db)
	st, err := db.Ingest(ctx, "", segmentStore(t, dir, first))
	if err != nil || st.Records != len(first) {
		t.Fatalf("first load: %+v %v", st, err)
	}
	const sum = `SELECT count(*) || ':' || sum(request_num) || ':' || (SELECT records || content_key FROM runs) FROM requests`
	var before string
	if err := db.SQL().QueryRow(sum).Scan(&before); err != nil {
		t.Fatal(err)
	}

	second := numberedLines(20000, 14000, 80)
	second[len(second)-1] = `{"metadata":{"request_num":"not a number"}}`
	st, err = db.Ingest(ctx, "", segmentStore(t, dir, first, second))
	if err == nil || st.RunsFailed != 1 || !strings.Contains(err.Error(), "000002.jsonl line 14000") {
		t.Fatalf("failing load: %+v %v", st, err)
	}
	var after string
	if err := db.SQL().QueryRow(sum).Scan(&after); err != nil {
		t.Fatal(err)
	}
	if after != before {
		t.Errorf("after the failed load %s, before %s", after, before)
	}
	if got := threadsSetting(t, db); got != threads {
		t.Errorf("threads %d after the failed load, %d before", got, threads)
	}

	second[len(second)-1] = numberedLines(33999, 1, 80)[0]
	st, err = db.Ingest(ctx, "", segmentStore(t, dir, first, second))
	if err != nil || st.Records != 34000 {
		t.Fatalf("fixed load: %+v %v", st, err)
	}
	if n := queryInt(t, db, `SELECT count(DISTINCT request_num) FROM requests WHERE request_num BETWEEN 0 AND 33999`); n != 34000 {
		t.Errorf("%d distinct requests, want 34000", n)
	}
}

// TestConcurrentLoadsRestoreThreads: loads running at once on one
// database leave its threads setting as they found it.
func TestConcurrentLoadsRestoreThreads(t *testing.T) {
	db := openTestDB(t)
	threads := threadsSetting(t, db)
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "records.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(numberedLines(0, 20000, 80), "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Go(func() {
			tx, err := db.db.BeginTx(ctx, nil)
			if err == nil {
				_, err = db.insertRecords(ctx, tx, "run", []string{path})
			}
			if err == nil {
				err = tx.Commit()
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := queryInt(t, db, `SELECT count(*) FROM requests`); n != 80000 {
		t.Errorf("%d rows, want 80000", n)
	}
	if got := threadsSetting(t, db); got != threads {
		t.Errorf("threads %d after the loads, %d before", got, threads)
	}
}

// TestDecodedTableUnknownHandle: the table function refuses a handle no
// load registered.
func TestDecodedTableUnknownHandle(t *testing.T) {
	db := openTestDB(t)
	_, err := db.SQL().Exec(`SELECT * FROM ` + decodedTableFunc + `(12345)`)
	if err == nil || !strings.Contains(err.Error(), "no rows under handle") {
		t.Errorf("error %v", err)
	}
}
