// Package pyjson writes JSON scalars exactly as AIPerf's Python writes them
// (json.dumps, orjson, pydantic), so that artifacts and request bodies compare
// byte for byte with AIPerf's: floats in repr form, strings with raw UTF-8.
package pyjson

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

const hexDigits = "0123456789abcdef"

// AppendFloat appends f the way Python's repr(float) (and so json.dumps and
// pydantic) writes it: the shortest digits that round-trip, "64.0" for an
// integral value, and exponent form ("1e+16", "1.5e-05") when the decimal
// exponent is below -4 or above 16. NaN and infinities, which JSON cannot
// hold, are written as null, as pydantic does.
func AppendFloat(b []byte, f float64) []byte {
	return AppendFloatBits(b, f, 64)
}

// AppendFloatBits is AppendFloat for a value of the given bit size (32 or
// 64): a float32 gets the shortest digits that round-trip as a float32.
func AppendFloatBits(b []byte, f float64, bitSize int) []byte {
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

// AppendString appends s as a JSON string literal, escaped the way AIPerf's
// serializer (orjson, like Python's json.dumps with ensure_ascii=False) does,
// so bodies match byte for byte: only '"', '\\' and control characters are
// escaped (\b \f \n \r \t in short form, others as \u00XX); '<', '>', '&',
// DEL, U+2028 and U+2029 and all other non-ASCII are written as raw UTF-8.
// Invalid UTF-8 becomes U+FFFD, as encoding/json does (Python strings cannot
// hold it, so AIPerf never sends it).
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if n := plainRun(s[i:]); n > 0 {
			i += n
			continue
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, "\ufffd"...)
			i++
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// Canonical reports whether lit, a JSON string literal with its quotes, is
// exactly what AppendString writes for the string it decodes to: valid
// UTF-8, and every escape in AppendString's form. Such a literal can be
// copied where AppendString's output is wanted, without decoding it. lit
// that is not a well-formed literal gives false.
func Canonical(lit []byte) bool {
	if len(lit) < 2 || lit[0] != '"' || lit[len(lit)-1] != '"' {
		return false
	}
	s := lit[1 : len(lit)-1]
	ascii := true
	for i := 0; i < len(s); i++ {
		i += plainRun(s[i:])
		if i == len(s) {
			break
		}
		c := s[i]
		switch {
		case c >= utf8.RuneSelf:
			ascii = false
		case c < 0x20 || c == '"':
			return false
		case c == '\\':
			n := canonicalEscape(s[i:])
			if n == 0 {
				return false
			}
			i += n - 1
		}
	}
	return ascii || utf8.Valid(s)
}

// canonicalEscape returns the length of the escape that opens s when it is
// in AppendString's form, else 0.
func canonicalEscape(s []byte) int {
	if len(s) < 2 {
		return 0
	}
	switch s[1] {
	case '"', '\\', 'b', 'f', 'n', 'r', 't':
		return 2
	case 'u':
		// \u00XX, lowercase, for a control character without a short form.
		if len(s) < 6 || s[2] != '0' || s[3] != '0' || (s[4] != '0' && s[4] != '1') {
			return 0
		}
		lo := strings.IndexByte(hexDigits, s[5])
		if lo < 0 {
			return 0
		}
		switch c := (s[4]-'0')<<4 | byte(lo); c {
		case '\b', '\f', '\n', '\r', '\t':
			return 0
		}
		return 6
	}
	return 0
}

// Masks of plainRun's word-at-a-time test.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// plainRun returns the length of the longest prefix of s, in whole 8-byte
// words, made of printable ASCII other than '"' and '\\': bytes that
// AppendString copies as they are. It tests a word at a time: a zero byte
// of x^('"'*ones) is a quote, and (v-ones)&^v&highs flags the zero bytes of v,
// and x-0x20*ones borrows into a high bit below 0x20 (SWAR, "Bit Twiddling
// Hacks": haszero and hasless).
func plainRun[T string | []byte](s T) int {
	n := 0
	for ; n+8 <= len(s); n += 8 {
		x := uint64(s[n]) | uint64(s[n+1])<<8 | uint64(s[n+2])<<16 | uint64(s[n+3])<<24 |
			uint64(s[n+4])<<32 | uint64(s[n+5])<<40 | uint64(s[n+6])<<48 | uint64(s[n+7])<<56
		q := x ^ ('"' * ones)
		b := x ^ ('\\' * ones)
		special := (x - 0x20*ones) | (q-ones)&^q | (b-ones)&^b
		if (special&^x|x)&highs != 0 {
			break
		}
	}
	return n
}
