package metrics

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// The sweeps were rewritten for memory (issue 19); these tests require
// them to give the reference code's values (sweep_ref_test.go,
// sweep_refstats_test.go, the code before the rewrite) bit for bit on
// random runs with ties, NaN fields, zero and negative gaps, and windows
// that cut, miss or hold the curves.

// randLog returns a random sweep log of up to n requests. Times come from
// a coarse grid (so many coincide), sometimes at epoch scale; any field
// but start and end may be NaN, gen may fall outside [start, end], and
// gaps may be zero, negative or overshoot the end.
func randLog(rng *rand.Rand, n int) *sweepLog {
	base := 0.0
	if rng.IntN(2) == 0 {
		base = 1.764e18
	}
	grid := func(k int) float64 { return base + float64(rng.IntN(k))*256 }
	maybeNaN := func(v float64) float64 {
		if rng.IntN(8) == 0 {
			return math.NaN()
		}
		return v
	}
	l := &sweepLog{}
	withICL := rng.IntN(3) > 0
	for range 1 + rng.IntN(n) {
		start := grid(40)
		iv := interval{start: start, gen: maybeNaN(start + float64(rng.IntN(8)-1)*256),
			end: start + float64(rng.IntN(30))*256, isl: maybeNaN(float64(rng.IntN(5))),
			osl: maybeNaN(float64(rng.IntN(6)))}
		if rng.IntN(10) == 0 {
			iv.start, iv.end = math.NaN(), math.NaN()
		}
		var icl []float64
		if withICL {
			for range rng.IntN(5) {
				g := []float64{0, -256, 256, 512, 1280, 100.5, 7680}[rng.IntN(7)]
				icl = append(icl, g)
			}
		}
		l.log(iv, 0, icl)
		if e := int64(iv.end); isNum(iv.end) && (l.ivs.len() == 1 || e > l.lastEnd) {
			l.lastEnd = e
		}
	}
	if rng.IntN(2) == 0 {
		l.phaseStart, l.phaseSet = int64(grid(20)), true
	}
	return l
}

// randWindow returns nil or a window around, inside, outside or across
// the log's times, possibly empty or reversed.
func randWindow(rng *rand.Rand, l *sweepLog) *[2]float64 {
	if rng.IntN(3) == 0 {
		return nil
	}
	base := 0.0
	if first := l.ivs.at(0); first.start > 1e17 || first.end > 1e17 {
		base = 1.764e18
	}
	a := base + float64(rng.IntN(90)-20)*256
	b := a + float64(rng.IntN(60)-5)*256
	if rng.IntN(5) == 0 {
		b = a + 100.25
	}
	return &[2]float64{a, b}
}

// toRef converts a curve to the reference's two arrays.
func toRef(s step) refStep {
	if len(s) == 0 {
		return refStep{}
	}
	return refStep{ts: times(s), vals: values(s)}
}

// sameBits reports whether a and b are the same float64 bit for bit.
func sameBits(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
}

// checkCurve fails unless got is want bit for bit.
func checkCurve(t *testing.T, name string, got step, want refStep) {
	t.Helper()
	if !sameBits(times(got), want.ts) || !sameBits(values(got), want.vals) {
		t.Fatalf("%s = %v\nwant ts %v\nvals %v", name, got, want.ts, want.vals)
	}
}

// statBits returns a sweepStats' fields.
func statBits(s sweepStats) []float64 {
	return []float64{s.avg, s.min, s.max, s.std, s.p50, s.p90, s.p95, s.p99}
}

// resultBits returns the numeric fields of results, in order.
func resultBits(rs []Result) []float64 {
	var out []float64
	for _, r := range rs {
		out = append(out, r.Avg, r.Min, r.Max, r.Std, r.Sum)
		out = append(out, r.P[:]...)
	}
	return out
}

func TestSweepMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 9))
	for c := range 1200 {
		n := 12
		if c%10 == 0 {
			n = 150
		}
		l := randLog(rng, n)
		in := randWindow(rng, l)
		t.Run(fmt.Sprint(c), func(t *testing.T) {
			checkCurves(t, l)
			got, want := l.results(in), refResults(l, in)
			if len(got) != len(want) || !sameBits(resultBits(got), resultBits(want)) {
				t.Fatalf("results(%v) =\n%+v\nwant\n%+v", in, got, want)
			}
			for i := range got {
				if got[i].Tag != want[i].Tag || got[i].DisplayOrder != want[i].DisplayOrder {
					t.Fatalf("result %d is %s, want %s", i, got[i].Tag, want[i].Tag)
				}
			}
			checkWeighting(t, rng, l)
		})
	}
}

