package metrics

import (
	"math"
	"slices"
)

// The statistics below reproduce numpy bit for bit, because AIPerf computes
// its summaries with np.mean, np.std and np.percentile over a float64 array
// in arrival order:
//   - sums use numpy's pairwise summation (8-way unrolled blocks of up to
//     128 values, halves rounded to multiples of 8 above that);
//   - std is the population standard deviation, sqrt(sum((x-mean)^2)/n);
//   - percentiles use the "linear" method: index (n-1)*q, then numpy's
//     _lerp, which interpolates from the upper neighbour when the fraction
//     is >= 0.5.

// pairwiseSum returns numpy's np.add.reduce of a contiguous float64 array.
func pairwiseSum(a []float64) float64 {
	n := len(a)
	switch {
	case n < 8:
		res := 0.0
		for _, x := range a {
			res += x
		}
		return res
	case n <= 128:
		var r [8]float64
		copy(r[:], a[:8])
		i := 8
		for ; i < n-n%8; i += 8 {
			r[0] += a[i]
			r[1] += a[i+1]
			r[2] += a[i+2]
			r[3] += a[i+3]
			r[4] += a[i+4]
			r[5] += a[i+5]
			r[6] += a[i+6]
			r[7] += a[i+7]
		}
		res := ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
		for ; i < n; i++ {
			res += a[i]
		}
		return res
	}
	n2 := n / 2
	n2 -= n2 % 8
	return pairwiseSum(a[:n2]) + pairwiseSum(a[n2:])
}

// mean returns np.mean(a); a must not be empty.
func mean(a []float64) float64 { return pairwiseSum(a) / float64(len(a)) }

// popStd returns np.std(a) (ddof=0) given m = mean(a), using buf (at least
// len(a) long) as scratch space; a must not be empty.
func popStd(a []float64, m float64, buf []float64) float64 {
	sq := buf[:len(a)]
	for i, x := range a {
		d := x - m
		sq[i] = d * d
	}
	return math.Sqrt(pairwiseSum(sq) / float64(len(a)))
}

// percentile returns np.percentile(sorted, p) for an ascending, non-empty
// slice, with the default linear method.
func percentile(sorted []float64, p float64) float64 {
	n := len(sorted)
	q := p / 100
	virtual := float64(n-1) * q
	prev := math.Floor(virtual)
	lo, hi := int(prev), int(prev)+1
	if virtual >= float64(n-1) {
		// numpy takes the last value, with gamma computed from index -1.
		lo, hi, prev = n-1, n-1, -1
	}
	if virtual < 0 {
		lo, hi = 0, 0
	}
	return lerp(sorted[lo], sorted[hi], virtual-prev)
}

// lerp is numpy's _lerp: a + (b-a)*t, computed from b when t >= 0.5.
func lerp(a, b, t float64) float64 {
	diff := b - a
	if t >= 0.5 {
		return b - diff*(1-t)
	}
	return a + diff*t
}

// stats is a distribution's summary in base units.
type stats struct {
	avg, min, max, std float64
	p                  [len(Percentiles)]float64
}

// describe summarises a non-empty slice without modifying it.
func describe(a []float64) stats {
	buf := make([]float64, len(a))
	s := stats{avg: mean(a)}
	s.std = popStd(a, s.avg, buf)
	sorted := buf
	copy(sorted, a)
	slices.Sort(sorted)
	s.min, s.max = sorted[0], sorted[len(sorted)-1]
	for i, p := range Percentiles {
		s.p[i] = percentile(sorted, p)
	}
	return s
}

// Percentile returns the p-th percentile (0..100) of values by numpy's
// default linear interpolation, without modifying values. It returns 0 for
// an empty slice.
func Percentile(values []float64, p float64) float64 {
	if len(values) == 0 {
		return 0
	}
	sorted := slices.Clone(values)
	slices.Sort(sorted)
	return percentile(sorted, p)
}

// PairwiseSum returns numpy's np.add.reduce of a float64 array (pairwise
// summation), bit for bit, so that means match AIPerf's exactly.
func PairwiseSum(a []float64) float64 { return pairwiseSum(a) }

// PercentileSorted returns np.percentile(sorted, p) (linear) for an
// ascending, non-empty slice, bit for bit.
func PercentileSorted(sorted []float64, p float64) float64 { return percentile(sorted, p) }
