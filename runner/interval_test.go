package runner

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
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
