package metrics

import (
	"math"
	"strconv"
)

// adjustedIDs are the metrics AIPerf 0.13 flags
// PERCENTILE_INCLUDES_FAILED_REQUESTS, in the order its summary lists
// their adj_* results.
var adjustedIDs = [...]metricID{idLatency, idTTFT, idDecode, idITL}

// adjustedResults returns AIPerf 0.13's error-adjusted distributions
// (derived_latency.py, issue #688): for each metric of adjustedIDs with
// values, the successful values plus one +Inf per failed request, with
// numpy's "nearest" percentiles: rank round-half-even(q/100 * (n-1)) of the
// n sorted values. avg, sum and max are +Inf and std undefined; those, and
// the percentiles that land on a failure, are listed in Missing (AIPerf
// writes only finite statistics). nil when errors is 0.
func (a *Accumulator) adjustedResults(errors int) []Result {
	if errors <= 0 {
		return nil
	}
	var out []Result
	for i, id := range adjustedIDs {
		d := &catalog[id]
		dist := &a.dist[id]
		if !a.en[id] || dist.Len() == 0 {
			continue
		}
		clean := dist.Len()
		n := clean + errors
		f := d.toDisplay
		inf := math.Inf(1)
		r := Result{
			Tag: "adj_" + d.Tag, Header: d.Header + " (error-adjusted)", Unit: d.DisplayUnit,
			Console: true, DisplayOrder: orderAdjusted + i, Count: n,
			Avg: inf, Sum: inf, Max: inf, Std: math.NaN(), Min: dist.Min() * f,
			Missing: []string{"avg", "max", "std", "sum"},
		}
		rank := dist.ranker()
		for j, p := range Percentiles {
			k := int(math.RoundToEven(p / 100 * float64(n-1)))
			if k >= clean {
				r.P[j] = inf
				r.Missing = append(r.Missing, "p"+strconv.FormatFloat(p, 'f', -1, 64))
				continue
			}
			r.P[j] = rank(k) * f
		}
		out = append(out, r)
	}
	return out
}

// ranker returns a function giving the k-th smallest value (0-based) of a
// non-empty distribution: exact up to the cap, the sketch's estimate of
// rank k beyond.
func (d *Distribution) ranker() func(k int) float64 {
	if d.sk == nil {
		sorted := d.sortedExact()
		return func(k int) float64 { return sorted[k] }
	}
	t := d.sk.settled()
	return func(k int) float64 {
		q := 0.0
		if d.n > 1 {
			q = float64(k) / float64(d.n-1)
		}
		return d.settle(t.digest.quantile(q, d.min, d.max))
	}
}
