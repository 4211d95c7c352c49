package query

import (
	"encoding/binary"
	"errors"
	"math"
	"strconv"
)

// numKind tells how a number literal is spelled.
type numKind uint8

const (
	numInt    numKind = iota // -?digits
	numFloat                 // with a fraction or an exponent
	numNegInf                // -Infinity
)

// numLit is a number literal as the scanner read it: its text, and its
// first 19 significant digits with the power of ten that scales them.
type numLit struct {
	text  []byte
	kind  numKind
	neg   bool
	mant  uint64
	exp10 int
	// many tells that the digits or the exponent did not fit: the value
	// must be parsed from text.
	many bool
}

// pow10 are the powers of ten that a float64 holds exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// number reads the number literal at pos (RFC 8259, or -Infinity) into n.
func (s *jsonScanner) number(n *numLit) error {
	b := s.b
	start, i := s.pos, s.pos
	neg := false
	if i < len(b) && b[i] == '-' {
		neg = true
		i++
	}
	intStart := i
	i, mant := scanDigits(b, i, 0)
	sig := i - intStart // significant digits
	switch {
	case sig == 0 && neg && i < len(b) && b[i] == 'I':
		s.pos = i
		if err := s.literal("Infinity"); err != nil {
			return err
		}
		*n = numLit{text: b[start:s.pos], kind: numNegInf, neg: true}
		return nil
	case sig == 0:
		s.pos = i
		return s.unexpected("a JSON value")
	case sig > 1 && b[intStart] == '0':
		s.pos = intStart + 1
		return s.errorf("number with a leading zero")
	case b[intStart] == '0':
		sig = 0
	}
	kind, exp10 := numInt, 0
	if i < len(b) && b[i] == '.' {
		i++
		fracStart := i
		i, mant = scanDigits(b, i, mant)
		if i == fracStart {
			s.pos = i
			return s.unexpected("a digit")
		}
		exp10 = fracStart - i
		if sig == 0 { // 0.00ddd: the zeros are not significant
			z := fracStart
			for z < i && b[z] == '0' {
				z++
			}
			sig = i - z
		} else {
			sig += i - fracStart
		}
		kind = numFloat
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		eneg := false
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			eneg = b[i] == '-'
			i++
		}
		expStart, e := i, 0
		for ; i < len(b) && b[i]-'0' <= 9; i++ {
			if e < 100000 {
				e = e*10 + int(b[i]-'0')
			}
		}
		if i == expStart {
			s.pos = i
			return s.unexpected("a digit")
		}
		if eneg {
			e = -e
		}
		exp10 += e
		kind = numFloat
	}
	s.pos = i
	*n = numLit{text: b[start:i], kind: kind, neg: neg, mant: mant, exp10: exp10, many: sig > 19}
	return nil
}

// plainFloat reads, at pos, a number written as JSON numbers usually are
// (-?digits[.digits], at most 19 significant digits, no exponent) and
// returns its value; ok is false, pos unchanged, for any other text, which
// the caller then reads with number.
func (s *jsonScanner) plainFloat() (f float64, ok bool) {
	b, i := s.b, s.pos
	neg := i < len(b) && b[i] == '-'
	if neg {
		i++
	}
	intStart := i
	i, mant := scanDigits(b, i, 0)
	sig := i - intStart
	switch {
	case sig == 0, sig > 1 && b[intStart] == '0':
		return 0, false
	case b[intStart] == '0':
		sig = 0
	}
	exp10 := 0
	if i < len(b) && b[i] == '.' {
		fracStart := i + 1
		i, mant = scanDigits(b, fracStart, mant)
		if i == fracStart {
			return 0, false
		}
		exp10 = fracStart - i
		if sig == 0 {
			z := fracStart
			for z < i && b[z] == '0' {
				z++
			}
			sig = i - z
		} else {
			sig += i - fracStart
		}
	}
	if sig > 19 || i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		return 0, false
	}
	if mant < 1<<53 && exp10 >= -22 { // exp10 <= 0 here
		f = float64(mant) / pow10[-exp10]
	} else if f, ok = eiselLemire(mant, exp10, false); !ok {
		return 0, false
	}
	if neg {
		f = -f
	}
	s.pos = i
	return f, true
}

