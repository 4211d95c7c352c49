package query

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"unicode/utf16"
	"unicode/utf8"
)

// jsonScanner reads one JSON text (a profile_export.jsonl line) token by
// token, validating as it goes. It accepts what DuckDB's JSON reader
// accepts beyond RFC 8259 and AIPerf may write: NaN and Infinity literals
// (Python's json module writes them) and trailing commas. Strings must be
// valid UTF-8 without control characters; lone surrogate escapes are
// errors. The readers of a value (str, number, skip and the decoder's)
// start at its first byte: nextKey and arrayNext leave the scanner there,
// past any whitespace.
type jsonScanner struct {
	b   []byte
	pos int
	// scratch holds the last unescaped string; string results alias it or b.
	scratch []byte
}

// maxJSONDepth bounds the nesting of the values skipped or copied.
const maxJSONDepth = 1000

func (s *jsonScanner) reset(b []byte) {
	s.b, s.pos = b, 0
}

// peek returns the byte at pos, 0 at the end.
func (s *jsonScanner) peek() byte {
	if s.pos < len(s.b) {
		return s.b[s.pos]
	}
	return 0
}

// ws skips whitespace and returns the next byte, 0 at the end.
func (s *jsonScanner) ws() byte {
	if s.pos < len(s.b) && s.b[s.pos] > ' ' { // compact JSON: no space
		return s.b[s.pos]
	}
	return s.wsSlow()
}

// blank skips whitespace and reports whether the line ends there (a NUL
// byte, for which ws also returns 0, is not the end).
func (s *jsonScanner) blank() bool {
	s.ws()
	return s.pos == len(s.b)
}

// objectLine starts reading line, which must be blank or hold a JSON
// object: it reports a blank line, or else leaves s at the object's '{'.
func (s *jsonScanner) objectLine(line []byte) (blank bool, err error) {
	s.reset(line)
	if s.blank() {
		return true, nil
	}
	if s.peek() != '{' {
		return false, s.unexpected("a JSON object")
	}
	return false, nil
}

func (s *jsonScanner) wsSlow() byte {
	for s.pos < len(s.b) {
		switch c := s.b[s.pos]; c {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return c
		}
	}
	return 0
}

func (s *jsonScanner) errorf(format string, args ...any) error {
	return fmt.Errorf("byte %d: "+format, append([]any{s.pos + 1}, args...)...)
}

// unexpected reports the byte at pos.
func (s *jsonScanner) unexpected(what string) error {
	if s.pos >= len(s.b) {
		return s.errorf("unexpected end of line, want %s", what)
	}
	return s.errorf("unexpected %q, want %s", s.b[s.pos], what)
}

// literal consumes word (true, false, null, NaN, Infinity) at pos.
func (s *jsonScanner) literal(word string) error {
	if len(s.b)-s.pos < len(word) || string(s.b[s.pos:s.pos+len(word)]) != word {
		return s.unexpected("a JSON value")
	}
	s.pos += len(word)
	return nil
}

// nextKey moves to the next member of an object whose '{' was consumed
// and returns its key, positioned at its value; ok is false after the
// closing brace. first tells whether no member was read yet. The key
// aliases the line or the scratch buffer until the next string read.
func (s *jsonScanner) nextKey(first bool) (key []byte, ok bool, err error) {
	c := s.ws()
	if !first {
		switch c {
		case '}':
			s.pos++
			return nil, false, nil
		case ',':
			s.pos++
			c = s.ws()
		default:
			return nil, false, s.unexpected("',' or '}'")
		}
	}
	switch c {
	case '}': // an empty object, or a trailing comma
		s.pos++
		return nil, false, nil
	case '"':
	default:
		return nil, false, s.unexpected("an object key")
	}
	key, err = s.str()
	if err != nil {
		return nil, false, err
	}
	if s.ws() != ':' {
		return nil, false, s.unexpected("':'")
	}
	s.pos++
	s.ws()
	return key, true, nil
}

// arrayNext moves to the next element of an array whose '[' was
// consumed, positioned at it; ok is false after the closing bracket.
func (s *jsonScanner) arrayNext(first bool) (ok bool, err error) {
	c := s.ws()
	if !first {
		switch c {
		case ']':
			s.pos++
			return false, nil
		case ',':
			s.pos++
			c = s.ws()
		default:
			return false, s.unexpected("',' or ']'")
		}
	}
	if c == ']' { // an empty array, or a trailing comma
		s.pos++
		return false, nil
	}
	return true, nil
}

// str reads the string at pos (its opening quote) and returns its
// unescaped bytes, which alias the line or the scratch buffer.
func (s *jsonScanner) str() ([]byte, error) {
	start := s.pos + 1
	b := s.b
	i := start
	for i+8 <= len(b) { // eight bytes at a time up to the first special one
		if m := specialBytes(binary.LittleEndian.Uint64(b[i:])); m != 0 {
			i += bits.TrailingZeros64(m) >> 3
			if b[i] == '"' {
				s.pos = i + 1
				return b[start:i], nil
			}
			break
		}
		i += 8
	}
	ascii := true
	for ; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			s.pos = i + 1
			v := b[start:i]
			if !ascii && !utf8.Valid(v) {
				s.pos = start
				return nil, s.errorf("invalid UTF-8 in string")
			}
			return v, nil
		case c == '\\':
			s.pos = start
			return s.strEscaped()
		case c < 0x20:
			s.pos = i
			return nil, s.errorf("control character in string")
		case c >= 0x80:
			ascii = false
		}
	}
	s.pos = len(b)
	return nil, s.errorf("unterminated string")
}

