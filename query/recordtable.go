package query

import "github.com/duckdb/duckdb-go/v2"

// recordTableCol are the columns of a recordTable.
var recordTableCol = recordTableColumns()

// flagsColumn is the table function's column holding each row's flags:
// its null mask (requestRow.null), was_cancelled and valid. The INSERT
// turns a nullable field whose null bit is set into NULL itself (CASE
// WHEN flags & bit = 0 THEN field END), and fill leaves those slots
// unset: setting a NULL through the driver costs a cgo call each, the CASE
// a few nanoseconds a row. An unset slot is never read: CASE reads the
// THEN column only at the rows its WHEN selects. The two booleans travel
// as bits too, which spares setting two more values a row.
const flagsColumn = "flags"

// Bits of flagsColumn above the null mask.
const (
	flagCancelled = 61
	flagValid     = 62
)

// tableColumn is the table function's column of field f; was_cancelled
// has none (it is a flag).
func tableColumn(f int) int {
	if f > fieldCancelled {
		return f - 1
	}
	return f
}

// flagsIndex is the index of flagsColumn.
const flagsIndex = numFields - 1

// recordTableColumns returns the table function's columns: the fields in
// order but was_cancelled, then the flags.
func recordTableColumns() []duckdb.ColumnInfo {
	list, err := duckdb.NewListInfo(typeInfo(duckdb.TYPE_DOUBLE))
	if err != nil {
		panic(err)
	}
	cols := make([]duckdb.ColumnInfo, 0, numFields)
	for f, name := range requestFieldColumns {
		var t duckdb.TypeInfo
		switch {
		case f == fieldCancelled:
			continue
		case f == fieldInt+intTurnIndex || f == fieldInt+intErrorCode:
			t = typeInfo(duckdb.TYPE_INTEGER)
		case f < fieldStr:
			t = typeInfo(duckdb.TYPE_BIGINT)
		case f < fieldCancelled:
			t = typeInfo(duckdb.TYPE_VARCHAR)
		case f < fieldICL:
			t = typeInfo(duckdb.TYPE_DOUBLE)
		default:
			t = list
		}
		cols = append(cols, duckdb.ColumnInfo{Name: name, T: t})
	}
	return append(cols, duckdb.ColumnInfo{Name: flagsColumn, T: typeInfo(duckdb.TYPE_BIGINT)})
}

// recordTable is the table function's source for the INSERTs of one load:
// the rows of src, in order. Each INSERT has a shape (recordShape): the
// fields it writes, those that may be NULL and those it passes once as
// constants; the table yields rows up to the first one that does not fit
// the shape, where the next INSERT, of a wider shape, resumes. DuckDB
// calls it from one thread at a time.
type recordTable struct {
	src   *lineSource[requestBatch]
	shape recordShape
	// full tells that a row did not fit the shape: the table has ended
	// for the current INSERT.
	full bool
	rows int64 // rows handed to DuckDB
	// cur is the batch being read, from row i on; done are the batches
	// read to the end while filling the current chunk.
	cur  *requestBatch
	i    int
	done []*requestBatch
	refs []rowRef
}

// rowRef is a row of a held batch.
type rowRef struct {
	b *requestBatch
	r *requestRow
}

// ColumnInfos implements duckdb.ChunkTableSource.
func (t *recordTable) ColumnInfos() []duckdb.ColumnInfo { return recordTableCol }

// Cardinality implements duckdb.ChunkTableSource: unknown.
func (t *recordTable) Cardinality() *duckdb.CardinalityInfo { return nil }

// Init implements duckdb.ChunkTableSource.
func (t *recordTable) Init() {}

// advance makes t.cur a batch with rows left, fetching the next one; it
// returns false at the end of the source.
func (t *recordTable) advance() (bool, error) {
	for t.cur == nil || t.i == len(t.cur.rows) {
		if t.cur != nil {
			t.done = append(t.done, t.cur)
		}
		b, err := t.src.next()
		t.cur, t.i = b, 0
		if b == nil {
			return false, err
		}
	}
	return true, nil
}

