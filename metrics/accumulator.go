package metrics

import (
	"math"

	"github.com/aiperf-go/aiperf/record"
)

// Accumulator gathers the profiling records of a run and summarises them.
// Its memory does not grow with the number of records once each metric
// has passed 250,000 values: up to there statistics are exact, beyond they
// are sketched (see Distribution). With Config.Schema14 it also keeps a few
// numbers per record (and the inter-chunk latencies) for AIPerf 0.13's
// sweep-line metrics, which need every interval. It is not safe for
// concurrent use: one goroutine owns it and calls Add, then Summary.
type Accumulator struct {
	cfg *Config
	en  enabledSet

	// dist holds the base-unit values of each record metric.
	dist [numIDs]Distribution

	valid, failed int
	// minRequest and maxResponse span the valid records (StartNS and
	// StartNS+request_latency); spanOK reports at least one.
	minRequest, maxResponse int64
	spanOK, respOK          bool
	// firstStart and lastEnd span every record, for runs with no valid one.
	firstStart, lastEnd int64
	anyRecord           bool

	good, discrepancies, oslMismatches          int
	goodSeen, discrepanciesSeen, mismatchesSeen bool

	errIndex map[record.Error]int
	errs     []ErrorCount

	// sweep logs every profiling record for the Config.Schema14 metrics.
	sweep sweepLog
	// icl is Add's scratch list of a record's inter-chunk latencies (the
	// sweep log copies them).
	icl []float64
}

// NewAccumulator returns an empty accumulator for a run configured by cfg,
// which must not change while the accumulator is in use.
func NewAccumulator(cfg *Config) *Accumulator {
	return &Accumulator{cfg: cfg, en: newEnabledSet(cfg), errIndex: map[record.Error]int{}}
}

// Add accounts for one record and its values, which must be
// Compute(cfg, rec) for the accumulator's cfg. Warmup records are ignored.
func (a *Accumulator) Add(rec *record.Record, vals []RecordValue) {
	if rec.Phase == record.PhaseWarmup {
		return
	}
	a.span(rec)
	if !rec.Valid() {
		a.failed++
		if rec.Error != nil {
			a.addError(*rec.Error)
		}
		for i := range vals {
			if vals[i].Tag == catalog[idErrISL].Tag {
				a.push(idErrISL, vals[i].Value)
			}
		}
		if a.cfg.Schema14 {
			a.sweep.add(rec, nil, nil)
		}
		return
	}
	a.valid++

	// Recover the base-unit values first: stats are computed in base units
	// and converted afterwards, as AIPerf does.
	var b calc
	icl := a.icl[:0]
	for i := range vals {
		v := &vals[i]
		id, ok := tagIDs[v.Tag]
		if !ok {
			continue
		}
		if catalog[id].list {
			for _, x := range v.List {
				a.push(id, toBase(id, x))
				if a.cfg.Schema14 {
					icl = append(icl, toBase(id, x))
				}
			}
			continue
		}
		b.set(id, toBase(id, v.Value))
	}
	// ITL's base value is a float; rebuilding it from its exact integer
	// inputs avoids a rounding step.
	lat, hasLat := b.get(idLatency)
	if _, ok := b.get(idITL); ok {
		ttft, _ := b.get(idTTFT)
		osl, _ := b.get(idOSL)
		if osl >= 2 {
			b.set(idITL, (lat-ttft)/(osl-1))
		}
	}
	for id := range numIDs {
		if b.has[id] && catalog[id].Kind == KindRecord && !catalog[id].list {
			a.push(id, b.val[id])
		}
	}

	if !a.spanOK || rec.StartNS < a.minRequest {
		a.minRequest = rec.StartNS
	}
	a.spanOK = true
	if hasLat {
		if end := rec.StartNS + int64(lat); !a.respOK || end > a.maxResponse {
			a.maxResponse = end
		}
		a.respOK = true
	}

	if g, ok := b.get(idGoodCount); ok {
		a.goodSeen = true
		a.good += int(g)
	}
	a.countDiscrepancy(&b)
	a.countMismatch(rec, &b)
	if a.cfg.Schema14 {
		a.sweep.add(rec, &b, icl)
	}
	a.icl = icl
}

// toBase converts a display value back to its base unit. Integer base
// values are rounded, which recovers them exactly.
func toBase(id metricID, v float64) float64 {
	d := &catalog[id]
	if d.toBase == 1 {
		return v
	}
	x := v * d.toBase
	if d.integer {
		x = math.Round(x)
	}
	return x
}

func (a *Accumulator) push(id metricID, v float64) { a.dist[id].Add(v) }

func (a *Accumulator) span(rec *record.Record) {
	if !a.anyRecord || rec.StartNS < a.firstStart {
		a.firstStart = rec.StartNS
	}
	if !a.anyRecord || rec.EndNS > a.lastEnd {
		a.lastEnd = rec.EndNS
	}
	a.anyRecord = true
}

func (a *Accumulator) addError(e record.Error) {
	if i, ok := a.errIndex[e]; ok {
		a.errs[i].Count++
		return
	}
	a.errIndex[e] = len(a.errs)
	a.errs = append(a.errs, ErrorCount{Error: e, Count: 1})
}

// countDiscrepancy counts a record whose prompt, completion or reasoning
// usage differs from the client count by more than the threshold. Like
// AIPerf it needs both the prompt and the completion diff.
func (a *Accumulator) countDiscrepancy(b *calc) {
	p, okP := b.get(idPromptDiff)
	c, okC := b.get(idCompletionDiff)
	if !okP || !okC {
		return
	}
	a.discrepanciesSeen = true
	thr := a.cfg.usageThreshold()
	r, okR := b.get(idReasoningDiff)
	if p > thr || c > thr || (okR && r > thr) {
		a.discrepancies++
	}
}

// countMismatch counts a record whose OSL differs from the requested max
// tokens by more than min(requested*pct/100, max tokens).
func (a *Accumulator) countMismatch(rec *record.Record, b *calc) {
	osl, okOSL := b.get(idOSL)
	if _, ok := b.get(idOSLDiff); !ok || !okOSL || rec.RequestedOutputTokens <= 0 {
		return
	}
	a.mismatchesSeen = true
	req := float64(rec.RequestedOutputTokens)
	limit := min(req*(a.cfg.oslPct()/100), a.cfg.oslMaxTokens())
	if math.Abs(osl-req) > limit {
		a.oslMismatches++
	}
}
