package trace

import (
	"math"
	"math/big"
	"math/bits"
	"slices"

	"github.com/aiperf-go/aiperf/metrics"
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
// The arithmetic reproduces numpy bit for bit with metrics' helpers:
// pairwise summation for the mean and for the sum of squared deviations,
// numpy's _lerp for percentiles (computed from the upper neighbour when the
// fraction is >= 0.5), and np.median's (a+b)/2, which can differ in the last
// bit from percentile 50.
func summarize(values []float64) *Stats {
	n := len(values)
	if n == 0 {
		return nil
	}
	mean := metrics.PairwiseSum(values) / float64(n)
	buf := make([]float64, n)
	for i, x := range values {
		d := x - mean
		buf[i] = d * d
	}
	std := math.Sqrt(metrics.PairwiseSum(buf) / float64(n))
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
		P25:    metrics.PercentileSorted(sorted, 25),
		Median: median,
		P75:    metrics.PercentileSorted(sorted, 75),
		Max:    sorted[n-1],
	}
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
