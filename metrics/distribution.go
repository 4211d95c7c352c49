package metrics

import (
	"math"
	"slices"
)

// exactCap is how many values a Distribution keeps exactly. A run of up to
// 250,000 requests keeps numpy's statistics bit for bit for its per-request
// metrics; the cap costs at most 2 MB per metric before it is reached.
const exactCap = 250_000

// Distribution is the values of one metric, summarised in memory that does
// not grow with the number of values.
//
// Up to 250,000 values it keeps every value and its statistics are exact:
// numpy's mean, population std and linear-interpolation percentiles, bit for
// bit. Beyond that cap it merges the values into a t-digest (see digest)
// and keeps running moments, in constant memory (about 100 KB):
//   - count, sum, min and max stay exact; the mean is sum/count;
//   - the population std comes from per-chunk moments combined with Chan's
//     parallel formula (within 1e-9 relative of the exact value);
//   - percentiles are sketched: each lies within 0.1% of its requested rank
//     in the exact sorted values (tested on 1,000,000 skewed values in
//     shuffled, ascending and descending order); when every value is an
//     integer they are rounded to integers, which keeps that bound where
//     many values are equal (token counts).
//
// The order of the values changes the exact statistics only by float
// rounding; past the cap it may move a percentile within the rank bound.
// The results are deterministic for a given sequence of values, the same
// whatever the cap once past it, and reading them changes nothing. Past
// the cap, Add costs about 100 ns on average, nearly all of it in every
// 8,192th Add, which sorts and merges a chunk (about 0.8 ms). NaN values
// are not supported.
//
// The zero value is an empty distribution ready to use. A Distribution is
// not safe for concurrent use.
type Distribution struct {
	// exact holds every value in arrival order until the cap is passed,
	// then nothing; sk holds the values from then on. Its blocks are never
	// copied as it grows (issue 19).
	exact chunked[float64]
	sk    *sketch
	// limit overrides exactCap when positive (tests).
	limit int

	n             int
	sum, min, max float64 // sum is a running sum in arrival order
	fractional    bool    // some value is not an integer
}

// NewDistribution returns an empty distribution. It is the same as
// new(Distribution).
func NewDistribution() *Distribution { return new(Distribution) }

// Add adds one value.
func (d *Distribution) Add(v float64) {
	if d.n == 0 || v < d.min {
		d.min = v
	}
	if d.n == 0 || v > d.max {
		d.max = v
	}
	d.n++
	d.sum += v
	if !d.fractional && v != math.Trunc(v) {
		d.fractional = true
	}
	if d.sk != nil {
		d.sk.add(v)
		return
	}
	limit := d.limit
	if limit <= 0 {
		limit = exactCap
	}
	if d.exact.len() < limit {
		// Capped so that the exact values never hold more than the cap's
		// memory.
		d.exact.pushCapped(v, limit)
		return
	}
	// Past the cap: the exact values are folded into the sketch and their
	// memory is released.
	d.sk = newSketch(&d.exact)
	d.exact = chunked[float64]{}
	d.sk.add(v)
}

// Len returns the number of values added.
func (d *Distribution) Len() int { return d.n }

// Sum returns the sum of the values, added in arrival order; 0 when empty.
func (d *Distribution) Sum() float64 { return d.sum }

// Min returns the smallest value, or 0 when empty.
func (d *Distribution) Min() float64 { return d.min }

// Max returns the largest value, or 0 when empty.
func (d *Distribution) Max() float64 { return d.max }

// Sketched reports whether the distribution has passed its cap, so that
// its percentiles are estimates (see Distribution).
func (d *Distribution) Sketched() bool { return d.sk != nil }

// Percentiles returns the p-th percentiles (0..100) of the values, in the
// order asked, by numpy's linear interpolation (exact up to the cap, within
// 0.1% of the rank beyond). It returns zeros when the distribution is
// empty and does not change the distribution.
func (d *Distribution) Percentiles(ps ...float64) []float64 {
	out := make([]float64, len(ps))
	switch {
	case d.n == 0:
	case d.sk != nil:
		t := d.sk.settled()
		for i, p := range ps {
			out[i] = d.settle(t.digest.quantile(p/100, d.min, d.max))
		}
	default:
		sorted := d.sortedExact()
		for i, p := range ps {
			out[i] = percentile(sorted, p)
		}
	}
	return out
}

// settle puts a sketched percentile within [min, max] and, when every value
// is an integer, rounds it to the nearest integer.
func (d *Distribution) settle(q float64) float64 {
	if !d.fractional {
		q = math.Round(q)
	}
	return min(max(q, d.min), d.max)
}

// sortedExact returns a sorted copy of the exact values.
func (d *Distribution) sortedExact() []float64 {
	sorted := d.exact.appendTo(make([]float64, 0, d.exact.len()))
	slices.Sort(sorted)
	return sorted
}

// describe summarises a non-empty distribution without changing it.
func (d *Distribution) describe() stats {
	if d.sk == nil {
		return describeExact(&d.exact)
	}
	t := d.sk.settled()
	s := stats{avg: d.sum / float64(d.n), min: d.min, max: d.max}
	s.std = math.Sqrt(t.m2 / float64(t.folded))
	for i, p := range Percentiles {
		s.p[i] = d.settle(t.digest.quantile(p/100, d.min, d.max))
	}
	return s
}

// describeExact is describe of the values of c, bit for bit, with one
// array of scratch as describe has: the values are copied into it for the
// mean, squared in place for the std, then copied again and sorted.
func describeExact(c *chunked[float64]) stats {
	buf := make([]float64, c.len())
	c.copyTo(buf)
	s := stats{avg: mean(buf)}
	s.std = popStd(buf, s.avg, buf)
	sorted := buf
	c.copyTo(sorted)
	slices.Sort(sorted)
	s.min, s.max = sorted[0], sorted[len(sorted)-1]
	for i, p := range Percentiles {
		s.p[i] = percentile(sorted, p)
	}
	return s
}
