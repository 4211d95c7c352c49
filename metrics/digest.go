package metrics

import (
	"math"
	"slices"
)

// digestDelta is the t-digest's compression δ. With the k1 scale function
// a centroid spans at most π/δ of the ranks (0.16% at the median, less
// towards the tails); a digest of 1,000,000 values holds about 1,200
// centroids (19 KB). Measured on 1,000,000 values (lognormal, Pareto,
// bimodal, drifting upwards, integer latencies and token counts; 4 seeds;
// shuffled, ascending and descending), the worst percentile rank error was
// 5.6e-5, against a bound of 1e-3, at about 100 ns per value (mostly the
// chunk sort).
const digestDelta = 2000

// digest is a merging t-digest (Dunning & Ertl, "Computing extremely
// accurate quantiles using t-digests", 2019, k1 scale): centroids sorted by
// mean, into which sorted chunks of values are merged in one pass. Each
// merge sees every centroid and the new total, so the sketch does not
// degrade on sorted or drifting input, and it involves no randomness: the
// same chunks give the same digest. It was preferred to
// github.com/caio/go-tdigest/v4, whose tree-style digest (compression 100,
// about 150 ns per value) missed the 0.1% rank bound on ascending input
// (1.4e-3 seen), and met it only at compression 1000, at about 800 ns per
// value on sorted input.
type digest struct {
	means, weights []float64 // centroids, ascending means
	total          float64   // the sum of the weights
	// spareM and spareW are the previous centroid arrays, reused by the
	// next merge so that merging allocates nothing once warm.
	spareM, spareW []float64
}

// merge adds the values of sorted, an ascending slice, to the digest.
func (t *digest) merge(sorted []float64) {
	if len(sorted) == 0 {
		return
	}
	total := t.total + float64(len(sorted))
	m := mergeState{means: t.spareM[:0], weights: t.spareW[:0], total: total}
	i, j := 0, 0
	for i < len(t.means) || j < len(sorted) {
		if j == len(sorted) || (i < len(t.means) && t.means[i] <= sorted[j]) {
			m.push(t.means[i], t.weights[i])
			i++
		} else {
			m.push(sorted[j], 1)
			j++
		}
	}
	m.close()
	t.spareM, t.spareW = t.means, t.weights
	t.means, t.weights, t.total = m.means, m.weights, total
}

// mergeState builds the merged centroids greedily: the next point joins
// the open centroid while that keeps its span of the k1 scale within 1.
type mergeState struct {
	means, weights []float64
	total          float64
	// open centroid; closed is the weight of the closed ones, limit the
	// highest rank (0..1) the open one may reach.
	mean, weight, closed, limit float64
}

func (m *mergeState) push(mean, weight float64) {
	switch {
	case m.weight == 0:
		m.mean, m.weight = mean, weight
		m.limit = kLimit(m.closed / m.total)
	case (m.closed+m.weight+weight)/m.total <= m.limit:
		m.weight += weight
		m.mean += (mean - m.mean) * weight / m.weight
	default:
		m.close()
		m.mean, m.weight = mean, weight
		m.limit = kLimit(m.closed / m.total)
	}
}

// close appends the open centroid.
func (m *mergeState) close() {
	m.means = append(m.means, m.mean)
	m.weights = append(m.weights, m.weight)
	m.closed += m.weight
	m.weight = 0
}

// kLimit returns the rank one unit of the k1 scale above q:
// k(q) = δ/2π·asin(2q−1), inverted as q = (sin(2πk/δ)+1)/2.
func kLimit(q float64) float64 {
	x := math.Asin(min(max(2*q-1, -1), 1)) + 2*math.Pi/digestDelta
	if x >= math.Pi/2 {
		return 1
	}
	return (math.Sin(x) + 1) / 2
}

// quantile returns the estimate of the q-quantile (0..1) with numpy's
// linear convention, given the exact minimum and maximum of the values:
// the value of rank j (0-based) sits at j+0.5 on the weight axis, a
// centroid's mean at the middle of its weight, and the estimate
// interpolates linearly between those points. A digest of singletons thus
// gives np.percentile's value. The digest must not be empty.
func (t *digest) quantile(q, lo, hi float64) float64 {
	x := min(max(q, 0), 1)*(t.total-1) + 0.5
	prevAt, prev := 0.5, lo
	cum := 0.0
	for i, w := range t.weights {
		at := cum + w/2
		if x < at {
			if x <= prevAt {
				return prev
			}
			return prev + (t.means[i]-prev)*(x-prevAt)/(at-prevAt)
		}
		prevAt, prev = at, t.means[i]
		cum += w
	}
	last := t.total - 0.5
	if x >= last || prevAt >= last {
		return hi
	}
	return prev + (hi-prev)*(x-prevAt)/(last-prevAt)
}

// clone returns a copy that shares no memory with t.
func (t *digest) clone() digest {
	return digest{means: slices.Clone(t.means), weights: slices.Clone(t.weights), total: t.total}
}
