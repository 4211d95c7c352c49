package metrics

import (
	"cmp"
	"math"
	"slices"
)

// The sweep-line curves behind AIPerf 0.13's effective_* and active_*
// metrics (aiperf/analysis/sweepline.py, sweepline_kv_cache.py). Each curve
// is a step function: point i's value holds from its time until point
// i+1's. A curve is built from (timestamp, delta) events sorted by time,
// ends (delta <= 0) before starts at equal times, and summed cumulatively.
// NaN marks a missing timestamp or token count; an interval with any NaN
// input is left out, so a curve's times are never NaN (the inter-chunk
// latencies, whole ns, are never NaN either). The merge walks below rely
// on that.
//
// The curves of a 10,000-stream run hold about a million points, so they
// are built with as little memory as their values allow (issue 19): the
// events are counted first and written into one exactly sized array, which
// sweepEvents sorts and turns into the curve in place, and divideSteps
// writes its quotient over its numerator.

// point is one step of a curve: the value v from time t on. While a curve
// is being built, v is the event's delta instead.
type point struct{ t, v float64 }

// step is a step function, its points sorted by time ascending.
type step []point

// events collects a sweep's events in up to four groups that follow one
// another in the curve's event order (AIPerf concatenates its arrays so).
// collect runs a generator twice over it: the first pass only counts each
// group, the second writes every event to its place.
type events struct {
	next [4]int
	pts  []point
}

// add records event (t, d) in group g.
func (e *events) add(g int, t, d float64) {
	if e.pts != nil {
		e.pts[e.next[g]] = point{t, d}
	}
	e.next[g]++
}

// collect returns the events gen adds, group by group, in an array with
// room for room more points (so divideSteps can reuse it).
func collect(room int, gen func(*events)) []point {
	var count, fill events
	gen(&count)
	n := 0
	for g, k := range count.next {
		fill.next[g] = n
		n += k
	}
	fill.pts = make([]point, n, n+room)
	gen(&fill)
	return fill.pts
}

// sweepEvents sorts events (delta in v) by time, ends before starts at ties
// (stable otherwise, as np.lexsort is), and turns each delta into the
// running sum in place. Running sums smaller than 1e-9 of the largest
// magnitude are snapped to zero, as AIPerf does to hide the roundoff of
// cancelling large +/- pairs.
func sweepEvents(ev []point) step {
	if len(ev) == 0 {
		return nil
	}
	kind := func(e point) int {
		if e.v > 0 {
			return 1
		}
		return 0
	}
	slices.SortStableFunc(ev, func(a, b point) int {
		return cmp.Or(cmp.Compare(a.t, b.t), cmp.Compare(kind(a), kind(b)))
	})
	sum, maxAbs := 0.0, 0.0
	for i := range ev {
		sum += ev[i].v
		ev[i].v = sum
		maxAbs = max(maxAbs, math.Abs(sum))
	}
	if maxAbs > 0 {
		for i := range ev {
			if math.Abs(ev[i].v) < 1e-9*maxAbs {
				ev[i].v = 0
			}
		}
	}
	return ev
}

// valueBefore returns the value s holds just after its first i points
// (0 before its first point).
func (s step) valueBefore(i int) float64 {
	if i == 0 {
		return 0
	}
	return s[i-1].v
}

// lastAtEachTime drops, in place, every point that another follows at
// the same time: such a point holds for no time, so no statistic, quotient
// or value at a time sees it. Chunk-timed curves halve (a chunk's end is
// the next chunk's start).
func lastAtEachTime(s step) step {
	k := 0
	for i := range s {
		if i+1 < len(s) && s[i+1].t == s[i].t {
			continue
		}
		s[k] = s[i]
		k++
	}
	return s[:k]
}

// divideSteps returns num/den on the sorted union of their times, 0 where
// den <= 0, and an empty curve when either is empty. It consumes num: the
// quotient is written over num's array, which is grown (copied) unless it
// has room for len(den) more points.
//
// The union is walked from its end, so quotient point k (of m) goes to
// index len(num)+len(den)-m+k. Every point written has consumed at least
// one input point, so that index stays above every num point not yet read.
func divideSteps(num, den step) step {
	n, nd := len(num), len(den)
	if n == 0 || nd == 0 {
		return nil
	}
	m := unionLen(num, den)
	buf := slices.Grow(num, nd)[:n+nd]
	i, j := n-1, nd-1
	for k := m - 1; k >= 0; k-- {
		var t float64
		switch {
		case i < 0:
			t = den[j].t
		case j < 0:
			t = buf[i].t
		default:
			t = max(buf[i].t, den[j].t)
		}
		nv, dv := step(buf[:n]).valueBefore(i+1), den.valueBefore(j+1)
		for i >= 0 && buf[i].t == t {
			i--
		}
		for j >= 0 && den[j].t == t {
			j--
		}
		v := 0.0
		if dv > 0 {
			v = nv / dv
		}
		buf[n+nd-m+k] = point{t, v}
	}
	return buf[n+nd-m:]
}

