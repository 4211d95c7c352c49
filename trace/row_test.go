package trace

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func TestParseRow(t *testing.T) {
	tests := []struct {
		line     string
		isl, osl int64
		ids      []int64
	}{
		{`{}`, 0, 0, nil},
		{` { "input_length" : 655 , "output_length":52,"hash_ids":[0,1, 2] } `, 655, 52, []int64{0, 1, 2}},
		{`{"timestamp": 0.5, "input_length": 1, "hash_ids": []}`, 1, 0, nil},
		{`{"hash_ids": [-9223372036854775808, 9223372036854775807]}`, 0, 0, []int64{-9223372036854775808, 9223372036854775807}},
		{`{"input_length": 0, "output_length": 1E2, "hash_ids": [1e0, -2.0e+0, 30e-1]}`, 0, 100, []int64{1, -2, 3}},
		{`{"messages": [{"role": "user", "content": "a \"quoted\" \\ \/ \b\f\n\r\t \u00e9"}], "input_length": 3}`, 3, 0, nil},
		{`{"nested": {"a": {"b": [[], {}, [[{}]]]}}, "output_length": 4}`, 0, 4, nil},
		{`{"x": -0, "y": 0.0, "z": true, "w": false, "v": null, "u": ""}`, 0, 0, nil},
	}
	for _, tt := range tests {
		var r row
		if err := parseRow([]byte(tt.line), &r); err != nil {
			t.Errorf("%s: %v", tt.line, err)
			continue
		}
		if r.isl != tt.isl || r.osl != tt.osl || !slices.Equal(r.hashIDs, tt.ids) {
			t.Errorf("%s: got %d %d %v, want %d %d %v", tt.line, r.isl, r.osl, r.hashIDs, tt.isl, tt.osl, tt.ids)
		}
	}
}

func TestParseRowReusesStorage(t *testing.T) {
	var r row
	if err := parseRow([]byte(`{"hash_ids": [1, 2, 3]}`), &r); err != nil {
		t.Fatal(err)
	}
	if err := parseRow([]byte(`{"input_length": 5}`), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.hashIDs) != 0 || r.isl != 5 {
		t.Errorf("stale row %+v", r)
	}
	line := []byte(`{"timestamp": 1, "input_length": 5, "hash_ids": [1, 2], "x": {"y": [{"z": null}]}}`)
	allocs := testing.AllocsPerRun(100, func() { _ = parseRow(line, &r) })
	if allocs != 0 {
		t.Errorf("%v allocations per row, want 0", allocs)
	}
}

func TestParseRowRejects(t *testing.T) {
	for _, line := range []string{
		``, `{`, `}`, `{"a"}`, `{"a" 1}`, `{"a": }`, `{a: 1}`, `{'a': 1}`, `{"a": 1,}`, `{"a": [1,]}`,
		`{"a": 01}`, `{"a": 1.}`, `{"a": .5}`, `{"a": 1e}`, `{"a": +1}`, `{"a": -}`, `{"a": tru}`,
		`{"a": "x` + "\x01" + `"}`, `{"a": "\x"}`, `{"a": "\u12"}`, `{"a": "unterminated}`,
		`{"a": [1, 2}`, `{"a": {"b": 1]}`, `{"a": 1}}`, `{"a": 1} x`, `null`, `"s"`, `1`,
		`{"hash_ids": [9223372036854775808]}`, `{"hash_ids": [-9223372036854775809]}`, `{"hash_ids": [1 2]}`, `{"hash_ids": [1,, 2]}`, `{"hash_ids": [1.5]}`, `{"hash_ids": [1e19]}`,
		`{"input_length": Infinity}`, `{"input_length": -0.5}`,
		`{"a": ` + strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1) + `}`,
	} {
		var r row
		if err := parseRow([]byte(line), &r); err == nil {
			t.Errorf("%q accepted", line)
		}
	}
}

// FuzzParseRow checks the hand-written scanner against encoding/json: a
// line it accepts is valid JSON, and a valid JSON object without the three
// known keys (and not nested past maxDepth) is accepted.
func FuzzParseRow(f *testing.F) {
	for _, s := range []string{
		`{}`, `{"input_length": 655, "output_length": 52, "hash_ids": [0, 1, 2]}`,
		`{"a": [1, {"b": "c\"\\\u00e9"}, -1.5e-3, true, false, null]}`, `{"a": 1,}`, `[1]`,
		`{"hash_ids": [1.0, 2e3]}`, `{"x": "` + "\xff" + `"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		var r row
		err := parseRow(line, &r)
		valid := json.Valid(line)
		if err == nil && !valid {
			t.Fatalf("accepted invalid JSON %q", line)
		}
		if err != nil && valid && bytes.Count(line, []byte("["))+bytes.Count(line, []byte("{")) < maxDepth {
			var m map[string]json.RawMessage
			if json.Unmarshal(line, &m) != nil {
				return // valid JSON but not an object: rejected rightly
			}
			known := false
			for k := range m {
				known = known || k == "input_length" || k == "output_length" || k == "hash_ids"
			}
			if !known {
				t.Fatalf("rejected valid object %q: %v", line, err)
			}
		}
	})
}