// specialBytes returns, for the eight bytes of x (little endian), a mask
// whose lowest set bit is the high bit of the first byte that is a quote,
// a backslash, a control character or not ASCII; zero when there is
// none. (Bits above the lowest may be set for ordinary bytes.)
func specialBytes(x uint64) uint64 {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	q := x ^ (lo * '"')
	e := x ^ (lo * '\\')
	return ((q-lo)&^q | (e-lo)&^e | (x-lo*0x20)&^x | x) & hi
}

// strEscaped is str's slow path, from the string's first byte at pos.
func (s *jsonScanner) strEscaped() ([]byte, error) {
	out := s.scratch[:0]
	defer func() { s.scratch = out }()
	i := s.pos
	for i < len(s.b) {
		c := s.b[i]
		switch {
		case c == '"':
			s.pos = i + 1
			if !utf8.Valid(out) {
				return nil, s.errorf("invalid UTF-8 in string")
			}
			return out, nil
		case c < 0x20:
			s.pos = i
			return nil, s.errorf("control character in string")
		case c != '\\':
			out = append(out, c)
			i++
			continue
		}
		if i+1 >= len(s.b) {
			break
		}
		e := s.b[i+1]
		i += 2
		switch e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := hex4(s.b, i)
			if !ok {
				s.pos = i
				return nil, s.errorf(`invalid \u escape`)
			}
			i += 4
			if utf16.IsSurrogate(r) {
				r2, ok := rune(0), false
				if i+1 < len(s.b) && s.b[i] == '\\' && s.b[i+1] == 'u' {
					r2, ok = hex4(s.b, i+2)
				}
				r = utf16.DecodeRune(r, r2)
				if !ok || r == utf8.RuneError {
					s.pos = i
					return nil, s.errorf("lone surrogate in string")
				}
				i += 6
			}
			out = utf8.AppendRune(out, r)
		default:
			s.pos = i - 1
			return nil, s.errorf("invalid escape %q", e)
		}
	}
	s.pos = len(s.b)
	return nil, s.errorf("unterminated string")
}

// hex4 decodes four hex digits at b[i:].
func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// objectOrNull consumes the '{' of an object and returns true, or
// consumes a null and returns false.
func (s *jsonScanner) objectOrNull() (bool, error) {
	switch s.peek() {
	case '{':
		s.pos++
		return true, nil
	case 'n':
		return false, s.literal("null")
	}
	return false, s.unexpected("an object or null")
}

// members reads the object (or null) at the scanner, calling member with
// each key, positioned at its value, which member must read.
func members(s *jsonScanner, member func(key []byte) error) error {
	if ok, err := s.objectOrNull(); !ok || err != nil {
		return err
	}
	for first := true; ; first = false {
		key, ok, err := s.nextKey(first)
		if err != nil || !ok {
			return err
		}
		if err := member(key); err != nil {
			return err
		}
	}
}

// errWantString reports a value that is not a string where one is due.
var errWantString = errors.New("want a string or null")

// textValue reads a string or null; the bytes alias the line or the
// scanner's scratch buffer until the next string read.
func (s *jsonScanner) textValue() (v []byte, null bool, err error) {
	switch s.peek() {
	case '"':
		v, err := s.str()
		return v, false, err
	case 'n':
		return nil, true, s.literal("null")
	}
	return nil, false, errWantString
}

// skip reads and discards the value at pos, validating it.
func (s *jsonScanner) skip(depth int) error {
	if depth > maxJSONDepth {
		return s.errorf("nesting deeper than %d", maxJSONDepth)
	}
	switch s.peek() {
	case '{':
		s.pos++
		for first := true; ; first = false {
			_, ok, err := s.nextKey(first)
			if err != nil || !ok {
				return err
			}
			if err := s.skip(depth + 1); err != nil {
				return err
			}
		}
	case '[':
		s.pos++
		for first := true; ; first = false {
			ok, err := s.arrayNext(first)
			if err != nil || !ok {
				return err
			}
			if err := s.skip(depth + 1); err != nil {
				return err
			}
		}
	case '"':
		_, err := s.str()
		return err
	case 't':
		return s.literal("true")
	case 'f':
		return s.literal("false")
	case 'n':
		return s.literal("null")
	case 'N':
		return s.literal("NaN")
	case 'I':
		return s.literal("Infinity")
	default:
		var n numLit
		return s.number(&n)
	}
}

// errTrailing reports content after the JSON text of a line.
var errTrailing = errors.New("content after the JSON value")

// end checks that only whitespace follows.
func (s *jsonScanner) end() error {
	if s.ws() != 0 {
		return fmt.Errorf("byte %d: %w", s.pos+1, errTrailing)
	}
	return nil
}
