package export

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/aiperf-go/aiperf/internal/pyjson"
	"github.com/aiperf-go/aiperf/metrics"
	"github.com/aiperf-go/aiperf/record"
)

// RecordWriter writes profile_export.jsonl: one MetricRecordInfo object per
// request, in the order Write is called (completion order). It encodes by
// hand into a reused buffer, without reflection, because it runs for every
// request. Output is buffered: call Flush before closing the underlying
// writer. A RecordWriter is not safe for concurrent use; give it one owner.
type RecordWriter struct {
	// ProcessorID is written as record_processor_id. NewRecordWriter sets it
	// to "record_processor_" and 8 random hex digits.
	ProcessorID string
	// TraceData adds each record's HTTP trace as "trace_data" between
	// "metrics" and "error" (--export-http-trace; see AppendTraceData).
	TraceData bool
	// URLIndex adds each record's URLIndex as "url_index", the last
	// metadata member (runs with several --url; AIPerf 0.13 keeps its
	// url_index internal and writes none).
	URLIndex bool
	// Schema is the layout (--output-schema): "" or Schema10 writes AIPerf
	// 0.8's records, Schema14 AIPerf 0.13's (see write14).
	Schema string
	// WarmupPhase says that the run has a warmup phase before profiling:
	// schema 1.4 then numbers the profiling phase 1 (phase_index).
	WarmupPhase bool

	bw    *bufio.Writer
	clock *record.Clock
	buf   []byte
	keys  metricKeys
}

// NewRecordWriter returns a RecordWriter that writes to w and converts the
// records' monotonic times to wall-clock nanoseconds with clock.
func NewRecordWriter(w io.Writer, clock *record.Clock) *RecordWriter {
	var id [4]byte
	_, _ = rand.Read(id[:]) // crypto/rand.Read never fails
	return &RecordWriter{
		ProcessorID: "record_processor_" + hex.EncodeToString(id[:]),
		bw:          bufio.NewWriterSize(w, 64<<10),
		clock:       clock,
		buf:         make([]byte, 0, 2048),
	}
}

// Write appends rec's line: {"metadata":{...},"metrics":{tag:{"value","unit"}},
// ["trace_data":{...}|null,] "error":null|{"code","type","message"}}. Metrics are written in the order of
// vals; an Int value without a fractional part, a List value as an array.
// Monotonic times that are 0 (unset) are written as null; request_ack_ns is
// null for non-streaming requests and cancellation_time_ns unless the request
// was cancelled. The error's code is null when it is 0 (not an HTTP status).
// Write returns the underlying writer's error if flushing the buffer fails.
func (rw *RecordWriter) Write(rec *record.Record, vals []metrics.RecordValue) error {
	if rw.Schema == Schema14 {
		return rw.write14(rec, vals)
	}
	b := rw.buf[:0]
	b = append(b, `{"metadata":{"session_num":`...)
	b = strconv.AppendInt(b, int64(rec.SessionNum), 10)
	b = append(b, `,"request_num":`...)
	b = strconv.AppendInt(b, int64(rec.RequestNum), 10)
	b = append(b, `,"x_request_id":`...)
	b = pyjson.AppendString(b, rec.XRequestID)
	b = append(b, `,"x_correlation_id":`...)
	b = pyjson.AppendString(b, rec.XCorrelationID)
	b = append(b, `,"conversation_id":`...)
	b = pyjson.AppendString(b, rec.ConversationID)
	b = append(b, `,"turn_index":`...)
	b = strconv.AppendInt(b, int64(rec.TurnIndex), 10)
	b = append(b, `,"credit_issued_ns":`...)
	b = rw.appendWall(b, rec.CreditIssuedNS)
	b = append(b, `,"request_start_ns":`...)
	b = rw.appendWall(b, rec.StartNS)
	b = append(b, `,"request_ack_ns":`...)
	if rec.Streaming {
		b = rw.appendWall(b, rec.AckNS)
	} else { // 0.8 took no ack for a whole body
		b = append(b, "null"...)
	}
	b = append(b, `,"request_end_ns":`...)
	b = rw.appendWall(b, rec.EndNS)
	b = append(b, `,"worker_id":`...)
	b = pyjson.AppendString(b, rec.WorkerID)
	b = append(b, `,"record_processor_id":`...)
	b = pyjson.AppendString(b, rw.ProcessorID)
	b = append(b, `,"benchmark_phase":`...)
	b = pyjson.AppendString(b, string(rec.Phase))
	b = append(b, `,"was_cancelled":`...)
	b = strconv.AppendBool(b, rec.Cancelled)
	b = append(b, `,"cancellation_time_ns":`...)
	if rec.Cancelled {
		b = rw.appendWall(b, rec.CancelledNS)
	} else {
		b = append(b, "null"...)
	}
	b = rw.appendMetadataEnd(b, rec, vals)
	b = append(b, `,"error":`...)
	if e := rec.Error; e == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, `{"code":`...)
		if e.Code == 0 {
			b = append(b, "null"...)
		} else {
			b = strconv.AppendInt(b, int64(e.Code), 10)
		}
		b = append(b, `,"type":`...)
		b = pyjson.AppendString(b, e.Type)
		b = append(b, `,"message":`...)
		b = pyjson.AppendString(b, e.Message)
		b = append(b, '}')
	}
	return rw.emit(b)
}

