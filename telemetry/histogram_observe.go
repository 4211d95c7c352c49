package telemetry

import (
	"math"

	"github.com/aiperf-go/aiperf/metrics"
)

// finiteObservations is AIPerf's _generate_observations_with_sum_constraint:
// it generates per[i] (truncated to an integer) observations inside each
// finite bucket i, shaped by what was learned about the bucket, then shifts
// each bucket's observations (by at most 40% of its width) so that their
// total matches target. bounds are the finite upper bounds, ascending.
// Every float operation follows numpy's order, so the observations (and the
// percentiles taken from them) match AIPerf's.
func finiteObservations(bounds, per []float64, target float64, stats []bucketStat) []float64 {
	total := 0.0
	for _, c := range per {
		total += c
	}
	if total > maxObservations {
		ratio := maxObservations / total
		scaled := make([]float64, len(per))
		for i := range per {
			scaled[i] = per[i] * ratio
		}
		per = scaled
		target *= ratio
		total = 0
		for _, c := range per {
			total += c
		}
	}
	avg := 0.0
	dominant := -1
	if total > 0 {
		avg = target / total
		maxCount := per[0]
		for _, c := range per {
			maxCount = max(maxCount, c)
		}
		if maxCount/total >= 0.95 {
			dominant = indexOf(per, maxCount)
		}
	}
	counts := make([]int, len(per))
	n := 0
	for i, c := range per {
		counts[i] = int(truncInt(c))
		n += counts[i]
	}
	if n <= 0 {
		return nil
	}
	obs := make([]float64, n, n+16)
	type span struct {
		start, count int
		lower, upper float64
	}
	var spans []span
	w := 0
	for i, count := range counts {
		if count <= 0 {
			continue
		}
		count = min(count, n-w)
		if count <= 0 {
			break
		}
		lower, upper := bucketBounds(bounds, i)
		width := upper - lower
		mid := (lower + upper) / 2
		dst := obs[w : w+count]
		learned, hasMean := 0.0, false
		variance, hasVar := 0.0, false
		if i < len(stats) && stats[i].n > 0 {
			if m, ok := stats[i].estimatedMean(); ok && lower < m && m < upper {
				learned, hasMean = m, true
			}
			variance, hasVar = stats[i].estimatedVariance()
		}
		switch {
		case hasMean && hasVar && variance > 0:
			std := math.Sqrt(variance)
			spread := float64(4*std) / width
			offset := math.Abs(learned-mid) / width
			switch {
			case spread < 0.01:
				f3Observations(dst, lower, upper, learned, variance)
			case spread < 0.2 && offset < 0.3:
				blendedObservations(dst, lower, upper, learned, std)
			default:
				varianceObservations(dst, lower, upper, learned, std)
			}
		default:
			center := mid
			if hasMean {
				center = learned
			}
			if i == dominant && lower < avg && avg < upper {
				center = avg
			}
			shift := center - mid
			for k := range dst {
				f := (float64(k) + 0.5) / float64(count)
				dst[k] = clip(float64(lower+float64(width*f))+shift, lower, upper)
			}
		}
		spans = append(spans, span{w, count, lower, upper})
		w += count
	}

	// Pass 2: distribute the residual so that the sum matches target.
	generated := metrics.PairwiseSum(obs)
	if generated <= 0 || target <= 0 {
		return obs
	}
	residual := target - generated
	if math.Abs(residual)/target < 0.001 {
		return obs
	}
	for _, s := range spans {
		part := obs[s.start : s.start+s.count]
		weight := metrics.PairwiseSum(part) / generated
		shiftPer := float64(residual*weight) / float64(s.count)
		maxShift := (s.upper - s.lower) * 0.4
		shift := clip(shiftPer, -maxShift, maxShift)
		for k := range part {
			part[k] = clip(part[k]+shift, s.lower, s.upper)
		}
	}
	return obs
}

// indexOf returns the first index of v in xs.
func indexOf(xs []float64, v float64) int {
	for i, x := range xs {
		if x == v {
			return i
		}
	}
	return -1
}

// f3Observations is AIPerf's _generate_f3_observations: for a very tight
// learned spread, a two-point mass at the lower bound and above the mean
// that matches the learned mean and variance.
func f3Observations(dst []float64, lower, upper, mean, variance float64) {
	x := lower
	a := upper
	if mean-x > 0 {
		a = mean + variance/(mean-x)
	}
	a = clip(a, lower, upper)
	den := variance + float64((mean-x)*(mean-x))
	px := 0.5
	if den > 0 {
		px = variance / den
	}
	px = clip(px, 0, 1)
	nx := int(truncInt(float64(float64(len(dst)) * px)))
	for k := range dst {
		if k < nx {
			dst[k] = x
		} else {
			dst[k] = a
		}
	}
}

// varianceObservations is AIPerf's _generate_variance_aware_observations:
// evenly spaced quantiles mapped linearly from the mean toward each bucket
// edge, at most three learned standard deviations away.
func varianceObservations(dst []float64, lower, upper, mean, std float64) {
	toLower, toUpper := 3.0, 3.0
	if std > 0 {
		toLower = min((mean-lower)/std, 3.0)
		toUpper = min((upper-mean)/std, 3.0)
	}
	n := float64(len(dst))
	for k := range dst {
		f := (float64(k) + 0.5) / n
		var pos float64
		if f < 0.5 {
			pos = mean - float64(float64(toLower*std)*(1-float64(2*f)))
		} else {
			pos = mean + float64(float64(toUpper*std)*(float64(2*f)-1))
		}
		dst[k] = clip(pos, lower, upper)
	}
}

// blendedObservations is AIPerf's _generate_blended_observations with its
// default blend of one half: the mean of a uniform spread shifted to the
// learned mean and of the variance-aware spread.
func blendedObservations(dst []float64, lower, upper, mean, std float64) {
	width := upper - lower
	shift := mean - (lower+upper)/2.0
	n := float64(len(dst))
	varObs := make([]float64, len(dst))
	varianceObservations(varObs, lower, upper, mean, std)
	for k := range dst {
		f := (float64(k) + 0.5) / n
		uni := clip(float64(lower+float64(width*f))+shift, lower, upper)
		dst[k] = clip(float64((1-0.5)*uni)+float64(0.5*varObs[k]), lower, upper)
	}
}
