package query

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/duckdb/duckdb-go/v2"
)

// nullsColumn is the table function's column holding each row's null
// mask: the INSERT turns a value whose bit is set into NULL (CASE WHEN
// nulls & bit = 0 THEN value END) and fill leaves its slot unset, as
// flagsColumn does for records.
const nullsColumn = "nulls"

// gpuTableColumnNames are the GPU table function's columns by gpuCol*.
var gpuTableColumnNames = func() []string {
	names := []string{"timestamp_ns", "source_url", "gpu_index", "gpu_uuid", "gpu_model_name", "pci_bus_id", "device", "hostname"}
	for _, f := range GPUFields {
		names = append(names, f.Column)
	}
	return names
}()

// serverTableColumnNames are the server table function's columns by
// srvCol*; type_index indexes ServerMetricTypes. A map column travels as
// two texts, its keys and its values, each a comma-separated list that
// the INSERT splits and casts (pairColumns): setting a MAP value through
// the driver boxes every entry, which made the maps of a vLLM scrape
// cost more than all the rest of it.
var serverTableColumnNames = []string{"timestamp_ns", "endpoint_latency_ns", "endpoint_url", "metric", "type_index",
	"labels", "value", "sum", "count", "bucket_keys", "quantile_keys"}

// pairValueColumns are the table function's columns of the map values,
// after the srvCol* ones (and before the nulls): bucket_values,
// quantile_values.
var pairValueColumns = [...]string{"bucket_values", "quantile_values"}

// pairColumns is the SELECT expression of a map column with null bit col
// from its keys and values texts (an empty keys text for an empty map; an
// empty value is NULL).
func pairColumns(keys, values string, col int) string {
	return fmt.Sprintf(`CASE WHEN %s & %d <> 0 THEN NULL WHEN %s = '' THEN map([]::DOUBLE[], []::DOUBLE[])
		ELSE map(CAST(string_split(%s, ',') AS DOUBLE[]), TRY_CAST(string_split(%s, ',') AS DOUBLE[])) END`,
		nullsColumn, uint64(1)<<col, keys, keys, values)
}

// rowBatch is a batch of decoded telemetry rows.
type rowBatch interface {
	size() int
	// fill writes rows [from, from+n) into chunk's rows [at, at+n).
	fill(chunk duckdb.DataChunk, from, n, at int) error
}

// telemetryTable is decodedTableFunc's source for one INSERT: the rows
// of the batches next returns, in order. DuckDB calls it from one thread
// at a time.
type telemetryTable struct {
	cols []duckdb.ColumnInfo
	next func() (rowBatch, error) // nil at the end
	cur  rowBatch
	i    int
	done bool
}

// ColumnInfos implements duckdb.ChunkTableSource.
func (t *telemetryTable) ColumnInfos() []duckdb.ColumnInfo { return t.cols }

// Cardinality implements duckdb.ChunkTableSource: unknown.
func (t *telemetryTable) Cardinality() *duckdb.CardinalityInfo { return nil }

// Init implements duckdb.ChunkTableSource.
func (t *telemetryTable) Init() {}

// FillChunk implements duckdb.ChunkTableSource: the next rows, a chunk's
// capacity at most; an empty chunk ends the table.
func (t *telemetryTable) FillChunk(chunk duckdb.DataChunk) error {
	n := 0
	for n < chunkCapacity && !t.done {
		if t.cur == nil || t.i == t.cur.size() {
			b, err := t.next()
			if err != nil {
				return err
			}
			t.cur, t.i, t.done = b, 0, b == nil
			continue
		}
		k := min(chunkCapacity-n, t.cur.size()-t.i)
		if err := t.cur.fill(chunk, t.i, k, n); err != nil {
			return err
		}
		t.i += k
		n += k
	}
	return chunk.SetSize(n)
}

// gpuTableColumns are the GPU table function's columns, then the nulls.
var gpuTableColumns = func() []duckdb.ColumnInfo {
	cols := make([]duckdb.ColumnInfo, 0, len(gpuTableColumnNames)+1)
	for c, name := range gpuTableColumnNames {
		t := duckdb.TYPE_DOUBLE
		switch {
		case c == gpuColTimestamp:
			t = duckdb.TYPE_BIGINT
		case c == gpuColIndex:
			t = duckdb.TYPE_INTEGER
		case c < gpuColField:
			t = duckdb.TYPE_VARCHAR
		}
		cols = append(cols, duckdb.ColumnInfo{Name: name, T: typeInfo(t)})
	}
	return append(cols, duckdb.ColumnInfo{Name: nullsColumn, T: typeInfo(duckdb.TYPE_BIGINT)})
}()

