package metrics

import (
	"math"
	"slices"
	"testing"
)

// twoRequests are the intervals of the hand-worked examples below:
//
//	R1: start 0, first token 2, end 6, isl 4, osl 5 (decode rate 4/4 = 1)
//	R2: start 4, first token 5, end 10, isl 2, osl 3 (decode rate 2/5 = 0.4)
func twoRequests() *chunked[interval] {
	return chunkedOf(
		interval{start: 0, gen: 2, end: 6, isl: 4, osl: 5},
		interval{start: 4, gen: 5, end: 10, isl: 2, osl: 3},
	)
}

func TestSweepCurves(t *testing.T) {
	ivs := twoRequests()
	tests := []struct {
		name string
		got  step
		want step
	}{
		{"concurrency", concurrencySweep(ivs, ivStart, ivEnd, 0),
			mkStep([]float64{0, 4, 6, 10}, []float64{1, 2, 1, 0})},
		{"decode concurrency", concurrencySweep(ivs, ivGen, ivEnd, 0),
			mkStep([]float64{2, 5, 6, 10}, []float64{1, 2, 1, 0})},
		{"prefill concurrency", concurrencySweep(ivs, ivStart, ivGen, 0),
			mkStep([]float64{0, 2, 4, 5}, []float64{1, 0, 1, 0})},
		// +1 at 2, +0.4 at 5, -1 at 6, -0.4 at 10.
		{"decode", decodeSweep(ivs, 0),
			mkStep([]float64{2, 5, 6, 10}, []float64{1, 1.4, 0.4, 0})},
		// 4 tokens over [0,2) and 2 over [4,5): rate 2 each.
		{"prefill", prefillSweep(ivs, 0),
			mkStep([]float64{0, 2, 4, 5}, []float64{2, 0, 2, 0})},
		// At 2 the prefill end (-2) sorts before the decode start (+1);
		// at 5 likewise (-2, then +0.4).
		{"total", totalSweep(ivs),
			mkStep([]float64{0, 2, 2, 4, 5, 5, 6, 10}, []float64{2, 0, 1, 3, 1, 1.4, 0.4, 0})},
		// R1 holds 4 from 0, 4+5 from 2, frees 9 at 6; R2 2 from 4, 2+3
		// from 5, frees 5 at 10.
		{"tokens in flight", tokensInFlightSweep(ivs),
			mkStep([]float64{0, 2, 4, 5, 6, 10}, []float64{4, 9, 11, 14, 5, 0})},
		// decode / decode concurrency on the merged times; 0/0 is 0.
		{"decode per user", divideSteps(decodeSweep(ivs, 0), concurrencySweep(ivs, ivGen, ivEnd, 0)),
			mkStep([]float64{2, 5, 6, 10}, []float64{1, 0.7, 0.4, 0})},
		{"missing first token", concurrencySweep(chunkedOf(interval{start: 1, gen: math.NaN(), end: 3}), ivGen, ivEnd, 0),
			nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !slices.Equal(times(tt.got), times(tt.want)) || len(tt.got) != len(tt.want) {
				t.Fatalf("got %v, want %v", tt.got, tt.want)
			}
			for i := range tt.want {
				if math.Abs(tt.got[i].v-tt.want[i].v) > 1e-12 {
					t.Fatalf("got %v, want %v", tt.got, tt.want)
				}
			}
		})
	}
}

func TestSweepCurvesICL(t *testing.T) {
	ivs := twoRequests()
	// R1's chunks: the first at 2, then gaps of 1 and 3 (chunks at 3 and 6);
	// R2 kept no gaps.
	set := &iclSet{}
	set.push([]float64{1, 3})
	set.push(nil)

	// R1's 4 decode tokens split 2 per gap: 2/1 over [2,3), 2/3 over [3,6).
	// R2 contributes nothing.
	dec := decodeSweepICL(ivs, set, 0)
	wantTS := []float64{2, 3, 3, 6}
	wantV := []float64{2, 0, 2.0 / 3, 0}
	if !slices.Equal(times(dec), wantTS) {
		t.Fatalf("decode ICL ts = %v, want %v", times(dec), wantTS)
	}
	for i := range wantV {
		checkNear(t, "decode ICL value", dec[i].v, wantV[i])
	}

	// R1: +4 at 0, +1 at 2 (first chunk), +2 at 3, +2 just before 6 (the
	// chunk at the end is moved before it), -9 at 6. R2 has no gaps: +2 at
	// 4 and -2 at 10 only.
	tif := tokensInFlightSweepICL(ivs, set)
	justBefore6 := math.Nextafter(6, math.Inf(-1))
	wantTS = []float64{0, 2, 3, 4, justBefore6, 6, 10}
	wantV = []float64{4, 5, 7, 9, 11, 2, 0}
	if !slices.Equal(times(tif), wantTS) || !slices.Equal(values(tif), wantV) {
		t.Fatalf("tokens in flight ICL = %v, want %v %v", tif, wantTS, wantV)
	}
}

