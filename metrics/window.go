package metrics

import (
	"cmp"
	"slices"

	"github.com/aiperf-go/aiperf/record"
)

// windowed are the metrics whose denominator is the observation duration:
// benchmark_duration for a run, the window length for a timeslice.
var windowed = [...]metricID{idOutputTput, idInputTput, idTotalTput, idReqTput, idGoodput}

// WindowSummary returns Summary(clock) for records observed over a window of
// windowNS nanoseconds (a timeslice): request_throughput,
// output_token_throughput, total_token_throughput and goodput divide by the
// window length instead of benchmark_duration, as AIPerf does since its
// timeslices use the window bounds as the observation duration. A window of
// zero or less leaves those four out (AIPerf: "Observation duration is
// zero"). benchmark_duration itself stays max response end − min request
// start of the window's valid records (input_token_throughput, of
// Config.Schema14, is windowed too). The sweep-line results and the credit
// latencies are left out: AIPerf 0.13 clips run-wide curves to a timeslice
// (see SweepResults) and has no credit latencies per timeslice. Like
// Summary, it does not change the accumulator.
func (a *Accumulator) WindowSummary(clock *record.Clock, windowNS int64) *Summary {
	s := a.Summary(clock)
	isWindowed := make(map[string]bool, len(windowed))
	for _, id := range windowed {
		isWindowed[catalog[id].Tag] = true
	}
	s.Results = slices.DeleteFunc(s.Results, func(r Result) bool {
		return isWindowed[r.Tag] || r.DisplayOrder >= orderSweep
	})
	for _, id := range windowed {
		d := &catalog[id]
		if !a.en[id] || !d.Exported() {
			continue
		}
		v, ok := a.perWindow(id, windowNS)
		if !ok {
			continue
		}
		s.Results = append(s.Results, Result{
			Tag: d.Tag, Header: d.HeaderFor(a.cfg), Unit: d.DisplayUnit,
			Console: d.Console(a.cfg), DisplayOrder: d.DisplayOrder,
			Scalar: true, Avg: v * d.toDisplay,
		})
	}
	slices.SortStableFunc(s.Results, func(x, y Result) int {
		return cmp.Or(cmp.Compare(x.DisplayOrder, y.DisplayOrder), cmp.Compare(x.Tag, y.Tag))
	})
	return s
}

// perWindow returns a windowed metric's base value over windowNS, or false
// when AIPerf would have none. The formulas are those of scalar with the
// window length in place of benchmark_duration.
func (a *Accumulator) perWindow(id metricID, windowNS int64) (float64, bool) {
	if windowNS <= 0 {
		return 0, false
	}
	sec := float64(windowNS) * nsToSec
	switch id {
	case idReqTput:
		return float64(a.valid) / sec, a.valid > 0
	case idGoodput:
		return float64(a.good) / sec, a.goodSeen
	case idOutputTput:
		osl, ok := a.total(idOSL)
		return osl / sec, ok
	case idInputTput:
		isl, ok := a.total(idISL)
		return isl / sec, ok
	case idTotalTput:
		isl, okI := a.total(idISL)
		osl, okO := a.total(idOSL)
		return (isl + osl) / sec, okI && okO
	}
	return 0, false
}