// serverTableColumns are the server table function's columns, the map
// values, then the nulls.
var serverTableColumns = func() []duckdb.ColumnInfo {
	types := map[int]duckdb.Type{
		srvColTimestamp: duckdb.TYPE_BIGINT, srvColLatency: duckdb.TYPE_BIGINT, srvColType: duckdb.TYPE_UTINYINT,
		srvColValue: duckdb.TYPE_DOUBLE, srvColSum: duckdb.TYPE_DOUBLE, srvColCount: duckdb.TYPE_DOUBLE,
	}
	cols := make([]duckdb.ColumnInfo, 0, numServerCols+len(pairValueColumns)+1)
	for c, name := range serverTableColumnNames {
		t, ok := types[c]
		if !ok {
			t = duckdb.TYPE_VARCHAR
		}
		cols = append(cols, duckdb.ColumnInfo{Name: name, T: typeInfo(t)})
	}
	for _, name := range pairValueColumns {
		cols = append(cols, duckdb.ColumnInfo{Name: name, T: typeInfo(duckdb.TYPE_VARCHAR)})
	}
	return append(cols, duckdb.ColumnInfo{Name: nullsColumn, T: typeInfo(duckdb.TYPE_BIGINT)})
}()

// serverNullsIndex is the index of the server table function's nulls.
const serverNullsIndex = numServerCols + len(pairValueColumns)

// nullable is the SELECT expression of column name with null bit col.
func nullable(name string, col int) string {
	return fmt.Sprintf("CASE WHEN %s & %d = 0 THEN %s END", nullsColumn, uint64(1)<<col, name)
}

// gpuInsert is the INSERT of GPU rows; its parameters are the run id and
// the table handle.
var gpuInsert = func() string {
	cols := []string{"run_id", "ts", "timestamp_ns"}
	sel := []string{"CAST(? AS VARCHAR)", "make_timestamp(timestamp_ns // 1000)", "timestamp_ns"}
	for c := gpuColSource; c < len(gpuTableColumnNames); c++ {
		cols = append(cols, gpuTableColumnNames[c])
		sel = append(sel, nullable(gpuTableColumnNames[c], c))
	}
	return fmt.Sprintf("INSERT INTO gpu_telemetry (%s) SELECT %s FROM %s(?)",
		strings.Join(cols, ", "), strings.Join(sel, ", "), decodedTableFunc)
}()

// serverInsert is the INSERT of server metric rows; its parameters are
// the run id and the table handle.
var serverInsert = func() string {
	types := "['" + strings.Join(ServerMetricTypes, "', '") + "']"
	return fmt.Sprintf(`INSERT INTO server_metrics (run_id, endpoint_url, ts, timestamp_ns, endpoint_latency_ns,
		metric, type, labels, value, sum, count, buckets, quantiles)
	SELECT CAST(? AS VARCHAR), %s, make_timestamp(timestamp_ns // 1000), timestamp_ns, %s,
		metric, %s[type_index + 1], CAST(labels AS JSON), %s, %s, %s, %s, %s
	FROM %s(?)`,
		nullable("endpoint_url", srvColEndpoint), nullable("endpoint_latency_ns", srvColLatency), types,
		nullable("value", srvColValue), nullable("sum", srvColSum), nullable("count", srvColCount),
		pairColumns("bucket_keys", "bucket_values", srvColBuckets), pairColumns("quantile_keys", "quantile_values", srvColQuantiles),
		decodedTableFunc)
}()

func (b *gpuBatch) size() int { return len(b.rows) }

