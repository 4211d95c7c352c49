package query

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unsafe"

	"github.com/aiperf-go/aiperf/internal/pyjson"
)

// The value readers of recordDecoder: each reads the JSON value at the
// scanner's position (whitespace already skipped) as a requests column
// type, converting as DuckDB casts JSON values. null reports a JSON null.

// list reads inter_chunk_latency's value, an array of numbers, into b.
func (d *recordDecoder) list(b *requestBatch) (v span, null bool, err error) {
	s := &d.s
	switch s.peek() {
	case 'n':
		return span{}, true, s.literal("null")
	case '[':
		s.pos++
	default:
		return span{}, false, s.unexpected("an array or null")
	}
	start := len(b.icl)
	for first := true; ; first = false {
		ok, err := s.arrayNext(first)
		if err != nil {
			return span{}, false, err
		}
		if !ok {
			break
		}
		if f, ok := s.plainFloat(); ok { // the usual element
			b.icl = append(b.icl, f)
			continue
		}
		f, null, err := d.floatValue()
		if err != nil {
			return span{}, false, err
		}
		if null {
			b.icl = append(b.icl, nil)
		} else {
			b.icl = append(b.icl, f)
		}
	}
	return span{int32(start), int32(len(b.icl) - start)}, false, nil
}

// errNotScalar reports an object or array where a number or boolean is due.
var errNotScalar = errors.New("cannot convert an object or array to a number")

// keyword reads the values every typed reader treats alike: null (null
// reports it), true (v 1), false (v 0), and an object or array (an error).
// ok is false, and nothing read, at any other value.
func (d *recordDecoder) keyword() (v int64, null, ok bool, err error) {
	s := &d.s
	switch s.peek() {
	case 'n':
		return 0, true, true, s.literal("null")
	case 't':
		return 1, false, true, s.literal("true")
	case 'f':
		return 0, false, true, s.literal("false")
	case '{', '[':
		return 0, false, true, errNotScalar
	}
	return 0, false, false, nil
}

// intValue reads an integer of bits (32 or 64); null reports a JSON null.
func (d *recordDecoder) intValue(bits int) (v int64, null bool, err error) {
	if v, null, ok, err := d.keyword(); ok {
		return v, null, err
	}
	s := &d.s
	switch s.peek() {
	case '"':
		v, err := s.str()
		if err != nil {
			return 0, false, err
		}
		n, err := parseIntString(v, bits)
		return n, false, err
	case 'N', 'I':
		return 0, false, errors.New("cannot convert NaN or Infinity to an integer")
	}
	var n numLit
	if err := s.number(&n); err != nil {
		return 0, false, err
	}
	if v, err = n.int(bits); err != nil {
		return 0, false, fmt.Errorf("%s: %w", n.text, err)
	}
	return v, false, nil
}

// floatValue reads a DOUBLE; null reports a JSON null.
func (d *recordDecoder) floatValue() (v float64, null bool, err error) {
	if v, null, ok, err := d.keyword(); ok {
		return float64(v), null, err
	}
	s := &d.s
	switch s.peek() {
	case '"':
		v, err := s.str()
		if err != nil {
			return 0, false, err
		}
		f, err := parseFloatString(v)
		return f, false, err
	case 'N':
		return nan, false, s.literal("NaN")
	case 'I':
		return math.Inf(1), false, s.literal("Infinity")
	}
	if f, ok := s.plainFloat(); ok {
		return f, false, nil
	}
	var n numLit
	if err := s.number(&n); err != nil {
		return 0, false, err
	}
	return n.float(), false, nil
}

// boolValue reads a BOOLEAN; null reports a JSON null.
func (d *recordDecoder) boolValue() (v, null bool, err error) {
	if v, null, ok, err := d.keyword(); ok {
		return v != 0, null, err
	}
	s := &d.s
	if s.peek() == '"' {
		v, err := s.str()
		if err != nil {
			return false, false, err
		}
		t, err := parseBoolString(v)
		return t, false, err
	}
	f, null, err := d.floatValue()
	if err == nil && !null && (math.IsInf(f, 0) || math.IsNaN(f)) {
		return false, false, fmt.Errorf("cannot convert %v to a boolean", f)
	}
	return f != 0, null, err
}

// textValue reads a VARCHAR into b: a string's text, or another value's
// JSON text as DuckDB writes it (jsonText); null reports a JSON null.
func (d *recordDecoder) textValue(b *requestBatch) (v span, null bool, err error) {
	s := &d.s
	switch s.peek() {
	case 'n':
		return span{}, true, s.literal("null")
	case '"':
		v, err := s.str()
		if err != nil {
			return span{}, false, err
		}
		return addSpan(&b.text, v), false, nil
	}
	if d.buf, err = d.jsonText(d.buf[:0], 0); err != nil {
		return span{}, false, err
	}
	return addSpan(&b.text, d.buf), false, nil
}

