package query

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// scanNumber reads text as one number literal; ok is false when the
// scanner refuses it or leaves bytes over.
func scanNumber(text string) (n numLit, ok bool) {
	var s jsonScanner
	s.reset([]byte(text))
	if err := s.number(&n); err != nil || s.pos != len(text) {
		return n, false
	}
	return n, true
}

// checkNumber compares the scanner's value of a JSON number with strconv's.
func checkNumber(t *testing.T, text string) {
	t.Helper()
	n, ok := scanNumber(text)
	if !ok {
		t.Fatalf("%s: not read as a number", text)
	}
	want, _ := strconv.ParseFloat(text, 64)
	if got := n.float(); math.Float64bits(got) != math.Float64bits(want) {
		t.Fatalf("%s: float %v (%#x), strconv %v (%#x)", text, got, math.Float64bits(got), want, math.Float64bits(want))
	}
	var s jsonScanner
	s.reset([]byte(text))
	if f, ok := s.plainFloat(); ok && (math.Float64bits(f) != math.Float64bits(want) || s.pos != len(text)) {
		t.Fatalf("%s: plainFloat %v at %d, strconv %v", text, f, s.pos, want)
	}
	if n.kind != numInt {
		return
	}
	for _, bits := range []int{32, 64} {
		wantInt, err := strconv.ParseInt(text, 10, bits)
		gotInt, gotErr := n.int(bits)
		if (err != nil) != (gotErr != nil) || err == nil && gotInt != wantInt {
			t.Fatalf("%s: int%d %d %v, strconv %d %v", text, bits, gotInt, gotErr, wantInt, err)
		}
	}
}

func TestNumberMatchesStrconv(t *testing.T) {
	for _, text := range []string{
		"0", "-0", "0.0", "-0.0", "1", "-1", "9", "10", "123456789", "1234567890123456789", "12345678901234567890",
		"9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
		"2147483647", "2147483648", "-2147483648", "-2147483649",
		"0.1", "0.30000000000000004", "137.79565399999998", "1436.9103397121653", "4.9922089999999995",
		"1e22", "1e23", "9007199254740993", "9007199254740992.5", "0.000001", "1e-7", "1E+2", "2.5e-3",
		"4.9406564584124654e-324", "5e-324", "2e-324", "1e-400", "2.2250738585072011e-308", "1.7976931348623157e308",
		"1.7976931348623159e308", "1e400", "123456789012345678901234567890", "0.00000000000000000000000000001",
		"18446744073709551615", "18446744073709551616", "3.0000000000000000000001",
	} {
		checkNumber(t, text)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 200000 {
		var text string
		switch i % 4 {
		case 0:
			text = strconv.FormatFloat(r.Float64()*1000, 'g', -1, 64)
		case 1:
			text = strconv.FormatFloat(r.NormFloat64()*1e6, 'f', r.IntN(18), 64)
		case 2:
			text = strconv.FormatUint(r.Uint64()%1e19, 10) + "." + strconv.Itoa(r.IntN(1000)) + "e" + strconv.Itoa(r.IntN(140)-70)
		default:
			text = strconv.FormatFloat(r.ExpFloat64()*1e-5, 'g', -1, 64)
		}
		checkNumber(t, text)
	}
}

func TestNumberRejects(t *testing.T) {
	for _, text := range []string{"", "-", "+1", "01", "-01", "1.", ".5", "1e", "1e+", "--1", "0x10", "1.e5", "-I", "Inf"} {
		if _, ok := scanNumber(text); ok {
			t.Errorf("%q read as a number", text)
		}
	}
	if n, ok := scanNumber("-Infinity"); !ok || !math.IsInf(n.float(), -1) {
		t.Errorf("-Infinity: %+v %v", n, ok)
	}
	if _, err := (&numLit{kind: numNegInf}).int(64); !errors.Is(err, errInfinity) {
		t.Errorf("-Infinity as an integer: %v", err)
	}
}

// FuzzNumber: whatever is a JSON number reads as one, with strconv's
// value; what the scanner reads is a JSON number.
func FuzzNumber(f *testing.F) {
	for _, s := range []string{"0", "-0.0", "1e400", "137.79565399999998", "12345678901234567890", "5e-324", "01", "1.5e+07"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		_, ok := scanNumber(text)
		isNumber := json.Valid([]byte(text)) && text != "" && strings.Trim(text, " \t\r\n") == text &&
			(text[0] == '-' || '0' <= text[0] && text[0] <= '9')
		if ok != isNumber {
			t.Fatalf("%q: scanner reads %v, encoding/json says number %v", text, ok, isNumber)
		}
		if ok {
			checkNumber(t, text)
		}
	})
}
