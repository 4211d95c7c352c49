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

// weighted computes sweepStats of values held for durations, dividing the
// mean and variance by total (the window, or the active time). Values
// with a zero duration must already be left out. A percentile is the
// smallest value whose cumulative share of the time reaches q.
func weighted(vals, durs []float64, total float64) sweepStats {
	prod := make([]float64, len(vals))
	for i := range vals {
		prod[i] = vals[i] * durs[i]
	}
	st := sweepStats{avg: pairwiseSum(prod) / total, min: slices.Min(vals), max: slices.Max(vals)}
	for i := range vals {
		d := vals[i] - st.avg
		prod[i] = durs[i] * d * d
	}
	st.std = math.Sqrt(pairwiseSum(prod) / total)

	order := make([]int, len(vals))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case vals[a] < vals[b]:
			return -1
		case vals[a] > vals[b]:
			return 1
		}
		return 0
	})
	cum := make([]float64, len(order))
	acc := 0.0
	for i, j := range order {
		acc += durs[j]
		cum[i] = acc
	}
	pick := func(q float64) float64 {
		i := sort.Search(len(cum), func(i int) bool { return cum[i]/acc >= q })
		return vals[order[min(i, len(order)-1)]]
	}
	st.p50, st.p90, st.p95, st.p99 = pick(0.50), pick(0.90), pick(0.95), pick(0.99)
	return st
}

// searchRight is np.searchsorted(ts, t, side="right").
func searchRight(ts []float64, t float64) int {
	return sort.Search(len(ts), func(i int) bool { return ts[i] > t })
}

// searchLeft is np.searchsorted(ts, t, side="left").
func searchLeft(ts []float64, t float64) int {
	return sort.Search(len(ts), func(i int) bool { return ts[i] >= t })
}

// timeWeighted returns the statistics of s over [ws, we]: the value held
// before s's first event is 0, and the mean divides by the whole window.
// A curve without events or an empty window gives zeros.
func timeWeighted(s step, ws, we float64) sweepStats {
	total := we - ws
	if len(s.ts) == 0 || total <= 0 {
		return sweepStats{}
	}
	lo := max(0, searchRight(s.ts, ws)-1)
	hi := min(len(s.ts), searchLeft(s.ts, we)+1)
	n := hi - lo
	segStart := make([]float64, n+1)
	segVal := make([]float64, n+1)
	segStart[0] = ws
	if lo > 0 {
		segVal[0] = s.vals[lo-1]
	}
	copy(segStart[1:], s.ts[lo:hi])
	copy(segVal[1:], s.vals[lo:hi])
	var vals, durs []float64
	for i := range segStart {
		end := we
		if i+1 < len(segStart) {
			end = segStart[i+1]
		}
		if d := min(end, we) - max(segStart[i], ws); d > 0 {
			vals = append(vals, segVal[i])
			durs = append(durs, d)
		}
	}
	if len(vals) == 0 {
		return sweepStats{}
	}
	return weighted(vals, durs, total)
}

// activeWeighted returns the statistics of rate over [ws, we] counting
// only the time when mask is positive (a phase has a request in flight);
// the mean divides by that active time. No active time gives zeros.
func activeWeighted(rate, mask step, ws, we float64) sweepStats {
	if we-ws <= 0 || len(rate.ts) == 0 || len(mask.ts) == 0 {
		return sweepStats{}
	}
	grid := []float64{ws, we}
	grid = append(grid, rate.ts[searchRight(rate.ts, ws):max(searchRight(rate.ts, ws), searchLeft(rate.ts, we))]...)
	grid = append(grid, mask.ts[searchRight(mask.ts, ws):max(searchRight(mask.ts, ws), searchLeft(mask.ts, we))]...)
	slices.Sort(grid)
	grid = slices.Compact(grid)
	var vals, durs []float64
	active := 0.0
	for i := 0; i+1 < len(grid); i++ {
		d := grid[i+1] - grid[i]
		if d > 0 && mask.at(grid[i]) > 0 {
			vals = append(vals, rate.at(grid[i]))
			durs = append(durs, d)
			active += d
		}
	}
	if len(vals) == 0 || active <= 0 {
		return sweepStats{}
	}
	return weighted(vals, durs, active)
}
