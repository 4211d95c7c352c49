package dataset

import (
	"slices"
	"strings"
	"testing"
)

func TestSequentialSampler(t *testing.T) {
	s, err := NewSampler(SamplingSequential, 4, 99)
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	for range 10 {
		got = append(got, s.Next())
	}
	if want := []int{0, 1, 2, 3, 0, 1, 2, 3, 0, 1}; !slices.Equal(got, want) {
		t.Errorf("sequential = %v, want %v", got, want)
	}
}

func TestRandomSampler(t *testing.T) {
	const n, draws = 10, 20000
	s, err := NewSampler(SamplingRandom, n, 5)
	if err != nil {
		t.Fatal(err)
	}
	counts := make([]int, n)
	repeats := 0
	prev := -1
	for range draws {
		i := s.Next()
		if i < 0 || i >= n {
			t.Fatalf("index %d out of [0, %d)", i, n)
		}
		counts[i]++
		if i == prev {
			repeats++
		}
		prev = i
	}
	// Each count is Binomial(20000, 0.1): mean 2000, sd ≈ 42.
	for i, c := range counts {
		if c < 1800 || c > 2200 {
			t.Errorf("index %d drawn %d times, want 2000 ± 200", i, c)
		}
	}
	// With replacement, the same index follows itself about 10% of the time.
	if repeats < 1600 || repeats > 2400 {
		t.Errorf("%d immediate repeats, want about 2000", repeats)
	}
}

func TestShuffleSampler(t *testing.T) {
	const n = 10
	s, err := NewSampler(SamplingShuffle, n, 5)
	if err != nil {
		t.Fatal(err)
	}
	identity := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	var blocks [][]int
	for range 5 {
		block := make([]int, n)
		for i := range block {
			block[i] = s.Next()
		}
		if sorted := slices.Sorted(slices.Values(block)); !slices.Equal(sorted, identity) {
			t.Fatalf("block %v is not a permutation of 0..%d", block, n-1)
		}
		blocks = append(blocks, block)
	}
	distinct := 0
	for i := 1; i < len(blocks); i++ {
		if !slices.Equal(blocks[i], blocks[i-1]) {
			distinct++
		}
	}
	if distinct == 0 {
		t.Error("shuffle never reshuffled")
	}
	if slices.Equal(blocks[0], identity) && slices.Equal(blocks[1], identity) {
		t.Error("shuffle kept the identity order")
	}
}

func TestSamplerDeterministic(t *testing.T) {
	for _, strategy := range []string{SamplingSequential, SamplingRandom, SamplingShuffle} {
		a, _ := NewSampler(strategy, 50, 123)
		b, _ := NewSampler(strategy, 50, 123)
		c, _ := NewSampler(strategy, 50, 124)
		same, differs := true, false
		for range 200 {
			x, y, z := a.Next(), b.Next(), c.Next()
			same = same && x == y
			differs = differs || x != z
		}
		if !same {
			t.Errorf("%s: same seed gave different sequences", strategy)
		}
		if strategy != SamplingSequential && !differs {
			t.Errorf("%s: different seeds gave the same sequence", strategy)
		}
	}
}

func TestNewSamplerErrors(t *testing.T) {
	_, err := NewSampler("round_robin", 3, 1)
	if err == nil {
		t.Fatal("unknown strategy: no error")
	}
	for _, name := range []string{"sequential", "random", "shuffle", "round_robin"} {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("error %q does not name %s", err, name)
		}
	}
	for _, n := range []int{0, -1} {
		if _, err := NewSampler(SamplingSequential, n, 1); err == nil {
			t.Errorf("n=%d: no error", n)
		}
	}
	s, err := NewSampler(SamplingShuffle, 1, 1)
	if err != nil || s.Next() != 0 || s.Next() != 0 {
		t.Error("shuffle over one conversation must always give 0")
	}
}
