package query

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestScannerStrings(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{`""`, "", true},
		{`"plain ascii, longer than eight bytes"`, "plain ascii, longer than eight bytes", true},
		{`"caf\u00e9 ☕ 😀"`, "café ☕ 😀", true},
		{`"\"\\\/\b\f\n\r\t"`, "\"\\/\b\f\n\r\t", true},
		{`"\ud83d\ude00"`, "😀", true},
		{`"a\u0000b"`, "a\x00b", true},
		{`"\u00E9"`, "é", true},
		{`"\ud83d"`, "", false},      // lone high surrogate
		{`"\ude00"`, "", false},      // lone low surrogate
		{`"\ud83dx"`, "", false},     // high surrogate, then no escape
		{`"\u12"`, "", false},        // short escape
		{`"\x"`, "", false},          // unknown escape
		{"\"tab\there\"", "", false}, // control character
		{"\"\xff\"", "", false},      // invalid UTF-8
		{"\"abcdefgh\xc3\"", "", false},
		{`"unterminated`, "", false},
		{`"ends in a backslash\`, "", false},
	} {
		var s jsonScanner
		s.reset([]byte(tc.in))
		got, err := s.str()
		if (err == nil) != tc.ok || tc.ok && string(got) != tc.want {
			t.Errorf("%s: %q %v, want %q ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
		if tc.ok && s.pos != len(tc.in) {
			t.Errorf("%s: stopped at %d of %d", tc.in, s.pos, len(tc.in))
		}
	}
}

// FuzzScannerString: a string the scanner reads is a JSON string that
// encoding/json decodes to the same text.
func FuzzScannerString(f *testing.F) {
	for _, s := range []string{`"a"`, `"\u00e9\n"`, `"\ud83d\ude00"`, "\"\xff\"", `"\ud800"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		var s jsonScanner
		s.reset([]byte(in))
		if len(in) == 0 || in[0] != '"' {
			return
		}
		got, err := s.str()
		if err != nil {
			return
		}
		var want string
		if err := json.Unmarshal([]byte(in[:s.pos]), &want); err != nil {
			t.Fatalf("%q: scanner reads %q, encoding/json: %v", in, got, err)
		}
		if string(got) != want || !utf8.Valid(got) {
			t.Fatalf("%q: scanner %q, encoding/json %q", in, got, want)
		}
	})
}

func TestScannerSkip(t *testing.T) {
	for _, tc := range []struct {
		in string
		ok bool
	}{
		{`{"a":[1,2,{"b":null}],"c":"d","e":true,"f":false,"g":-1.5e3}`, true},
		{`[1,2,]`, true}, // trailing commas, as DuckDB reads them
		{`{"a":1,}`, true},
		{`[NaN,Infinity,-Infinity]`, true},
		{`{}`, true},
		{`[]`, true},
		{` [ 1 , { } ] `, true},
		{`[1 2]`, false},
		{`{"a" 1}`, false},
		{`{1:2}`, false},
		{`[,]`, false},
		{`{"a":}`, false},
		{`[`, false},
		{`nul`, false},
		{`tru`, false},
		{`-`, false},
		{strings.Repeat("[", maxJSONDepth+2) + strings.Repeat("]", maxJSONDepth+2), false},
		{strings.Repeat("[", 50) + strings.Repeat("]", 50), true},
	} {
		var s jsonScanner
		s.reset([]byte(tc.in))
		s.ws()
		err := s.skip(0)
		if err == nil {
			err = s.end()
		}
		if (err == nil) != tc.ok {
			t.Errorf("%s: %v, want ok=%v", tc.in, err, tc.ok)
		}
	}
}

func TestKeySets(t *testing.T) {
	for _, set := range []*keySet{topKeys, metricKeys, metricFields, errorKeys, metadataKeys} {
		for i, k := range set.keys {
			if got := set.find([]byte(k)); got != i {
				t.Errorf("%q: index %d, want %d", k, got, i)
			}
			for _, other := range []string{k[:len(k)-1], k + "x", strings.ToUpper(k), "x" + k[1:]} {
				if got := set.find([]byte(other)); got >= 0 && set.keys[got] != other {
					t.Errorf("%q: found as %q", other, set.keys[got])
				}
			}
		}
		for _, other := range []string{"", "a", "ab", "unit", "value", "metadata", "request_num"} {
			if got := set.find([]byte(other)); got >= 0 && set.keys[got] != other {
				t.Errorf("%q: found as %q", other, set.keys[got])
			}
		}
	}
	if metricKeys.keys[numMetrics] != "inter_chunk_latency" || len(MetricColumns) != numMetrics {
		t.Errorf("metric keys %v, MetricColumns %d, numMetrics %d", metricKeys.keys, len(MetricColumns), numMetrics)
	}
}
