package telemetry

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	dto "github.com/prometheus/client_model/go"
)

// The histogram, summary and token helpers of fastParse.

// grouped returns the histogram or summary metric of the line's labels
// (in any order), creating it with them on first sight.
func (p *textParser) grouped(f *textFamily) *dto.Metric {
	p.key = p.key[:0]
	p.sorted = append(p.sorted[:0], p.labels...)
	slices.SortFunc(p.sorted, cmpLabel)
	for _, l := range p.sorted {
		p.key = append(append(append(append(p.key, l.GetName()...), 0xff), l.GetValue()...), 0xfe)
	}
	if m := f.grouped[string(p.key)]; m != nil {
		return m
	}
	m := p.newMetric(f)
	f.grouped[string(p.key)] = m
	return m
}

// histogramLine adds a _bucket, _sum or _count line to its histogram.
func (p *textParser) histogramLine(f *textFamily, suffix string, hasLE bool, le string, v float64) bool {
	if suffix == "" || hasLE != (suffix == "_bucket") {
		return false
	}
	if suffix != "_sum" && !wholeCount(v) {
		return false // fractional or huge counts: expfmt's float histograms
	}
	m := p.grouped(f)
	if m.Histogram == nil {
		m.Histogram = &dto.Histogram{}
	}
	h := m.Histogram
	if p.sumOrCount(suffix, v, &h.SampleSum, &h.SampleCount) {
		return true
	}
	ub, ok := labelFloat(le)
	if !ok {
		return false
	}
	p.buckets = append(p.buckets, dto.Bucket{UpperBound: p.float(ub), CumulativeCount: p.uint(v)})
	h.Bucket = append(h.Bucket, &p.buckets[len(p.buckets)-1])
	return true
}

// summaryLine adds a quantile, _sum or _count line to its summary.
func (p *textParser) summaryLine(f *textFamily, suffix string, hasQ bool, quantile string, v float64) bool {
	if hasQ != (suffix == "") {
		return false
	}
	if suffix == "_count" && !wholeCount(v) {
		return false
	}
	var q float64
	if hasQ {
		var ok bool
		if q, ok = labelFloat(quantile); !ok {
			return false
		}
	}
	m := p.grouped(f)
	if m.Summary == nil {
		m.Summary = &dto.Summary{}
	}
	s := m.Summary
	if !p.sumOrCount(suffix, v, &s.SampleSum, &s.SampleCount) {
		s.Quantile = append(s.Quantile, &dto.Quantile{Quantile: p.float(q), Value: p.float(v)})
	}
	return true
}

// sumOrCount stores a histogram's or summary's _sum or _count line in sum
// or count, and reports whether the line was one of them.
func (p *textParser) sumOrCount(suffix string, v float64, sum **float64, count **uint64) bool {
	switch suffix {
	case "_sum":
		*sum = p.float(v)
	case "_count":
		*count = p.uint(v)
	default:
		return false
	}
	return true
}

// wholeCount reports whether v is a count expfmt reads into an integer
// field: not negative, integral, and exact in a float64.
func wholeCount(v float64) bool {
	return v >= 0 && v == math.Trunc(v) && v <= 1<<53
}

// labelFloat parses an le or quantile label value as expfmt does, without
// the spellings (hex floats, underscores) it rejects; NaN is not a bound.
func labelFloat(s string) (float64, bool) {
	if strings.ContainsAny(s, "pP_") {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil && !math.IsNaN(f)
}

// labelValue reads a quoted label value's text up to its closing quote
// (unescaping \\, \" and \n) and returns it with the bytes consumed.
func labelValue(s string) (string, int, bool) {
	end := strings.IndexByte(s, '"')
	if end < 0 {
		return "", 0, false
	}
	if !strings.Contains(s[:end], `\`) {
		v := s[:end]
		return v, end + 1, utf8.ValidString(v)
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"':
			v := b.String()
			return v, i + 1, utf8.ValidString(v)
		case '\\':
			if i+1 >= len(s) {
				return "", 0, false
			}
			i++
			switch s[i] {
			case '\\', '"':
				b.WriteByte(s[i])
			case 'n':
				b.WriteByte('\n')
			default:
				return "", 0, false
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", 0, false
}

// unescapeHelp undoes a HELP text's escapes as expfmt does: \\, \n and \".
func unescapeHelp(s string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		if i++; i >= len(s) {
			return "", false
		}
		switch s[i] {
		case '\\', '"':
			b.WriteByte(s[i])
		case 'n':
			b.WriteByte('\n')
		default:
			return "", false
		}
	}
	return b.String(), true
}

func legacyMetricName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == ':' || (i > 0 && c >= '0' && c <= '9')) {
			return false
		}
	}
	return true
}

func legacyLabelName(s string) bool {
	return s != "" && !strings.Contains(s, ":") && legacyMetricName(s)
}
