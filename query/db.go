// Package query loads stored benchmark runs into a DuckDB database and
// names the tables and views that reports and ad-hoc SQL read: runs (one
// row per run), requests (one row per profile_export.jsonl record, metrics
// as typed columns), run_metrics (the summary statistics of each run), and
// the workloads and run_summary views. The schema is documented, with its
// version, in docs/schema.md.
//
// Records are decoded in Go, on parallel goroutines, and inserted in file
// order by an INSERT that reads them through a table function, faster than
// DuckDB's own JSON reader, whose transformation of the nested metric
// objects is slow; records with long chunk-latency lists, whose storage
// dominates, still load with the JSON reader (BENCHMARKS.md, issue 4).
package query

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/duckdb/duckdb-go/v2" // also registers the "duckdb" driver
)

// ErrSchemaVersion reports a database written by a newer schema than this
// package knows.
var ErrSchemaVersion = errors.New("unknown schema version")

// DB is a DuckDB database holding the query schema. Its methods are safe
// for concurrent use, but ingests of the same run must not run concurrently.
type DB struct {
	db *sql.DB
	// mu guards loading, the number of record loads running, and threads,
	// the DuckDB threads setting they restore (oneThread).
	mu      sync.Mutex
	loading int
	threads int64

	// OnPartialRun, when set, is called when a run loads only in part (its
	// records end in a truncated line): with the run id and what was
	// left out. The run is loaded and its reason says the same.
	OnPartialRun func(runID, what string)
}

// Open opens the DuckDB database file at path, creating it when it does not
// exist ("" opens a private in-memory database), and creates or migrates
// the schema to SchemaVersion. A database of an unknown (newer) version is
// an error wrapping ErrSchemaVersion. The caller closes the DB.
func Open(ctx context.Context, path string) (*DB, error) {
	return OpenWith(ctx, path, OpenOptions{})
}

// register adds decodedTableFunc to the database (a table function is not
// stored in it).
func (db *DB) register(ctx context.Context) error {
	conn, err := db.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	handle, err := duckdb.NewTypeInfo(duckdb.TYPE_BIGINT)
	if err != nil {
		return err
	}
	f := duckdb.ChunkTableFunction{
		Config: duckdb.TableFunctionConfig{Arguments: []duckdb.TypeInfo{handle}},
		BindArguments: func(_ map[string]any, args ...any) (duckdb.ChunkTableSource, error) {
			id, _ := args[0].(int64)
			src, ok := decodedSources.Load(id)
			if !ok {
				return nil, fmt.Errorf("%s: no rows under handle %v", decodedTableFunc, args[0])
			}
			return src.(duckdb.ChunkTableSource), nil
		},
	}
	if err := duckdb.RegisterTableUDF(conn, decodedTableFunc, f); err != nil {
		return fmt.Errorf("register %s: %w", decodedTableFunc, err)
	}
	return nil
}

// decodedTableFunc is the table function through which an INSERT reads
// rows decoded in Go (records, GPU readings, server metric samples):
// decodedTableFunc(handle) yields the rows of the source registered under
// handle, with its columns. Open registers it once per database; it is of
// no use outside this package.
const decodedTableFunc = "aiperf_decoded_rows"

var (
	decodedSources sync.Map // handle (int64) → duckdb.ChunkTableSource
	decodedHandles atomic.Int64
	// chunkCapacity is the number of rows of a DuckDB data chunk.
	chunkCapacity = duckdb.GetDataChunkCapacity()
)

// addSource makes src the rows of decodedTableFunc(handle) until remove
// is called.
func addSource(src duckdb.ChunkTableSource) (handle int64, remove func()) {
	handle = decodedHandles.Add(1)
	decodedSources.Store(handle, src)
	return handle, func() { decodedSources.Delete(handle) }
}

// typeInfo returns the TypeInfo of a primitive type.
func typeInfo(t duckdb.Type) duckdb.TypeInfo {
	ti, err := duckdb.NewTypeInfo(t)
	if err != nil {
		panic(err) // primitive types always have one
	}
	return ti
}

// setError reports a failure to set column col of a chunk whose columns
// are cols.
func setError(cols []duckdb.ColumnInfo, col int, err error) error {
	return fmt.Errorf("set %s: %w", cols[col].Name, err)
}

// Close closes the database; queries in flight fail.
func (db *DB) Close() error { return db.db.Close() }

// SQL returns the underlying handle for queries. It stays owned by the DB:
// do not close it.
func (db *DB) SQL() *sql.DB { return db.db }

// Version returns the schema version recorded in schema_info.
func (db *DB) Version(ctx context.Context) (string, error) {
	var v string
	err := db.db.QueryRowContext(ctx, `SELECT version FROM schema_info`).Scan(&v)
	if err != nil {
		return "", fmt.Errorf("schema version: %w", err)
	}
	return v, nil
}

// migrate brings the schema from its recorded version to SchemaVersion,
// one migration per transaction.
func (db *DB) migrate(ctx context.Context) error {
	if _, err := db.db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_info (version VARCHAR NOT NULL)`); err != nil {
		return fmt.Errorf("schema_info: %w", err)
	}
	cur := 0
	var v string
	switch err := db.db.QueryRowContext(ctx, `SELECT version FROM schema_info`).Scan(&v); {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return fmt.Errorf("schema_info: %w", err)
	default:
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > len(migrations) {
			return fmt.Errorf("schema version %q: %w", v, ErrSchemaVersion)
		}
		cur = n
	}
	for i := cur; i < len(migrations); i++ {
		if err := db.apply(ctx, i); err != nil {
			return fmt.Errorf("migrate to schema %d: %w", i+1, err)
		}
	}
	return nil
}

func (db *DB) apply(ctx context.Context, i int) error {
	tx, err := db.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, stmt := range migrations[i] {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM schema_info`); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO schema_info VALUES (?)`, strconv.Itoa(i+1)); err != nil {
		return err
	}
	return tx.Commit()
}
