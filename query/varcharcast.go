package query

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
)

// The conversions of JSON strings read into number and boolean columns,
// with DuckDB's rules for casting a VARCHAR (which read_json applied).

// nan and negNaN are the NaNs DuckDB stores ("nan", "-nan"); Go's
// math.NaN has other payload bits.
var (
	nan    = math.Float64frombits(0x7FF8000000000000)
	negNaN = math.Float64frombits(0xFFF8000000000000)
)

// isCastSpace tells whether c is whitespace to DuckDB's casts.
func isCastSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// trimCastSpace drops the whitespace that starts v.
func trimCastSpace(v []byte) []byte {
	for len(v) > 0 && isCastSpace(v[0]) {
		v = v[1:]
	}
	return v
}

// parseIntString converts v to a bits-sized integer as DuckDB casts a
// VARCHAR: whitespace before, an optional minus, then decimal digits
// without a leading zero and whitespace after, or 0x hexadecimal or 0b
// binary digits (no minus, nothing after).
func parseIntString(v []byte, bits int) (int64, error) {
	bad := fmt.Errorf("cannot convert %q to an integer", v)
	s := trimCastSpace(v)
	neg := len(s) > 0 && s[0] == '-'
	if neg {
		s = s[1:]
	}
	base := 10
	if len(s) > 1 && s[0] == '0' {
		switch s[1] {
		case 'x', 'X':
			base = 16
		case 'b', 'B':
			base = 2
		default:
			return 0, bad // a leading zero
		}
		if neg {
			return 0, bad
		}
		s = s[2:]
	}
	if base == 10 {
		for len(s) > 0 && isCastSpace(s[len(s)-1]) {
			s = s[:len(s)-1]
		}
	}
	if len(s) == 0 {
		return 0, bad
	}
	for _, c := range s {
		if digitValue(c) >= base {
			return 0, bad
		}
	}
	u, err := strconv.ParseUint(string(s), base, 64)
	limit := uint64(1) << (bits - 1)
	switch {
	case err != nil:
		return 0, bad
	case neg && u <= limit:
		return -int64(u), nil
	case !neg && u < limit:
		return int64(u), nil
	}
	return 0, bad
}

// digitValue returns the value of a hexadecimal digit, 99 for another byte.
func digitValue(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	}
	return 99
}

// parseFloatString converts v to a DOUBLE as DuckDB casts a VARCHAR:
// whitespace before, an optional minus, then nan, inf or infinity (any
// case), or a decimal number without a leading zero (".5" and "5." are
// numbers), and nothing after.
func parseFloatString(v []byte) (float64, error) {
	bad := fmt.Errorf("cannot convert %q to a number", v)
	v = trimCastSpace(v)
	s := v
	neg := len(s) > 0 && s[0] == '-'
	if neg {
		s = s[1:]
	}
	switch {
	case bytes.EqualFold(s, []byte("nan")):
		if neg {
			return negNaN, nil
		}
		return nan, nil
	case bytes.EqualFold(s, []byte("inf")), bytes.EqualFold(s, []byte("infinity")):
		if neg {
			return math.Inf(-1), nil
		}
		return math.Inf(1), nil
	}
	i, digits := 0, 0
	for i < len(s) && '0' <= s[i] && s[i] <= '9' {
		i++
	}
	if i > 1 && s[0] == '0' {
		return 0, bad // a leading zero
	}
	digits += i
	if i < len(s) && s[i] == '.' {
		j := i + 1
		for j < len(s) && '0' <= s[j] && s[j] <= '9' {
			j++
		}
		digits += j - i - 1
		i = j
	}
	if digits == 0 {
		return 0, bad
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		j := i
		for j < len(s) && '0' <= s[j] && s[j] <= '9' {
			j++
		}
		if j == i {
			return 0, bad
		}
		i = j
	}
	if i != len(s) {
		return 0, bad
	}
	f, err := strconv.ParseFloat(string(v), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, bad
	}
	return f, nil
}

// parseBoolString converts v to a BOOLEAN as DuckDB casts a VARCHAR: t,
// true or yes, f, false or no, in any case, without whitespace.
func parseBoolString(v []byte) (bool, error) {
	for _, w := range []string{"t", "true", "yes"} {
		if bytes.EqualFold(v, []byte(w)) {
			return true, nil
		}
	}
	for _, w := range []string{"f", "false", "no"} {
		if bytes.EqualFold(v, []byte(w)) {
			return false, nil
		}
	}
	return false, fmt.Errorf("cannot convert %q to a boolean", v)
}
