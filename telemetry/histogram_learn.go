package telemetry

import (
	"math"

	"github.com/aiperf-go/aiperf/metrics"
)

// exactMeans is how many interval means a bucket keeps exactly. Up to it,
// the learned variance is numpy's np.var(means, ddof=1) bit for bit (which
// decides between AIPerf's observation strategies, sometimes on a
// difference of one ulp); past it the variance comes from Welford's running
// moments (within 1e-12 relative) and the bucket's memory stays at 64 KB
// however long the run.
const exactMeans = 8192

// bucketStat is AIPerf's BucketStatistics: what one histogram bucket
// teaches about where its observations lie, from the scrape intervals whose
// new observations all fell in that bucket (their mean is then exact:
// sum delta / count delta). This is the "polynomial histogram" of
// HistogramTools (arXiv 2504.00001) that AIPerf uses to estimate
// percentiles.
type bucketStat struct {
	obs      int64   // observation_count: observations in the learned intervals
	weighted float64 // weighted_mean_sum: sum of mean*count
	n        int     // sample_count: learned intervals
	// means are the intervals' means while n <= exactMeans, then nil.
	means []float64
	// Welford's running mean and M2 of all the means.
	wMean, wM2 float64
}

// record learns one interval whose count observations averaged mean.
func (b *bucketStat) record(mean float64, count int64) {
	b.obs += count
	b.weighted += float64(mean * float64(count))
	b.n++
	d := mean - b.wMean
	b.wMean += d / float64(b.n)
	b.wM2 += float64(d * (mean - b.wMean))
	if b.n <= exactMeans {
		b.means = append(b.means, mean)
	} else {
		b.means = nil
	}
}

// estimatedMean is the count-weighted mean of the learned intervals; false
// when nothing was learned.
func (b *bucketStat) estimatedMean() (float64, bool) {
	if b.obs == 0 {
		return 0, false
	}
	return b.weighted / float64(b.obs), true
}

// estimatedVariance is the sample variance (ddof=1) of the learned means;
// false with fewer than three intervals, as AIPerf requires.
func (b *bucketStat) estimatedVariance() (float64, bool) {
	if b.n < 3 {
		return 0, false
	}
	if b.means == nil {
		return b.wM2 / float64(b.n-1), true
	}
	m := metrics.PairwiseSum(b.means) / float64(len(b.means))
	sq := make([]float64, len(b.means))
	for i, x := range b.means {
		d := x - m
		sq[i] = d * d
	}
	return metrics.PairwiseSum(sq) / float64(len(b.means)-1), true
}

// learnInterval is one step of AIPerf's accumulate_bucket_statistics: given
// two consecutive snapshots of a histogram (cumulative bucket counts in
// schema order, sums and counts), it records the interval's mean in the
// one bucket that received all its new observations. Intervals with no new
// observations, or spread over several buckets, teach nothing. Negative
// bucket deltas (a reset) are clamped to zero, as AIPerf does.
func learnInterval(stats []bucketStat, prevBuckets, curBuckets []float64, prevSum, curSum, prevCount, curCount float64) {
	countDelta := truncInt(curCount - prevCount)
	if countDelta <= 0 || len(stats) == 0 {
		return
	}
	active, nActive := -1, 0
	prevD := 0.0
	for j := range stats {
		d := max(curBuckets[j]-prevBuckets[j], 0)
		per := d
		if j > 0 {
			per = d - prevD
		}
		if max(per, 0) > 0 {
			nActive++
			active = j
		}
		prevD = d
	}
	if nActive == 1 {
		stats[active].record((curSum-prevSum)/float64(countDelta), countDelta)
	}
}

// truncInt converts like Python's int() and numpy's astype(int64): toward
// zero; NaN and values out of range give 0.
func truncInt(f float64) int64 {
	if math.IsNaN(f) || f >= 9.2e18 || f <= -9.2e18 {
		return 0
	}
	return int64(f)
}
