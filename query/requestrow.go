package query

import "sync"

// requestRow is one requests row decoded from a profile_export.jsonl line
// (run_id aside: it is the run's). Its strings and inter_chunk_latency
// list live in the requestBatch that holds it.
type requestRow struct {
	// null has bit f set when field f (the field* constants) is NULL.
	null    uint64
	ints    [numIntFields]int64
	metrics [numMetrics]float64
	strs    [numStrFields]span
	// icl spans the row's inter_chunk_latency elements in requestBatch.icl.
	icl       span
	cancelled bool
	// valid is "error IS NULL": the record has no error object.
	valid bool
}

// span is the range [off, off+n) of a requestBatch buffer.
type span struct{ off, n int32 }

// Integer fields (requestRow.ints), in requests column order.
const (
	intRequestNum = iota
	intSessionNum
	intTurnIndex // INTEGER
	intCreditIssuedNS
	intRequestStartNS
	intRequestAckNS
	intRequestEndNS
	intCancellationTimeNS
	intErrorCode // INTEGER
	numIntFields
)

// String fields (requestRow.strs), in requests column order.
const (
	strXRequestID = iota
	strXCorrelationID
	strConversationID
	strPhase
	strWorkerID
	strRecordProcessorID
	strErrorType
	strErrorMessage
	numStrFields
)

// numMetrics is len(MetricColumns), checked by TestRequestFieldColumns.
const numMetrics = 40

// Field numbers, the bits of requestRow.null: the integers, the strings,
// was_cancelled, the metrics in MetricColumns order, inter_chunk_latency.
const (
	fieldInt       = 0
	fieldStr       = fieldInt + numIntFields
	fieldCancelled = fieldStr + numStrFields
	fieldMetric    = fieldCancelled + 1
	fieldICL       = fieldMetric + numMetrics
	numFields      = fieldICL + 1
)

// allNull has the null bit of every field set.
const allNull = uint64(1)<<numFields - 1

// isNull tells whether field f of r is NULL.
func (r *requestRow) isNull(f int) bool { return r.null&(1<<f) != 0 }

// requestFieldColumns names the requests column of each field.
var requestFieldColumns = func() [numFields]string {
	var c [numFields]string
	copy(c[fieldInt:], []string{"request_num", "session_num", "turn_index", "credit_issued_ns", "request_start_ns",
		"request_ack_ns", "request_end_ns", "cancellation_time_ns", "error_code"})
	copy(c[fieldStr:], []string{"x_request_id", "x_correlation_id", "conversation_id", "phase", "worker_id",
		"record_processor_id", "error_type", "error_message"})
	c[fieldCancelled] = "was_cancelled"
	copy(c[fieldMetric:], MetricColumns)
	c[fieldICL] = "inter_chunk_latency"
	return c
}()

// requestBatch is a run of decoded rows, in file order, with the strings
// and lists they refer to. Batches are reused: reset keeps the memory.
type requestBatch struct {
	rows []requestRow
	text []byte
	// icl holds the inter_chunk_latency elements: float64, or nil for a
	// NULL element. They are boxed here, by the decoders, for the driver.
	icl []any
}

func (b *requestBatch) reset() {
	clear(b.icl) // drop the boxed values
	b.rows, b.text, b.icl = b.rows[:0], b.text[:0], b.icl[:0]
}

// batchPool recycles request batches.
var batchPool = sync.Pool{New: func() any { return new(requestBatch) }}

// newRequestBatch returns an empty batch, recycled when one is free.
func newRequestBatch() *requestBatch {
	b := batchPool.Get().(*requestBatch)
	b.reset()
	return b
}

// releaseBatch recycles a batch no longer read.
func releaseBatch(b *requestBatch) { batchPool.Put(b) }

// list returns the inter_chunk_latency elements of r, valid until reset.
func (b *requestBatch) list(r *requestRow) []any {
	return b.icl[r.icl.off : r.icl.off+r.icl.n : r.icl.off+r.icl.n]
}

// str returns the bytes of string field f of r, valid until reset.
func (b *requestBatch) str(r *requestRow, f int) []byte {
	s := r.strs[f]
	return b.text[s.off : s.off+s.n : s.off+s.n]
}

// addSpan appends v to text and returns its span.
func addSpan(text *[]byte, v []byte) span {
	sp := span{int32(len(*text)), int32(len(v))}
	*text = append(*text, v...)
	return sp
}
