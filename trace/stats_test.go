package trace

import (
	"math"
	"testing"
)

// The expectations below are numpy 2.4's (np.mean, np.std, np.min,
// np.percentile(·, 25), np.median, np.percentile(·, 75), np.max) and Python
// 3.11's statistics.mean, printed with repr; they are compared exactly.
func TestSummarizeMatchesNumpy(t *testing.T) {
	seventh := make([]float64, 300)
	for i := range seventh {
		seventh[i] = float64(i) / 7
	}
	tests := []struct {
		name string
		in   []float64
		want Stats
	}{
		{"one", []float64{7}, Stats{7, 0, 7, 7, 7, 7, 7}},
		{"two", []float64{0.1, 0.2}, Stats{0.15000000000000002, 0.05, 0.1, 0.125, 0.15000000000000002, 0.17500000000000002, 0.2}},
		{"ten unsorted", []float64{0.1, 0.2, 0.3, 0.7, 0.11, 0.13, 0.17, 0.19, 0.23, 0.29},
			Stats{0.242, 0.1659397481015323, 0.1, 0.14, 0.195, 0.27499999999999997, 0.7}},
		{"300 pairwise blocks", seventh, Stats{21.357142857142858, 12.371722750269011, 0, 10.678571428571427, 21.357142857142854, 32.035714285714285, 42.714285714285715}},
		// np.median averages the middle two; percentile(50) would give
		// 0.0002646694743441408 here.
		{"median is not p50", []float64{4.151944305618131e-06, 4.56148287680224e-05, 0.0004837241199202593, 0.09950046477621344},
			Stats{Mean: 0.025008488917301834, StdDev: 0.04300837274865992, Min: 4.151944305618131e-06, P25: 3.5249107652421334e-05,
				Median: 0.0002646694743441409, P75: 0.025237909283993554, Max: 0.09950046477621344}},
	}
	for _, tt := range tests {
		got := summarize(tt.in)
		if got == nil || *got != tt.want {
			t.Errorf("%s: got %+v\nwant %+v", tt.name, got, tt.want)
		}
	}
	if summarize(nil) != nil {
		t.Error("summarize(nil) != nil")
	}
}

func TestExactMeanMatchesStatisticsMean(t *testing.T) {
	third := make([]float64, 10)
	for i := range third {
		third[i] = 1.0 / 3
	}
	tests := []struct {
		in   []float64
		want float64
	}{
		{nil, 0},
		{[]float64{0.1, 0.2, 0.3}, 0.2}, // np.mean: 0.20000000000000004
		{third, 0.3333333333333333},
		{[]float64{5e-324, 1, 0.5}, 0.5},
		{[]float64{0.1, 0.1, 0.1}, 0.1},
		{[]float64{0, 1, 1.0 / 3, 0, 1}, 0.4666666666666667}, // np.mean: 0.4666666666666666
		{[]float64{0, 0}, 0},
	}
	for _, tt := range tests {
		if got := exactMean(tt.in); got != tt.want {
			t.Errorf("exactMean(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestIntSumMean(t *testing.T) {
	var s intSum
	for range 4 {
		s.add(math.MaxInt64) // overflows int64, not the 128-bit sum
	}
	if got := s.mean(4); got != math.MaxInt64 {
		t.Errorf("mean = %v", got)
	}
	var z intSum
	if z.mean(0) != 0 {
		t.Error("mean of none != 0")
	}
	// 1090/6 rounded once, as Python's int / int.
	var h intSum
	for _, v := range []int64{250, 180, 300, 90, 150, 120} {
		h.add(v)
	}
	if got := h.mean(6); got != 181.66666666666666 {
		t.Errorf("mean = %v", got)
	}
}
