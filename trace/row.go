package trace

import (
	"fmt"
	"math"
	"strconv"
)

// row is the part of one mooncake trace line that the analysis reads.
type row struct {
	isl, osl int64
	// hashIDs reuses its storage from line to line; nil or empty means the
	// row has no hash_ids (absent, null or []), as AIPerf's `if hash_ids:`.
	hashIDs []int64
}

// fieldError is a malformed field: "input_length: not an integer".
type fieldError struct {
	field, reason string
}

func (e *fieldError) Error() string { return e.field + ": " + e.reason }

// parseRow parses line, a JSON object, into r. Missing input_length and
// output_length read as 0 (AIPerf's trace.get(..., 0)); a null or empty
// hash_ids means none. Keys match exactly, and a repeated key's last value
// wins, as in a Python dict: a malformed value that a later one replaces
// is no error. A line that is not JSON yields a *syntaxError, a malformed
// field a *fieldError (input_length's first, then output_length's, then
// hash_ids').
func parseRow(line []byte, r *row) error {
	p := parser{b: line}
	r.isl, r.osl, r.hashIDs = 0, 0, r.hashIDs[:0]
	var bad [3]*fieldError // per known field, its last value's error
	p.ws()
	if !p.eat('{') {
		return p.errorf("want an object")
	}
	p.ws()
	if p.eat('}') {
		return p.end()
	}
	for {
		key, err := p.key()
		if err != nil {
			return err
		}
		p.ws()
		if !p.eat(':') {
			return p.errorf("want ':' after object key")
		}
		p.ws()
		field := -1
		switch string(key) {
		case "input_length":
			field = 0
			r.isl, err = p.length("input_length")
		case "output_length":
			field = 1
			r.osl, err = p.length("output_length")
		case "hash_ids":
			field = 2
			r.hashIDs, err = p.hashIDs(r.hashIDs[:0])
		default:
			err = p.skip()
		}
		fe, isField := err.(*fieldError)
		switch {
		case isField:
			bad[field] = fe
		case err != nil:
			return err
		case field >= 0:
			bad[field] = nil
		}
		p.ws()
		if p.eat('}') {
			break
		}
		if !p.eat(',') {
			return p.errorf("want ',' or '}' after object value")
		}
		p.ws()
	}
	if err := p.end(); err != nil {
		return err
	}
	for _, fe := range bad {
		if fe != nil {
			return fe
		}
	}
	return nil
}

// errNotInteger is the reason for a value that is not an integer.
const errNotInteger = "not an integer"

// integer reads an integer value. An integral number written with a
// fraction or exponent (1200.0, 1.2e3) is accepted, as pydantic's lax int
// and Python's 3.0 == 3 accept it. field names the value in errors.
func (p *parser) integer(field string) (int64, error) {
	if p.i >= len(p.b) || (p.b[p.i] != '-' && (p.b[p.i] < '0' || p.b[p.i] > '9')) {
		// A string, object, literal...: validate it, then reject it.
		if err := p.skip(); err != nil {
			return 0, err
		}
		return 0, &fieldError{field, errNotInteger}
	}
	if v, ok := p.smallInt(); ok {
		return v, nil
	}
	lit, plain, err := p.number()
	if err != nil {
		return 0, err
	}
	if plain {
		v, err := strconv.ParseInt(string(lit), 10, 64)
		if err != nil {
			return 0, &fieldError{field, "out of the int64 range"}
		}
		return v, nil
	}
	f, err := strconv.ParseFloat(string(lit), 64)
	if err != nil || f != math.Trunc(f) {
		return 0, &fieldError{field, errNotInteger}
	}
	if f < -(1<<63) || f >= 1<<63 {
		return 0, &fieldError{field, "out of the int64 range"}
	}
	return int64(f), nil
}

// length reads input_length or output_length: a non-negative integer (AIPerf
// validates min_isl/min_osl >= 0, so any negative length fails there).
func (p *parser) length(field string) (int64, error) {
	v, err := p.integer(field)
	if err != nil {
		return 0, err
	}
	if v < 0 {
		return 0, &fieldError{field, "negative"}
	}
	return v, nil
}

// hashIDs reads hash_ids into dst: a list of integers, or null for none.
// After a malformed element it reads on to the end of the list, so that
// the line can still be checked, and reports the first such element.
func (p *parser) hashIDs(dst []int64) ([]int64, error) {
	const field = "hash_ids"
	if p.literal("null") {
		return dst, nil
	}
	if !p.eat('[') {
		if err := p.skip(); err != nil {
			return dst, err
		}
		return dst, &fieldError{field, "not a list of integers"}
	}
	p.ws()
	if p.eat(']') {
		return dst, nil
	}
	var bad *fieldError
	for i := 0; ; i++ {
		v, err := p.integer(field)
		if fe, ok := err.(*fieldError); ok {
			if bad == nil {
				bad = &fieldError{field, fmt.Sprintf("element %d: %s", i, fe.reason)}
			}
		} else if err != nil {
			return dst, err
		}
		dst = append(dst, v)
		p.ws()
		if p.eat(']') {
			break
		}
		if !p.eat(',') {
			return dst, p.errorf("want ',' or ']' after array element")
		}
		p.ws()
	}
	if bad != nil {
		return dst, bad
	}
	return dst, nil
}
