package telemetry

import (
	"bytes"
	"math"
	"slices"
	"strconv"
	"strings"

	dto "github.com/prometheus/client_model/go"

	"github.com/aiperf-go/aiperf/internal/pyjson"
	"github.com/aiperf-go/aiperf/internal/secret"
)

// AppendServerRecord appends one server metrics sample as AIPerf's raw
// record, the line of server_metrics_export.jsonl (without its newline):
//
//	{"endpoint_url":…,"timestamp_ns":…,"endpoint_latency_ns":…,"metrics":{name:[sample…]}}
//
// Families are named and filtered as AIPerf does (a counter without
// _total; summaries, *_created, uptime and *_info families left out) and
// sorted by name; a sample is {"labels":{…},"value":v} or, for a histogram,
// {"labels":{…},"buckets":{le:count…},"sum":s,"count":c}, with labels
// sorted and left out when there are none, and non-finite samples dropped.
// Floats are written as AIPerf's orjson writes them. A sample with no usable
// family appends nothing (AIPerf writes no record for it).
func AppendServerRecord(dst []byte, s Sample) []byte {
	out, _ := appendServerRecord(dst, s)
	return out
}

// appendServerRecord is AppendServerRecord, also returning where the
// "metrics" value starts in dst (-1 when nothing was appended).
func appendServerRecord(dst []byte, s Sample) ([]byte, int) {
	type fam struct {
		name string
		typ  MetricType
		f    *dto.MetricFamily
	}
	fams := make([]fam, 0, len(s.Server))
	for name, f := range s.Server {
		aname, typ, ok := familyView(name, f)
		if !ok || strings.HasSuffix(aname, "_info") || shadowed(s.Server, name, aname) {
			continue
		}
		fams = append(fams, fam{aname, typ, f})
	}
	slices.SortFunc(fams, func(a, b fam) int { return strings.Compare(a.name, b.name) })
	start := len(dst)
	dst = append(dst, `{"endpoint_url":`...)
	dst = pyjson.AppendString(dst, secret.URL(s.Source))
	dst = append(dst, `,"timestamp_ns":`...)
	dst = strconv.AppendInt(dst, s.TimeNS, 10)
	dst = append(dst, `,"endpoint_latency_ns":`...)
	dst = strconv.AppendInt(dst, s.LatencyNS, 10)
	dst = append(dst, `,"metrics":`...)
	mstart := len(dst)
	dst = append(dst, '{')
	var lbuf []*dto.LabelPair
	wrote := false
	for _, f := range fams {
		famStart := len(dst)
		if wrote {
			dst = append(dst, ',')
		}
		dst = pyjson.AppendString(dst, f.name)
		dst = append(dst, ':', '[')
		n := 0
		for _, m := range f.f.Metric {
			if f.typ == TypeHistogram {
				if !histogramValid(m) {
					continue
				}
			} else if _, ok := scalarValue(f.typ, m); !ok {
				continue
			}
			if n > 0 {
				dst = append(dst, ',')
			}
			n++
			lbuf = sortedLabels(m, lbuf)
			dst = appendServerSample(dst, f.typ, m, lbuf)
		}
		if n == 0 {
			dst = dst[:famStart]
			continue
		}
		dst = append(dst, ']')
		wrote = true
	}
	if !wrote {
		return dst[:start], -1
	}
	dst = append(dst, '}', '}')
	return dst, mstart
}

// appendServerSample appends one sample object.
func appendServerSample(dst []byte, typ MetricType, m *dto.Metric, labels []*dto.LabelPair) []byte {
	dst = append(dst, '{')
	if len(labels) > 0 {
		dst = append(dst, `"labels":{`...)
		for i, l := range labels {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = pyjson.AppendString(dst, l.GetName())
			dst = append(dst, ':')
			dst = pyjson.AppendString(dst, l.GetValue())
		}
		dst = append(dst, '}', ',')
	}
	if typ != TypeHistogram {
		v, _ := scalarValue(typ, m)
		dst = append(dst, `"value":`...)
		dst = AppendJSONFloat(dst, v)
		return append(dst, '}')
	}
	h := m.Histogram
	dst = append(dst, `"buckets":{`...)
	for i, b := range h.Bucket {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, '"')
		dst = AppendLE(dst, b.GetUpperBound())
		dst = append(dst, '"', ':')
		dst = AppendJSONFloat(dst, bucketCount(b))
	}
	dst = append(dst, '}')
	if h.SampleSum != nil {
		dst = append(dst, `,"sum":`...)
		dst = AppendJSONFloat(dst, h.GetSampleSum())
	}
	if h.SampleCount != nil || h.SampleCountFloat != nil {
		dst = append(dst, `,"count":`...)
		dst = AppendJSONFloat(dst, histogramCount(h))
	}
	return append(dst, '}')
}

// AppendJSONFloat appends f as AIPerf's JSON writer (orjson) writes a
// float: the shortest digits that round-trip, "3.0" for an integral value,
// plain decimals from 1e-5 up to 1e16 ("0.00001", "1000000000000000.0")
// and an unpadded exponent outside that ("1e-6", "2.5e-7", "1e+16"). NaN
// and infinities are written as null.
func AppendJSONFloat(dst []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(dst, "null"...)
	}
	if f == 0 {
		if math.Signbit(f) {
			return append(dst, "-0.0"...)
		}
		return append(dst, "0.0"...)
	}
	var tmp [32]byte
	s := strconv.AppendFloat(tmp[:0], f, 'e', -1, 64) // [-]d[.ddd]e±XX
	if s[0] == '-' {
		dst = append(dst, '-')
		s = s[1:]
	}
	e := bytes.IndexByte(s, 'e')
	mant, exp := s[:e], s[e+1:]
	x, _ := strconv.Atoi(string(exp))
	digits := make([]byte, 0, 20)
	for _, c := range mant {
		if c != '.' {
			digits = append(digits, c)
		}
	}
	decpt := x + 1 // value = 0.DIGITS × 10^decpt
	switch {
	case decpt <= -5 || decpt > 16:
		dst = append(dst, mant...)
		dst = append(dst, 'e')
		if x > 0 {
			dst = append(dst, '+')
		}
		return strconv.AppendInt(dst, int64(x), 10)
	case decpt <= 0:
		dst = append(dst, '0', '.')
		for range -decpt {
			dst = append(dst, '0')
		}
		return append(dst, digits...)
	case decpt >= len(digits):
		dst = append(dst, digits...)
		for range decpt - len(digits) {
			dst = append(dst, '0')
		}
		return append(dst, '.', '0')
	}
	dst = append(dst, digits[:decpt]...)
	dst = append(dst, '.')
	return append(dst, digits[decpt:]...)
}