func TestTimeWeighted(t *testing.T) {
	ivs := twoRequests()
	tests := []struct {
		name   string
		s      step
		ws, we float64
		want   sweepStats
	}{
		// Held 1 for 4, 2 for 2, 1 for 4: avg 12/10; variance
		// (4*.04 + 2*.64 + 4*.04)/10 = .16; by time, 1 covers 80 %.
		{"concurrency", concurrencySweep(ivs, ivStart, ivEnd, 0), 0, 10,
			sweepStats{avg: 1.2, min: 1, max: 2, std: 0.4, p50: 1, p90: 2, p95: 2, p99: 2}},
		// 0 for 2, 1 for 3, 1.4 for 1, 0.4 for 4: avg 6/10 (6 tokens);
		// variance (2*.36 + 3*.16 + .64 + 4*.04)/10 = .2; cumulative
		// shares by value 0 .2, 0.4 .6, 1 .9, 1.4 1.
		{"decode", decodeSweep(ivs, 0), 0, 10,
			sweepStats{avg: 0.6, min: 0, max: 1.4, std: math.Sqrt(0.2), p50: 0.4, p90: 1, p95: 1.4, p99: 1.4}},
		// A window inside the curve: [5,8] holds 1.4 for 1, 0.4 for 2.
		{"decode window", decodeSweep(ivs, 0), 5, 8,
			sweepStats{avg: 2.2 / 3, min: 0.4, max: 1.4, std: math.Sqrt((1*0.4444444444444445 + 2*0.11111111111111112) / 3), p50: 0.4, p90: 1.4, p95: 1.4, p99: 1.4}},
		// Tokens: 4*2 + 9*2 + 11 + 14 + 5*4 = 71 over 10.
		{"tokens in flight avg", tokensInFlightSweep(ivs), 0, 10,
			sweepStats{avg: 7.1, min: 4, max: 14, std: math.Sqrt((2*9.61 + 2*3.61 + 15.21 + 47.61 + 4*4.41) / 10), p50: 5, p90: 11, p95: 14, p99: 14}},
		{"empty", nil, 0, 10, sweepStats{}},
		{"empty window", decodeSweep(ivs, 0), 5, 5, sweepStats{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkStats(t, timeWeighted(tt.s, tt.ws, tt.we, &scratch{}), tt.want)
		})
	}
}

func TestActiveWeighted(t *testing.T) {
	ivs := twoRequests()
	dec, genConc := decodeSweep(ivs, 0), concurrencySweep(ivs, ivGen, ivEnd, 0)
	tests := []struct {
		name       string
		rate, mask step
		ws, we     float64
		want       sweepStats
	}{
		// Decode is active over [2,10): 1 for 3, 1.4 for 1, 0.4 for 4;
		// avg 6/8; variance (3*.0625 + .4225 + 4*.1225)/8.
		{"decode", dec, genConc, 0, 10,
			sweepStats{avg: 0.75, min: 0.4, max: 1.4, std: math.Sqrt((3*0.0625 + 0.4225 + 4*0.1225) / 8), p50: 0.4, p90: 1.4, p95: 1.4, p99: 1.4}},
		// Prefill is active over [0,2) and [4,5) at rate 2.
		{"prefill", prefillSweep(ivs, 0), concurrencySweep(ivs, ivStart, ivGen, 0), 0, 10,
			sweepStats{avg: 2, min: 2, max: 2, p50: 2, p90: 2, p95: 2, p99: 2}},
		{"never active", dec, mkStep([]float64{20}, []float64{1}), 0, 10, sweepStats{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkStats(t, activeWeighted(tt.rate, tt.mask, tt.ws, tt.we, &scratch{}), tt.want)
		})
	}
}

func checkStats(t *testing.T, got, want sweepStats) {
	t.Helper()
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"avg", got.avg, want.avg}, {"min", got.min, want.min}, {"max", got.max, want.max},
		{"std", got.std, want.std}, {"p50", got.p50, want.p50}, {"p90", got.p90, want.p90},
		{"p95", got.p95, want.p95}, {"p99", got.p99, want.p99},
	} {
		if math.Abs(c.got-c.want) > 1e-12 {
			t.Errorf("%s = %.17g, want %.17g", c.name, c.got, c.want)
		}
	}
}

// mkStep returns the curve of the given times and values.
func mkStep(ts, vals []float64) step {
	s := make(step, len(ts))
	for i := range ts {
		s[i] = point{ts[i], vals[i]}
	}
	return s
}

// times returns a curve's times.
func times(s step) []float64 {
	out := make([]float64, len(s))
	for i, p := range s {
		out[i] = p.t
	}
	return out
}

// values returns a curve's values.
func values(s step) []float64 {
	out := make([]float64, len(s))
	for i, p := range s {
		out[i] = p.v
	}
	return out
}

func TestLastAtEachTime(t *testing.T) {
	// At 1 the value goes 5 then 6, at 3 it goes 0 then 2: only 6 and 2
	// are ever held.
	got := lastAtEachTime(mkStep([]float64{1, 1, 2, 3, 3}, []float64{5, 6, 7, 0, 2}))
	want := mkStep([]float64{1, 2, 3}, []float64{6, 7, 2})
	if !slices.Equal(got, want) {
		t.Errorf("lastAtEachTime = %v, want %v", got, want)
	}
	if got := lastAtEachTime(nil); len(got) != 0 {
		t.Errorf("lastAtEachTime(nil) = %v", got)
	}
}