// emit ends line b, keeps its buffer for reuse and writes it.
func (rw *RecordWriter) emit(b []byte) error {
	b = append(b, '}', '\n')
	rw.buf = b
	if _, err := rw.bw.Write(b); err != nil {
		return fmt.Errorf("write record: %w", err)
	}
	return nil
}

// metricKeys caches the encoded constant parts of a record's metrics, by
// position: every record of a run has (almost always) the same metrics in
// the same order, so the tags and units are escaped once per position
// instead of once per record (issue 19: ~60 escapes a record). An entry is
// used only when its tag and unit equal the value's; otherwise it is
// rebuilt, so the bytes are always pyjson.AppendString's.
type metricKeys []metricKey

type metricKey struct {
	tag, unit string
	head      []byte // "tag":{"value":
	tail      []byte // ,"unit":"unit"}
}

// key returns the cached parts of v at position i, building them if needed.
func (mk *metricKeys) key(i int, v *metrics.RecordValue) *metricKey {
	if i >= len(*mk) {
		*mk = append(*mk, make([]metricKey, i+1-len(*mk))...)
	}
	k := &(*mk)[i]
	if k.head == nil || k.tag != v.Tag || k.unit != v.Unit {
		k.tag, k.unit = v.Tag, v.Unit
		k.head = append(pyjson.AppendString(k.head[:0], v.Tag), `:{"value":`...)
		k.tail = append(pyjson.AppendString(append(k.tail[:0], `,"unit":`...), v.Unit), '}')
	}
	return k
}

// appendRecordMetrics appends the members of a record's "metrics" object:
// tag:{"value","unit"} in the order of vals, the tags and units taken from
// mk (nil: escaped each time).
func appendRecordMetrics(b []byte, vals []metrics.RecordValue, mk *metricKeys) []byte {
	for i := range vals {
		v := &vals[i]
		if i > 0 {
			b = append(b, ',')
		}
		var k *metricKey
		if mk != nil {
			k = mk.key(i, v)
			b = append(b, k.head...)
		} else {
			b = pyjson.AppendString(b, v.Tag)
			b = append(b, `:{"value":`...)
		}
		switch {
		case v.List != nil:
			b = append(b, '[')
			for j, f := range v.List {
				if j > 0 {
					b = append(b, ',')
				}
				b = pyjson.AppendFloat(b, f)
			}
			b = append(b, ']')
		case v.Int && v.Value == math.Trunc(v.Value) && math.Abs(v.Value) < 1<<63:
			b = strconv.AppendInt(b, int64(v.Value), 10)
		default:
			b = pyjson.AppendFloat(b, v.Value)
		}
		if k != nil {
			b = append(b, k.tail...)
			continue
		}
		b = append(b, `,"unit":`...)
		b = pyjson.AppendString(b, v.Unit)
		b = append(b, '}')
	}
	return b
}

// appendWall appends the wall-clock ns of monotonic ns, or null when unset.
func (rw *RecordWriter) appendWall(b []byte, ns int64) []byte {
	if ns == 0 {
		return append(b, "null"...)
	}
	return strconv.AppendInt(b, rw.clock.Wall(ns), 10)
}

// Flush writes buffered lines to the underlying writer.
func (rw *RecordWriter) Flush() error {
	if err := rw.bw.Flush(); err != nil {
		return fmt.Errorf("flush records: %w", err)
	}
	return nil
}

// appendMetadataEnd ends a record's metadata (with url_index when the run
// has several URLs) and appends its metrics and, with TraceData, its
// trace_data: what every layout writes between the metadata and the error.
func (rw *RecordWriter) appendMetadataEnd(b []byte, rec *record.Record, vals []metrics.RecordValue) []byte {
	if rw.URLIndex {
		b = append(b, `,"url_index":`...)
		b = strconv.AppendInt(b, int64(rec.URLIndex), 10)
	}
	b = append(b, `},"metrics":{`...)
	b = appendRecordMetrics(b, vals, &rw.keys)
	b = append(b, '}')
	if rw.TraceData {
		b = append(b, `,"trace_data":`...)
		b = AppendTraceData(b, rec.HTTPTrace, rw.clock)
	}
	return b
}
