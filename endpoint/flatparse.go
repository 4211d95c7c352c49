package endpoint

import (
	"strings"
	"unicode/utf16"

	"github.com/aiperf-go/aiperf/record"
)

// A flat parse reads the common OpenAI stream chunk without recursion:
// fastjson's parse takes ~500 bytes of stack per nesting level, and a chat
// chunk ({"choices":[{"delta":{…}}]}) is four levels deep, which grew every
// stream's goroutine stack from 4 to 8 KiB at its first chunk (issue 19).
// parseFlat gives exactly what Parse gives, or declines (done false) and
// Parse decides: FuzzParseFlat checks both on every input it accepts.

// flatMaxDepth bounds the nesting of the values a flat parse skips.
const flatMaxDepth = 64

// flatScan is the state of a flat parse: b[i:] is still to be read.
type flatScan struct {
	b []byte
	i int
}

// flatString is a string value found by a flat parse: b[start:end] between
// its quotes, esc when it holds a backslash; set when it was present and
// not null, seen when its key was (null included).
type flatString struct {
	start, end     int
	esc, set, seen bool
}

// flatFields is what a flat parse keeps of a chunk.
type flatFields struct {
	object, text, reasoningContent, reasoning flatString
	usage                                     record.Usage
	hasUsage                                  bool
}

// ws skips JSON whitespace (the four bytes fastjson skips).
func (s *flatScan) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// peek returns the next byte, 0 at the end.
func (s *flatScan) peek() byte {
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// open reads c and the whitespace after it; empty reports that the
// container closes at once (its close byte read too).
func (s *flatScan) open(c, close byte) (empty, ok bool) {
	if s.peek() != c {
		return false, false
	}
	s.i++
	s.ws()
	if s.peek() == close {
		s.i++
		return true, true
	}
	return false, true
}

// next reads what follows a container's item: a comma (more true) or the
// close byte (more false).
func (s *flatScan) next(close byte) (more, ok bool) {
	s.ws()
	switch s.peek() {
	case ',':
		s.i++
		s.ws()
		return true, true
	case close:
		s.i++
		return false, true
	}
	return false, false
}

// key reads an object key without escapes, the colon and whitespace after.
func (s *flatScan) key() (k []byte, ok bool) {
	str, ok := s.str()
	if !ok || str.esc {
		return nil, false
	}
	s.ws()
	if s.peek() != ':' {
		return nil, false
	}
	s.i++
	s.ws()
	return s.b[str.start:str.end], true
}

// str reads a string; its end is found as fastjson finds it (a backslash
// escapes the byte after it).
func (s *flatScan) str() (f flatString, ok bool) {
	if s.peek() != '"' {
		return f, false
	}
	f.start = s.i + 1
	for j := f.start; j < len(s.b); j++ {
		switch s.b[j] {
		case '\\':
			f.esc = true
			j++
		case '"':
			f.end, f.set = j, true
			s.i = j + 1
			return f, true
		}
	}
	return f, false
}

// optString reads a string or null into *f; a repeated key is refused.
func (s *flatScan) optString(f *flatString) bool {
	if f.seen {
		return false
	}
	f.seen = true
	if s.null() {
		return true
	}
	v, ok := s.str()
	v.seen = true
	*f = v
	return ok
}

// null reads the literal null.
func (s *flatScan) null() bool {
	return s.lit("null")
}

// lit reads the literal w.
func (s *flatScan) lit(w string) bool {
	if len(s.b)-s.i < len(w) || string(s.b[s.i:s.i+len(w)]) != w {
		return false
	}
	s.i += len(w)
	return true
}

// digits reads one or more decimal digits.
func (s *flatScan) digits() bool {
	j := s.i
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		s.i++
	}
	return s.i > j
}

// number reads a number by the JSON grammar.
func (s *flatScan) number() bool {
	if s.peek() == '-' {
		s.i++
	}
	switch c := s.peek(); {
	case c == '0':
		s.i++
	case c >= '1' && c <= '9':
		s.digits()
	default:
		return false
	}
	if s.peek() == '.' {
		s.i++
		if !s.digits() {
			return false
		}
	}
	if c := s.peek(); c == 'e' || c == 'E' {
		s.i++
		if c := s.peek(); c == '+' || c == '-' {
			s.i++
		}
		if !s.digits() {
			return false
		}
	}
	return true
}

// count reads a non-negative integer of at most 18 digits, or null, into
// *dst (nil for null); a repeated key (*seen) is refused.
func (s *flatScan) count(dst **int64, seen *bool) bool {
	if *seen {
		return false
	}
	*seen = true
	if s.null() {
		return true
	}
	j := s.i
	if !s.number() || s.i-j > 18 {
		return false
	}
	var n int64
	for _, c := range s.b[j:s.i] {
		if c < '0' || c > '9' {
			return false
		}
		n = n*10 + int64(c-'0')
	}
	if s.i-j > 1 && s.b[j] == '0' {
		return false
	}
	*dst = &n
	return true
}

// skip reads one value of any kind, nesting without recursion.
func (s *flatScan) skip() bool {
	var closes [flatMaxDepth]byte
	depth := 0
	for {
		// A value starts here.
		switch s.peek() {
		case '"':
			if _, ok := s.str(); !ok {
				return false
			}
		case '{', '[':
			if depth == flatMaxDepth {
				return false
			}
			c := s.b[s.i]
			close := byte('}')
			if c == '[' {
				close = ']'
			}
			empty, _ := s.open(c, close)
			if !empty {
				closes[depth] = close
				depth++
				if close == '}' {
					if _, ok := s.key(); !ok {
						return false
					}
				}
				continue
			}
		case 't':
			if !s.lit("true") {
				return false
			}
		case 'f':
			if !s.lit("false") {
				return false
			}
		case 'n':
			if !s.null() {
				return false
			}
		default:
			if !s.number() {
				return false
			}
		}
		// A value ended: close containers until one has a next item.
		for {
			if depth == 0 {
				return true
			}
			more, ok := s.next(closes[depth-1])
			if !ok {
				return false
			}
			if more {
				if closes[depth-1] == '}' {
					if _, ok := s.key(); !ok {
						return false
					}
				}
				break
			}
			depth--
		}
	}
}

// decode returns the value of f as fastjson's StringBytes gives it, or ok
// false for an escape it does not decode the same way for certain (a
// surrogate \u, a malformed one, or an unknown escape).
func (s *flatScan) decode(f flatString) (string, bool) {
	raw := s.b[f.start:f.end]
	if !f.esc {
		return string(raw), true
	}
	var sb strings.Builder
	sb.Grow(len(raw))
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' {
			sb.WriteByte(c)
			continue
		}
		i++
		switch raw[i] {
		case '"', '\\', '/':
			sb.WriteByte(raw[i])
		case 'b':
			sb.WriteByte('\b')
		case 'f':
			sb.WriteByte('\f')
		case 'n':
			sb.WriteByte('\n')
		case 'r':
			sb.WriteByte('\r')
		case 't':
			sb.WriteByte('\t')
		case 'u':
			r, ok := hex4(raw[i+1:])
			if !ok || utf16.IsSurrogate(r) {
				return "", false
			}
			sb.WriteRune(r)
			i += 4
		default:
			return "", false
		}
	}
	return sb.String(), true
}

// hex4 reads four hexadecimal digits.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}
