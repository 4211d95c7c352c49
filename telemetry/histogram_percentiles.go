package telemetry

import (
	"math"
	"slices"

	"github.com/aiperf-go/aiperf/metrics"
)

// maxObservations bounds the observations generated for one estimate, as
// AIPerf's _MAX_OBSERVATIONS: larger histograms are scaled down
// proportionally (counts and sum alike).
const maxObservations = 100_000

// histogramPercentiles are the percentiles AIPerf estimates from a
// histogram: p1, p5, p10, p25, p50, p75, p90, p95, p99.
var histogramPercentiles = [9]float64{1, 5, 10, 25, 50, 75, 90, 95, 99}

// estimatePercentiles is AIPerf's compute_estimated_percentiles: it places
// the window's observations inside their buckets (at the learned means, or
// spread by the learned variance, else uniformly around the midpoint),
// back-calculates the +Inf bucket's observations from the exact sum, nudges
// the finite ones so that everything adds up to that sum, and takes numpy's
// linear percentiles of the result. bounds are the buckets' upper bounds in
// ascending order (+Inf last, if present), deltas their cumulative counts
// over the window, stats what was learned per bucket (aligned with bounds).
// It returns false where AIPerf returns None (no count, a sum that is
// negative or not finite, no finite bucket, nothing generated).
func estimatePercentiles(bounds []float64, deltas []int64, stats []bucketStat, totalSum float64, totalCount int64) ([9]float64, bool) {
	var out [9]float64
	if totalCount <= 0 || len(bounds) == 0 || math.IsNaN(totalSum) || math.IsInf(totalSum, 0) || totalSum < 0 {
		return out, false
	}
	if totalSum == 0 { // every observation was exactly 0
		return out, true
	}
	// Per-bucket counts from the cumulative ones: finite buckets, then +Inf.
	nf := len(bounds)
	if math.IsInf(bounds[nf-1], 1) {
		nf--
	}
	if nf == 0 {
		return out, false
	}
	maxFinite := bounds[0]
	for _, b := range bounds[:nf] {
		maxFinite = max(maxFinite, b)
	}
	per := make([]float64, len(bounds))
	prev := 0.0
	for i := range bounds {
		per[i] = float64(deltas[i]) - prev
		prev = float64(deltas[i])
	}
	total := 0.0
	for _, c := range per {
		total += c
	}
	if total > maxObservations {
		ratio := maxObservations / total
		for i := range per {
			per[i] *= ratio
		}
		totalSum *= ratio
	}
	infCount := 0
	if nf < len(bounds) && per[nf] > 0 {
		infCount = int(math.Ceil(per[nf]))
	}

	estFinite := 0.0
	for i := range nf {
		if per[i] <= 0 {
			continue
		}
		lower, upper := bucketBounds(bounds, i)
		mean := (lower + upper) / 2
		if m, ok := stats[i].estimatedMean(); ok && lower < m && m < upper {
			mean = m
		}
		estFinite += float64(per[i] * mean)
	}
	inf := infObservations(totalSum, estFinite, infCount, maxFinite)
	infSum := 0.0
	if len(inf) > 0 {
		infSum = metrics.PairwiseSum(inf)
	}
	obs := finiteObservations(bounds[:nf], per[:nf], totalSum-infSum, stats)
	obs = append(obs, inf...)
	if len(obs) == 0 {
		return out, false
	}
	slices.Sort(obs)
	for i, p := range histogramPercentiles {
		out[i] = metrics.PercentileSorted(obs, p)
	}
	return out, true
}

// bucketBounds returns finite bucket i's range: from the previous bound
// (0 for the first bucket, as AIPerf assumes) to its own.
func bucketBounds(bounds []float64, i int) (lower, upper float64) {
	if i > 0 {
		lower = bounds[i-1]
	}
	return lower, bounds[i]
}

// infObservations is AIPerf's _estimate_inf_bucket_observations: the +Inf
// bucket's count observations spread uniformly from the largest finite
// bound so that their mean is the sum left over by the finite buckets
// (1.5 times that bound when the leftover is implausible).
func infObservations(totalSum, estFinite float64, count int, maxFinite float64) []float64 {
	if count <= 0 {
		return nil
	}
	avg := maxFinite * 1.5
	if rest := totalSum - estFinite; rest > 0 {
		avg = rest / float64(count)
		if avg <= maxFinite {
			avg = maxFinite * 1.5
		}
	}
	upper := float64(2*avg) - maxFinite
	if upper <= maxFinite {
		upper = maxFinite * 2
	}
	if count == 1 {
		return []float64{avg}
	}
	return linspace(maxFinite, upper, count)
}

// linspace is numpy's np.linspace(start, stop, n) for n >= 2.
func linspace(start, stop float64, n int) []float64 {
	out := make([]float64, n)
	div := float64(n - 1)
	delta := stop - start
	step := delta / div
	for i := range out {
		if step == 0 {
			out[i] = float64(float64(i)/div*delta) + start
		} else {
			out[i] = float64(float64(i)*step) + start
		}
	}
	out[n-1] = stop
	return out
}

// clip is np.clip(x, lo, hi).
func clip(x, lo, hi float64) float64 { return min(max(x, lo), hi) }