// checkCurves compares every curve of l with the reference's.
func checkCurves(t *testing.T, l *sweepLog) {
	t.Helper()
	ivs, flat := &l.ivs, l.ivs.appendTo(nil)
	checkCurve(t, "concurrency", concurrencySweep(ivs, ivStart, ivEnd, 0), refConcurrencySweep(flat, ivStart, ivEnd))
	genConc := concurrencySweep(ivs, ivGen, ivEnd, 0)
	checkCurve(t, "decode concurrency", genConc, refConcurrencySweep(flat, ivGen, ivEnd))
	checkCurve(t, "prefill", prefillSweep(ivs, 0), refPrefillSweep(flat))
	checkCurve(t, "total", totalSweep(ivs), refTotalSweep(flat))
	checkCurve(t, "tokens in flight", tokensInFlightSweep(ivs), refTokensInFlightSweep(flat))
	checkCurve(t, "tokens in flight ICL", tokensInFlightSweepICL(ivs, &l.icl), refTokensInFlightSweepICL(flat, &l.icl))
	refGen := refConcurrencySweep(flat, ivGen, ivEnd)
	for _, c := range []struct {
		name      string
		got       func(room int) step
		want      refStep
		wantRatio refStep
	}{
		{"decode", func(room int) step { return decodeSweep(ivs, room) }, refDecodeSweep(flat),
			refDivideSteps(refDecodeSweep(flat), refGen)},
		{"decode ICL", func(room int) step { return decodeSweepICL(ivs, &l.icl, room) }, refDecodeSweepICL(flat, &l.icl),
			refDivideSteps(refDecodeSweepICL(flat, &l.icl), refGen)},
	} {
		checkCurve(t, c.name, c.got(0), c.want)
		// With room the quotient reuses the numerator's array; without,
		// divideSteps grows it.
		checkCurve(t, c.name+" per user", divideSteps(c.got(len(genConc)), genConc), c.wantRatio)
		checkCurve(t, c.name+" per user (grown)", divideSteps(c.got(0), genConc), c.wantRatio)
		checkCurve(t, c.name+" by prefill", divideSteps(c.got(0), prefillSweep(ivs, 0)),
			refDivideSteps(c.want, refPrefillSweep(flat)))
		// One point per time changes no quotient.
		checkCurve(t, c.name+" per user (one point per time)",
			divideSteps(lastAtEachTime(c.got(0)), lastAtEachTime(slices.Clone(genConc))), c.wantRatio)
	}
}

// checkWeighting compares timeWeighted and activeWeighted with the
// reference's on l's curves, each also with one point per time, over
// random windows, one scratch for all.
func checkWeighting(t *testing.T, rng *rand.Rand, l *sweepLog) {
	t.Helper()
	ivs := &l.ivs
	var curves []step
	var refs []refStep
	for _, c := range []step{
		concurrencySweep(ivs, ivStart, ivEnd, 0), concurrencySweep(ivs, ivGen, ivEnd, 0),
		totalSweep(ivs), decodeSweepICL(ivs, &l.icl, 0), tokensInFlightSweepICL(ivs, &l.icl),
		prefillSweep(ivs, 0), nil,
	} {
		curves = append(curves, c, lastAtEachTime(slices.Clone(c)))
		refs = append(refs, toRef(c), toRef(c))
	}
	sc := &scratch{}
	for range 3 {
		in := randWindow(rng, l)
		if in == nil {
			in = &[2]float64{math.Inf(-1), math.Inf(1)}
			if c := curves[0]; len(c) > 0 {
				in = &[2]float64{c[0].t, c[len(c)-1].t}
			}
		}
		ws, we := in[0], in[1]
		for i, a := range curves {
			got, want := timeWeighted(a, ws, we, sc), refTimeWeighted(refs[i], ws, we)
			if !sameBits(statBits(got), statBits(want)) {
				t.Fatalf("timeWeighted(curve %d, %v, %v) = %+v, want %+v", i, ws, we, got, want)
			}
			for j, b := range curves {
				got, want := activeWeighted(a, b, ws, we, sc), refActiveWeighted(refs[i], refs[j], ws, we)
				if !sameBits(statBits(got), statBits(want)) {
					t.Fatalf("activeWeighted(curve %d, curve %d, %v, %v) = %+v, want %+v", i, j, ws, we, got, want)
				}
			}
		}
	}
}

func TestWeightedMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 10))
	for c := range 1200 {
		// Lengths cover pairwiseSum's three regimes (< 8, <= 128, halves).
		n := 1 + rng.IntN([]int{8, 130, 700}[c%3])
		vals, durs := make([]float64, n), make([]float64, n)
		h := make([]held, n)
		for i := range n {
			vals[i] = []float64{0, 1, 2.5, -3, 1e-300, 1e300, math.NaN(), rng.NormFloat64()}[rng.IntN(8)]
			if c%2 == 0 {
				vals[i] = rng.NormFloat64() * 1e6
			}
			durs[i] = []float64{1, 256, 0.1, 3e9, rng.ExpFloat64()}[rng.IntN(5)]
			h[i] = held{vals[i], durs[i]}
		}
		total := pairwiseSum(durs) * (1 + rng.Float64())
		got, want := weighted(h, total), refWeighted(vals, durs, total)
		if !sameBits(statBits(got), statBits(want)) {
			t.Fatalf("case %d: weighted = %+v, want %+v", c, got, want)
		}
	}
}

// TestSweepResultsEachMatchesOneByOne: the results over several windows
// from curves built once equal, bit for bit, the results over each window
// alone.
func TestSweepResultsEachMatchesOneByOne(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 10))
	for c := range 300 {
		l := randLog(rng, 40)
		var wins [][2]float64
		for len(wins) < 1+rng.IntN(6) {
			if w := randWindow(rng, l); w != nil {
				wins = append(wins, *w)
			}
		}
		got := l.resultsEach(wins)
		for i, w := range wins {
			want := l.results(&w)
			if len(got) == 0 && want == nil {
				continue
			}
			if len(got) != len(wins) || !sameBits(resultBits(got[i]), resultBits(want)) {
				t.Fatalf("case %d window %v: resultsEach gave\n%+v\nwant\n%+v", c, w, got, want)
			}
		}
	}
}
