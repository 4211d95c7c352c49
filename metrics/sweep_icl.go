package metrics

import "math"

// The ICL-aware sweeps: when the run kept inter-chunk latencies (AIPerf's
// default "ragged" list backend), AIPerf 0.13 times decode throughput and
// tokens in flight by the chunks instead of spreading tokens uniformly
// (throughput_sweep_line_icl, tokens_in_flight_sweep_line_icl). Chunk k of
// a request ends at gen + icl[0] + ... + icl[k] and began icl[k] earlier.

// iclSet holds every request's inter-chunk latencies (ns) back to back,
// in blocks (see chunked); those of interval i end at icl index ends[i].
// The zero value is an empty set ready to use.
type iclSet struct {
	icl  chunked[float64]
	ends chunked[int]
}

// push adds the next request's inter-chunk latencies.
func (s *iclSet) push(gaps []float64) {
	s.icl.pushAll(gaps)
	s.ends.push(s.icl.len())
}

// span returns where request i's inter-chunk latencies begin and end in
// icl (see chunked.values).
func (s *iclSet) span(i int) (lo, hi int) {
	if i > 0 {
		lo = *s.ends.at(i - 1)
	}
	return lo, *s.ends.at(i)
}

// any reports whether some request kept inter-chunk latencies; without any
// AIPerf falls back to the uniform sweeps.
func (s *iclSet) any() bool { return s.icl.len() > 0 }

// decodeSweepICL is the output-token throughput (tokens/ns) with request
// i's (osl-1) tokens shared equally by its non-zero chunk gaps, each gap's
// share spread uniformly over the gap, with room for room more points.
// Requests without gaps contribute nothing.
func decodeSweepICL(ivs *chunked[interval], s *iclSet, room int) step {
	return sweepEvents(collect(room, func(e *events) {
		for i, iv := range ivs.all() {
			lo, hi := s.span(i)
			if lo == hi || !isNum(iv.gen) || !isNum(iv.osl) || !(iv.osl >= 1) {
				continue
			}
			nonzero := 0
			for g := range s.icl.values(lo, hi) {
				if g > 0 {
					nonzero++
				}
			}
			if nonzero == 0 {
				continue
			}
			perGap := (iv.osl - 1) / float64(nonzero)
			cs := 0.0
			for g := range s.icl.values(lo, hi) {
				// gen + (the gaps' running sum), not a running sum of
				// timestamps: with epoch ns, each addition rounds to 256
				// ns, and AIPerf adds the gaps up first.
				cs += g
				at := iv.gen + cs
				if g > 0 {
					r := perGap / g
					e.add(0, at-g, r)
					e.add(1, at, -r)
				}
			}
		}
	}))
}

// tokensInFlightSweepICL is tokensInFlightSweep with the output tokens
// arriving with the chunks: 1 token at gen, then (osl-1)/len(gaps) at the
// end of each gap (moved to just before end when a gap's sum overshoots
// it). A request without usable gaps holds only its input tokens.
func tokensInFlightSweepICL(ivs *chunked[interval], s *iclSet) step {
	// The events go in four groups: first tokens, chunks, prefills, ends.
	return sweepEvents(collect(0, func(e *events) {
		for i, iv := range ivs.all() {
			lo, hi := s.span(i)
			hasICL := false
			if isNum(iv.gen) && isNum(iv.osl) && iv.osl >= 1 && hi > lo {
				per := (iv.osl - 1) / float64(hi-lo)
				cs := 0.0
				for g := range s.icl.values(lo, hi) {
					cs += g
					if g < 0 {
						continue
					}
					t := iv.gen + cs
					if isNum(iv.end) && t >= iv.end {
						t = math.Nextafter(iv.end, math.Inf(-1))
					}
					e.add(1, t, per)
					hasICL = true
				}
			}
			if hasICL {
				e.add(0, iv.gen, 1)
			}
			hasPF := isNum(iv.start) && isNum(iv.isl) && isNum(iv.gen) && iv.gen > iv.start
			if hasPF {
				e.add(2, iv.start, iv.isl)
			}
			if !isNum(iv.end) {
				continue
			}
			switch {
			case hasPF && hasICL:
				e.add(3, iv.end, -(iv.isl + iv.osl))
			case hasPF:
				e.add(3, iv.end, -iv.isl)
			case hasICL:
				e.add(3, iv.end, -iv.osl)
			}
		}
	}))
}