// jsonText appends the JSON value at the scanner as DuckDB turns a JSON
// value into a VARCHAR: a number alone as a DOUBLE cast to VARCHAR (Python's
// repr: "1500.0", "1e-05"), an integer or a number too large for a DOUBLE
// as written; an object or array compact, with its numbers and strings
// written again as yyjson writes them (jsonNested). depth counts nesting.
func (d *recordDecoder) jsonText(dst []byte, depth int) ([]byte, error) {
	s := &d.s
	switch s.peek() {
	case '{', '[', '"':
		return d.jsonNested(dst, depth)
	case 't':
		return append(dst, "true"...), s.literal("true")
	case 'f':
		return append(dst, "false"...), s.literal("false")
	case 'N':
		return append(dst, "NaN"...), s.literal("NaN")
	case 'I':
		return append(dst, "Infinity"...), s.literal("Infinity")
	}
	var n numLit
	if err := s.number(&n); err != nil {
		return dst, err
	}
	switch f := n.float(); {
	case n.kind == numNegInf:
		return append(dst, "-Infinity"...), nil
	case n.kind == numInt && f == 0:
		return append(dst, '0'), nil // -0
	case n.kind == numInt || math.IsInf(f, 0):
		return append(dst, n.text...), nil
	default:
		return pyjson.AppendFloat(dst, f), nil
	}
}

// jsonNested appends the JSON value at the scanner as yyjson writes it
// inside an object or array: no whitespace; strings escaped only where
// JSON requires (short escapes, else \u00XX); integers as written (-0 as
// 0); other numbers in their shortest form, "1.0" for an integral value,
// with an exponent ("1.5e21", "1e-7") below 1e-6 and from 1e21 on.
func (d *recordDecoder) jsonNested(dst []byte, depth int) ([]byte, error) {
	s := &d.s
	if depth > maxJSONDepth {
		return dst, s.errorf("nesting deeper than %d", maxJSONDepth)
	}
	switch s.peek() {
	case '{':
		s.pos++
		dst = append(dst, '{')
		for first := true; ; first = false {
			key, ok, err := s.nextKey(first)
			if err != nil {
				return dst, err
			}
			if !ok {
				return append(dst, '}'), nil
			}
			if !first {
				dst = append(dst, ',')
			}
			dst = append(appendYYString(dst, key), ':')
			if dst, err = d.jsonNested(dst, depth+1); err != nil {
				return dst, err
			}
		}
	case '[':
		s.pos++
		dst = append(dst, '[')
		for first := true; ; first = false {
			ok, err := s.arrayNext(first)
			if err != nil {
				return dst, err
			}
			if !ok {
				return append(dst, ']'), nil
			}
			if !first {
				dst = append(dst, ',')
			}
			if dst, err = d.jsonNested(dst, depth+1); err != nil {
				return dst, err
			}
		}
	case '"':
		v, err := s.str()
		if err != nil {
			return dst, err
		}
		return appendYYString(dst, v), nil
	case 'n':
		return append(dst, "null"...), s.literal("null")
	case 't', 'f', 'N', 'I':
		return d.jsonText(dst, depth)
	}
	var n numLit
	if err := s.number(&n); err != nil {
		return dst, err
	}
	switch f := n.float(); {
	case n.kind == numNegInf:
		return append(dst, "-Infinity"...), nil
	case n.kind == numInt && f == 0:
		return append(dst, '0'), nil
	case n.kind == numInt || math.IsInf(f, 0):
		return append(dst, n.text...), nil
	default:
		return appendYYFloat(dst, f), nil
	}
}

// appendYYString appends v quoted as yyjson writes a string.
func appendYYString(dst, v []byte) []byte {
	const hex = "0123456789ABCDEF"
	dst = append(dst, '"')
	for _, c := range v {
		switch {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c == '\b':
			dst = append(dst, '\\', 'b')
		case c == '\f':
			dst = append(dst, '\\', 'f')
		case c == '\n':
			dst = append(dst, '\\', 'n')
		case c == '\r':
			dst = append(dst, '\\', 'r')
		case c == '\t':
			dst = append(dst, '\\', 't')
		case c < 0x20:
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
		default:
			dst = append(dst, c)
		}
	}
	return append(dst, '"')
}

// appendYYFloat appends a finite f as yyjson writes a double.
func appendYYFloat(dst []byte, f float64) []byte {
	var tmp [32]byte
	e := strconv.AppendFloat(tmp[:0], f, 'e', -1, 64) // [-]d[.ddd]e±XX
	if e[0] == '-' {
		dst = append(dst, '-')
		e = e[1:]
	}
	mant, exps, _ := strings.Cut(string(e), "e")
	exp, _ := strconv.Atoi(exps)
	digits := strings.Replace(mant, ".", "", 1)
	switch {
	case exp < -6 || exp >= 21:
		dst = append(dst, digits[0])
		if len(digits) > 1 {
			dst = append(append(dst, '.'), digits[1:]...)
		}
		return strconv.AppendInt(append(dst, 'e'), int64(exp), 10)
	case exp < 0:
		dst = append(dst, "0."...)
		for range -exp - 1 {
			dst = append(dst, '0')
		}
		return append(dst, digits...)
	case len(digits) <= exp+1:
		dst = append(dst, digits...)
		for range exp + 1 - len(digits) {
			dst = append(dst, '0')
		}
		return append(dst, ".0"...)
	default:
		return append(append(append(dst, digits[:exp+1]...), '.'), digits[exp+1:]...)
	}
}

// unsafeString views b as a string to parse it; b must not change while
// the string is in use.
func unsafeString(b []byte) string {
	return unsafe.String(unsafe.SliceData(b), len(b))
}
