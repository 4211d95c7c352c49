package export

import (
	"strconv"

	"github.com/aiperf-go/aiperf/internal/pyjson"
	"github.com/aiperf-go/aiperf/metrics"
	"github.com/aiperf-go/aiperf/record"
)

// write14 writes rec's line as AIPerf 0.13 (schema 1.4) does: pydantic's
// exclude_none model dump of MetricRecordInfo. Its metadata has no
// request_num, leaves out request_ack_ns and cancellation_time_ns when
// unset, and adds the phase's coordinates (phase_index, profiling_index for
// a profiling record, phase_name, phase_kind), context_overflow_skip (never
// set here: there is no agentic replay), agent_depth 0 and
// root_correlation_id (the record's own x_correlation_id: every session is
// a root). "error" is left out on success and mapped by Error14 otherwise.
func (rw *RecordWriter) write14(rec *record.Record, vals []metrics.RecordValue) error {
	b := rw.buf[:0]
	b = append(b, `{"metadata":{"session_num":`...)
	b = strconv.AppendInt(b, int64(rec.SessionNum), 10)
	b = append(b, `,"x_request_id":`...)
	b = pyjson.AppendString(b, rec.XRequestID)
	b = append(b, `,"x_correlation_id":`...)
	b = pyjson.AppendString(b, rec.XCorrelationID)
	b = append(b, `,"conversation_id":`...)
	b = pyjson.AppendString(b, rec.ConversationID)
	b = append(b, `,"turn_index":`...)
	b = strconv.AppendInt(b, int64(rec.TurnIndex), 10)
	b = rw.appendWallMember(b, "credit_issued_ns", rec.CreditIssuedNS)
	b = append(b, `,"request_start_ns":`...)
	b = rw.appendWall(b, rec.StartNS)
	b = rw.appendWallMember(b, "request_ack_ns", rec.AckNS)
	b = append(b, `,"request_end_ns":`...)
	b = rw.appendWall(b, rec.EndNS)
	b = append(b, `,"worker_id":`...)
	b = pyjson.AppendString(b, rec.WorkerID)
	b = append(b, `,"record_processor_id":`...)
	b = pyjson.AppendString(b, rw.ProcessorID)
	b = append(b, `,"benchmark_phase":`...)
	b = pyjson.AppendString(b, string(rec.Phase))
	phaseIndex := 0
	if rec.Phase != record.PhaseWarmup && rw.WarmupPhase {
		phaseIndex = 1
	}
	b = append(b, `,"phase_index":`...)
	b = strconv.AppendInt(b, int64(phaseIndex), 10)
	if rec.Phase != record.PhaseWarmup {
		b = append(b, `,"profiling_index":0`...)
	}
	b = append(b, `,"phase_name":`...)
	b = pyjson.AppendString(b, string(rec.Phase))
	b = append(b, `,"phase_kind":`...)
	b = pyjson.AppendString(b, string(rec.Phase))
	b = append(b, `,"was_cancelled":`...)
	b = strconv.AppendBool(b, rec.Cancelled)
	if rec.Cancelled {
		b = rw.appendWallMember(b, "cancellation_time_ns", rec.CancelledNS)
	}
	b = append(b, `,"context_overflow_skip":false,"agent_depth":0,"root_correlation_id":`...)
	b = pyjson.AppendString(b, rec.XCorrelationID)
	b = rw.appendMetadataEnd(b, rec, vals)
	if rec.Error != nil {
		b = append(b, `,"error":`...)
		b = appendErrorDetails14(b, Error14(*rec.Error))
	}
	return rw.emit(b)
}

// appendWallMember appends ,"name":<wall ns>, or nothing when ns is unset.
func (rw *RecordWriter) appendWallMember(b []byte, name string, ns int64) []byte {
	if ns == 0 {
		return b
	}
	b = append(b, ',')
	b = pyjson.AppendString(b, name)
	b = append(b, ':')
	return strconv.AppendInt(b, rw.clock.Wall(ns), 10)
}

// appendErrorDetails14 appends e compactly, its empty fields left out.
func appendErrorDetails14(b []byte, e ErrorDetails14) []byte {
	b = append(b, '{')
	if e.Code != 0 {
		b = append(b, `"code":`...)
		b = strconv.AppendInt(b, int64(e.Code), 10)
		b = append(b, ',')
	}
	if e.Type != "" {
		b = append(b, `"type":`...)
		b = pyjson.AppendString(b, e.Type)
		b = append(b, ',')
	}
	b = append(b, `"message":`...)
	b = pyjson.AppendString(b, e.Message)
	if e.Cause != "" {
		b = append(b, `,"cause":`...)
		b = pyjson.AppendString(b, e.Cause)
	}
	if len(e.CauseChain) > 0 {
		b = append(b, `,"cause_chain":[`...)
		for i, c := range e.CauseChain {
			if i > 0 {
				b = append(b, ',')
			}
			b = pyjson.AppendString(b, c)
		}
		b = append(b, ']')
	}
	return append(b, '}')
}
