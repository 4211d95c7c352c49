package query

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"math/bits"
	"strings"
)

// recordShape is what one INSERT of records writes: the fields it lists
// (the others take their default, NULL), those of them that may be NULL
// (read through a CASE on the flags), and those that every row has with
// one value (passed once, as parameters). A load starts with the shape of
// its first batch and widens it when a row does not fit: most runs load
// in one INSERT, which writes neither the columns that no record of the
// run has (a non-streaming run has no chunk latencies, a run without
// --show-trace-timing no http_req_*) nor CASEs for fields never NULL, nor
// per row the columns that do not change (phase, turn_index, ...).
type recordShape struct {
	fields, nullable, consts uint64
	// values holds the constant fields' values: ints and metrics (as
	// bits) in n, strings in s.
	values [numFields]struct {
		n int64
		s string
	}
}

// has tells whether the shape writes field f.
func (s *recordShape) has(f int) bool { return s.fields&(1<<f) != 0 }

// perRow tells whether the shape writes field f row by row.
func (s *recordShape) perRow(f int) bool { return (s.fields&^s.consts)&(1<<f) != 0 }

// constable are the fields that can be constants: not the list, not
// was_cancelled (a flag).
const constable = allNull &^ (1<<fieldICL | 1<<fieldCancelled)

// value returns r's value of scalar field f, which is not NULL, as the
// shape keeps constants.
func fieldValue(b *requestBatch, r *requestRow, f int) (int64, string) {
	switch {
	case f < fieldStr:
		return r.ints[f-fieldInt], ""
	case f < fieldCancelled:
		return 0, string(b.str(r, f-fieldStr))
	}
	return int64(math.Float64bits(r.metrics[f-fieldMetric])), ""
}

// fits tells whether r (of b) can be written with the shape: each of its
// non-NULL fields is written, each NULL one written is nullable, and it
// has the constants' values.
func (s *recordShape) fits(b *requestBatch, r *requestRow) bool {
	if ^r.null&allNull&^s.fields != 0 || r.null&s.fields&^s.nullable != 0 {
		return false
	}
	for c := s.consts; c != 0; c &= c - 1 {
		f := bits.TrailingZeros64(c)
		switch v := &s.values[f]; {
		case f < fieldStr || f >= fieldMetric:
			if n, _ := fieldValue(b, r, f); n != v.n {
				return false
			}
		default:
			if string(b.str(r, f-fieldStr)) != v.s {
				return false
			}
		}
	}
	return true
}

// widen makes s fit the rows of b from row i on (nullable keeps every
// field seen NULL, written or not, and a field that stopped being a
// constant does not become one again).
func (s *recordShape) widen(b *requestBatch, i int) {
	rows := b.rows[i:]
	old := s.fields
	for i := range rows {
		n := rows[i].null
		s.fields |= ^n & allNull
		s.nullable |= n
	}
	cand := s.fields &^ s.nullable & constable & (s.consts | ^old)
	for c := cand; c != 0 && len(rows) > 0; c &= c - 1 {
		f := bits.TrailingZeros64(c)
		n, str := fieldValue(b, &rows[0], f)
		if s.consts&(1<<f) != 0 && (n != s.values[f].n || str != s.values[f].s) {
			cand &^= 1 << f
			continue
		}
		for k := 1; k < len(rows); k++ {
			if n2, str2 := fieldValue(b, &rows[k], f); n2 != n || str2 != str {
				cand &^= 1 << f
				break
			}
		}
		s.values[f].n, s.values[f].s = n, str
	}
	s.consts = cand
}

// scalarType is the SQL type of scalar field f.
func scalarType(f int) string {
	switch {
	case f == fieldInt+intTurnIndex || f == fieldInt+intErrorCode:
		return "INTEGER"
	case f < fieldStr:
		return "BIGINT"
	case f < fieldCancelled:
		return "VARCHAR"
	}
	return "DOUBLE"
}

// insert returns the INSERT of the shape and its arguments: the run id,
// the constants and the table handle.
func (s *recordShape) insert(runID string, handle int64) (string, []any) {
	var cols, sel strings.Builder
	cols.WriteString("run_id")
	sel.WriteString("CAST(? AS VARCHAR)")
	args := []any{runID}
	for f, c := range requestFieldColumns {
		if !s.has(f) {
			continue
		}
		value := c
		switch {
		case s.consts&(1<<f) != 0:
			value = "CAST(? AS " + scalarType(f) + ")"
			switch v := s.values[f]; {
			case f < fieldStr:
				args = append(args, v.n)
			case f < fieldCancelled:
				args = append(args, v.s)
			default:
				args = append(args, math.Float64frombits(uint64(v.n)))
			}
		case f == fieldCancelled:
			value = fmt.Sprintf("%s & %d <> 0", flagsColumn, uint64(1)<<flagCancelled)
		}
		if s.nullable&(1<<f) != 0 {
			value = fmt.Sprintf("CASE WHEN %s & %d = 0 THEN %s END", flagsColumn, uint64(1)<<f, value)
		}
		cols.WriteString(", " + c)
		sel.WriteString(", " + value)
	}
	q := fmt.Sprintf(`INSERT INTO requests (%s, valid) SELECT %s, %s & %d <> 0 FROM %s(?)`,
		cols.String(), sel.String(), flagsColumn, uint64(1)<<flagValid, decodedTableFunc)
	return q, append(args, handle)
}

