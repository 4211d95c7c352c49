package metrics

import (
	"math"
	"slices"
)

// chunkLen values are buffered, sorted and merged into the digest
// together: sorting makes the order within a chunk irrelevant, and the
// buffer (64 KB) is most of a sketch's memory.
const chunkLen = 8192

// sketch is a Distribution past its cap: a t-digest of the values plus
// their exact moments, fed a chunk at a time.
type sketch struct {
	digest digest
	// pending are values not yet folded, fewer than chunkLen.
	pending []float64
	// folded, mean and m2 are the count, mean and sum of squared deviations
	// of the folded values.
	folded   int
	mean, m2 float64
}

// newSketch returns a sketch of the values of first, which it does not
// change or reference. The values are folded a chunk at a time in their
// order, as if the sketch had had them from the start: a first merge of
// the whole cap would make centroids as wide as that smaller total allows,
// which measurably costs accuracy later (rank errors of 3e-4 instead of
// 5e-5 on 1,000,000 lognormal values).
func newSketch(first *chunked[float64]) *sketch {
	s := &sketch{}
	for v := range first.values(0, first.len()) {
		s.add(v)
	}
	return s
}

// add adds one value, folding the pending chunk when it is full.
func (s *sketch) add(v float64) {
	if s.pending == nil {
		s.pending = make([]float64, 0, chunkLen)
	}
	s.pending = append(s.pending, v)
	if len(s.pending) == chunkLen {
		s.fold(s.pending)
		s.pending = s.pending[:0]
	}
}

// fold sorts chunk in place and adds it to the moments and the digest.
func (s *sketch) fold(chunk []float64) {
	if len(chunk) == 0 {
		return
	}
	slices.Sort(chunk)
	s.combine(chunk)
	s.digest.merge(chunk)
}

// combine adds a sorted chunk's count, mean and squared deviations to the
// moments with Chan et al.'s parallel formula, which loses no precision to
// cancellation whatever the values' offset.
func (s *sketch) combine(chunk []float64) {
	nb := float64(len(chunk))
	mb := pairwiseSum(chunk) / nb
	var m2b, c float64 // Neumaier-compensated sum of (x-mb)²
	for _, x := range chunk {
		d := (x - mb) * (x - mb)
		t := m2b + d
		if math.Abs(m2b) >= math.Abs(d) {
			c += (m2b - t) + d
		} else {
			c += (d - t) + m2b
		}
		m2b = t
	}
	m2b += c
	if s.folded == 0 {
		s.folded, s.mean, s.m2 = len(chunk), mb, m2b
		return
	}
	na := float64(s.folded)
	n := na + nb
	delta := mb - s.mean
	s.mean += delta * nb / n
	s.m2 += m2b + delta*delta*na*nb/n
	s.folded += len(chunk)
}

// settled returns a sketch with the pending values folded in: s itself
// when none are pending, else a copy, leaving s as it was.
func (s *sketch) settled() *sketch {
	if len(s.pending) == 0 {
		return s
	}
	t := &sketch{digest: s.digest.clone(), folded: s.folded, mean: s.mean, m2: s.m2}
	t.fold(slices.Clone(s.pending))
	return t
}
