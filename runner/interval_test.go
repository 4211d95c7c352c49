package runner

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"gonum.org/v1/gonum/stat/distuv"
)

func TestConstantIntervalsExact(t *testing.T) {
	iv, err := NewIntervals("constant", 2000, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 10; i++ {
		if got := iv.Next(); got != 500*time.Microsecond {
			t.Fatalf("interval %v, want 500µs", got)
		}
	}
}

// TestRandomIntervalMoments checks mean and variance against the
// distributions' closed forms: exponential(rate) has mean 1/rate and variance
// 1/rate²; Gamma(k, 1/(rate k)) has mean 1/rate and variance 1/(k rate²).
func TestRandomIntervalMoments(t *testing.T) {
	const rate, n = 100.0, 200000
	cases := []struct {
		pattern    string
		smoothness float64
		variance   float64
	}{
		{"poisson", 0, 1 / (rate * rate)},
		{"gamma", 1, 1 / (rate * rate)},
		{"gamma", 0.25, 1 / (0.25 * rate * rate)},
		{"gamma", 4, 1 / (4 * rate * rate)},
	}
	for _, tc := range cases {
		iv, err := NewIntervals(tc.pattern, rate, tc.smoothness, rand.New(rand.NewPCG(1, 2)))
		if err != nil {
			t.Fatal(err)
		}
		var sum, sumSq float64
		for i := 0; i < n; i++ {
			x := iv.Next().Seconds()
			if x < 0 {
				t.Fatalf("negative interval %v", x)
			}
			sum += x
			sumSq += x * x
		}
		mean := sum / n
		variance := sumSq/n - mean*mean
		if math.Abs(mean-1/rate)/(1/rate) > 0.01 {
			t.Errorf("%s(%v): mean %v, want %v", tc.pattern, tc.smoothness, mean, 1/rate)
		}
		if math.Abs(variance-tc.variance)/tc.variance > 0.05 {
			t.Errorf("%s(%v): variance %v, want %v", tc.pattern, tc.smoothness, variance, tc.variance)
		}
	}
}

func TestIntervalsDeterministicPerSeed(t *testing.T) {
	a, _ := NewIntervals("gamma", 10, 2, rand.New(rand.NewPCG(7, 7)))
	b, _ := NewIntervals("gamma", 10, 2, rand.New(rand.NewPCG(7, 7)))
	for i := 0; i < 100; i++ {
		if a.Next() != b.Next() {
			t.Fatal("same seed, different schedule")
		}
	}
}

func TestIntervalsErrors(t *testing.T) {
	if _, err := NewIntervals("constant", 0, 0, nil); err == nil {
		t.Error("rate 0 accepted")
	}
	if _, err := NewIntervals("burst", 1, 0, nil); err == nil {
		t.Error("unknown pattern accepted")
	}
}

// TestIntervalsKolmogorovSmirnov: poisson and gamma inter-arrival samples
// pass a Kolmogorov–Smirnov test against their distributions (gonum's
// CDFs) at the 1% level; a wrong shape fails it.
func TestIntervalsKolmogorovSmirnov(t *testing.T) {
	const rate, n = 50.0, 5000
	crit := 1.628 / math.Sqrt(n) // the 1% critical value, large n
	cases := []struct {
		pattern    string
		smoothness float64
		cdf        func(float64) float64
		pass       bool
	}{
		{"poisson", 0, distuv.Exponential{Rate: rate}.CDF, true},
		{"gamma", 0.5, distuv.Gamma{Alpha: 0.5, Beta: 0.5 * rate}.CDF, true},
		{"gamma", 3, distuv.Gamma{Alpha: 3, Beta: 3 * rate}.CDF, true},
		{"gamma", 3, distuv.Exponential{Rate: rate}.CDF, false}, // the test has power
	}
	for _, tc := range cases {
		iv, err := NewIntervals(tc.pattern, rate, tc.smoothness, rand.New(rand.NewPCG(7, 11)))
		if err != nil {
			t.Fatal(err)
		}
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = iv.Next().Seconds()
		}
		slices.Sort(xs)
		d := 0.0
		for i, x := range xs {
			f := tc.cdf(x)
			d = max(d, math.Abs(float64(i+1)/n-f), math.Abs(f-float64(i)/n))
		}
		if (d < crit) != tc.pass {
			t.Errorf("%s(%v): KS statistic %.4f, critical %.4f, want pass=%v", tc.pattern, tc.smoothness, d, crit, tc.pass)
		}
	}
}