// longLists is the mean inter_chunk_latency length from which records
// load faster with DuckDB's JSON reader (insertJSONL): its threads share
// the work on the lists, which one INSERT of decoded rows does alone. On
// two cores the two ways are level near 64 elements a record (streaming,
// 64 tokens on average) and the JSON reader is 15% faster at 128. (A
// variable for the tests.)
var longLists = 80

// startRecords starts decoding profile_export.jsonl files (or record
// segments), in order, into recycled batches (releaseBatch). The caller
// must close the source.
func startRecords(ctx context.Context, files []string) *lineSource[requestBatch] {
	return startLines(ctx, files, func() lineDecoder[requestBatch] { return new(recordDecoder) }, newRequestBatch)
}

// insertRecords loads local profile_export.jsonl files (or record
// segments, in the order given) into requests for runID, in tx, and
// returns the number of rows. The files are decoded in Go on parallel
// goroutines (recordDecoder) and inserted, in file order, by INSERTs
// reading the decodedTableFunc table function: one per recordShape the
// rows need. When the first rows have long lists (longLists), the files
// are loaded by insertJSONL instead, with the same results.
func (db *DB) insertRecords(ctx context.Context, tx *sql.Tx, runID string, files []string) (n int64, err error) {
	src := startRecords(ctx, files)
	defer src.close()
	t := &recordTable{src: src}
	defer t.close()
	more, err := t.advance()
	switch {
	case err != nil:
		return 0, fmt.Errorf("load records: %w", err)
	case !more:
		return 0, nil
	case len(t.cur.icl) >= longLists*len(t.cur.rows):
		t.close()
		src.close()
		return insertJSONL(ctx, tx, runID, files)
	}

	restore, err := db.oneThread(ctx, tx)
	if err != nil {
		return 0, fmt.Errorf("load records: %w", err)
	}
	defer func() {
		if rerr := restore(); rerr != nil && err == nil {
			n, err = 0, fmt.Errorf("load records: %w", rerr)
		}
	}()
	id, remove := addSource(t)
	defer remove()
	for {
		t.shape.widen(t.cur, t.i)
		t.full = false
		q, args := t.shape.insert(runID, id)
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return 0, fmt.Errorf("load records: %w", err)
		}
		t.releaseDone()
		more, err := t.advance()
		if err != nil {
			return 0, fmt.Errorf("load records: %w", err)
		}
		if !more {
			return t.rows, nil
		}
	}
}

// oneThread sets the database's DuckDB threads to one until restore is
// called, counting the loads that need it: the first sets it, the last
// one out restores the setting it found. The INSERT of a load is one
// pipeline (it keeps the file order), and a second DuckDB thread would
// only spin waiting for it, taking a CPU from the decoders. Queries that
// run meanwhile on the same database run on one thread too. The setting
// is global and not transactional: it is changed through tx, or, when
// tx has failed by the time restore runs, through another connection.
func (db *DB) oneThread(ctx context.Context, tx *sql.Tx) (restore func() error, err error) {
	db.mu.Lock()
	defer db.mu.Unlock()
	if db.loading == 0 {
		if err := tx.QueryRowContext(ctx, `SELECT current_setting('threads')`).Scan(&db.threads); err != nil {
			return nil, err
		}
		if db.threads > 1 {
			if _, err := tx.ExecContext(ctx, `SET threads = 1`); err != nil {
				return nil, err
			}
		}
	}
	db.loading++
	return func() error {
		db.mu.Lock()
		defer db.mu.Unlock()
		if db.loading--; db.loading > 0 || db.threads <= 1 {
			return nil
		}
		ctx := context.WithoutCancel(ctx)
		set := fmt.Sprintf(`SET threads = %d`, db.threads)
		if _, err := tx.ExecContext(ctx, set); err != nil {
			if _, err := db.db.ExecContext(ctx, set); err != nil {
				return fmt.Errorf("restore threads: %w", err)
			}
		}
		return nil
	}, nil
}