// scanDigits reads the decimal digits at b[i:], appending them to m,
// eight at a time where it can, and returns the index after them. m wraps
// around past 19 significant digits: the caller counts them.
func scanDigits(b []byte, i int, m uint64) (int, uint64) {
	for i+8 <= len(b) {
		x := binary.LittleEndian.Uint64(b[i:])
		if x&0xF0F0F0F0F0F0F0F0 != 0x3030303030303030 || (x+0x0606060606060606)&0xF0F0F0F0F0F0F0F0 != 0x3030303030303030 {
			break // not eight digits
		}
		m = m*100000000 + eightDigits(x)
		i += 8
	}
	for ; i < len(b) && b[i]-'0' <= 9; i++ {
		m = m*10 + uint64(b[i]-'0')
	}
	return i, m
}

// eightDigits returns the value of eight ASCII digits, the first in the
// low byte of x.
func eightDigits(x uint64) uint64 {
	x &= 0x0F0F0F0F0F0F0F0F
	x = (x * 10) + (x >> 8)
	x = ((x & 0x000000FF000000FF) * (100 + (1000000 << 32))) + (((x >> 16) & 0x000000FF000000FF) * (1 + (10000 << 32)))
	return x >> 32
}

// float returns the literal's value, correctly rounded; an overflow is
// ±Inf, as DuckDB reads it.
func (n *numLit) float() float64 {
	if n.kind == numNegInf {
		return math.Inf(-1)
	}
	if !n.many && n.mant < 1<<53 && -22 <= n.exp10 && n.exp10 <= 22 {
		// Both operands are exact: one rounding (Clinger's fast path).
		f := float64(n.mant)
		if n.exp10 < 0 {
			f /= pow10[-n.exp10]
		} else {
			f *= pow10[n.exp10]
		}
		if n.neg {
			f = -f
		}
		return f
	}
	if !n.many {
		if f, ok := eiselLemire(n.mant, n.exp10, n.neg); ok {
			return f
		}
	}
	// A well-formed literal fails only by overflow.
	f, _ := strconv.ParseFloat(unsafeString(n.text), 64)
	return f
}

var (
	// errRange reports a number outside the column's integer type.
	errRange = errors.New("out of range")
	// errInfinity reports an infinity for an integer column.
	errInfinity = errors.New("cannot convert Infinity to an integer")
)

// int returns the literal as a bits-sized integer (32 or 64); a number
// with a fraction or an exponent rounds half to even, as DuckDB casts a
// DOUBLE.
func (n *numLit) int(bits int) (int64, error) {
	switch n.kind {
	case numInt:
		if n.many || n.exp10 != 0 {
			return 0, errRange
		}
		limit := uint64(1) << (bits - 1)
		switch {
		case n.neg && n.mant <= limit:
			return -int64(n.mant), nil
		case !n.neg && n.mant < limit:
			return int64(n.mant), nil
		}
		return 0, errRange
	case numFloat:
		return roundInt(n.float(), bits)
	}
	return 0, errInfinity
}

// roundInt converts f to a bits-sized integer, rounding half to even.
func roundInt(f float64, bits int) (int64, error) {
	f = math.RoundToEven(f)
	lim := math.Ldexp(1, bits-1)
	if !(f >= -lim && f < lim) {
		return 0, errRange
	}
	return int64(f), nil
}

// errWantNumber reports a value that is not a number where one is due.
var errWantNumber = errors.New("want a number or null")

// intValue reads a number or null as a bits-sized integer (a number with
// a fraction rounds half to even).
func (s *jsonScanner) intValue(bits int) (v int64, null bool, err error) {
	switch c := s.peek(); {
	case c == 'n':
		return 0, true, s.literal("null")
	case c == '-' || c >= '0' && c <= '9':
		var n numLit
		if err := s.number(&n); err != nil {
			return 0, false, err
		}
		v, err := n.int(bits)
		return v, false, err
	}
	return 0, false, errWantNumber
}

// floatValue reads a number or null; NaN and the infinities read as null.
func (s *jsonScanner) floatValue() (v float64, null bool, err error) {
	switch c := s.peek(); {
	case c == 'n':
		return 0, true, s.literal("null")
	case c == 'N':
		return 0, true, s.literal("NaN")
	case c == 'I':
		return 0, true, s.literal("Infinity")
	case c == '-' || c >= '0' && c <= '9':
		var n numLit
		if err := s.number(&n); err != nil {
			return 0, false, err
		}
		f := n.float()
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return 0, true, nil
		}
		return f, false, nil
	}
	return 0, false, errWantNumber
}
