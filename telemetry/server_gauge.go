package telemetry

import (
	"math"
	"slices"
	"sort"

	"github.com/aiperf-go/aiperf/metrics"
)

// exactGaugeValues is how many distinct values a gauge series keeps
// exactly. Gauges mostly take few values (queue depths, running requests,
// 0/1 flags), so their percentiles stay numpy's exactly in a few KB; a
// gauge with more distinct values has them rounded into bins of relative
// width 0.2% (a representative within 0.1% of each value), so that memory
// never grows with the run's length.
const exactGaugeValues = 1024

// gaugeBinGamma is the ratio between consecutive bin representatives.
const gaugeBinGamma = 1.002

var logGaugeBinGamma = math.Log(gaugeBinGamma)

// gaugeState summarises a gauge's (or untyped family's) window samples in
// bounded memory: count, compensated sum, min, max, Welford's moments and
// the multiset of values.
type gaugeState struct {
	n         int64
	sum, comp float64 // Neumaier-compensated sum
	min, max  float64
	mean, m2  float64 // Welford
	values    map[float64]int64
	binned    bool
	slices    *gaugeSlices
}

func newGaugeState(sliceNS int64) *gaugeState {
	g := &gaugeState{values: make(map[float64]int64, 4)}
	if sliceNS > 0 {
		g.slices = &gaugeSlices{d: sliceNS}
	}
	return g
}

// add adds one window sample taken at ts.
func (g *gaugeState) add(ts int64, v float64) {
	if g.n == 0 || v < g.min {
		g.min = v
	}
	if g.n == 0 || v > g.max {
		g.max = v
	}
	g.n++
	t := g.sum + v
	if math.Abs(g.sum) >= math.Abs(v) {
		g.comp += (g.sum - t) + v
	} else {
		g.comp += (v - t) + g.sum
	}
	g.sum = t
	d := v - g.mean
	g.mean += d / float64(g.n)
	g.m2 += float64(d * (v - g.mean))

	if g.binned {
		g.values[binOf(v)]++
	} else if g.values[v]++; len(g.values) > exactGaugeValues {
		g.binned = true
		exact := g.values
		g.values = make(map[float64]int64, len(exact))
		for x, c := range exact {
			g.values[binOf(x)] += c
		}
	}
	if g.slices != nil {
		g.slices.add(ts, v)
	}
}

// binOf returns v's bin representative: sign * gamma^round(log_gamma |v|).
func binOf(v float64) float64 {
	if v == 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return v
	}
	k := math.Round(math.Log(math.Abs(v)) / logGaugeBinGamma)
	return math.Copysign(math.Exp(k*logGaugeBinGamma), v)
}

// stats returns the gauge's statistics; n must be positive.
func (g *gaugeState) stats() GaugeStats {
	s := GaugeStats{Avg: (g.sum + g.comp) / float64(g.n), Min: g.min, Max: g.max}
	if g.n > 1 {
		s.Std = math.Sqrt(g.m2 / float64(g.n-1))
	}
	keys := make([]float64, 0, len(g.values))
	for x := range g.values {
		keys = append(keys, x)
	}
	slices.Sort(keys)
	cum := make([]int64, len(keys)) // cum[i]: values up to and including keys[i]
	var c int64
	for i, x := range keys {
		c += g.values[x]
		cum[i] = c
	}
	at := func(rank int64) float64 {
		i := sort.Search(len(cum), func(i int) bool { return cum[i] > rank })
		return min(max(keys[i], g.min), g.max)
	}
	for i, p := range histogramPercentiles {
		s.P[i] = rankPercentile(g.n, p, at)
	}
	return s
}

// rankPercentile is numpy's linear percentile (as metrics.PercentileSorted)
// of n sorted values read through at(rank).
func rankPercentile(n int64, p float64, at func(int64) float64) float64 {
	q := p / 100
	virtual := float64(n-1) * q
	prev := math.Floor(virtual)
	lo, hi := int64(prev), int64(prev)+1
	if virtual >= float64(n-1) {
		lo, hi, prev = n-1, n-1, -1
	}
	if virtual < 0 {
		lo, hi = 0, 0
	}
	a, b := at(lo), at(hi)
	t := virtual - prev
	diff := b - a
	if t >= 0.5 {
		return b - float64(diff*(1-t))
	}
	return a + float64(diff*t)
}

// gaugeSlices keeps a gauge's per-timeslice count, sum, min and max.
type gaugeSlices struct {
	d      int64
	origin int64
	last   int64
	n      int64
	parts  []gaugePart
}

type gaugePart struct {
	n             int64
	sum, min, max float64
}

func (s *gaugeSlices) add(ts int64, v float64) {
	if s.n == 0 {
		s.origin = ts
	}
	s.n++
	s.last = ts
	k := int((ts - s.origin) / s.d)
	if k < 0 {
		k = 0
	}
	for len(s.parts) <= k {
		s.parts = append(s.parts, gaugePart{})
	}
	p := &s.parts[k]
	if p.n == 0 || v < p.min {
		p.min = v
	}
	if p.n == 0 || v > p.max {
		p.max = v
	}
	p.n++
	p.sum += v
}

// timeslices returns AIPerf's gauge timeslices: pieces of d from the first
// window sample to the last one, each with the samples at or after its
// start and before its end (the last piece also takes the final sample),
// pieces without samples left out. Nil with fewer than two samples.
func (s *gaugeSlices) timeslices() []Timeslice {
	if s.n < 2 {
		return nil
	}
	end := max(s.last, s.origin+1)
	parts := slices.Clone(s.parts)
	// A final sample exactly on a boundary belongs to the piece before it.
	if k := (end - s.origin) / s.d; (end-s.origin)%s.d == 0 && int(k) < len(parts) && k > 0 {
		a, b := &parts[k-1], parts[k]
		if b.n > 0 {
			if a.n == 0 {
				*a = b
			} else {
				a.n += b.n
				a.sum += b.sum
				a.min, a.max = min(a.min, b.min), max(a.max, b.max)
			}
		}
		parts = parts[:k]
	}
	var out []Timeslice
	for k, p := range parts {
		start := s.origin + int64(k)*s.d
		if start >= end || p.n == 0 {
			continue
		}
		out = append(out, Timeslice{
			StartNS: start, EndNS: min(start+s.d, end), Complete: start+s.d <= end,
			Avg: p.sum / float64(p.n), Min: p.min, Max: p.max,
		})
	}
	return out
}

// rateStats returns numpy's mean, min, max and sample std (ddof=1, 0 for
// one value) of the complete timeslices' rates; NaNs when there are none.
func rateStats(ts []Timeslice) (avg, lo, hi, std float64) {
	var rates []float64
	for _, t := range ts {
		if t.Complete {
			rates = append(rates, t.Rate)
		}
	}
	if len(rates) == 0 {
		return nan, nan, nan, nan
	}
	avg = metrics.PairwiseSum(rates) / float64(len(rates))
	lo, hi = slices.Min(rates), slices.Max(rates)
	if len(rates) > 1 {
		sq := make([]float64, len(rates))
		for i, r := range rates {
			d := r - avg
			sq[i] = d * d
		}
		std = math.Sqrt(metrics.PairwiseSum(sq) / float64(len(rates)-1))
	}
	return avg, lo, hi, std
}
