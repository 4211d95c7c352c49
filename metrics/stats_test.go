package metrics

import (
	"math"
	"testing"
)

// lcg returns n pseudo-random values in [0, 1000). The numpy
// expectations below were produced with the same generator in Python:
//
//	x = (x*6364136223846793005 + 1442695040888963407) % 2**64
//	v = (x >> 11) / 2**53 * 1000.0
func lcg(n int, seed uint64) []float64 {
	out := make([]float64, n)
	x := seed
	for i := range out {
		x = x*6364136223846793005 + 1442695040888963407
		out[i] = float64(x>>11) / (1 << 53) * 1000.0
	}
	return out
}

// TestStatsMatchNumpy compares with np.mean, np.std and np.percentile(arr,
// [1,5,10,25,50,75,90,95,99]) (numpy 2.4.6), bit for bit.
func TestStatsMatchNumpy(t *testing.T) {
	tests := []struct {
		name      string
		in        []float64
		mean, std float64
		min, max  float64
		p         [9]float64
	}{
		{
			name: "ints", in: []float64{15, 20, 35, 40, 50},
			mean: 32.0, std: 12.884098726725126, min: 15, max: 50,
			p: [9]float64{15.2, 16.0, 17.0, 20.0, 35.0, 40.0, 46.0, 48.0, 49.6},
		},
		{
			name: "upper-neighbour lerp", in: []float64{1.1, 2.2, 3.3, 4.4, 5.5, 6.6, 7.7},
			mean: 4.4, std: 2.2, min: 1.1, max: 7.7,
			p: [9]float64{1.1660000000000001, 1.4300000000000002, 1.7600000000000002, 2.75, 4.4, 6.05, 7.04, 7.369999999999999, 7.6339999999999995},
		},
		{
			name: "single", in: []float64{42},
			mean: 42, std: 0, min: 42, max: 42,
			p: [9]float64{42, 42, 42, 42, 42, 42, 42, 42, 42},
		},
		{
			name: "unsorted pair", in: []float64{3, 1},
			mean: 2, std: 1, min: 1, max: 3,
			p: [9]float64{1.02, 1.1, 1.2, 1.5, 2.0, 2.5, 2.8, 2.9, 2.98},
		},
		{
			name: "lcg 200", in: lcg(200, 99),
			mean: 490.87581135077113, std: 292.59174954667077, min: 5.735915996560981, max: 988.4597550184832,
			p: [9]float64{13.202795413923365, 74.04852146836788, 105.31479736090814, 220.89355028603157, 464.84300439836784, 766.3422700145807, 896.3833921992635, 929.4782533786616, 980.0644640043408},
		},
		{
			name: "lcg 1000", in: lcg(1000, 7),
			mean: 486.00890776194717, std: 285.16868238433455, min: 1.6576915875093912, max: 999.3886223694541,
			p: [9]float64{16.47844155492511, 61.36608968404719, 101.64281077003487, 237.92650251007524, 469.33579863201436, 732.4661339090424, 890.203379997429, 943.491057636262, 985.4988565980002},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			orig := append([]float64(nil), tt.in...)
			s := describe(tt.in)
			if s.avg != tt.mean || s.std != tt.std || s.min != tt.min || s.max != tt.max {
				t.Errorf("mean/std/min/max = %v %v %v %v, want %v %v %v %v",
					s.avg, s.std, s.min, s.max, tt.mean, tt.std, tt.min, tt.max)
			}
			if s.p != tt.p {
				t.Errorf("percentiles = %v\nwant          %v", s.p, tt.p)
			}
			for i := range orig {
				if orig[i] != tt.in[i] {
					t.Fatal("describe modified its input")
				}
			}
		})
	}
}

// TestPairwiseSumMatchesNumpy checks np.add.reduce sums (numpy 2.4.6) of
// the lcg arrays, including lengths that cross the 128-value block and the
// recursion's multiple-of-8 split.
func TestPairwiseSumMatchesNumpy(t *testing.T) {
	if got, want := pairwiseSum(lcg(1000, 7)), 486008.9077619472; got != want {
		t.Errorf("sum(lcg(1000)) = %.17g, want %.17g", got, want)
	}
	if got, want := pairwiseSum(lcg(200, 99)), 98175.16227015422; got != want {
		t.Errorf("sum(lcg(200)) = %.17g, want %.17g", got, want)
	}
}

func TestPercentileHandComputed(t *testing.T) {
	// n=4: k = q*(4-1); p25 → k=0.75 → 10 + 0.75*(20-10) computed from the
	// upper neighbour: 20 - 10*0.25 = 17.5.
	s := []float64{10, 20, 30, 40}
	for _, tt := range []struct{ p, want float64 }{
		{0, 10}, {25, 17.5}, {50, 25}, {100, 40}, {99, 39.7},
	} {
		if got := percentile(s, tt.p); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("p%v = %v, want %v", tt.p, got, tt.want)
		}
	}
}
