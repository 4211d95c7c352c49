package telemetry

import (
	"math"
	"slices"
	"strings"

	dto "github.com/prometheus/client_model/go"

	"github.com/aiperf-go/aiperf/internal/pyjson"
)

// MetricType is a Prometheus metric type as AIPerf names it in its server
// metrics exports.
type MetricType string

// The metric types AIPerf summarises. Summaries (quantiles computed over the
// server's lifetime) are skipped, as AIPerf skips them.
const (
	TypeGauge     MetricType = "gauge"
	TypeCounter   MetricType = "counter"
	TypeHistogram MetricType = "histogram"
	// TypeUnknown is an untyped family, summarised like a gauge.
	TypeUnknown MetricType = "unknown"
)

// familyView returns the name AIPerf gives a scraped family, its type, and
// whether AIPerf keeps it at all. AIPerf parses with prometheus_client,
// which names a counter family without its _total suffix; it drops summary
// families, *_created families and uptime families (*_uptime, *_uptime_*).
func familyView(name string, f *dto.MetricFamily) (string, MetricType, bool) {
	var typ MetricType
	switch f.GetType() {
	case dto.MetricType_COUNTER:
		typ = TypeCounter
		name = strings.TrimSuffix(name, "_total")
	case dto.MetricType_GAUGE:
		typ = TypeGauge
	case dto.MetricType_HISTOGRAM:
		typ = TypeHistogram
	case dto.MetricType_UNTYPED:
		typ = TypeUnknown
	default: // summaries, and gauge histograms read from protobuf
		return name, "", false
	}
	if strings.HasSuffix(name, "_created") || strings.HasSuffix(name, "_uptime") || strings.Contains(name, "_uptime_") {
		return name, "", false
	}
	return name, typ, true
}

// scalarValue returns a gauge, counter or untyped sample's value and whether
// AIPerf keeps it (it drops NaN and infinite values).
func scalarValue(typ MetricType, m *dto.Metric) (float64, bool) {
	var v float64
	switch typ {
	case TypeCounter:
		if m.Counter == nil {
			return 0, false
		}
		v = m.Counter.GetValue()
	case TypeGauge:
		if m.Gauge == nil {
			return 0, false
		}
		v = m.Gauge.GetValue()
	default:
		if m.Untyped == nil {
			return 0, false
		}
		v = m.Untyped.GetValue()
	}
	return v, !math.IsNaN(v) && !math.IsInf(v, 0)
}

// histogramValid reports whether AIPerf keeps a histogram sample: it drops
// the whole label set when any bucket, the sum or the count is not finite,
// and keeps it when at least one of them is present.
func histogramValid(m *dto.Metric) bool {
	h := m.Histogram
	if h == nil {
		return false
	}
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	for _, b := range h.Bucket {
		if b.CumulativeCountFloat != nil && !finite(b.GetCumulativeCountFloat()) {
			return false
		}
	}
	if h.SampleSum != nil && !finite(h.GetSampleSum()) {
		return false
	}
	if h.SampleCountFloat != nil && !finite(h.GetSampleCountFloat()) {
		return false
	}
	return len(h.Bucket) > 0 || h.SampleSum != nil || h.SampleCount != nil || h.SampleCountFloat != nil
}

// bucketCount returns a bucket's cumulative count, integer or float.
func bucketCount(b *dto.Bucket) float64 {
	if b.CumulativeCountFloat != nil {
		return b.GetCumulativeCountFloat()
	}
	return float64(b.GetCumulativeCount())
}

// histogramCount returns a histogram's observation count, integer or float.
func histogramCount(h *dto.Histogram) float64 {
	if h.SampleCountFloat != nil {
		return h.GetSampleCountFloat()
	}
	return float64(h.GetSampleCount())
}

// sortedLabels returns m's labels sorted by name, as AIPerf keys a series:
// m.Label itself when already sorted, else a sorted copy in buf.
func sortedLabels(m *dto.Metric, buf []*dto.LabelPair) []*dto.LabelPair {
	ls := m.Label
	if slices.IsSortedFunc(ls, cmpLabel) {
		return ls
	}
	buf = append(buf[:0], ls...)
	slices.SortFunc(buf, cmpLabel)
	return buf
}

func cmpLabel(a, b *dto.LabelPair) int { return strings.Compare(a.GetName(), b.GetName()) }

// AppendLE appends a histogram bucket bound the way Python's
// prometheus_client writes an le label (floatToGoString): Python's repr
// ("0.1", "1.0", "1e-05"), "+Inf", and for positive values with more than
// six integer digits a Go-style exponent ("1e+06", "2.5e+07"). AIPerf keys
// buckets by the le text it scraped; for Python servers (vLLM, SGLang) this
// is that text, for Go servers ("1", not "1.0") it is not.
func AppendLE(dst []byte, f float64) []byte {
	switch {
	case math.IsInf(f, 1):
		return append(dst, "+Inf"...)
	case math.IsInf(f, -1):
		return append(dst, "-Inf"...)
	case math.IsNaN(f):
		return append(dst, "NaN"...)
	}
	start := len(dst)
	dst = pyjson.AppendFloat(dst, f)
	s := dst[start:]
	dot := -1
	for i, c := range s {
		if c == '.' {
			dot = i
			break
		}
	}
	if f <= 0 || dot <= 6 {
		return dst
	}
	// mantissa = s[0] "." s[1:dot] s[dot+1:], right-stripped of '0' and '.'.
	var mant []byte
	mant = append(mant, s[0], '.')
	mant = append(mant, s[1:dot]...)
	mant = append(mant, s[dot+1:]...)
	for len(mant) > 0 && (mant[len(mant)-1] == '0' || mant[len(mant)-1] == '.') {
		mant = mant[:len(mant)-1]
	}
	dst = append(dst[:start], mant...)
	dst = append(dst, "e+0"...)
	return appendInt(dst, int64(dot-1))
}

// formatLE is AppendLE as a string.
func formatLE(f float64) string { return string(AppendLE(nil, f)) }

func appendInt(dst []byte, v int64) []byte {
	if v < 0 {
		dst = append(dst, '-')
		v = -v
	}
	var tmp [20]byte
	i := len(tmp)
	for {
		i--
		tmp[i] = byte('0' + v%10)
		v /= 10
		if v == 0 {
			break
		}
	}
	return append(dst, tmp[i:]...)
}

// MetricTypes returns the type of every family of a scrape as AIPerf's
// raw records name it (a counter without _total; families AIPerf leaves
// out are left out), so that a reader of the raw records alone, such as
// the records of a run that never finished, can tell counters from
// gauges.
func MetricTypes(fams map[string]*dto.MetricFamily) map[string]MetricType {
	out := make(map[string]MetricType, len(fams))
	for name, f := range fams {
		if aname, typ, ok := familyView(name, f); ok {
			out[aname] = typ
		}
	}
	return out
}
