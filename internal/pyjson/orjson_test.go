package pyjson

import (
	"math"
	"testing"
)

// TestAppendFloatOrjson checks against what orjson 3.11 (AIPerf 0.13's)
// writes for each value.
func TestAppendFloatOrjson(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
	}{
		{4.650800000005617e-05, "0.00004650800000005617"},
		{1e-5, "0.00001"}, {1.5e-5, "0.000015"}, {-1.5e-5, "-0.000015"},
		{1e-6, "1e-6"}, {1.25e-6, "1.25e-6"}, {1e-7, "1e-7"}, {-1.5e-9, "-1.5e-9"},
		{2.5e-300, "2.5e-300"}, {5e-324, "5e-324"},
		{0.0001, "0.0001"}, {0.5, "0.5"}, {64, "64.0"}, {math.Copysign(0, -1), "-0.0"}, {0, "0.0"},
		{1e15, "1000000000000000.0"}, {1e16, "1e+16"}, {1.5e17, "1.5e+17"},
		{1.2345678901234568e+17, "1.2345678901234568e+17"}, {1.7976931348623157e308, "1.7976931348623157e+308"},
		{1234567890123456.8, "1234567890123456.8"},
	} {
		if got := string(AppendFloatOrjson([]byte("x"), tc.v)); got != "x"+tc.want {
			t.Errorf("%v: got %q, want %q", tc.v, got[1:], tc.want)
		}
	}
}
