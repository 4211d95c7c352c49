package trace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// handJSONL is handRows as a trace file.
const handJSONL = `{"timestamp": 1000, "input_length": 10, "output_length": 5, "hash_ids": [1, 2, 3]}
{"timestamp": 2001, "input_length": 12, "output_length": 7, "hash_ids": [1, 2, 4]}
{"timestamp": 3500, "input_length": 6, "output_length": 3, "hash_ids": [5, 6]}
{"timestamp": 4000, "input_length": 5, "output_length": 2, "hash_ids": [1, 7]}
`

func synth(t *testing.T, in string, s Synthesis, rng *rand.Rand) (string, *SynthesisSummary) {
	t.Helper()
	var out bytes.Buffer
	sum, err := Synthesize(strings.NewReader(in), &out, s, rng)
	if err != nil {
		t.Fatal(err)
	}
	return out.String(), sum
}

// jsonRows decodes every line of a JSONL text.
func jsonRows(t *testing.T, text string) []any {
	t.Helper()
	var rows []any
	for line := range strings.SplitSeq(strings.TrimSpace(text), "\n") {
		var v any
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		rows = append(rows, v)
	}
	return rows
}

// TestSynthesizeDefaultsIsIdentity: with every knob at its default the
// output rows are the input rows.
func TestSynthesizeDefaultsIsIdentity(t *testing.T) {
	in, err := os.ReadFile("testdata/custom_trace.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	out, sum := synth(t, string(in), DefaultSynthesis(), nil)
	if got, want := jsonRows(t, out), jsonRows(t, string(in)); !reflect.DeepEqual(got, want) {
		t.Errorf("rows changed:\n%s\nwant\n%s", out, in)
	}
	if sum.Rows != 3 {
		t.Errorf("rows %d, want 3", sum.Rows)
	}
}

// TestSynthesizeFields: known fields are rewritten in place, others pass
// through as written, emptied hash_ids go and a missing input_length comes
// last, as in AIPerf's dict.
func TestSynthesizeFields(t *testing.T) {
	in := `{"session_id":"a","timestamp":2001.5,"hash_ids":[],"input_length":8,"extra":{"k":[1, 2]},"output_length":10}

{"timestamp":7,"text_input":"hi","output_length":3,"delay":40}
{"hash_ids":null,"timestamp":null}
`
	s := DefaultSynthesis()
	s.SpeedupRatio, s.OutputLenMultiplier = 2, 0.25
	out, sum := synth(t, in, s, nil)
	want := `{"session_id": "a", "timestamp": 1000, "input_length": 8, "extra": {"k":[1, 2]}, "output_length": 2}
{"timestamp": 3, "text_input": "hi", "output_length": 1, "delay": 40}
{"timestamp": null, "input_length": 512}
`
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	if sum.Rows != 3 {
		t.Errorf("rows %d, want 3", sum.Rows)
	}
}

// TestSynthesizePrefixStructure checks the output's analysis: timing and
// output knobs keep the prefix structure, and the prompt multiplier
// changes it as worked out by hand.
func TestSynthesizePrefixStructure(t *testing.T) {
	before, err := Analyze(strings.NewReader(handJSONL), 4)
	if err != nil {
		t.Fatal(err)
	}
	s := DefaultSynthesis()
	s.BlockSize, s.SpeedupRatio, s.OutputLenMultiplier = 4, 2, 2
	out, sum := synth(t, handJSONL, s, nil)
	after, err := Analyze(strings.NewReader(out), 4)
	if err != nil {
		t.Fatal(err)
	}
	// 4 rows, prefixes [1] [1 2] [1 2 3] [1 2 4] [5] [5 6] [1 7]: 7, one
	// group (1); hit rates 0, 2/3, 0, 1/2.
	if before.UniquePrefixes != 7 || before.NumPrefixGroups != 1 {
		t.Fatalf("input: %d prefixes, %d groups; want 7, 1", before.UniquePrefixes, before.NumPrefixGroups)
	}
	if after.UniquePrefixes != before.UniquePrefixes || after.NumPrefixGroups != before.NumPrefixGroups ||
		after.CacheHitRate != before.CacheHitRate || after.PrefixReuseRatio != before.PrefixReuseRatio {
		t.Errorf("structure changed: %+v\nwas %+v", after, before)
	}
	near(t, "cache hit rate", after.CacheHitRate, (2.0/3+0.5)/4)
	near(t, "avg ISL", after.AvgISL, before.AvgISL)
	near(t, "avg OSL", after.AvgOSL, 2*before.AvgOSL)
	if sum.TreeNodes != 8 || sum.TreeDepth != 3 {
		t.Errorf("tree: %d nodes, depth %d; want 8 (7 prefixes + root), 3", sum.TreeNodes, sum.TreeDepth)
	}
	for i, r := range jsonRows(t, out) {
		ts := r.(map[string]any)["timestamp"].(float64)
		if want := []float64{500, 1000, 1750, 2000}[i]; ts != want {
			t.Errorf("row %d timestamp %v, want %v", i+1, ts, want)
		}
	}

	s = DefaultSynthesis()
	s.BlockSize, s.PromptLenMultiplier = 4, 2
	out, _ = synth(t, handJSONL, s, nil)
	after, err = Analyze(strings.NewReader(out), 4)
	if err != nil {
		t.Fatal(err)
	}
	// Rows [1 2 4] [1 2 5 6] [7 8 9] [1 10], ISL 12 16 12 6: prompts
	// doubled, the shared prefix [1 2] / [1] kept. Prefixes [1] [1 2]
	// [1 2 4] [1 2 5] [1 2 5 6] [7] [7 8] [7 8 9] [1 10]: 9.
	near(t, "avg ISL", after.AvgISL, (12+16+12+6)/4.0)
	near(t, "cache hit rate", after.CacheHitRate, (0+2.0/4+0+1.0/2)/4)
	if after.NumPrefixGroups != 1 || after.UniquePrefixes != 9 {
		t.Errorf("%d groups, %d prefixes; want 1, 9", after.NumPrefixGroups, after.UniquePrefixes)
	}
}

// groupsJSONL is a trace of groups × perGroup rows: the rows of group g
// share the blocks [100g, 100g+1] and then have one unique block each.
func groupsJSONL(groups, perGroup int) string {
	var b strings.Builder
	id := 100 * groups
	for r := range perGroup {
		for g := range groups {
			id++
			fmt.Fprintf(&b, `{"timestamp": %d, "input_length": 1500, "output_length": 10, "hash_ids": [%d, %d, %d]}`+"\n",
				10*(r*groups+g), 100*g, 100*g+1, id)
		}
	}
	return b.String()
}

// TestSynthesizeRootMultiplier: R trees give R times the prefix groups
// (with 60 rows a group, every tree gets at least two of each).
func TestSynthesizeRootMultiplier(t *testing.T) {
	in := groupsJSONL(3, 60)
	before, err := Analyze(strings.NewReader(in), DefaultBlockSize)
	if err != nil {
		t.Fatal(err)
	}
	s := DefaultSynthesis()
	s.PrefixRootMultiplier = 4
	out, _ := synth(t, in, s, rand.New(rand.NewPCG(7, 7)))
	after, err := Analyze(strings.NewReader(out), DefaultBlockSize)
	if err != nil {
		t.Fatal(err)
	}
	// Each group's two shared prefixes per tree, plus one per row.
	if before.NumPrefixGroups != 3 || before.UniquePrefixes != 3*2+180 {
		t.Fatalf("input: %d groups, %d prefixes; want 3, 186", before.NumPrefixGroups, before.UniquePrefixes)
	}
	if after.NumPrefixGroups != 12 || after.UniquePrefixes != 12*2+180 {
		t.Errorf("output: %d groups, %d prefixes; want 12, 204", after.NumPrefixGroups, after.UniquePrefixes)
	}
	near(t, "avg ISL", after.AvgISL, 1500)

	s = DefaultSynthesis()
	s.PrefixLenMultiplier, s.MaxISL = 3, 3000
	out, _ = synth(t, in, s, nil)
	after, err = Analyze(strings.NewReader(out), DefaultBlockSize)
	if err != nil {
		t.Fatal(err)
	}
	// Prefix 2 blocks → 6 (1024 → 3072 tokens), prompt 476: 3548, capped
	// at 3000 with ceil(3000/512) = 6 blocks, the shared ones.
	if after.MaxISL != 3000 || after.MinISL != 3000 || after.NumPrefixGroups != 3 || after.UniquePrefixes != 3*6 {
		t.Errorf("ISL %d..%d, %d groups, %d prefixes; want 3000, 3, 18", after.MinISL, after.MaxISL, after.NumPrefixGroups, after.UniquePrefixes)
	}
}

func TestSynthesizeMalformed(t *testing.T) {
	tests := []struct{ in, want string }{
		{"{\"input_length\": 5}\n[1]\n", "line 2: invalid JSON at column 1: want an object"},
		{`{"input_length": "5"}`, "line 1: input_length: not an integer"},
		{`{"output_length": -1}`, "line 1: output_length: negative"},
		{`{"hash_ids": [1, "x"]}`, "line 1: hash_ids: element 1: not an integer"},
		{`{"timestamp": "soon"}`, "line 1: timestamp: not a number"},
		{"{\"a\": 1} x", "line 1: invalid JSON at column 10: data after the object"},
		{"{\"a\": \"\xff\"}", "line 1: invalid UTF-8"},
	}
	for _, tt := range tests {
		var out bytes.Buffer
		_, err := Synthesize(strings.NewReader(tt.in), &out, DefaultSynthesis(), nil)
		var le *LineError
		if !errors.As(err, &le) || err.Error() != tt.want {
			t.Errorf("%q: %v, want %q", tt.in, err, tt.want)
		}
		if out.Len() > 0 {
			t.Errorf("%q: wrote %q", tt.in, out.String())
		}
	}
}

func TestSynthesizeFile(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	if err := os.WriteFile(in, []byte(handJSONL), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "sub", "out.jsonl")
	s := DefaultSynthesis()
	s.BlockSize, s.SpeedupRatio = 4, 2
	if _, err := SynthesizeFile(in, out, s, nil); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"timestamp": 500, "input_length": 10, "output_length": 5, "hash_ids": [1, 2, 4]}`; !strings.HasPrefix(string(b), want+"\n") {
		t.Errorf("got %q, want it to start with %q", b, want)
	}
	if _, err := SynthesizeFile(filepath.Join(dir, "missing"), out, s, nil); err == nil {
		t.Error("missing input: no error")
	}
}

// FuzzParseSynthRow: the parser never panics, and a row it accepts is
// written back (untransformed) as JSON that parses to the same request.
func FuzzParseSynthRow(f *testing.F) {
	for line := range strings.SplitSeq(handJSONL, "\n") {
		f.Add([]byte(line))
	}
	f.Add([]byte(`{"text_input": "x", "a": {"b": [null]}, "a": 2, "input\u005flength": 1.0e1}`))
	f.Add([]byte(`{"hash_ids": null, "timestamp": -1.5e3}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		row, err := parseSynthRow(line)
		if err != nil {
			return
		}
		orig := row.req
		b := row.appendJSON(nil, &orig, false)
		if !json.Valid(b) {
			t.Fatalf("%q → invalid %q", line, b)
		}
		again, err := parseSynthRow(b)
		if err != nil {
			t.Fatalf("%q → %q: %v", line, b, err)
		}
		if !reflect.DeepEqual(again.req, row.req) && !(len(again.req.HashIDs) == 0 && len(row.req.HashIDs) == 0) {
			t.Fatalf("%q → %q: %+v, want %+v", line, b, again.req, row.req)
		}
	})
}
