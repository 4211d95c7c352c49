package metrics

import (
	"math"

	"github.com/aiperf-go/aiperf/record"
)

// sweepLog keeps, for Config.Schema14 runs, what AIPerf 0.13's column
// store keeps of every profiling record so the summary can compute the
// sweep-line metrics, effective_latency and credit_to_start_latency. Its
// memory grows with the number of records (five floats each, plus the
// inter-chunk latencies), as AIPerf's does; the logs are kept in blocks
// that are never copied as they grow (see chunked). ivs and credit (when
// the credit was issued, ns) hold one entry per record, icl one list.
type sweepLog struct {
	ivs    chunked[interval]
	credit chunked[float64]
	icl    iclSet
	// errors counts the records with an error (AIPerf's has_error).
	errors int
	// lastEnd is the latest EndNS logged.
	lastEnd int64
	// phaseStart is SetPhaseStart's, when phaseSet.
	phaseStart int64
	phaseSet   bool
}

// add logs one profiling record; b holds a valid record's base values and
// icl its inter-chunk latencies in ns (nil for an invalid record).
func (l *sweepLog) add(rec *record.Record, b *calc, icl []float64) {
	nan := math.NaN()
	iv := interval{start: float64(rec.StartNS), gen: nan, end: float64(rec.EndNS), isl: nan, osl: nan}
	if b != nil {
		if ttft, ok := b.get(idTTFT); ok {
			iv.gen = float64(rec.StartNS) + ttft
		}
		if v, ok := b.get(idISL); ok {
			iv.isl = v
		}
		if v, ok := b.get(idOSL); ok {
			iv.osl = v
		}
	}
	if rec.Error != nil {
		l.errors++
	}
	if l.ivs.len() == 0 || rec.EndNS > l.lastEnd {
		l.lastEnd = rec.EndNS
	}
	l.log(iv, float64(rec.CreditIssuedNS), icl)
}

// log appends one record's interval, credit time and inter-chunk
// latencies (ns) to the logs.
func (l *sweepLog) log(iv interval, credit float64, icl []float64) {
	l.ivs.push(iv)
	l.credit.push(credit)
	l.icl.push(icl)
}

// SetPhaseStart sets when the profiling phase began, in the records'
// monotonic ns, for a Config.Schema14 summary. As in AIPerf 0.13, the
// observation window is then [phase start, end of the last profiling
// request] (its phase start_ns and requests_end_ns): the sweep-line metrics
// are weighted over it and the throughputs divide by its length. Without a
// phase start the sweeps span the first start and last end of the records,
// and the throughputs divide by benchmark_duration.
func (a *Accumulator) SetPhaseStart(start int64) {
	a.sweep.phaseStart, a.sweep.phaseSet = start, true
}

// windowed returns the observation window and true, or false without a
// phase start or records ending after it.
func (l *sweepLog) windowed() (start, end int64, ok bool) {
	if !l.phaseSet || l.ivs.len() == 0 || l.lastEnd <= l.phaseStart {
		return 0, 0, false
	}
	return l.phaseStart, l.lastEnd, true
}

// window returns the sweeps' window: the observation window, else the
// first and last event of the concurrency curve.
func (l *sweepLog) window(conc step) (float64, float64) {
	if s, e, ok := l.windowed(); ok {
		return float64(s), float64(e)
	}
	return conc[0].t, conc[len(conc)-1].t
}

// sweepSpec is one sweep-line metric, in AIPerf's order.
type sweepSpec struct {
	tag, header, unit string
	scale             float64
	group             string
}

