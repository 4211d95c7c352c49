package multirun

import (
	"math"
	"testing"
)

// closeTo reports whether got is within tol of want (relative to want when
// |want| > 1).
func closeTo(got, want, tol float64) bool {
	return math.Abs(got-want) <= tol*math.Max(1, math.Abs(want))
}

func TestTCritical(t *testing.T) {
	// One and two degrees of freedom have closed forms: t_p = tan(pi(p-1/2))
	// for df=1 and (2p-1)/sqrt(2p(1-p)) for df=2. The others are the values
	// of a printed t table (3 decimals).
	p := 0.975
	tests := []struct {
		level float64
		n     int
		want  float64
		tol   float64
	}{
		{0.95, 2, math.Tan(math.Pi * (p - 0.5)), 1e-9},
		{0.95, 3, (2*p - 1) / math.Sqrt(2*p*(1-p)), 1e-9},
		{0.95, 5, 2.776, 5e-4},  // the reference's example
		{0.95, 10, 2.262, 5e-4}, // df=9
		{0.99, 3, 9.925, 5e-4},  // df=2, two-sided 99 %
		{0.90, 4, 2.353, 5e-4},  // df=3, two-sided 90 %
		{0.95, 31, 2.042, 5e-4}, // df=30
	}
	for _, tt := range tests {
		if got := TCritical(tt.level, tt.n); !closeTo(got, tt.want, tt.tol) {
			t.Errorf("TCritical(%v, %d) = %v, want %v", tt.level, tt.n, got, tt.want)
		}
	}
	for _, bad := range []struct {
		level float64
		n     int
	}{{0.95, 1}, {0.95, 0}, {1, 5}, {0, 5}, {math.NaN(), 5}} {
		if got := TCritical(bad.level, bad.n); !math.IsNaN(got) {
			t.Errorf("TCritical(%v, %d) = %v, want NaN", bad.level, bad.n, got)
		}
	}
}

func TestSummarize(t *testing.T) {
	t2 := math.Tan(math.Pi * 0.475) // df=1 at 0.95
	p := 0.975
	t3 := (2*p - 1) / math.Sqrt(2*p*(1-p)) // df=2 at 0.95
	nan := math.NaN()
	tests := []struct {
		name   string
		values []float64
		want   Confidence
	}{
		// mean 12; squares of deviations 4+0+4 over n-1=2 → std 2.
		{"three", []float64{10, 12, 14}, Confidence{Mean: 12, Std: 2, Min: 10, Max: 14, CV: 2.0 / 12,
			SE: 2 / math.Sqrt(3), CILow: 12 - t3*2/math.Sqrt(3), CIHigh: 12 + t3*2/math.Sqrt(3), TCritical: t3, N: 3}},
		// std sqrt(8): se = sqrt(8)/sqrt(2) = 2.
		{"two", []float64{14, 10}, Confidence{Mean: 12, Std: math.Sqrt(8), Min: 10, Max: 14, CV: math.Sqrt(8) / 12,
			SE: 2, CILow: 12 - 2*t2, CIHigh: 12 + 2*t2, TCritical: t2, N: 2}},
		// a negative mean: cv uses |mean|.
		{"negative", []float64{-3, -5}, Confidence{Mean: -4, Std: math.Sqrt(2), Min: -5, Max: -3, CV: math.Sqrt(2) / 4,
			SE: 1, CILow: -4 - t2, CIHigh: -4 + t2, TCritical: t2, N: 2}},
		// mean 0: cv is +inf, as AIPerf's std/mean "if mean != 0 else inf".
		{"zero mean", []float64{-2, 2}, Confidence{Mean: 0, Std: math.Sqrt(8), Min: -2, Max: 2, CV: math.Inf(1),
			SE: 2, CILow: -2 * t2, CIHigh: 2 * t2, TCritical: t2, N: 2}},
		// identical values: no spread, the interval collapses.
		{"constant", []float64{4, 4, 4}, Confidence{Mean: 4, Std: 0, Min: 4, Max: 4, CV: 0, SE: 0, CILow: 4, CIHigh: 4, TCritical: t3, N: 3}},
		// one value: nothing but the value.
		{"one", []float64{7}, Confidence{Mean: 7, Std: nan, Min: 7, Max: 7, CV: nan, SE: nan, CILow: nan, CIHigh: nan, TCritical: nan, N: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Summarize(tt.values, "ms", 0.95)
			if got.Unit != "ms" || got.N != tt.want.N {
				t.Errorf("unit %q n %d", got.Unit, got.N)
			}
			for _, f := range []struct {
				name      string
				got, want float64
			}{
				{"mean", got.Mean, tt.want.Mean}, {"std", got.Std, tt.want.Std}, {"min", got.Min, tt.want.Min},
				{"max", got.Max, tt.want.Max}, {"cv", got.CV, tt.want.CV}, {"se", got.SE, tt.want.SE},
				{"ci_low", got.CILow, tt.want.CILow}, {"ci_high", got.CIHigh, tt.want.CIHigh},
				{"t_critical", got.TCritical, tt.want.TCritical},
			} {
				same := closeTo(f.got, f.want, 1e-9) || (math.IsNaN(f.got) && math.IsNaN(f.want)) || (math.IsInf(f.want, 1) && math.IsInf(f.got, 1))
				if !same {
					t.Errorf("%s = %v, want %v", f.name, f.got, f.want)
				}
			}
		})
	}
}
