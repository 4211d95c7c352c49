package dataset

import (
	"fmt"
	"math/rand/v2"
)

// Conversation sampling strategies (--dataset-sampling-strategy).
const (
	SamplingSequential = "sequential" // in order, wrapping around
	SamplingRandom     = "random"     // uniform, with replacement
	SamplingShuffle    = "shuffle"    // permutations without replacement
)

// Sampler picks which conversation the next request uses (§4.1). A Sampler
// is not safe for concurrent use: the one goroutine that issues credits owns
// it.
type Sampler interface {
	// Next returns the index, in [0, n), of the next conversation. It never
	// blocks and never runs out.
	Next() int
}

// NewSampler returns a sampler over n conversations for strategy:
// sequential gives 0, 1, …, n-1, 0, …; random draws uniformly with
// replacement; shuffle gives a random permutation of 0..n-1, then another,
// and so on. random and shuffle are reproducible for a given seed. It returns
// an error for n <= 0 or an unknown strategy.
func NewSampler(strategy string, n int, seed uint64) (Sampler, error) {
	if n <= 0 {
		return nil, fmt.Errorf("sampler: %d conversations: must be > 0", n)
	}
	switch strategy {
	case SamplingSequential:
		return &sequentialSampler{n: n}, nil
	case SamplingRandom:
		return &randomSampler{n: n, rng: deriveRand(seed, streamSampler)}, nil
	case SamplingShuffle:
		s := &shuffleSampler{rng: deriveRand(seed, streamSampler), perm: make([]int, n)}
		for i := range s.perm {
			s.perm[i] = i
		}
		s.pos = n // shuffle on first use
		return s, nil
	default:
		return nil, fmt.Errorf("sampler: unknown strategy %q: want %s, %s or %s",
			strategy, SamplingSequential, SamplingRandom, SamplingShuffle)
	}
}

type sequentialSampler struct{ n, next int }

func (s *sequentialSampler) Next() int {
	i := s.next
	s.next = (s.next + 1) % s.n
	return i
}

type randomSampler struct {
	n   int
	rng *rand.Rand
}

func (s *randomSampler) Next() int { return s.rng.IntN(s.n) }

type shuffleSampler struct {
	rng  *rand.Rand
	perm []int
	pos  int
}

func (s *shuffleSampler) Next() int {
	if s.pos == len(s.perm) {
		s.rng.Shuffle(len(s.perm), func(i, j int) { s.perm[i], s.perm[j] = s.perm[j], s.perm[i] })
		s.pos = 0
	}
	i := s.perm[s.pos]
	s.pos++
	return i
}
