package metrics

import (
	"math"
	"slices"
	"testing"
)

// TestKLimit checks the k1 scale step against hand values:
// q' = (sin(asin(2q−1) + 2π/δ) + 1)/2.
func TestKLimit(t *testing.T) {
	tests := []struct{ q, want float64 }{
		{0.5, 0.5 + math.Sin(math.Pi/1000)/2}, // 0.50157079...
		{0, (1 - math.Cos(math.Pi/1000)) / 2}, // 2.4674e-6: the tails keep singletons
		{1, 1},                                // past the top
		{1 - 1e-7, 1},                         // within one step of the top
		{0.99, (math.Sin(math.Asin(0.98)+math.Pi/1000) + 1) / 2},
	}
	for _, tt := range tests {
		if got := kLimit(tt.q); !near(got, tt.want, 1e-12) {
			t.Errorf("kLimit(%v) = %.17g, want %.17g", tt.q, got, tt.want)
		}
	}
	if step := kLimit(0.5) - 0.5; !near(step, math.Pi/digestDelta, 1e-5) {
		t.Errorf("median step %v, want π/δ", step)
	}
}

// TestDigestSingletons checks that a digest small enough to keep every
// value as its own centroid gives numpy's percentiles (the values of
// TestStatsMatchNumpy), however the values were chunked.
func TestDigestSingletons(t *testing.T) {
	want := []float64{15.2, 16.0, 17.0, 20.0, 35.0, 40.0, 46.0, 48.0, 49.6}
	for _, chunks := range [][][]float64{
		{{15, 20, 35, 40, 50}},
		{{40, 50}, {15}, {20, 35}},
	} {
		var d digest
		for _, c := range chunks {
			c = slices.Clone(c)
			slices.Sort(c)
			d.merge(c)
		}
		if !slices.Equal(d.weights, []float64{1, 1, 1, 1, 1}) || d.total != 5 {
			t.Fatalf("%v: weights %v, total %v", chunks, d.weights, d.total)
		}
		for i, p := range Percentiles {
			if got := d.quantile(p/100, 15, 50); !near(got, want[i], 1e-12) {
				t.Errorf("%v: p%v = %v, want %v", chunks, p, got, want[i])
			}
		}
		if d.quantile(0, 15, 50) != 15 || d.quantile(1, 15, 50) != 50 {
			t.Errorf("%v: p0 %v p100 %v", chunks, d.quantile(0, 15, 50), d.quantile(1, 15, 50))
		}
	}
}

// TestDigestInvariants merges 200 chunks of skewed values and checks the
// centroids: ascending means, weights summing to the count, at most δ
// centroids, and none wider than the k1 scale allows (π/δ of the ranks,
// with one value of slack for the centroid that opened it).
func TestDigestInvariants(t *testing.T) {
	vals := lognormal(200*1000, 5, 0, 1.5, 1, 0)
	var d digest
	for c := range 200 {
		chunk := vals[c*1000 : (c+1)*1000]
		slices.Sort(chunk)
		d.merge(chunk)
	}
	if !slices.IsSorted(d.means) {
		t.Error("centroid means not ascending")
	}
	sum := 0.0
	for _, w := range d.weights {
		sum += w
		if w > 1 && w/d.total > math.Pi/digestDelta+1/d.total {
			t.Errorf("centroid of weight %v spans %.5f of the ranks", w, w/d.total)
		}
	}
	if sum != 200_000 || d.total != 200_000 {
		t.Errorf("weights sum to %v, total %v", sum, d.total)
	}
	if len(d.means) > digestDelta {
		t.Errorf("%d centroids", len(d.means))
	}
}
