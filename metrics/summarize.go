package metrics

import (
	"cmp"
	"slices"

	"github.com/aiperf-go/aiperf/record"
)

// Summary returns the run's summary: every enabled, exported metric that
// has a value (with Config.Schema14, also the sweep-line, effective
// latency and error-adjusted results of AIPerf 0.13), ordered by
// DisplayOrder then Tag, plus the error groups and
// the run's wall-clock bounds. Distributions are computed over all values
// in base units and converted to display units, as AIPerf does (exactly up
// to 250,000 values per metric, sketched beyond: see Distribution). clock turns
// the monotonic bounds into wall-clock time; nil leaves them monotonic.
// Summary does not change the accumulator and may be called again after
// more Adds.
func (a *Accumulator) Summary(clock *record.Clock) *Summary {
	s := &Summary{
		Valid:              a.valid,
		Failed:             a.failed,
		UsageDiscrepancies: a.discrepancies,
		OSLMismatches:      a.oslMismatches,
	}
	start, end := a.bounds()
	if clock != nil && (a.spanOK || a.anyRecord) {
		start, end = clock.Wall(start), clock.Wall(end)
	}
	s.StartWallNS, s.EndWallNS = start, end

	s.Errors = slices.Clone(a.errs)
	slices.SortStableFunc(s.Errors, func(x, y ErrorCount) int { return y.Count - x.Count })

	for id := range numIDs {
		d := &catalog[id]
		if !a.en[id] || !d.Exported() {
			continue
		}
		r := Result{
			Tag: d.Tag, Header: d.HeaderFor(a.cfg), Unit: d.DisplayUnit,
			Console: d.Console(a.cfg), DisplayOrder: d.DisplayOrder,
		}
		r.Group, r.DisplayOrder = d.ConsoleGroup(a.cfg)
		if d.Kind == KindRecord {
			dist := &a.dist[id]
			if dist.Len() == 0 {
				continue
			}
			st := dist.describe()
			f := d.toDisplay
			r.Avg, r.Sum, r.Min, r.Max, r.Std = st.avg*f, dist.Sum()*f, st.min*f, st.max*f, st.std*f
			for i := range st.p {
				r.P[i] = st.p[i] * f
			}
			r.Count = dist.Len()
		} else {
			v, ok := a.scalar(id)
			if !ok {
				continue
			}
			r.Scalar, r.Avg = true, v*d.toDisplay
		}
		s.Results = append(s.Results, r)
	}
	if a.cfg.Schema14 {
		s.Results = append(s.Results, a.adjustedResults(a.sweep.errors)...)
		s.Results = append(s.Results, a.sweep.results(nil)...)
		s.Results = append(s.Results, a.sweep.latencyResults()...)
	}
	slices.SortStableFunc(s.Results, func(x, y Result) int {
		return cmp.Or(cmp.Compare(x.DisplayOrder, y.DisplayOrder), cmp.Compare(x.Tag, y.Tag))
	})
	return s
}

// bounds returns min request start and max response end over valid records
// or, without any, the first start and last end over all records.
func (a *Accumulator) bounds() (start, end int64) {
	switch {
	case a.spanOK && a.respOK:
		return a.minRequest, a.maxResponse
	case a.anyRecord:
		return a.firstStart, a.lastEnd
	}
	return 0, 0
}

// durationNS returns benchmark_duration in ns, or false when it is not
// positive (AIPerf then has no duration and no throughputs).
func (a *Accumulator) durationNS() (int64, bool) {
	if !a.spanOK || !a.respOK || a.maxResponse <= a.minRequest {
		return 0, false
	}
	return a.maxResponse - a.minRequest, true
}

// total returns the sum of a record metric's values, or false without any.
func (a *Accumulator) total(id metricID) (float64, bool) {
	return a.dist[id].Sum(), a.dist[id].Len() > 0
}

// scalar returns an aggregate or derived metric's value in base units, or
// false when AIPerf would have none (e.g. a counter nothing contributed to).
func (a *Accumulator) scalar(id metricID) (float64, bool) {
	durNS, durOK := a.durationNS()
	durSec := float64(durNS) * nsToSec
	if s, e, ok := a.sweep.windowed(); a.cfg.Schema14 && ok {
		// AIPerf 0.13 divides by its observation window, the profiling
		// phase's span, rather than by benchmark_duration.
		durSec, durOK = float64(e-s)*nsToSec, true
	}
	perSec := func(v float64, ok bool) (float64, bool) {
		if !ok || !durOK {
			return 0, false
		}
		return v / durSec, true
	}
	switch id {
	case idReqCount:
		return float64(a.valid), a.valid > 0
	case idErrCount:
		return float64(a.failed), a.failed > 0
	case idGoodCount:
		return float64(a.good), a.goodSeen
	case idDiscrepancies:
		return float64(a.discrepancies), a.discrepanciesSeen
	case idOSLMismatches:
		return float64(a.oslMismatches), a.mismatchesSeen
	case idDuration:
		return float64(durNS), durOK
	case idReqTput:
		return perSec(float64(a.valid), a.valid > 0)
	case idGoodput:
		return perSec(float64(a.good), a.goodSeen)
	case idOutputTput:
		return perSec(a.total(idOSL))
	case idTotalTput:
		isl, okI := a.total(idISL)
		osl, okO := a.total(idOSL)
		return perSec(isl+osl, okI && okO)
	case idInputTput:
		return perSec(a.total(idISL))
	case idCompleted:
		n := a.valid + a.failed
		return float64(n), n > 0
	case idErrRate:
		n := a.valid + a.failed
		return 100 * float64(a.failed) / float64(n), n > 0
	case idCtxOverflow:
		// No record is classified as a context overflow (AIPerf matches
		// the error body against known server messages); the counter is
		// present, at 0, when some request failed.
		return 0, a.failed > 0
	case idGoodFraction:
		if n := a.valid + a.failed; n > 0 {
			return float64(a.good) / float64(n), true
		}
		return 0, true
	case idCacheReadPct:
		cache, okC := a.total(idUsageCacheRead)
		prompt, okP := a.total(idUsagePrompt)
		if !okC || !okP || prompt == 0 {
			return 0, false
		}
		return cache / prompt * 100, true
	}
	if src, ok := totalOf[id]; ok {
		return a.total(src)
	}
	return 0, false
}

// totalOf maps each Σ metric to the record metric it sums.
var totalOf = map[metricID]metricID{
	idTotalOSL:             idOSL,
	idTotalOutput:          idOutputTokens,
	idTotalReasoning:       idReasoningTokens,
	idTotalISL:             idISL,
	idTotalErrISL:          idErrISL,
	idTotalUsagePrompt:     idUsagePrompt,
	idTotalUsageCompletion: idUsageCompletion,
	idTotalUsageTotal:      idUsageTotal,
	idTotalUsageReasoning:  idUsageReasoning,
	idTotalUsageCacheRead:  idUsageCacheRead,
}
