package metrics

import (
	"math"
	"slices"
	"sort"
)

// The reference statistics: sweep_stats.go and sweepLog.results as they
// were before issue 19 (a products array, an order array and a cumulative
// array per curve, every curve alive at once).

// refWeighted computes sweepStats of values held for durations, dividing the
// mean and variance by total (the window, or the active time). Values
// with a zero duration must already be left out. A percentile is the
// smallest value whose cumulative share of the time reaches q.
func refWeighted(vals, durs []float64, total float64) sweepStats {
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

// refSearchRight is np.searchsorted(ts, t, side="right").
func refSearchRight(ts []float64, t float64) int {
	return sort.Search(len(ts), func(i int) bool { return ts[i] > t })
}

// refSearchLeft is np.searchsorted(ts, t, side="left").
func refSearchLeft(ts []float64, t float64) int {
	return sort.Search(len(ts), func(i int) bool { return ts[i] >= t })
}

// refTimeWeighted returns the statistics of s over [ws, we]: the value held
// before s's first refEvent is 0, and the mean divides by the whole window.
// A curve without events or an empty window gives zeros.
func refTimeWeighted(s refStep, ws, we float64) sweepStats {
	total := we - ws
	if len(s.ts) == 0 || total <= 0 {
		return sweepStats{}
	}
	lo := max(0, refSearchRight(s.ts, ws)-1)
	hi := min(len(s.ts), refSearchLeft(s.ts, we)+1)
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
	return refWeighted(vals, durs, total)
}

// refActiveWeighted returns the statistics of rate over [ws, we] counting
// only the time when mask is positive (a phase has a request in flight);
// the mean divides by that active time. No active time gives zeros.
func refActiveWeighted(rate, mask refStep, ws, we float64) sweepStats {
	if we-ws <= 0 || len(rate.ts) == 0 || len(mask.ts) == 0 {
		return sweepStats{}
	}
	grid := []float64{ws, we}
	grid = append(grid, rate.ts[refSearchRight(rate.ts, ws):max(refSearchRight(rate.ts, ws), refSearchLeft(rate.ts, we))]...)
	grid = append(grid, mask.ts[refSearchRight(mask.ts, ws):max(refSearchRight(mask.ts, ws), refSearchLeft(mask.ts, we))]...)
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
	return refWeighted(vals, durs, active)
}

// refResults is sweepLog.results as it was before issue 19.
func refResults(l *sweepLog, in *[2]float64) []Result {
	ivs := l.ivs.appendTo(nil)
	conc := refConcurrencySweep(ivs, ivStart, ivEnd)
	if len(conc.ts) == 0 {
		return nil
	}
	genConc := refConcurrencySweep(ivs, ivGen, ivEnd)
	pfConc := refConcurrencySweep(ivs, ivStart, ivGen)
	decode, inFlight := refDecodeSweep(ivs), refTokensInFlightSweep(ivs)
	if l.icl.any() {
		decode, inFlight = refDecodeSweepICL(ivs, &l.icl), refTokensInFlightSweepICL(ivs, &l.icl)
	}
	prefill, total := refPrefillSweep(ivs), refTotalSweep(ivs)
	decodeUser, prefillUser := refDivideSteps(decode, genConc), refDivideSteps(prefill, pfConc)

	ws, we := conc.ts[0], conc.ts[len(conc.ts)-1]
	if s, e, ok := l.windowed(); ok {
		ws, we = float64(s), float64(e)
	}
	if in != nil {
		ws, we = in[0], in[1]
	}
	stats := [len(sweepSpecs)]sweepStats{
		refTimeWeighted(conc, ws, we), refTimeWeighted(decode, ws, we), refTimeWeighted(prefill, ws, we),
		refTimeWeighted(genConc, ws, we), refTimeWeighted(pfConc, ws, we), refTimeWeighted(total, ws, we),
		refTimeWeighted(decodeUser, ws, we), refTimeWeighted(prefillUser, ws, we), refTimeWeighted(inFlight, ws, we),
		refActiveWeighted(decode, genConc, ws, we), refActiveWeighted(prefill, pfConc, ws, we),
		refActiveWeighted(decodeUser, genConc, ws, we), refActiveWeighted(prefillUser, pfConc, ws, we),
		refActiveWeighted(total, conc, ws, we),
	}
	out := make([]Result, len(sweepSpecs))
	for i, sp := range sweepSpecs {
		st, f := stats[i], sp.scale
		r := Result{
			Tag: sp.tag, Header: sp.header, Unit: sp.unit, Group: sp.group, Console: true,
			DisplayOrder: orderSweep + i, Missing: sweepMissing,
			Avg: st.avg * f, Min: st.min * f, Max: st.max * f, Std: st.std * f,
		}
		r.P[4], r.P[6], r.P[7], r.P[8] = st.p50*f, st.p90*f, st.p95*f, st.p99*f
		out[i] = r
	}
	return out
}
