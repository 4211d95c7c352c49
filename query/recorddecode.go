package query

import "errors"

// recordDecoder decodes profile_export.jsonl lines into requests rows,
// with the results DuckDB's read_json gave for the columns the loader
// declared (schema 2): the metadata fields, with their legacy names used
// when the new one is missing or null (timestamp_ns for request_start_ns,
// credit_phase for benchmark_phase); the "value" of every metric with a
// requests column, inter_chunk_latency's as a list; the error object's
// code, type and message; valid when there is no error object. Unknown
// keys are skipped, a missing or null field is NULL, a duplicate key is an
// error. Values convert as DuckDB casts them: a number with a fraction
// into an integer column rounds half to even, true and false are 1 and 0,
// a numeric string is its number, and a non-string value in a text column
// is its JSON text. An object or array where a number is due, or a scalar
// where an object or array is, is an error.
//
// Lines written by one writer share their shape: a line that repeats the
// shape of one of the last two lines decoded in full is decoded by reading
// its values only (lineTemplate). A decoder is not safe for concurrent
// use.
type recordDecoder struct {
	s jsonScanner
	// buf is scratch for the JSON text of non-string values in text columns.
	buf []byte
	// line holds the legacy fields of the line being decoded.
	line legacyFields
	// templates are the shapes of recent lines, most recent first; slots
	// records the value slots of a line decoded in full.
	templates [2]lineTemplate
	slots     []valueSlot
	// replayed counts the lines decoded by a template (for tests).
	replayed int
}

// legacyFields are timestamp_ns and credit_phase, used when
// request_start_ns and benchmark_phase are missing or null.
type legacyFields struct {
	timestampNS    int64
	creditPhase    span
	hasTS, hasCred bool
}

// Value handlers beyond the fields (field numbers are handlers too): the
// legacy fields, and the presence of an error object (a zero-width value).
const (
	handleTimestampNS = numFields + iota
	handleCreditPhase
	handleErrorObject
)

// decodeLine implements lineDecoder: it appends the row of line to b. A
// blank line adds nothing. On error, b may hold part of the row; the
// caller drops the batch.
func (d *recordDecoder) decodeLine(b *requestBatch, line []byte) error {
	s := &d.s
	s.reset(line)
	if s.blank() {
		return nil
	}
	c := s.peek()
	rows, text, icl := len(b.rows), len(b.text), len(b.icl)
	for i := range d.templates {
		if d.replay(b, line, i) {
			if i > 0 {
				d.templates[0], d.templates[1] = d.templates[1], d.templates[0]
			}
			d.replayed++
			return nil
		}
		b.rows, b.text, b.icl = b.rows[:rows], b.text[:text], b.icl[:icl]
	}
	s.reset(line)
	s.ws()
	d.slots = d.slots[:0]
	if err := d.decodeFull(b, c); err != nil {
		return err
	}
	d.templates[1].learn(line, d.slots)
	d.templates[0], d.templates[1] = d.templates[1], d.templates[0]
	return nil
}

// newRow appends a row of NULLs to b and resets the line's legacy fields.
func (d *recordDecoder) newRow(b *requestBatch) *requestRow {
	d.line = legacyFields{}
	b.rows = append(b.rows, requestRow{null: allNull, valid: true})
	return &b.rows[len(b.rows)-1]
}

// finishRow applies the legacy fields: coalesce(request_start_ns,
// timestamp_ns) and coalesce(benchmark_phase, credit_phase).
func (d *recordDecoder) finishRow(r *requestRow) {
	if f := fieldInt + intRequestStartNS; r.isNull(f) && d.line.hasTS {
		r.ints[intRequestStartNS] = d.line.timestampNS
		r.null &^= 1 << f
	}
	if f := fieldStr + strPhase; r.isNull(f) && d.line.hasCred {
		r.strs[strPhase] = d.line.creditPhase
		r.null &^= 1 << f
	}
}

// decodeFull decodes the line at the scanner, whose first byte is c, with
// the full parser, recording its value slots.
func (d *recordDecoder) decodeFull(b *requestBatch, c byte) error {
	s := &d.s
	r := d.newRow(b)
	switch c {
	case 'n': // null: a row of NULLs, as DuckDB reads it
		if err := s.literal("null"); err != nil {
			return err
		}
	case '{':
		s.pos++
		err := d.members(topKeys, func(i int) error {
			switch i {
			case 0:
				return d.readMetadata(b, r)
			case 1:
				return d.readMetrics(b, r)
			case 2:
				return d.readError(b, r)
			}
			return s.skip(0)
		})
		if err != nil {
			return err
		}
	default:
		return s.unexpected("a JSON object")
	}
	d.finishRow(r)
	return s.end()
}

