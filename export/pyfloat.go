package export

import (
	"math"
	"strconv"
	"unicode/utf8"
)

// appendPyFloat appends f the way Python's repr(float) (and so json.dumps and
// pydantic) writes it: the shortest digits that round-trip, "64.0" for an
// integral value, and exponent form ("1e+16", "1.5e-05") when the decimal
// exponent is below -4 or above 16. NaN and infinities, which JSON cannot
// hold, are written as null, as pydantic does.
func appendPyFloat(b []byte, f float64) []byte {
	return appendPyFloatBits(b, f, 64)
}

// appendPyFloatBits is appendPyFloat for a value of the given bit size (32 or
// 64): a float32 gets the shortest digits that round-trip as a float32.
func appendPyFloatBits(b []byte, f float64, bitSize int) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(b, "null"...)
	}
	if f == 0 {
		if math.Signbit(f) {
			return append(b, "-0.0"...)
		}
		return append(b, "0.0"...)
	}
	var tmp [32]byte
	s := strconv.AppendFloat(tmp[:0], f, 'e', -1, bitSize) // [-]d[.ddd]e±XX
	neg := s[0] == '-'
	if neg {
		s = s[1:]
	}
	// Split into the digit string and the decimal exponent.
	var digits [24]byte
	nd := 0
	i := 0
	for ; i < len(s) && s[i] != 'e'; i++ {
		if s[i] != '.' {
			digits[nd] = s[i]
			nd++
		}
	}
	exp := 0
	for _, c := range s[i+2:] {
		exp = exp*10 + int(c-'0')
	}
	if s[i+1] == '-' {
		exp = -exp
	}
	// decpt is where the decimal point goes: value = 0.DIGITS × 10^decpt.
	decpt := exp + 1
	if neg {
		b = append(b, '-')
	}
	d := digits[:nd]
	switch {
	case decpt <= -4 || decpt > 16:
		b = append(b, d[0])
		if nd > 1 {
			b = append(b, '.')
			b = append(b, d[1:]...)
		}
		b = append(b, 'e')
		if exp < 0 {
			b = append(b, '-')
			exp = -exp
		} else {
			b = append(b, '+')
		}
		if exp < 10 {
			b = append(b, '0')
		}
		b = strconv.AppendInt(b, int64(exp), 10)
	case decpt <= 0:
		b = append(b, '0', '.')
		for k := 0; k < -decpt; k++ {
			b = append(b, '0')
		}
		b = append(b, d...)
	case decpt >= nd:
		b = append(b, d...)
		for k := nd; k < decpt; k++ {
			b = append(b, '0')
		}
		b = append(b, '.', '0')
	default:
		b = append(b, d[:decpt]...)
		b = append(b, '.')
		b = append(b, d[decpt:]...)
	}
	return b
}

// appendJSONString appends s as a JSON string literal. Like pydantic and
// orjson, it escapes only what JSON requires (quote, backslash, control
// characters) and writes other characters as UTF-8; invalid UTF-8 becomes
// U+FFFD.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, "\ufffd"...)
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
