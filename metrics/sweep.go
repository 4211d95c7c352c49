package metrics

import (
	"cmp"
	"math"
	"slices"
	"sort"
)

// The sweep-line curves behind AIPerf 0.13's effective_* and active_*
// metrics (aiperf/analysis/sweepline.py, sweepline_kv_cache.py). Each curve
// is a step function: vals[i] holds from ts[i] until ts[i+1]. A curve is
// built from (timestamp, delta) events sorted by time, ends (delta <= 0)
// before starts at equal times, and summed cumulatively. NaN marks a missing
// timestamp or token count; an interval with any NaN input is left out.

// step is a step function; ts is sorted ascending.
type step struct {
	ts, vals []float64
}

// event is one (timestamp, delta) of a sweep.
type event struct{ t, d float64 }

// sweepEvents sorts events by time, ends before starts at ties (stable
// otherwise, as np.lexsort is), and returns their running sum. Running sums
// smaller than 1e-9 of the largest magnitude are snapped to zero, as AIPerf
// does to hide the roundoff of cancelling large +/- pairs.
func sweepEvents(ev []event) step {
	if len(ev) == 0 {
		return step{}
	}
	kind := func(e event) int {
		if e.d > 0 {
			return 1
		}
		return 0
	}
	slices.SortStableFunc(ev, func(a, b event) int {
		return cmp.Or(cmp.Compare(a.t, b.t), cmp.Compare(kind(a), kind(b)))
	})
	s := step{ts: make([]float64, len(ev)), vals: make([]float64, len(ev))}
	sum, maxAbs := 0.0, 0.0
	for i, e := range ev {
		sum += e.d
		s.ts[i], s.vals[i] = e.t, sum
		maxAbs = max(maxAbs, math.Abs(sum))
	}
	if maxAbs > 0 {
		for i, v := range s.vals {
			if math.Abs(v) < 1e-9*maxAbs {
				s.vals[i] = 0
			}
		}
	}
	return s
}

// at returns the step function's value at t (0 before its first event).
func (s step) at(t float64) float64 {
	i := sort.Search(len(s.ts), func(i int) bool { return s.ts[i] > t }) - 1
	if i < 0 {
		return 0
	}
	return s.vals[i]
}

// mergedTimes returns the sorted union of the two curves' timestamps.
func mergedTimes(a, b []float64) []float64 {
	m := append(slices.Clone(a), b...)
	slices.Sort(m)
	return slices.Compact(m)
}

// divideSteps returns num/den on the merged timestamps, 0 where den <= 0,
// and an empty curve when either is empty.
func divideSteps(num, den step) step {
	if len(num.ts) == 0 || len(den.ts) == 0 {
		return step{}
	}
	ts := mergedTimes(num.ts, den.ts)
	out := step{ts: ts, vals: make([]float64, len(ts))}
	for i, t := range ts {
		if d := den.at(t); d > 0 {
			out.vals[i] = num.at(t) / d
		}
	}
	return out
}

// interval is one request as the sweeps see it, in base units (ns,
// tokens); NaN marks what the request lacks (gen is NaN without a TTFT,
// isl and osl without a count).
type interval struct {
	start, gen, end float64
	isl, osl        float64
}

func isNum(v float64) bool { return !math.IsNaN(v) }

// concurrencySweep is the number of intervals [from(iv), to(iv)) in
// flight over time; intervals with a NaN bound are left out.
func concurrencySweep(ivs []interval, from, to func(*interval) float64) step {
	var starts, ends []event
	for i := range ivs {
		a, b := from(&ivs[i]), to(&ivs[i])
		if isNum(a) && isNum(b) {
			starts = append(starts, event{a, 1})
			ends = append(ends, event{b, -1})
		}
	}
	return sweepEvents(append(starts, ends...))
}

// decodeRate returns a request's uniform decode rate (osl-1)/(end-gen) in
// tokens/ns, or false when it has no generation phase.
func decodeRate(iv *interval) (float64, bool) {
	dur := iv.end - iv.gen
	if !isNum(iv.gen) || !isNum(iv.osl) || !(dur > 0) || !(iv.osl >= 1) {
		return 0, false
	}
	return (iv.osl - 1) / dur, true
}

// prefillRate returns a request's prefill rate isl/(gen-start) in
// tokens/ns, or false when it has no prefill phase.
func prefillRate(iv *interval) (float64, bool) {
	dur := iv.gen - iv.start
	if !isNum(iv.start) || !isNum(iv.gen) || !isNum(iv.isl) || !(dur > 0) {
		return 0, false
	}
	return iv.isl / dur, true
}

// rateEvents appends +rate at from and -rate at to for every interval
// rate accepts, starts first then ends, as AIPerf concatenates them.
func rateEvents(ev []event, ivs []interval, rate func(*interval) (float64, bool), from, to func(*interval) float64) []event {
	var ends []event
	for i := range ivs {
		if r, ok := rate(&ivs[i]); ok {
			ev = append(ev, event{from(&ivs[i]), r})
			ends = append(ends, event{to(&ivs[i]), -r})
		}
	}
	return append(ev, ends...)
}

func ivStart(iv *interval) float64 { return iv.start }
func ivGen(iv *interval) float64   { return iv.gen }
func ivEnd(iv *interval) float64   { return iv.end }

// decodeSweep is the output-token throughput (tokens/ns) with each request
// generating (osl-1) tokens uniformly over [gen, end).
func decodeSweep(ivs []interval) step {
	return sweepEvents(rateEvents(nil, ivs, decodeRate, ivGen, ivEnd))
}

// prefillSweep is the input-token throughput (tokens/ns) with each request
// prefilling isl tokens uniformly over [start, gen).
func prefillSweep(ivs []interval) step {
	return sweepEvents(rateEvents(nil, ivs, prefillRate, ivStart, ivGen))
}

// totalSweep is prefillSweep plus the uniform decodeSweep in one pass.
func totalSweep(ivs []interval) step {
	ev := rateEvents(nil, ivs, prefillRate, ivStart, ivGen)
	return sweepEvents(rateEvents(ev, ivs, decodeRate, ivGen, ivEnd))
}

// tokensInFlightSweep is the tokens a server holds (KV cache): isl from
// start while prefilling, plus osl from gen until end.
func tokensInFlightSweep(ivs []interval) step {
	var pf, gn, ends []event
	for i := range ivs {
		iv := &ivs[i]
		hasPF := isNum(iv.start) && isNum(iv.isl) && isNum(iv.gen) && iv.gen > iv.start
		hasGen := isNum(iv.gen) && isNum(iv.osl) && iv.end-iv.gen > 0
		if hasPF {
			pf = append(pf, event{iv.start, iv.isl})
		}
		if hasGen {
			gn = append(gn, event{iv.gen, iv.osl})
		}
		if !isNum(iv.end) {
			continue
		}
		switch {
		case hasPF && hasGen:
			ends = append(ends, event{iv.end, -(iv.isl + iv.osl)})
		case hasPF:
			ends = append(ends, event{iv.end, -iv.isl})
		case hasGen:
			ends = append(ends, event{iv.end, -iv.osl})
		}
	}
	// AIPerf emits the end events in three groups (both, input only,
	// generation only); the order only matters at equal timestamps of
	// equal sign, where it cannot change a held value.
	return sweepEvents(append(append(pf, gn...), ends...))
}