var sweepSpecs = [...]sweepSpec{
	{"effective_concurrency", "Effective Concurrency", unitRequests, 1, GroupEffective},
	{"effective_decode_throughput", "Effective Decode Throughput", unitTokSec, 1e9, GroupEffective},
	{"effective_prefill_throughput", "Effective Prefill Throughput", unitTokSec, 1e9, GroupEffective},
	{"effective_decode_concurrency", "Effective Decode Concurrency", unitRequests, 1, GroupEffective},
	{"effective_prefill_concurrency", "Effective Prefill Concurrency", unitRequests, 1, GroupEffective},
	{"effective_total_throughput", "Effective Total Throughput", unitTokSec, 1e9, GroupEffective},
	{"effective_decode_throughput_per_user", "Effective Decode Throughput Per User", unitTokUser, 1e9, GroupEffective},
	{"effective_prefill_throughput_per_user", "Effective Prefill Throughput Per User", unitTokUser, 1e9, GroupEffective},
	{"tokens_in_flight", "Tokens In Flight", unitTokens, 1, GroupEffective},
	{"active_decode_throughput", "Active Decode Throughput", unitTokSec, 1e9, GroupActive},
	{"active_prefill_throughput", "Active Prefill Throughput", unitTokSec, 1e9, GroupActive},
	{"active_decode_throughput_per_user", "Active Decode Throughput Per User", unitTokUser, 1e9, GroupActive},
	{"active_prefill_throughput_per_user", "Active Prefill Throughput Per User", unitTokUser, 1e9, GroupActive},
	{"active_total_throughput", "Active Total Throughput", unitTokSec, 1e9, GroupActive},
}

// Display orders of the results AIPerf 0.13 does not register (its
// console puts them last, in the order it computes them).
const (
	orderAdjusted  = 20000
	orderSweep     = 21000
	orderCreditLat = 21100
	orderEffLat    = 21200
)

// sweepMissing are the statistics a sweep-line result lacks.
var sweepMissing = []string{"p1", "p5", "p10", "p25", "p75", "count", "sum"}

// results returns the 14 sweep-line results over the window, or over in
// when not nil; nil without records.
func (l *sweepLog) results(in *[2]float64) []Result {
	conc := lastAtEachTime(concurrencySweep(&l.ivs, ivStart, ivEnd, 0))
	if len(conc) == 0 {
		return nil
	}
	ws, we := l.window(conc)
	if in != nil {
		ws, we = in[0], in[1]
	}
	return sweepResults(l.stats(conc, [][2]float64{{ws, we}})[0])
}

// resultsEach returns the 14 sweep-line results over each window, building
// every curve once for all of them; nil without records.
func (l *sweepLog) resultsEach(wins [][2]float64) [][]Result {
	conc := lastAtEachTime(concurrencySweep(&l.ivs, ivStart, ivEnd, 0))
	if len(conc) == 0 {
		return nil
	}
	out := make([][]Result, len(wins))
	for i, st := range l.stats(conc, wins) {
		out[i] = sweepResults(st)
	}
	return out
}

// sweepResults turns the 14 sweeps' statistics into results.
func sweepResults(stats [len(sweepSpecs)]sweepStats) []Result {
	out := make([]Result, len(sweepSpecs))
	for i, sp := range sweepSpecs {
		st, f := stats[i], sp.scale
		r := Result{
			Tag: sp.tag, Header: sp.header, Unit: sp.unit, Group: sp.group, Console: true,
			DisplayOrder: orderSweep + i, Missing: sweepMissing,
			Avg: st.avg * f, Min: st.min * f, Max: st.max * f, Std: st.std * f,
		}
		r.P[4], r.P[6], r.P[7], r.P[8] = st.p50*f, st.p90*f, st.p95*f, st.p99*f
		out[i] = r
	}
	return out
}

