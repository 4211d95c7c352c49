package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/aiperf-go/aiperf/query"
)

// openDB opens --db read-only, for the commands that only read it: any
// number of them share the file, and a missing file is an error rather
// than an empty database that answers every question with nothing.
func (rc *rootConfig) openDB(ctx context.Context) (*query.DB, error) {
	db, err := query.OpenWith(ctx, rc.db, query.OpenOptions{ReadOnly: true, LockTimeout: rc.lockTimeout})
	return db, rc.openError(err)
}

// openWriteDB opens --db for writing (ingest, sql --write), creating it
// when it does not exist and waiting up to --lock-timeout for another
// process's lock.
func (rc *rootConfig) openWriteDB(ctx context.Context) (*query.DB, error) {
	db, err := query.OpenWith(ctx, rc.db, query.OpenOptions{LockTimeout: rc.lockTimeout})
	return db, rc.openError(err)
}

// openError says what to do about a database that could not be opened.
func (rc *rootConfig) openError(err error) error {
	switch {
	case errors.Is(err, query.ErrNoDatabase):
		return fmt.Errorf("--db %s does not exist: load runs into it with aiperf-report --db %s ingest STORE, or name another with --db", rc.db, rc.db)
	case errors.Is(err, query.ErrLocked):
		return fmt.Errorf("--db: %w; raise --lock-timeout to wait longer", err)
	}
	return err
}
