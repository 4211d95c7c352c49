package multirun

import (
	"slices"
	"strings"
	"testing"
)

func TestParseSweepInts(t *testing.T) {
	for _, tt := range []struct {
		in     string
		linear bool
		want   []int
		err    string // a part of the error; "" when none
	}{
		{in: "64", want: []int{64}},
		{in: "32,64, 128", want: []int{32, 64, 128}},
		{in: "4,1,2", want: []int{4, 1, 2}}, // the order given
		// No step: the powers of two between the bounds (GenAI-Perf's
		// 8:256 is 8,16,32,64,128,256).
		{in: "8:256", want: []int{8, 16, 32, 64, 128, 256}},
		{in: "1:8", want: []int{1, 2, 4, 8}},
		{in: "10:100", want: []int{16, 32, 64}},
		{in: "3:4", want: []int{4}},
		// With a step: linear, stop included when reached.
		{in: "100:500:100", want: []int{100, 200, 300, 400, 500}},
		{in: "100:450:100", want: []int{100, 200, 300, 400}},
		{in: "1:2:5", want: []int{1}},
		// No step on a linear sweep (num_dataset_entries): every integer.
		{in: "100:104", linear: true, want: []int{100, 101, 102, 103, 104}},
		{in: "100:300:100", linear: true, want: []int{100, 200, 300}},
		// Ranges and values mix in a list.
		{in: "1,4:16,3", want: []int{1, 4, 8, 16, 3}},
		{in: "64:32", err: "stop 32 must be greater than start 64"},
		{in: "32:32", err: "stop 32 must be greater than start 32"},
		{in: "32:64:0", err: "step 0: the step must be >= 1"},
		{in: "32:64:-8", err: "step -8: the step must be >= 1"},
		{in: "0:64", err: "starts at 0: start must be >= 1"},
		{in: "5:7", err: "holds no power of two: give a step (5:7:1)"},
		{in: "32.5,64", err: `"32.5" is not a whole number`},
		{in: "32:64.5", err: `"64.5" is not a whole number`},
		{in: "32,x", err: `"x" is not an integer`},
		{in: "32,,64", err: "empty value"},
		{in: "1:2:3:4", err: "has 4 parts: write start:stop or start:stop:step"},
		{in: "1:100000:1", err: "more than 1000 values"},
		{in: "1:5000", linear: true, err: "more than 1000 values"},
	} {
		got, err := ParseSweepInts(tt.in, tt.linear)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%q: error %v, want one with %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("%q (linear %v) = %v, %v; want %v", tt.in, tt.linear, got, err, tt.want)
		}
	}
}

// FuzzParseSweepInts checks that any value either fails or gives between
// 1 and MaxSweepValues values, and that a range's values lie within its
// bounds.
func FuzzParseSweepInts(f *testing.F) {
	for _, s := range []string{"8:256", "1,2", "100:500:50", "5:7", "-1:3", "9223372036854775807:9223372036854775807"} {
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, s string, linear bool) {
		vs, err := ParseSweepInts(s, linear)
		if err != nil {
			return
		}
		if len(vs) == 0 || len(vs) > MaxSweepValues {
			t.Fatalf("%q gave %d values", s, len(vs))
		}
		if strings.Count(s, ":") > 0 && !strings.Contains(s, ",") {
			for _, v := range vs {
				if v < 1 {
					t.Fatalf("%q gave %d below the range's start", s, v)
				}
			}
		}
	})
}
