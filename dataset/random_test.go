package dataset

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestSamplePositiveNormalIntNoSpread(t *testing.T) {
	tests := []struct {
		mean, stddev float64
		want         int
	}{
		{550, 0, 550},
		{550.2, 0, 551},
		{0.5, 0, 1},
		{0, 0, 0},
		{-3, 0, 0},
		{10, -1, 10},
	}
	src := rand.NewPCG(1, 2)
	rng := rand.New(src)
	for _, tc := range tests {
		before := *src
		if got := SamplePositiveNormalInt(rng, tc.mean, tc.stddev); got != tc.want {
			t.Errorf("SamplePositiveNormalInt(%g, %g) = %d, want %d", tc.mean, tc.stddev, got, tc.want)
		}
		if *src != before {
			t.Errorf("stddev %g drew from rng", tc.stddev)
		}
	}
}

// TestSamplePositiveNormalIntMoments: for N(550, 50) rejection almost never
// happens, so ceil(x) has mean ≈ 550.5 and stddev ≈ 50.
func TestSamplePositiveNormalIntMoments(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const n = 20000
	var sum, sq float64
	for range n {
		v := float64(SamplePositiveNormalInt(rng, 550, 50))
		sum += v
		sq += v * v
	}
	mean := sum / n
	sd := math.Sqrt(sq/n - mean*mean)
	// Standard error of the mean is 50/sqrt(20000) ≈ 0.35.
	if math.Abs(mean-550.5) > 1.5 {
		t.Errorf("mean %g, want 550.5 ± 1.5", mean)
	}
	if math.Abs(sd-50) > 2 {
		t.Errorf("stddev %g, want 50 ± 2", sd)
	}
}

// TestSamplePositiveNormalIntHalfNormal: N(0, 1) kept where x >= 0 is the
// half-normal, so ceil(x) is k with probability 2(Φ(k) − Φ(k−1)):
// 1: 0.6827, 2: 0.2718, 3: 0.0428, 4: 0.0027 (hand computed from Φ).
func TestSamplePositiveNormalIntHalfNormal(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	const n = 50000
	counts := map[int]int{}
	for range n {
		v := SamplePositiveNormalInt(rng, 0, 1)
		if v < 0 {
			t.Fatalf("negative sample %d", v)
		}
		counts[v]++
	}
	want := map[int]float64{1: 0.6827, 2: 0.2718, 3: 0.0428, 4: 0.0027}
	for k, p := range want {
		got := float64(counts[k]) / n
		if math.Abs(got-p) > 0.01 {
			t.Errorf("P(%d) = %.4f, want %.4f ± 0.01", k, got, p)
		}
	}
}

func TestSamplePositiveNormalIntHopeless(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	if got := SamplePositiveNormalInt(rng, -1000, 1); got != 0 {
		t.Errorf("N(-1000, 1) gave %d, want 0 after bounded rejection", got)
	}
}

func TestDeriveRand(t *testing.T) {
	a, b := deriveRand(42, streamISL), deriveRand(42, streamISL)
	for range 10 {
		if a.Uint64() != b.Uint64() {
			t.Fatal("same seed and stream gave different values")
		}
	}
	first := func(seed uint64, stream string) uint64 { return deriveRand(seed, stream).Uint64() }
	if first(42, streamISL) == first(42, streamCorpus) {
		t.Error("two streams of one seed start alike")
	}
	if first(42, streamISL) == first(43, streamISL) {
		t.Error("two seeds start alike")
	}
}
