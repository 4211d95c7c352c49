package trace

import (
	"math"
	"math/big"
	"math/bits"
	"slices"
)

// Stats is AIPerf's MetricStats: a distribution's summary as numpy computes
// it over the per-row values in file order.
type Stats struct {
	Mean   float64 `json:"mean"`    // np.mean
	StdDev float64 `json:"std_dev"` // np.std: population (ddof=0)
	Min    float64 `json:"min"`
	P25    float64 `json:"p25"`    // np.percentile, linear interpolation
	Median float64 `json:"median"` // np.median: mean of the middle two for even n
	P75    float64 `json:"p75"`
	Max    float64 `json:"max"`
}

// summarize returns the Stats of values, or nil for no values (AIPerf's
// None, written as null). values is not modified.
//
// The arithmetic reproduces numpy bit for bit, as metrics/stats.go does for
// the profile export: pairwise summation for the mean and for the sum of
// squared deviations, numpy's _lerp for percentiles (computed from the
// upper neighbour when the fraction is >= 0.5), and np.median's
// (a+b)/2 — which can differ in the last bit from percentile 50.
func summarize(values []float64) *Stats {
	n := len(values)
	if n == 0 {
		return nil
	}
	mean := pairwiseSum(values) / float64(n)
	buf := make([]float64, n)
	for i, x := range values {
		d := x - mean
		buf[i] = d * d
	}
	std := math.Sqrt(pairwiseSum(buf) / float64(n))
	sorted := buf
	copy(sorted, values)
	slices.Sort(sorted)
	median := sorted[n/2]
	if n%2 == 0 {
		median = (sorted[n/2-1] + sorted[n/2]) / 2
	}
	return &Stats{
		Mean:   mean,
		StdDev: std,
		Min:    sorted[0],
		P25:    percentile(sorted, 0.25),
		Median: median,
		P75:    percentile(sorted, 0.75),
		Max:    sorted[n-1],
	}
}

// pairwiseSum returns numpy's np.add.reduce of a contiguous float64 array:
// 8 accumulators over blocks of up to 128 values, halves rounded down to a
// multiple of 8 above that. For integer values whose partial sums stay below
// 2^53 every order gives the exact sum, so it also matches np.mean of an
// int64 array.
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

// percentile returns np.percentile(sorted, 100*q) for an ascending,
// non-empty slice: index (n-1)*q, then numpy's _lerp.
func percentile(sorted []float64, q float64) float64 {
	n := len(sorted)
	virtual := float64(n-1) * q
	lo := int(math.Floor(virtual))
	hi := min(lo+1, n-1)
	t := virtual - float64(lo)
	a, b := sorted[lo], sorted[hi]
	diff := b - a
	if t >= 0.5 {
		return b - diff*(1-t)
	}
	return a + diff*t
}

// exactMean returns Python's statistics.mean of values: the exact rational
// mean of the floats, rounded once to the nearest float64 (cache_hit_rate
// uses it, not np.mean). values must be finite and non-negative; it returns
// 0 for none, as AIPerf does.
//
// Each value is m·2^e with an integer m < 2^53; the m are summed exactly
// per exponent in 128-bit accumulators and combined with math/big once.
func exactMean(values []float64) float64 {
	if len(values) == 0 {
		return 0
	}
	type acc struct{ hi, lo uint64 }
	sums := map[int]*acc{}
	for _, x := range values {
		if x == 0 {
			continue
		}
		frac, exp := math.Frexp(x) // x = frac·2^exp, frac in [0.5, 1)
		m := uint64(math.Ldexp(frac, 53))
		e := exp - 53
		a := sums[e]
		if a == nil {
			a = &acc{}
			sums[e] = a
		}
		var carry uint64
		a.lo, carry = bits.Add64(a.lo, m, 0)
		a.hi += carry
	}
	minExp := 0
	for e := range sums {
		minExp = min(minExp, e)
	}
	total := new(big.Int)
	var part big.Int
	for e, a := range sums {
		part.SetUint64(a.hi)
		part.Lsh(&part, 64)
		part.Or(&part, new(big.Int).SetUint64(a.lo))
		part.Lsh(&part, uint(e-minExp))
		total.Add(total, &part)
	}
	// mean = total·2^minExp / n
	num, den := total, big.NewInt(int64(len(values)))
	if minExp < 0 {
		den.Lsh(den, uint(-minExp))
	} else {
		num.Lsh(num, uint(minExp))
	}
	f, _ := new(big.Rat).SetFrac(num, den).Float64()
	return f
}

// intSum is an exact sum of non-negative int64 values (128 bits, enough for
// 2^64 values).
type intSum struct{ hi, lo uint64 }

func (s *intSum) add(v int64) {
	var carry uint64
	s.lo, carry = bits.Add64(s.lo, uint64(v), 0)
	s.hi += carry
}

// mean returns the float64 nearest sum/n (Python's sum(ints) / len(ints)),
// 0 when n is 0.
func (s *intSum) mean(n int) float64 {
	if n == 0 {
		return 0
	}
	num := new(big.Int).SetUint64(s.hi)
	num.Lsh(num, 64)
	num.Or(num, new(big.Int).SetUint64(s.lo))
	f, _ := new(big.Rat).SetFrac(num, big.NewInt(int64(n))).Float64()
	return f
}

// ratio returns the float64 nearest a/b (Python's int / int), 0 when b is 0.
func ratio(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	f, _ := new(big.Rat).SetFrac64(a, b).Float64()
	return f
}
