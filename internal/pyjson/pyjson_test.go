package pyjson

import (
	"encoding/json"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestAppendPyFloat(t *testing.T) {
	// Expectations are Python 3.11's repr(v) / json.dumps(v).
	tests := []struct {
		in   float64
		want string
	}{
		{0, "0.0"},
		{math.Copysign(0, -1), "-0.0"},
		{1, "1.0"},
		{64, "64.0"},
		{-2.5, "-2.5"},
		{0.1, "0.1"},
		{0.30000000000000004, "0.30000000000000004"},
		{1e16, "1e+16"},
		{1e15, "1000000000000000.0"},
		{9999999999999998, "9999999999999998.0"},
		{1.5e-05, "1.5e-05"},
		{0.0001, "0.0001"},
		{0.00012345, "0.00012345"},
		{1e-4 / 3, "3.3333333333333335e-05"},
		{123456789012345678, "1.2345678901234568e+17"},
		{12345678901234567, "1.2345678901234568e+16"},
		{5e-324, "5e-324"},
		{math.MaxFloat64, "1.7976931348623157e+308"},
		{1 << 53, "9007199254740992.0"},
		{1e22, "1e+22"},
		{1e-07, "1e-07"},
		{-1e-05, "-1e-05"},
		{0.39693579999999995, "0.39693579999999995"},
		{634.3000000000001, "634.3000000000001"},
		{1854.929714829192, "1854.929714829192"},
		{255.886568, "255.886568"},
		{math.NaN(), "null"},
		{math.Inf(1), "null"},
		{math.Inf(-1), "null"},
	}
	for _, tt := range tests {
		if got := string(AppendFloat(nil, tt.in)); got != tt.want {
			t.Errorf("AppendFloat(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestAppendPyFloat32(t *testing.T) {
	// A float32 keeps its own shortest digits, not float64(f32)'s.
	if got := string(AppendFloatBits(nil, float64(float32(0.1)), 32)); got != "0.1" {
		t.Errorf("float32 0.1 = %q, want 0.1", got)
	}
}

func TestAppendJSONString(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", `"plain"`},
		{`a"b\c`, `"a\"b\\c"`},
		{"line\nbreak\r\ttab\b\f", `"line\nbreak\r\ttab\b\f"`},
		{"\x00\x1f", `"\u0000\u001f"`},
		{"<html> & é ✓", `"<html> & é ✓"`},
		{"bad\xffutf8", "\"bad\ufffdutf8\""},
	}
	for _, tt := range tests {
		if got := string(AppendString(nil, tt.in)); got != tt.want {
			t.Errorf("AppendString(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

var pyFloatForm = regexp.MustCompile(`^-?(\d+\.\d+|\d(\.\d+)?e[+-]\d{2,3})$`)

func FuzzAppendPyFloat(f *testing.F) {
	for _, v := range []float64{0, 1, 1e16, 1e-5, 0.1, 123.456, 5e-324, math.MaxFloat64} {
		f.Add(math.Float64bits(v))
	}
	f.Fuzz(func(t *testing.T, bits uint64) {
		v := math.Float64frombits(bits)
		got := string(AppendFloat(nil, v))
		if math.IsNaN(v) || math.IsInf(v, 0) {
			if got != "null" {
				t.Fatalf("%v: got %q, want null", v, got)
			}
			return
		}
		if !pyFloatForm.MatchString(got) {
			t.Fatalf("%v: %q is not in Python's float form", v, got)
		}
		back, err := strconv.ParseFloat(got, 64)
		if err != nil || back != v {
			t.Fatalf("%v: %q parses back as %v, %v", v, got, back, err)
		}
		// Shortest: the same significant digits as Go's shortest formatting.
		short := strconv.FormatFloat(v, 'e', -1, 64)
		if sig(got) != sig(short) {
			t.Fatalf("%v: %q has digits %s, shortest are %s", v, got, sig(got), sig(short))
		}
	})
}

// sig returns the significant digits of a formatted float: the mantissa's
// digits without leading or trailing zeros.
func sig(s string) string {
	var d []byte
	for i := 0; i < len(s) && s[i] != 'e'; i++ {
		if s[i] >= '0' && s[i] <= '9' {
			d = append(d, s[i])
		}
	}
	return strings.Trim(string(d), "0")
}

// awkward exercises every escaping rule.
const awkward = "q\"b\\s\x00\x01\x1f\b\f\n\r\t\x7f<&> é ☃ 😀 \u2028\u2029"

// TestAppendStringRoundTrip checks the escaper against encoding/json's
// decoder on awkward strings; each invalid UTF-8 byte becomes U+FFFD.
func TestAppendStringRoundTrip(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{awkward, awkward},
		{"\x00", "\x00"},
		{"</script>", "</script>"},
		{"a\xffb", "a\ufffdb"},
		{"\xed\xa0\x80", "\ufffd\ufffd\ufffd"}, // an encoded surrogate
	} {
		enc := AppendString(nil, tc.in)
		var back string
		if err := json.Unmarshal(enc, &back); err != nil {
			t.Fatalf("%q: %s does not decode: %v", tc.in, enc, err)
		}
		if back != tc.want {
			t.Errorf("%q round-trips to %q, want %q", tc.in, back, tc.want)
		}
	}
	if got := string(AppendString(nil, "\x00<&>")); got != `"\u0000<&>"` {
		t.Errorf("got %s, want no HTML escaping", got)
	}
}

func FuzzAppendString(f *testing.F) {
	f.Add(awkward)
	f.Add("a\xffb")
	f.Fuzz(func(t *testing.T, s string) {
		enc := AppendString(nil, s)
		var back string
		if err := json.Unmarshal(enc, &back); err != nil {
			t.Fatalf("%q: %s does not decode: %v", s, enc, err)
		}
		if utf8.ValidString(s) && back != s {
			t.Fatalf("%q round-trips to %q", s, back)
		}
		if !utf8.Valid(enc) {
			t.Fatalf("invalid UTF-8 output %q", enc)
		}
	})
}

// TestCanonical checks literals in and out of AppendString's form.
func TestCanonical(t *testing.T) {
	for _, tc := range []struct {
		lit  string
		want bool
	}{
		{`""`, true},
		{string(AppendString(nil, awkward)), true},
		{`"a\nb\"c\\d\u0000\u001f"`, true},
		{`"\u000a"`, false}, // \n has a short form
		{`"\u001F"`, false}, // uppercase hex
		{`"\u0041"`, false}, // A needs no escape
		{`"\/"`, false},
		{`"\ud83d\ude00"`, false},
		{"\"a\xffb\"", false},
		{"\"tab\there\"", false}, // a raw control character
		{`"unterminated`, false},
		{`"a\"`, false},
		{`"é ☃ 😀"`, true},
	} {
		if got := Canonical([]byte(tc.lit)); got != tc.want {
			t.Errorf("Canonical(%s) = %v, want %v", tc.lit, got, tc.want)
		}
	}
}

// FuzzCanonical: what AppendString writes is canonical, and a canonical
// literal re-encodes to itself (checked through encoding/json's decoder).
func FuzzCanonical(f *testing.F) {
	f.Add([]byte(`"a\nb"`))
	f.Add([]byte(`"\u0041"`))
	f.Add(AppendString(nil, awkward))
	f.Fuzz(func(t *testing.T, lit []byte) {
		if !Canonical(AppendString(nil, string(lit))) {
			t.Fatalf("AppendString(%q) is not canonical", lit)
		}
		if !Canonical(lit) {
			return
		}
		var s string
		if err := json.Unmarshal(lit, &s); err != nil {
			t.Fatalf("canonical %q does not decode: %v", lit, err)
		}
		if got := AppendString(nil, s); string(got) != string(lit) {
			t.Fatalf("canonical %q re-encodes to %q", lit, got)
		}
	})
}

// FuzzPlainRun checks the word-at-a-time scan against a byte loop.
func FuzzPlainRun(f *testing.F) {
	f.Add("plain ascii text, long enough for words")
	f.Add(awkward + awkward)
	f.Fuzz(func(t *testing.T, s string) {
		want := 0
		for want < len(s) && s[want] >= 0x20 && s[want] < utf8.RuneSelf && s[want] != '"' && s[want] != '\\' {
			want++
		}
		want -= want % 8
		if got := plainRun(s); got != want {
			t.Fatalf("plainRun(%q) = %d, want %d", s, got, want)
		}
	})
}
