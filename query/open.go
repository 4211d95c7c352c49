package query

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// Errors of OpenWith, for callers to map to messages and exit statuses.
var (
	// ErrNoDatabase reports a read-only open of a file that does not exist.
	ErrNoDatabase = errors.New("no such database")
	// ErrLocked reports a database whose lock another process held for
	// longer than OpenOptions.LockTimeout.
	ErrLocked = errors.New("database is locked")
)

// OpenOptions says how OpenWith opens a database file.
type OpenOptions struct {
	// ReadOnly opens the file without taking DuckDB's write lock, so that
	// any number of readers share it: the file must exist (else
	// ErrNoDatabase), and writes through the DB fail. A database of an
	// older schema is migrated first, under the write lock.
	ReadOnly bool
	// LockTimeout is how long to wait while another process holds a
	// conflicting lock on the file (a writer locks out everyone, a reader
	// locks out writers); 0 tries once.
	LockTimeout time.Duration
}

// lockRetry is the pause between two tries to open a locked database.
const lockRetry = 100 * time.Millisecond

// OpenWith opens the DuckDB database file at path as opts says. Open is
// OpenWith without options: read-write, creating the file, trying once.
// A lock held past opts.LockTimeout is an error wrapping ErrLocked that
// quotes DuckDB's words about the holder (its PID). The caller closes the
// DB.
func OpenWith(ctx context.Context, path string, opts OpenOptions) (*DB, error) {
	if !opts.ReadOnly || path == "" {
		return openWait(ctx, path, path, opts.LockTimeout)
	}
	if _, err := os.Stat(path); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%s: %w", path, ErrNoDatabase)
		}
		return nil, fmt.Errorf("open %q: %w", path, err)
	}
	db, err := openWait(ctx, path, path+"?access_mode=read_only", opts.LockTimeout)
	if err == nil || !errors.Is(err, errNeedsMigration) {
		return db, err
	}
	// An older schema: migrate it under the write lock, then read.
	w, err := openWait(ctx, path, path, opts.LockTimeout)
	if err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("open %q: %w", path, err)
	}
	return openWait(ctx, path, path+"?access_mode=read_only", opts.LockTimeout)
}

// errNeedsMigration reports a read-only database of an older schema.
var errNeedsMigration = errors.New("schema needs migration")

// openWait opens dsn, retrying while another process holds a conflicting
// lock, for up to timeout.
func openWait(ctx context.Context, path, dsn string, timeout time.Duration) (*DB, error) {
	deadline := time.Now().Add(timeout)
	for {
		db, err := openDSN(ctx, path, dsn)
		if err == nil || !isLockError(err) {
			return db, err
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%s: %w by another process (waited %s): %s", path, ErrLocked, timeout, lockHolder(err))
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("open %q: %w", path, ctx.Err())
		case <-time.After(lockRetry):
		}
	}
}

// openDSN opens dsn once: read-write ones are migrated, read-only ones
// checked to be of SchemaVersion.
func openDSN(ctx context.Context, path, dsn string) (*DB, error) {
	sdb, err := sql.Open("duckdb", dsn)
	if err != nil {
		return nil, fmt.Errorf("open %q: %w", path, err)
	}
	db := &DB{db: sdb}
	if strings.Contains(dsn, "access_mode=read_only") {
		err = db.checkVersion(ctx)
	} else {
		err = db.migrate(ctx)
	}
	if err == nil {
		err = db.register(ctx)
	}
	if err != nil {
		sdb.Close()
		if errors.Is(err, errNeedsMigration) {
			return nil, err
		}
		return nil, fmt.Errorf("open %q: %w", path, err)
	}
	return db, nil
}

// checkVersion returns errNeedsMigration unless the database is of
// SchemaVersion (a newer one is ErrSchemaVersion).
func (db *DB) checkVersion(ctx context.Context) error {
	var v string
	err := db.db.QueryRowContext(ctx, `SELECT version FROM schema_info`).Scan(&v)
	if err != nil {
		return errNeedsMigration // no schema_info yet: an empty file
	}
	n, err := strconv.Atoi(v)
	switch {
	case err != nil || n < 0 || n > len(migrations):
		return fmt.Errorf("schema version %q: %w", v, ErrSchemaVersion)
	case n < len(migrations):
		return errNeedsMigration
	}
	return nil
}

// isLockError reports DuckDB's refusal to open a file another process
// holds.
func isLockError(err error) bool {
	s := err.Error()
	return strings.Contains(s, "Could not set lock") || strings.Contains(s, "Conflicting lock")
}

// lockHolder returns DuckDB's sentence about the lock's holder ("Conflicting
// lock is held in /usr/bin/aiperf-report (PID 1234)"), or its whole error.
func lockHolder(err error) string {
	s := err.Error()
	if i := strings.Index(s, "Conflicting lock"); i >= 0 {
		s = s[i:]
	}
	if i := strings.Index(s, ". See also"); i >= 0 {
		s = s[:i]
	}
	if i := strings.Index(s, "\n"); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}
