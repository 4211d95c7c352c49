package metrics

import (
	"math"
	"slices"
	"sort"
)

// sweepStats are the time-weighted statistics of a step function over a
// window (AIPerf's SweepLineStats): a value counts in proportion to how
// long it was held. The percentiles are p50, p90, p95 and p99.
type sweepStats struct {
	avg, min, max, std float64
	p50, p90, p95, p99 float64
}

// held is one segment of a curve as the statistics see it: the value v,
// held for d > 0.
type held struct{ v, d float64 }

// scratch is the array of held segments that the statistics of one curve
// after another reuse, so the summary allocates it once at its largest.
type scratch struct{ h []held }

// take returns an empty slice with room for n segments.
func (s *scratch) take(n int) []held {
	if cap(s.h) < n {
		s.h = make([]held, n)
	}
	return s.h[:0]
}

// weighted computes sweepStats of the segments h, dividing the mean and
// variance by total (the window, or the active time); h must not be empty.
// A percentile is the smallest value whose cumulative share of the time
// reaches q. It sorts h by value (stably) in place.
//
// The results equal numpy's over arrays of the values and durations: the
// products are summed pairwise in h's order as pairwiseSum sums an array
// of them, and the cumulative time in sorted order as np.cumsum does.
func weighted(h []held, total float64) sweepStats {
	st := sweepStats{min: h[0].v, max: h[0].v}
	for _, x := range h[1:] {
		st.min, st.max = min(st.min, x.v), max(st.max, x.v)
	}
	// The explicit conversions round each product before it is added, as
	// storing it in an array would (Go may otherwise fuse a multiply-add).
	st.avg = pairwiseHeld(h, func(x held) float64 { return float64(x.v * x.d) }) / total
	avg := st.avg
	st.std = math.Sqrt(pairwiseHeld(h, func(x held) float64 {
		dv := x.v - avg
		return float64(float64(x.d*dv) * dv)
	}) / total)

	slices.SortStableFunc(h, func(a, b held) int {
		switch {
		case a.v < b.v:
			return -1
		case a.v > b.v:
			return 1
		}
		return 0
	})
	all := 0.0
	for _, x := range h {
		all += x.d
	}
	// The share cum/all grows with the index (every d > 0), so the first
	// index reaching each q, in increasing q, is found in one pass.
	qs := [...]float64{0.50, 0.90, 0.95, 0.99}
	ps := [...]*float64{&st.p50, &st.p90, &st.p95, &st.p99}
	k, cum := 0, 0.0
	for _, x := range h {
		cum += x.d
		for ; k < len(qs) && cum/all >= qs[k]; k++ {
			*ps[k] = x.v
		}
	}
	for ; k < len(qs); k++ {
		*ps[k] = h[len(h)-1].v
	}
	return st
}

// pairwiseHeld returns pairwiseSum of term(h[i]) over h without an array
// of the terms: the same blocks, adding in the same order.
func pairwiseHeld(h []held, term func(held) float64) float64 {
	n := len(h)
	switch {
	case n < 8:
		res := 0.0
		for _, x := range h {
			res += term(x)
		}
		return res
	case n <= 128:
		var r [8]float64
		for j := range r {
			r[j] = term(h[j])
		}
		i := 8
		for ; i < n-n%8; i += 8 {
			for j := range r {
				r[j] += term(h[i+j])
			}
		}
		res := ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
		for ; i < n; i++ {
			res += term(h[i])
		}
		return res
	}
	n2 := n / 2
	n2 -= n2 % 8
	return pairwiseHeld(h[:n2], term) + pairwiseHeld(h[n2:], term)
}

// searchRight is np.searchsorted(times, t, side="right").
func searchRight(s step, t float64) int {
	return sort.Search(len(s), func(i int) bool { return s[i].t > t })
}

// searchLeft is np.searchsorted(times, t, side="left").
func searchLeft(s step, t float64) int {
	return sort.Search(len(s), func(i int) bool { return s[i].t >= t })
}

// timeWeighted returns the statistics of s over [ws, we]: the value held
// before s's first point is 0, and the mean divides by the whole window.
// A curve without points or an empty window gives zeros. sc holds the
// segments.
func timeWeighted(s step, ws, we float64, sc *scratch) sweepStats {
	total := we - ws
	if len(s) == 0 || total <= 0 {
		return sweepStats{}
	}
	// The segments are [ws, s[lo].t) holding the value before lo, then
	// s[i] for lo <= i < hi, each until the next point or we, clipped to
	// the window; empty ones are left out.
	lo := max(0, searchRight(s, ws)-1)
	hi := min(len(s), searchLeft(s, we)+1)
	h := sc.take(hi - lo + 1)
	start, v := ws, s.valueBefore(lo)
	for i := lo; i <= hi; i++ {
		end := we
		if i < hi {
			end = s[i].t
		}
		if d := min(end, we) - max(start, ws); d > 0 {
			h = append(h, held{v, d})
		}
		if i < hi {
			start, v = s[i].t, s[i].v
		}
	}
	if len(h) == 0 {
		return sweepStats{}
	}
	return weighted(h, total)
}

// activeWeighted returns the statistics of rate over [ws, we] counting
// only the time when mask is positive (a phase has a request in flight);
// the mean divides by that active time. No active time gives zeros. sc
// holds the segments.
//
// The segments run between the distinct times of ws, we and both curves'
// points strictly inside the window; the walk merges the two curves,
// keeping for each its count of points at or before the segment's start.
func activeWeighted(rate, mask step, ws, we float64, sc *scratch) sweepStats {
	if we-ws <= 0 || len(rate) == 0 || len(mask) == 0 {
		return sweepStats{}
	}
	ri, mi := searchRight(rate, ws), searchRight(mask, ws)
	rEnd, mEnd := max(ri, searchLeft(rate, we)), max(mi, searchLeft(mask, we))
	h := sc.take(rEnd - ri + mEnd - mi + 1)
	active := 0.0
	for cur := ws; ; {
		next := we
		if ri < rEnd {
			next = min(next, rate[ri].t)
		}
		if mi < mEnd {
			next = min(next, mask[mi].t)
		}
		if d := next - cur; d > 0 && mask.valueBefore(mi) > 0 {
			h = append(h, held{rate.valueBefore(ri), d})
			active += d
		}
		if ri == rEnd && mi == mEnd {
			break
		}
		cur = next
		for ri < rEnd && rate[ri].t == cur {
			ri++
		}
		for mi < mEnd && mask[mi].t == cur {
			mi++
		}
	}
	if len(h) == 0 || active <= 0 {
		return sweepStats{}
	}
	return weighted(h, active)
}
