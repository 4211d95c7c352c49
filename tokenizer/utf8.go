package tokenizer

import (
	"strings"
	"unicode/utf8"
)

// replaceInvalid returns s with each maximal subpart of an ill-formed UTF-8
// sequence replaced by U+FFFD, as Python's errors="replace" (and so
// tiktoken's decode) does: a truncated sequence such as E2 82 becomes one
// U+FFFD, not one per byte (Go's range loop) nor one per run
// (strings.ToValidUTF8). Valid s is returned as it is.
func replaceInvalid(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var sb strings.Builder
	sb.Grow(len(s) + 8)
	for len(s) > 0 {
		r, n := utf8.DecodeRuneInString(s)
		if r == utf8.RuneError && n == 1 {
			sb.WriteRune(utf8.RuneError)
			n = maximalSubpart(s)
		} else {
			sb.WriteString(s[:n])
		}
		s = s[n:]
	}
	return sb.String()
}

// maximalSubpart returns the length of the ill-formed sequence at the start
// of s: its lead byte and the continuation bytes that a well-formed sequence
// with that lead could have next (Unicode's Table 3-7: E0, ED, F0 and F4
// narrow the range of the second byte), at least 1.
func maximalSubpart(s string) int {
	lead := s[0]
	var want int
	lo, hi := byte(0x80), byte(0xBF)
	switch {
	case lead >= 0xC2 && lead <= 0xDF:
		want = 1
	case lead == 0xE0:
		want, lo = 2, 0xA0
	case lead == 0xED:
		want, hi = 2, 0x9F
	case lead >= 0xE1 && lead <= 0xEF:
		want = 2
	case lead == 0xF0:
		want, lo = 3, 0x90
	case lead >= 0xF1 && lead <= 0xF3:
		want = 3
	case lead == 0xF4:
		want, hi = 3, 0x8F
	default:
		return 1
	}
	n := 1
	for n <= want && n < len(s) && s[n] >= lo && s[n] <= hi {
		n++
		lo, hi = 0x80, 0xBF
	}
	return n
}