// metadataHandlers maps the metadata keys (md*) to value handlers.
var metadataHandlers = [...]int{
	mdRequestNum:         fieldInt + intRequestNum,
	mdSessionNum:         fieldInt + intSessionNum,
	mdXRequestID:         fieldStr + strXRequestID,
	mdXCorrelationID:     fieldStr + strXCorrelationID,
	mdConversationID:     fieldStr + strConversationID,
	mdTurnIndex:          fieldInt + intTurnIndex,
	mdCreditIssuedNS:     fieldInt + intCreditIssuedNS,
	mdRequestStartNS:     fieldInt + intRequestStartNS,
	mdRequestAckNS:       fieldInt + intRequestAckNS,
	mdRequestEndNS:       fieldInt + intRequestEndNS,
	mdWorkerID:           fieldStr + strWorkerID,
	mdRecordProcessorID:  fieldStr + strRecordProcessorID,
	mdBenchmarkPhase:     fieldStr + strPhase,
	mdWasCancelled:       fieldCancelled,
	mdCancellationTimeNS: fieldInt + intCancellationTimeNS,
	mdTimestampNS:        handleTimestampNS,
	mdCreditPhase:        handleCreditPhase,
}

// readMetadata reads the metadata object into r.
func (d *recordDecoder) readMetadata(b *requestBatch, r *requestRow) error {
	if ok, err := d.s.objectOrNull(); !ok || err != nil {
		return err
	}
	return d.members(metadataKeys, func(i int) error {
		if i < 0 {
			return d.s.skip(0)
		}
		return d.value(metadataHandlers[i], b, r)
	})
}

// readMetrics reads the metrics object into r.
func (d *recordDecoder) readMetrics(b *requestBatch, r *requestRow) error {
	if ok, err := d.s.objectOrNull(); !ok || err != nil {
		return err
	}
	return d.members(metricKeys, func(i int) error {
		if i < 0 {
			return d.s.skip(0)
		}
		return d.readMetric(b, r, fieldMetric+i) // fieldICL for inter_chunk_latency
	})
}

// readMetric reads one metric object ({"value": …, "unit": …}) into
// field f.
func (d *recordDecoder) readMetric(b *requestBatch, r *requestRow, f int) error {
	if ok, err := d.s.objectOrNull(); !ok || err != nil {
		return err
	}
	return d.members(metricFields, func(i int) error {
		if i != 0 { // unit, or an unknown key
			return d.s.skip(0)
		}
		return d.value(f, b, r)
	})
}

// errorHandlers maps the error keys (code, type, message) to handlers.
var errorHandlers = [...]int{fieldInt + intErrorCode, fieldStr + strErrorType, fieldStr + strErrorMessage}

// readError reads the error object into r.
func (d *recordDecoder) readError(b *requestBatch, r *requestRow) error {
	if ok, err := d.s.objectOrNull(); !ok || err != nil {
		return err
	}
	if err := d.value(handleErrorObject, b, r); err != nil {
		return err
	}
	return d.members(errorKeys, func(i int) error {
		if i < 0 {
			return d.s.skip(0)
		}
		return d.value(errorHandlers[i], b, r)
	})
}

// value reads the value at the scanner with handler h (a field number or
// a handle* constant), recording its slot for the line's template.
func (d *recordDecoder) value(h int, b *requestBatch, r *requestRow) error {
	start := d.s.pos
	if err := d.apply(h, b, r); err != nil {
		return err
	}
	d.slots = append(d.slots, valueSlot{start: int32(start), end: int32(d.s.pos), handler: int8(h)})
	return nil
}

// errBadHandler reports a handler outside the known ones (a bug).
var errBadHandler = errors.New("unknown value handler")

// apply reads the value at the scanner into r with handler h.
func (d *recordDecoder) apply(h int, b *requestBatch, r *requestRow) error {
	var (
		null bool
		err  error
	)
	switch {
	case h < fieldStr:
		bits := 64
		if h == fieldInt+intTurnIndex || h == fieldInt+intErrorCode {
			bits = 32
		}
		r.ints[h-fieldInt], null, err = d.intValue(bits)
	case h < fieldCancelled:
		r.strs[h-fieldStr], null, err = d.textValue(b)
	case h == fieldCancelled:
		r.cancelled, null, err = d.boolValue()
	case h < fieldICL:
		r.metrics[h-fieldMetric], null, err = d.floatValue()
	case h == fieldICL:
		r.icl, null, err = d.list(b)
	case h == handleTimestampNS:
		d.line.timestampNS, null, err = d.intValue(64)
		d.line.hasTS = err == nil && !null
		return err
	case h == handleCreditPhase:
		d.line.creditPhase, null, err = d.textValue(b)
		d.line.hasCred = err == nil && !null
		return err
	case h == handleErrorObject:
		r.valid = false
		return nil
	default:
		return errBadHandler
	}
	if err == nil && !null {
		r.null &^= 1 << h
	}
	return err
}
