package trace

import (
	"encoding/json"
	"fmt"
	"math"
)

// maxDepth bounds the nesting of ignored values, like orjson's recursion
// limit, so that a hostile line cannot make the skipper's stack grow.
const maxDepth = 1024

// syntaxError is a line that is not one JSON object.
type syntaxError struct {
	msg string
	col int // 1-based byte column
}

func (e *syntaxError) Error() string {
	return fmt.Sprintf("invalid JSON at column %d: %s", e.col, e.msg)
}

// parser scans one line of JSON. It checks the whole line's syntax but
// decodes only the three fields the analysis needs; other values are
// skipped without allocating. Like encoding/json it does not check UTF-8
// (Analyze does, for the whole line).
type parser struct {
	b []byte
	i int
}

// end checks that nothing but whitespace follows the object.
func (p *parser) end() error {
	p.ws()
	if p.i < len(p.b) {
		return p.errorf("data after the object")
	}
	return nil
}

func (p *parser) errorf(format string, args ...any) error {
	return &syntaxError{msg: fmt.Sprintf(format, args...), col: p.i + 1}
}

// ws skips JSON whitespace.
func (p *parser) ws() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// eat consumes c if it is next.
func (p *parser) eat(c byte) bool {
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

// key reads an object key and returns its bytes: the raw bytes for the
// usual unescaped key (no allocation), decoded ones for an escaped key so
// that "input\u005flength" matches as it does in Python.
func (p *parser) key() ([]byte, error) {
	start := p.i
	escaped, err := p.str()
	if err != nil {
		return nil, err
	}
	raw := p.b[start:p.i]
	if !escaped {
		return raw[1 : len(raw)-1], nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, &syntaxError{msg: "bad string escape", col: start + 1}
	}
	return []byte(s), nil
}

// str consumes a string literal and reports whether it holds escapes.
func (p *parser) str() (escaped bool, err error) {
	if !p.eat('"') {
		return false, p.errorf("want a string")
	}
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			return escaped, nil
		case c == '\\':
			escaped = true
			if p.i+1 >= len(p.b) {
				p.i++
				return escaped, p.errorf("unterminated string")
			}
			switch p.b[p.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				p.i += 2
			case 'u':
				if p.i+6 > len(p.b) || !isHex4(p.b[p.i+2:p.i+6]) {
					return escaped, p.errorf("bad \\u escape")
				}
				p.i += 6
			default:
				return escaped, p.errorf("bad escape")
			}
		case c < 0x20:
			return escaped, p.errorf("control character in string")
		default:
			p.i++
		}
	}
	return escaped, p.errorf("unterminated string")
}

func isHex4(b []byte) bool {
	for _, c := range b {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// number consumes a JSON number literal and reports whether it is written
// as a plain integer (no fraction or exponent).
func (p *parser) number() (lit []byte, plain bool, err error) {
	start := p.i
	p.eat('-')
	switch {
	case p.eat('0'):
	case p.i < len(p.b) && '1' <= p.b[p.i] && p.b[p.i] <= '9':
		p.digits()
	default:
		return nil, false, p.errorf("bad number")
	}
	plain = true
	if p.eat('.') {
		plain = false
		if p.digits() == 0 {
			return nil, false, p.errorf("bad number")
		}
	}
	if p.eat('e') || p.eat('E') {
		plain = false
		if !p.eat('+') {
			p.eat('-')
		}
		if p.digits() == 0 {
			return nil, false, p.errorf("bad number")
		}
	}
	return p.b[start:p.i], plain, nil
}

// digits consumes a run of decimal digits and returns its length.
func (p *parser) digits() int {
	start := p.i
	for p.i < len(p.b) && '0' <= p.b[p.i] && p.b[p.i] <= '9' {
		p.i++
	}
	return p.i - start
}

// smallInt consumes a plain integer literal that fits in int64 (at most 19
// digits), the common case, without strconv; it consumes nothing and
// returns false for anything else, which number and strconv then handle.
func (p *parser) smallInt() (int64, bool) {
	i := p.i
	neg := i < len(p.b) && p.b[i] == '-'
	if neg {
		i++
	}
	start := i
	var v uint64 // 19 digits fit
	for i < len(p.b) && i-start < 20 && '0' <= p.b[i] && p.b[i] <= '9' {
		v = v*10 + uint64(p.b[i]-'0')
		i++
	}
	n := i - start
	if n == 0 || n > 19 || n > 1 && p.b[start] == '0' {
		return 0, false
	}
	if i < len(p.b) {
		if c := p.b[i]; c == '.' || c == 'e' || c == 'E' {
			return 0, false
		}
	}
	switch {
	case !neg && v <= math.MaxInt64:
		p.i = i
		return int64(v), true
	case neg && v <= 1<<63:
		p.i = i
		return int64(-v), true // -(1<<63) wraps to MinInt64
	}
	return 0, false
}

// literal consumes word if it is next.
func (p *parser) literal(word string) bool {
	if len(p.b)-p.i >= len(word) && string(p.b[p.i:p.i+len(word)]) == word {
		p.i += len(word)
		return true
	}
	return false
}

// skip validates and consumes one JSON value of any kind. It keeps its own
// stack of open containers instead of recursing.
func (p *parser) skip() error {
	var buf [64]byte
	stack := buf[:0] // '{' or '[' per open container; rarely outgrows buf
	for {
		// A value.
		if p.i >= len(p.b) {
			return p.errorf("want a value")
		}
		switch c := p.b[p.i]; {
		case c == '"':
			if _, err := p.str(); err != nil {
				return err
			}
		case c == '-' || '0' <= c && c <= '9':
			if _, _, err := p.number(); err != nil {
				return err
			}
		case c == '{' || c == '[':
			if len(stack) >= maxDepth {
				return p.errorf("nesting deeper than %d", maxDepth)
			}
			p.i++
			p.ws()
			closer := byte('}')
			if c == '[' {
				closer = ']'
			}
			if p.eat(closer) {
				break // an empty container is a complete value
			}
			stack = append(stack, c)
			if c == '{' {
				if err := p.member(); err != nil {
					return err
				}
			}
			continue
		case p.literal("true"), p.literal("false"), p.literal("null"):
		default:
			return p.errorf("want a value")
		}
		// After a value: close containers or move to the next element.
		for {
			if len(stack) == 0 {
				return nil
			}
			p.ws()
			top := stack[len(stack)-1]
			if p.eat(',') {
				p.ws()
				if top == '{' {
					if err := p.member(); err != nil {
						return err
					}
				}
				break
			}
			if top == '{' && p.eat('}') || top == '[' && p.eat(']') {
				stack = stack[:len(stack)-1]
				continue
			}
			return p.errorf("want ',' or a closing bracket")
		}
	}
}

// member consumes an object key and its colon, leaving the value next.
func (p *parser) member() error {
	if _, err := p.str(); err != nil {
		return err
	}
	p.ws()
	if !p.eat(':') {
		return p.errorf("want ':' after object key")
	}
	p.ws()
	return nil
}
