package metrics

import (
	"cmp"
	"math"
	"slices"
	"sort"
)

// The reference sweeps: the curves of sweep.go and sweep_icl.go as they
// were before issue 19 cut their memory (a step as two arrays, event
// slices grown by append, divideSteps by binary search at every merged
// timestamp). TestSweepMatchesReference requires the new code to give
// their values bit for bit.

// refStep is a step function; ts is sorted ascending.
type refStep struct {
	ts, vals []float64
}

// refEvent is one (timestamp, delta) of a sweep.
type refEvent struct{ t, d float64 }

// refSweepEvents sorts events by time, ends before starts at ties (stable
// otherwise, as np.lexsort is), and returns their running sum. Running sums
// smaller than 1e-9 of the largest magnitude are snapped to zero, as AIPerf
// does to hide the roundoff of cancelling large +/- pairs.
func refSweepEvents(ev []refEvent) refStep {
	if len(ev) == 0 {
		return refStep{}
	}
	kind := func(e refEvent) int {
		if e.d > 0 {
			return 1
		}
		return 0
	}
	slices.SortStableFunc(ev, func(a, b refEvent) int {
		return cmp.Or(cmp.Compare(a.t, b.t), cmp.Compare(kind(a), kind(b)))
	})
	s := refStep{ts: make([]float64, len(ev)), vals: make([]float64, len(ev))}
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
func (s refStep) at(t float64) float64 {
	i := sort.Search(len(s.ts), func(i int) bool { return s.ts[i] > t }) - 1
	if i < 0 {
		return 0
	}
	return s.vals[i]
}

// refMergedTimes returns the sorted union of the two curves' timestamps.
func refMergedTimes(a, b []float64) []float64 {
	m := append(slices.Clone(a), b...)
	slices.Sort(m)
	return slices.Compact(m)
}

// refDivideSteps returns num/den on the merged timestamps, 0 where den <= 0,
// and an empty curve when either is empty.
func refDivideSteps(num, den refStep) refStep {
	if len(num.ts) == 0 || len(den.ts) == 0 {
		return refStep{}
	}
	ts := refMergedTimes(num.ts, den.ts)
	out := refStep{ts: ts, vals: make([]float64, len(ts))}
	for i, t := range ts {
		if d := den.at(t); d > 0 {
			out.vals[i] = num.at(t) / d
		}
	}
	return out
}

// refConcurrencySweep is the number of intervals [from(iv), to(iv)) in
// flight over time; intervals with a NaN bound are left out.
func refConcurrencySweep(ivs []interval, from, to func(*interval) float64) refStep {
	var starts, ends []refEvent
	for i := range ivs {
		a, b := from(&ivs[i]), to(&ivs[i])
		if isNum(a) && isNum(b) {
			starts = append(starts, refEvent{a, 1})
			ends = append(ends, refEvent{b, -1})
		}
	}
	return refSweepEvents(append(starts, ends...))
}

// refRateEvents appends +rate at from and -rate at to for every interval
// rate accepts, starts first then ends, as AIPerf concatenates them.
func refRateEvents(ev []refEvent, ivs []interval, rate func(*interval) (float64, bool), from, to func(*interval) float64) []refEvent {
	var ends []refEvent
	for i := range ivs {
		if r, ok := rate(&ivs[i]); ok {
			ev = append(ev, refEvent{from(&ivs[i]), r})
			ends = append(ends, refEvent{to(&ivs[i]), -r})
		}
	}
	return append(ev, ends...)
}

// refDecodeSweep is the output-token throughput (tokens/ns) with each request
// generating (osl-1) tokens uniformly over [gen, end).
func refDecodeSweep(ivs []interval) refStep {
	return refSweepEvents(refRateEvents(nil, ivs, decodeRate, ivGen, ivEnd))
}

// refPrefillSweep is the input-token throughput (tokens/ns) with each request
// prefilling isl tokens uniformly over [start, gen).
func refPrefillSweep(ivs []interval) refStep {
	return refSweepEvents(refRateEvents(nil, ivs, prefillRate, ivStart, ivGen))
}

// refTotalSweep is refPrefillSweep plus the uniform refDecodeSweep in one pass.
func refTotalSweep(ivs []interval) refStep {
	ev := refRateEvents(nil, ivs, prefillRate, ivStart, ivGen)
	return refSweepEvents(refRateEvents(ev, ivs, decodeRate, ivGen, ivEnd))
}

// refTokensInFlightSweep is the tokens a server holds (KV cache): isl from
// start while prefilling, plus osl from gen until end.
func refTokensInFlightSweep(ivs []interval) refStep {
	var pf, gn, ends []refEvent
	for i := range ivs {
		iv := &ivs[i]
		hasPF := isNum(iv.start) && isNum(iv.isl) && isNum(iv.gen) && iv.gen > iv.start
		hasGen := isNum(iv.gen) && isNum(iv.osl) && iv.end-iv.gen > 0
		if hasPF {
			pf = append(pf, refEvent{iv.start, iv.isl})
		}
		if hasGen {
			gn = append(gn, refEvent{iv.gen, iv.osl})
		}
		if !isNum(iv.end) {
			continue
		}
		switch {
		case hasPF && hasGen:
			ends = append(ends, refEvent{iv.end, -(iv.isl + iv.osl)})
		case hasPF:
			ends = append(ends, refEvent{iv.end, -iv.isl})
		case hasGen:
			ends = append(ends, refEvent{iv.end, -iv.osl})
		}
	}
	// AIPerf emits the end events in three groups (both, input only,
	// generation only); the order only matters at equal timestamps of
	// equal sign, where it cannot change a held value.
	return refSweepEvents(append(append(pf, gn...), ends...))
}

// refDecodeSweepICL is the output-token throughput (tokens/ns) with request
// i's (osl-1) tokens shared equally by its non-zero chunk gaps, each gap's
// share spread uniformly over the gap. Requests without gaps contribute
// nothing.
func refDecodeSweepICL(ivs []interval, s *iclSet) refStep {
	var starts, ends []refEvent
	for i := range ivs {
		iv := &ivs[i]
		gaps := s.of(i)
		if len(gaps) == 0 || !isNum(iv.gen) || !isNum(iv.osl) || !(iv.osl >= 1) {
			continue
		}
		nonzero := 0
		for _, g := range gaps {
			if g > 0 {
				nonzero++
			}
		}
		if nonzero == 0 {
			continue
		}
		perGap := (iv.osl - 1) / float64(nonzero)
		cs := 0.0
		for _, g := range gaps {
			// gen + (the gaps' running sum), not a running sum of
			// timestamps: with epoch ns, each addition rounds to 256 ns,
			// and AIPerf adds the gaps up first.
			cs += g
			at := iv.gen + cs
			if g > 0 {
				r := perGap / g
				starts = append(starts, refEvent{at - g, r})
				ends = append(ends, refEvent{at, -r})
			}
		}
	}
	return refSweepEvents(append(starts, ends...))
}

// refTokensInFlightSweepICL is refTokensInFlightSweep with the output tokens
// arriving with the chunks: 1 token at gen, then (osl-1)/len(gaps) at the
// end of each gap (moved to just before end when a gap's sum overshoots
// it). A request without usable gaps holds only its input tokens.
func refTokensInFlightSweepICL(ivs []interval, s *iclSet) refStep {
	var ttft, chunks, pf, ends []refEvent
	for i := range ivs {
		iv := &ivs[i]
		gaps := s.of(i)
		hasICL := false
		if isNum(iv.gen) && isNum(iv.osl) && iv.osl >= 1 && len(gaps) > 0 {
			per := (iv.osl - 1) / float64(len(gaps))
			cs := 0.0
			for _, g := range gaps {
				cs += g
				if g < 0 {
					continue
				}
				t := iv.gen + cs
				if isNum(iv.end) && t >= iv.end {
					t = math.Nextafter(iv.end, math.Inf(-1))
				}
				chunks = append(chunks, refEvent{t, per})
				hasICL = true
			}
		}
		if hasICL {
			ttft = append(ttft, refEvent{iv.gen, 1})
		}
		hasPF := isNum(iv.start) && isNum(iv.isl) && isNum(iv.gen) && iv.gen > iv.start
		if hasPF {
			pf = append(pf, refEvent{iv.start, iv.isl})
		}
		if !isNum(iv.end) {
			continue
		}
		switch {
		case hasPF && hasICL:
			ends = append(ends, refEvent{iv.end, -(iv.isl + iv.osl)})
		case hasPF:
			ends = append(ends, refEvent{iv.end, -iv.isl})
		case hasICL:
			ends = append(ends, refEvent{iv.end, -iv.osl})
		}
	}
	ev := append(append(append(ttft, chunks...), pf...), ends...)
	return refSweepEvents(ev)
}