// FillChunk implements duckdb.ChunkTableSource: it fills chunk with the
// next rows that fit the shape, column by column; an empty chunk ends the
// table.
func (t *recordTable) FillChunk(chunk duckdb.DataChunk) error {
	defer t.releaseDone()
	t.refs = t.refs[:0]
	for len(t.refs) < chunkCapacity && !t.full {
		more, err := t.advance()
		if err != nil {
			return err
		}
		if !more {
			break
		}
		n := min(chunkCapacity-len(t.refs), len(t.cur.rows)-t.i)
		for range n {
			r := &t.cur.rows[t.i]
			if !t.shape.fits(t.cur, r) {
				t.full = true
				break
			}
			t.refs = append(t.refs, rowRef{t.cur, r})
			t.i++
		}
	}
	if err := t.fill(chunk); err != nil {
		return err
	}
	t.rows += int64(len(t.refs))
	return chunk.SetSize(len(t.refs))
}

// releaseDone recycles the batches read to the end.
func (t *recordTable) releaseDone() {
	for _, b := range t.done {
		releaseBatch(b)
	}
	t.done = t.done[:0]
}

// fill writes the rows of t.refs into chunk, column by column: the fields
// the shape writes row by row, but NULL ones (see flagsColumn), and the
// flags.
func (t *recordTable) fill(chunk duckdb.DataChunk) error {
	var err error
	for f := range numIntFields {
		if !t.shape.perRow(fieldInt + f) {
			continue
		}
		col := tableColumn(fieldInt + f)
		for k, ref := range t.refs {
			if ref.r.isNull(fieldInt + f) {
				continue
			}
			if v := ref.r.ints[f]; f == intTurnIndex || f == intErrorCode {
				err = duckdb.SetChunkValue(chunk, col, k, int32(v))
			} else {
				err = duckdb.SetChunkValue(chunk, col, k, v)
			}
			if err != nil {
				return setError(recordTableCol, col, err)
			}
		}
	}
	for f := range numStrFields {
		if !t.shape.perRow(fieldStr + f) {
			continue
		}
		col := tableColumn(fieldStr + f)
		for k, ref := range t.refs {
			if ref.r.isNull(fieldStr + f) {
				continue
			}
			if err := duckdb.SetChunkValue(chunk, col, k, ref.b.str(ref.r, f)); err != nil {
				return setError(recordTableCol, col, err)
			}
		}
	}
	for f := range numMetrics {
		if !t.shape.perRow(fieldMetric + f) {
			continue
		}
		col := tableColumn(fieldMetric + f)
		for k, ref := range t.refs {
			if ref.r.isNull(fieldMetric + f) {
				continue
			}
			if err := duckdb.SetChunkValue(chunk, col, k, ref.r.metrics[f]); err != nil {
				return setError(recordTableCol, col, err)
			}
		}
	}
	if col := tableColumn(fieldICL); t.shape.perRow(fieldICL) {
		for k, ref := range t.refs {
			if ref.r.isNull(fieldICL) {
				continue
			}
			if err := chunk.SetValue(col, k, ref.b.list(ref.r)); err != nil {
				return setError(recordTableCol, col, err)
			}
		}
	}
	for k, ref := range t.refs {
		flags := ref.r.null
		if ref.r.cancelled {
			flags |= 1 << flagCancelled
		}
		if ref.r.valid {
			flags |= 1 << flagValid
		}
		if err := duckdb.SetChunkValue(chunk, flagsIndex, k, int64(flags)); err != nil {
			return setError(recordTableCol, flagsIndex, err)
		}
	}
	return nil
}

// close releases the batches the table still holds.
func (t *recordTable) close() {
	t.releaseDone()
	if t.cur != nil {
		releaseBatch(t.cur)
		t.cur = nil
	}
}