// fill implements rowBatch.
func (b *gpuBatch) fill(chunk duckdb.DataChunk, from, n, at int) error {
	rows := b.rows[from : from+n]
	nulls := len(gpuTableColumnNames)
	for k := range rows {
		r := &rows[k]
		if err := duckdb.SetChunkValue(chunk, gpuColTimestamp, at+k, r.timestampNS); err != nil {
			return setError(gpuTableColumns, gpuColTimestamp, err)
		}
		if r.null&(1<<gpuColIndex) == 0 {
			if err := duckdb.SetChunkValue(chunk, gpuColIndex, at+k, int32(r.index)); err != nil {
				return setError(gpuTableColumns, gpuColIndex, err)
			}
		}
		if err := duckdb.SetChunkValue(chunk, nulls, at+k, int64(r.null)); err != nil {
			return setError(gpuTableColumns, nulls, err)
		}
	}
	for i, col := range gpuStrColumns {
		for k := range rows {
			if r := &rows[k]; r.null&(1<<col) == 0 {
				if err := duckdb.SetChunkValue(chunk, col, at+k, b.str(r, i)); err != nil {
					return setError(gpuTableColumns, col, err)
				}
			}
		}
	}
	for f := range numGPUFields {
		col := gpuColField + f
		for k := range rows {
			if r := &rows[k]; r.null&(1<<col) == 0 {
				if err := duckdb.SetChunkValue(chunk, col, at+k, r.fields[f]); err != nil {
					return setError(gpuTableColumns, col, err)
				}
			}
		}
	}
	return nil
}

func (b *serverBatch) size() int { return len(b.rows) }

// fill implements rowBatch.
func (b *serverBatch) fill(chunk duckdb.DataChunk, from, n, at int) error {
	rows := b.rows[from : from+n]
	for k := range rows {
		r, row := &rows[k], at+k
		var err error
		has := func(col int) bool { return err == nil && r.null&(1<<col) == 0 }
		try := func(col int, e error) {
			if e != nil {
				err = setError(serverTableColumns, col, e)
			}
		}
		try(srvColTimestamp, duckdb.SetChunkValue(chunk, srvColTimestamp, row, r.timestampNS))
		if has(srvColLatency) {
			try(srvColLatency, duckdb.SetChunkValue(chunk, srvColLatency, row, r.latencyNS))
		}
		if has(srvColEndpoint) {
			try(srvColEndpoint, duckdb.SetChunkValue(chunk, srvColEndpoint, row, b.str(r.endpoint)))
		}
		if err == nil {
			try(srvColMetric, duckdb.SetChunkValue(chunk, srvColMetric, row, b.str(r.metric)))
		}
		if err == nil {
			try(srvColType, duckdb.SetChunkValue(chunk, srvColType, row, r.typ))
		}
		if err == nil {
			try(srvColLabels, duckdb.SetChunkValue(chunk, srvColLabels, row, b.str(r.labels)))
		}
		if has(srvColValue) {
			try(srvColValue, duckdb.SetChunkValue(chunk, srvColValue, row, r.value))
		}
		if has(srvColSum) {
			try(srvColSum, duckdb.SetChunkValue(chunk, srvColSum, row, r.sum))
		}
		if has(srvColCount) {
			try(srvColCount, duckdb.SetChunkValue(chunk, srvColCount, row, r.count))
		}
		for i, c := range [...]struct {
			col int
			sp  span
		}{{srvColBuckets, r.buckets}, {srvColQuantiles, r.quantiles}} {
			if has(c.col) {
				keys, values := b.pairTexts(c.sp)
				try(c.col, duckdb.SetChunkValue(chunk, c.col, row, keys))
				if err == nil {
					try(numServerCols+i, duckdb.SetChunkValue(chunk, numServerCols+i, row, values))
				}
			}
		}
		if err == nil {
			try(serverNullsIndex, duckdb.SetChunkValue(chunk, serverNullsIndex, row, int64(r.null)))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// pairTexts returns the keys and the values of the pairs of sp as
// comma-separated texts, the shortest that parse back to the same
// doubles ("inf" for +Inf; a NaN value, NULL, as ""). They live in the
// batch's scratch until the next call.
func (b *serverBatch) pairTexts(sp span) (keys, values []byte) {
	buf := b.scratch[:0]
	for i := range int(sp.n) {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = appendDouble(buf, b.pairs[int(sp.off)+2*i])
	}
	n := len(buf)
	for i := range int(sp.n) {
		if i > 0 {
			buf = append(buf, ',')
		}
		if v := b.pairs[int(sp.off)+2*i+1]; !math.IsNaN(v) {
			buf = appendDouble(buf, v)
		}
	}
	b.scratch = buf
	return buf[:n], buf[n:]
}

// appendDouble appends f as DuckDB casts text to DOUBLE back exactly.
func appendDouble(dst []byte, f float64) []byte {
	switch {
	case math.IsInf(f, 1):
		return append(dst, "inf"...)
	case math.IsInf(f, -1):
		return append(dst, "-inf"...)
	}
	return strconv.AppendFloat(dst, f, 'g', -1, 64)
}