// unionLen returns how many distinct times a and b hold together.
func unionLen(a, b step) int {
	m, i, j := 0, 0, 0
	for i < len(a) || j < len(b) {
		var t float64
		switch {
		case i == len(a):
			t = b[j].t
		case j == len(b):
			t = a[i].t
		default:
			t = min(a[i].t, b[j].t)
		}
		for i < len(a) && a[i].t == t {
			i++
		}
		for j < len(b) && b[j].t == t {
			j++
		}
		m++
	}
	return m
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
// flight over time; intervals with a NaN bound are left out. The curve
// has room for room more points.
func concurrencySweep(ivs *chunked[interval], from, to func(*interval) float64, room int) step {
	return sweepEvents(collect(room, func(e *events) {
		for _, iv := range ivs.all() {
			a, b := from(iv), to(iv)
			if isNum(a) && isNum(b) {
				e.add(0, a, 1)
				e.add(1, b, -1)
			}
		}
	}))
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
	if !isNum(iv.start) || !isNum(iv.isl) || !isNum(iv.gen) || !(dur > 0) {
		return 0, false
	}
	return iv.isl / dur, true
}

// rateEvents adds +rate at from (group g) and -rate at to (group g+1) for
// every interval rate accepts: starts first then ends, as AIPerf
// concatenates them.
func rateEvents(e *events, g int, ivs *chunked[interval], rate func(*interval) (float64, bool), from, to func(*interval) float64) {
	for _, iv := range ivs.all() {
		if r, ok := rate(iv); ok {
			e.add(g, from(iv), r)
			e.add(g+1, to(iv), -r)
		}
	}
}

func ivStart(iv *interval) float64 { return iv.start }
func ivGen(iv *interval) float64   { return iv.gen }
func ivEnd(iv *interval) float64   { return iv.end }

// decodeSweep is the output-token throughput (tokens/ns) with each request
// generating (osl-1) tokens uniformly over [gen, end), with room for room
// more points.
func decodeSweep(ivs *chunked[interval], room int) step {
	return sweepEvents(collect(room, func(e *events) {
		rateEvents(e, 0, ivs, decodeRate, ivGen, ivEnd)
	}))
}

// prefillSweep is the input-token throughput (tokens/ns) with each request
// prefilling isl tokens uniformly over [start, gen), with room for room
// more points.
func prefillSweep(ivs *chunked[interval], room int) step {
	return sweepEvents(collect(room, func(e *events) {
		rateEvents(e, 0, ivs, prefillRate, ivStart, ivGen)
	}))
}

// totalSweep is prefillSweep plus the uniform decodeSweep in one pass.
func totalSweep(ivs *chunked[interval]) step {
	return sweepEvents(collect(0, func(e *events) {
		rateEvents(e, 0, ivs, prefillRate, ivStart, ivGen)
		rateEvents(e, 2, ivs, decodeRate, ivGen, ivEnd)
	}))
}

// tokensInFlightSweep is the tokens a server holds (KV cache): isl from
// start while prefilling, plus osl from gen until end.
func tokensInFlightSweep(ivs *chunked[interval]) step {
	// AIPerf emits the end events in three groups (both, input only,
	// generation only); the order only matters at equal timestamps of
	// equal sign, where it cannot change a held value.
	return sweepEvents(collect(0, func(e *events) {
		for _, iv := range ivs.all() {
			hasPF := isNum(iv.start) && isNum(iv.isl) && isNum(iv.gen) && iv.gen > iv.start
			hasGen := isNum(iv.gen) && isNum(iv.osl) && iv.end-iv.gen > 0
			if hasPF {
				e.add(0, iv.start, iv.isl)
			}
			if hasGen {
				e.add(1, iv.gen, iv.osl)
			}
			if !isNum(iv.end) {
				continue
			}
			switch {
			case hasPF && hasGen:
				e.add(2, iv.end, -(iv.isl + iv.osl))
			case hasPF:
				e.add(2, iv.end, -iv.isl)
			case hasGen:
				e.add(2, iv.end, -iv.osl)
			}
		}
	}))
}
