package mockserver

import (
	"math"
	"sync/atomic"
	"time"

	"github.com/aiperf-go/aiperf/internal/pyjson"
)

// Bucket upper bounds of vLLM's (V1 engine) histograms, in seconds or
// tokens, as vLLM declares them (vllm/v1/metrics/loggers.py).
var (
	ttftBoundsSeconds = []float64{
		0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75,
		1, 2.5, 5, 7.5, 10, 20, 40, 80, 160, 640, 2560,
	}
	itlBoundsSeconds = []float64{
		0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75,
		1, 2.5, 5, 7.5, 10, 20, 40, 80,
	}
	requestLatencyBoundsSeconds = []float64{
		0.3, 0.5, 0.8, 1, 1.5, 2, 2.5, 5, 10, 15, 20, 30,
		40, 50, 60, 120, 240, 480, 960, 1920, 7680,
	}
)

// tokenBounds returns vLLM's 1-2-5 bucket bounds up to maxValue: 1, 2, 5,
// 10, 20, 50, … while not above maxValue.
func tokenBounds(maxValue int) []float64 {
	var out []float64
	for scale := 1; ; scale *= 10 {
		for _, m := range [...]int{1, 2, 5} {
			v := m * scale
			if v > maxValue {
				return out
			}
			out = append(out, float64(v))
		}
	}
}

// histogram is a Prometheus histogram updated with atomics: observing
// takes no lock and allocates nothing. Values are integers of a unit
// (nanoseconds or tokens) so the sum is exact.
type histogram struct {
	name   string
	help   string
	per    float64  // units per exposed base unit: 1e9 for ns → s, 1 for tokens
	bounds []uint64 // upper bounds in units, inclusive
	le     []string // the bounds as Python's prometheus_client writes them
	counts []atomic.Uint64
	sum    atomic.Uint64 // in units
}

// newHistogram returns a histogram with the given bounds in the exposed
// base unit (seconds or tokens), observing values in units of which per
// make one base unit.
func newHistogram(name, help string, bounds []float64, per float64) *histogram {
	h := &histogram{name: name, help: help, per: per, counts: make([]atomic.Uint64, len(bounds)+1)}
	for _, b := range bounds {
		h.bounds = append(h.bounds, uint64(math.Round(b*per)))
		h.le = append(h.le, string(pyjson.AppendFloat(nil, b)))
	}
	return h
}

// observeN records n observations of v units.
func (h *histogram) observeN(v, n uint64) {
	if n == 0 {
		return
	}
	i := 0
	for i < len(h.bounds) && v > h.bounds[i] {
		i++
	}
	// The sum first: appendTo loads the buckets first, so a bucket it
	// sees has its observations in the sum it loads next.
	h.sum.Add(v * n)
	h.counts[i].Add(n)
}

// observe records one observation of v units.
func (h *histogram) observe(v uint64) { h.observeN(v, 1) }

// observeDuration records one observation of d (negative counts as 0).
func (h *histogram) observeDuration(d time.Duration) { h.observe(uint64(max(d, 0))) }

// appendTo writes the histogram's family as prometheus_client does in
// vLLM's multiprocess mode: labels sorted by name, so le sits between
// "engine" and "model_name"; sum first, then cumulative buckets, then the
// count. before and after are the label pairs that sort before and after
// "le" (without braces); each is "" or ends/starts as needed.
func (h *histogram) appendTo(b []byte, before, after string) []byte {
	b = appendFamily(b, h.name, "histogram", h.help)
	// Load the buckets first: the sum may then run slightly ahead of them,
	// never behind by a whole observation's bucket.
	var cum [64]uint64
	counts := cum[:0]
	var total uint64
	for i := range h.counts {
		total += h.counts[i].Load()
		counts = append(counts, total)
	}
	b = append(b, h.name...)
	b = append(b, "_sum{"...)
	b = appendLabels(b, before, after)
	b = append(b, "} "...)
	// A division by the exact 1e9 rounds once, so 14211 ns reads 1.4211e-05.
	b = pyjson.AppendFloat(b, float64(h.sum.Load())/h.per)
	b = append(b, '\n')
	for i, c := range counts {
		b = append(b, h.name...)
		b = append(b, "_bucket{"...)
		b = append(b, before...)
		if before != "" {
			b = append(b, ',')
		}
		b = append(b, `le="`...)
		if i < len(h.le) {
			b = append(b, h.le[i]...)
		} else {
			b = append(b, "+Inf"...)
		}
		b = append(b, '"')
		if after != "" {
			b = append(b, ',')
			b = append(b, after...)
		}
		b = append(b, "} "...)
		b = pyjson.AppendFloat(b, float64(c))
		b = append(b, '\n')
	}
	b = append(b, h.name...)
	b = append(b, "_count{"...)
	b = appendLabels(b, before, after)
	b = append(b, "} "...)
	b = pyjson.AppendFloat(b, float64(total))
	return append(b, '\n')
}

// appendLabels writes two comma-joined label lists, either possibly empty.
func appendLabels(b []byte, first, second string) []byte {
	b = append(b, first...)
	if first != "" && second != "" {
		b = append(b, ',')
	}
	return append(b, second...)
}

// appendFamily writes a family's HELP and TYPE lines.
func appendFamily(b []byte, name, typ, help string) []byte {
	b = append(b, "# HELP "...)
	b = append(b, name...)
	b = append(b, ' ')
	b = append(b, help...)
	b = append(b, "\n# TYPE "...)
	b = append(b, name...)
	b = append(b, ' ')
	b = append(b, typ...)
	return append(b, '\n')
}

// appendSample writes one sample line "name{labels} value" with value in
// Python's float form (prometheus_client writes every value as a float).
func appendSample(b []byte, name, labels string, v float64) []byte {
	b = append(b, name...)
	if labels != "" {
		b = append(b, '{')
		b = append(b, labels...)
		b = append(b, '}')
	}
	b = append(b, ' ')
	b = pyjson.AppendFloat(b, v)
	return append(b, '\n')
}