// stats returns the statistics of the 14 sweeps over each window, in
// sweepSpecs' order. Each large curve is built once, for every window,
// when the ones before it are no longer needed (a curve's last use ends
// its life), keeps one point per time, and the per-user curves are
// divided in place of their numerators, so at most a rate curve and the
// shared segment array are large at once.
func (l *sweepLog) stats(conc step, wins [][2]float64) [][len(sweepSpecs)]sweepStats {
	ivs := &l.ivs
	st := make([][len(sweepSpecs)]sweepStats, len(wins))
	sc := &scratch{}
	// each sets statistic k of every window to f over it.
	each := func(k int, f func(ws, we float64) sweepStats) {
		for i, w := range wins {
			st[i][k] = f(w[0], w[1])
		}
	}
	timed := func(k int, s step) {
		each(k, func(ws, we float64) sweepStats { return timeWeighted(s, ws, we, sc) })
	}
	active := func(k int, rate, mask step) {
		each(k, func(ws, we float64) sweepStats { return activeWeighted(rate, mask, ws, we, sc) })
	}
	genConc := lastAtEachTime(concurrencySweep(ivs, ivGen, ivEnd, 0))
	pfConc := lastAtEachTime(concurrencySweep(ivs, ivStart, ivGen, 0))
	timed(0, conc)
	timed(3, genConc)
	timed(4, pfConc)

	total := lastAtEachTime(totalSweep(ivs))
	timed(5, total)
	active(13, total, conc)

	prefill := lastAtEachTime(prefillSweep(ivs, len(pfConc)))
	timed(2, prefill)
	active(10, prefill, pfConc)
	prefillUser := divideSteps(prefill, pfConc)
	timed(7, prefillUser)
	active(12, prefillUser, pfConc)

	var decode step
	if l.icl.any() {
		decode = decodeSweepICL(ivs, &l.icl, len(genConc))
	} else {
		decode = decodeSweep(ivs, len(genConc))
	}
	decode = lastAtEachTime(decode)
	// The largest segment array: decodeUser's active statistics.
	sc.take(len(decode) + 2*len(genConc) + 1)
	timed(1, decode)
	active(9, decode, genConc)
	decodeUser := divideSteps(decode, genConc)
	timed(6, decodeUser)
	active(11, decodeUser, genConc)

	var inFlight step
	if l.icl.any() {
		inFlight = tokensInFlightSweepICL(ivs, &l.icl)
	} else {
		inFlight = tokensInFlightSweep(ivs)
	}
	timed(8, lastAtEachTime(inFlight))
	return st
}

// SweepResults returns the 14 sweep-line results of the records added so
// far, weighted over [start, end] in the records' monotonic ns: AIPerf
// 0.13's values for a timeslice, whose curves span the whole run and are
// clipped to the slice. Nil without records or without Config.Schema14.
func (a *Accumulator) SweepResults(start, end int64) []Result {
	if !a.cfg.Schema14 {
		return nil
	}
	return a.sweep.results(&[2]float64{float64(start), float64(end)})
}

// SweepResultsEach returns SweepResults for each of the windows (start
// and end ns), in their order, building each curve once for all of them
// (timeslices: one call for every slice); nil when SweepResults would be.
func (a *Accumulator) SweepResultsEach(windows [][2]int64) [][]Result {
	if !a.cfg.Schema14 {
		return nil
	}
	wins := make([][2]float64, len(windows))
	for i, w := range windows {
		wins[i] = [2]float64{float64(w[0]), float64(w[1])}
	}
	return a.sweep.resultsEach(wins)
}

// latencyResults returns credit_to_start_latency (start - credit issued)
// and effective_latency (end - credit issued, the coordinated-omission-aware
// latency) over every profiling record, in ms, negative deltas clamped to
// 0, as full distributions; nil without records.
func (l *sweepLog) latencyResults() []Result {
	n := l.ivs.len()
	if n == 0 {
		return nil
	}
	toStart := make([]float64, n)
	toEnd := make([]float64, n)
	for i, iv := range l.ivs.all() {
		credit := *l.credit.at(i)
		toStart[i] = max(iv.start-credit, 0) / 1e6
		toEnd[i] = max(iv.end-credit, 0) / 1e6
	}
	mk := func(tag, header string, v []float64, order int, group string, console bool) Result {
		st := describe(v)
		return Result{
			Tag: tag, Header: header, Unit: unitMS, Group: group, Console: console,
			DisplayOrder: order, Avg: st.avg, Sum: pairwiseSum(v), Min: st.min, Max: st.max,
			Std: st.std, P: st.p, Count: len(v),
		}
	}
	return []Result{
		mk("credit_to_start_latency", "Credit-to-Start Latency", toStart, orderCreditLat, GroupDefault, false),
		mk("effective_latency", "Effective Latency (CO-aware)", toEnd, orderEffLat, GroupEffective, true),
	}
}
