package export

import (
	"math"
	"strconv"

	"github.com/aiperf-go/aiperf/internal/pyjson"
	"github.com/aiperf-go/aiperf/telemetry"
)

// serverStatNames are each type's statistics in AIPerf's JSON field order.
var (
	gaugeStatNames   = [...]string{"avg", "min", "max", "std", "p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99"}
	counterStatNames = [...]string{"total", "rate", "rate_avg", "rate_min", "rate_max", "rate_std"}
	histStatNames    = [...]string{"count", "sum", "avg", "count_rate", "sum_rate", "p1_estimate", "p5_estimate",
		"p10_estimate", "p25_estimate", "p50_estimate", "p75_estimate", "p90_estimate", "p95_estimate", "p99_estimate"}
)

// serverStats returns a series' statistics in its type's field order, NaN
// for the absent ones (the histogram count is statistic 0, written as an
// integer).
func serverStats(typ telemetry.MetricType, s *telemetry.ServerSeries) (names []string, vals []float64) {
	switch typ {
	case telemetry.TypeCounter:
		c := s.Counter
		return counterStatNames[:], []float64{c.Total, c.Rate, c.RateAvg, c.RateMin, c.RateMax, c.RateStd}
	case telemetry.TypeHistogram:
		h := s.Histogram
		vals = []float64{float64(h.Count), h.Sum, h.Avg, h.CountRate, h.SumRate}
		return histStatNames[:], append(vals, h.P[:]...)
	}
	g := s.Gauge
	vals = []float64{g.Avg, g.Min, g.Max, g.Std}
	return gaugeStatNames[:], append(vals, g.P[:]...)
}

// appendServerSeries writes one series object at depth 4: endpoint_url,
// labels, stats, buckets (histograms) and timeslices, absent ones left out.
func appendServerSeries(iw *indentWriter, typ telemetry.MetricType, r serverSeriesRef) {
	s := r.s
	iw.b = append(iw.b, '{')
	iw.key(true, 5, "endpoint_url")
	iw.b = pyjson.AppendString(iw.b, r.url)
	if len(s.Labels) > 0 {
		iw.key(false, 5, "labels")
		iw.b = append(iw.b, '{')
		for i, l := range s.Labels {
			iw.key(i == 0, 6, l.Name)
			iw.b = pyjson.AppendString(iw.b, l.Value)
		}
		iw.newline(5)
		iw.b = append(iw.b, '}')
	}
	iw.key(false, 5, "stats")
	names, vals := serverStats(typ, s)
	iw.b = append(iw.b, '{')
	first := true
	for i, v := range vals {
		if math.IsNaN(v) {
			continue
		}
		iw.key(first, 6, names[i])
		first = false
		if typ == telemetry.TypeHistogram && i == 0 {
			iw.b = strconv.AppendInt(iw.b, s.Histogram.Count, 10)
		} else {
			iw.b = telemetry.AppendJSONFloat(iw.b, v)
		}
	}
	iw.newline(5)
	iw.b = append(iw.b, '}')
	if typ == telemetry.TypeHistogram && s.Buckets != nil {
		iw.key(false, 5, "buckets")
		appendServerBuckets(iw, s.Buckets, 5)
	}
	if s.Timeslices != nil {
		iw.key(false, 5, "timeslices")
		appendServerTimeslices(iw, typ, s.Timeslices)
	}
	iw.newline(4)
	iw.b = append(iw.b, '}')
}

// appendServerBuckets writes {le: count, …} at depth.
func appendServerBuckets(iw *indentWriter, bs []telemetry.Bucket, depth int) {
	if len(bs) == 0 {
		iw.b = append(iw.b, '{', '}')
		return
	}
	iw.b = append(iw.b, '{')
	for i, b := range bs {
		iw.key(i == 0, depth+1, b.LE)
		iw.b = strconv.AppendInt(iw.b, b.Count, 10)
	}
	iw.newline(depth)
	iw.b = append(iw.b, '}')
}

// appendServerTimeslices writes a series' timeslices at depth 5.
func appendServerTimeslices(iw *indentWriter, typ telemetry.MetricType, ts []telemetry.Timeslice) {
	if len(ts) == 0 {
		iw.b = append(iw.b, '[', ']')
		return
	}
	iw.b = append(iw.b, '[')
	for i := range ts {
		t := &ts[i]
		if i > 0 {
			iw.b = append(iw.b, ',')
		}
		iw.newline(6)
		iw.b = append(iw.b, '{')
		iw.key(true, 7, "start_ns")
		iw.b = strconv.AppendInt(iw.b, t.StartNS, 10)
		iw.key(false, 7, "end_ns")
		iw.b = strconv.AppendInt(iw.b, t.EndNS, 10)
		if !t.Complete {
			iw.key(false, 7, "is_complete")
			iw.b = append(iw.b, "false"...)
		}
		float := func(k string, v float64) {
			iw.key(false, 7, k)
			iw.b = telemetry.AppendJSONFloat(iw.b, v)
		}
		switch typ {
		case telemetry.TypeCounter:
			float("total", t.Total)
			float("rate", t.Rate)
		case telemetry.TypeHistogram:
			iw.key(false, 7, "count")
			iw.b = strconv.AppendInt(iw.b, t.Count, 10)
			float("sum", t.Sum)
			float("avg", t.Avg)
			if t.Buckets != nil {
				iw.key(false, 7, "buckets")
				appendServerBuckets(iw, t.Buckets, 7)
			}
		default:
			float("avg", t.Avg)
			float("min", t.Min)
			float("max", t.Max)
		}
		iw.newline(6)
		iw.b = append(iw.b, '}')
	}
	iw.newline(5)
	iw.b = append(iw.b, ']')
}

// appendStrings writes a list of strings whose members sit at depth+1.
func appendStrings(iw *indentWriter, ss []string, depth int) {
	if len(ss) == 0 {
		iw.b = append(iw.b, '[', ']')
		return
	}
	iw.b = append(iw.b, '[')
	for i, s := range ss {
		if i > 0 {
			iw.b = append(iw.b, ',')
		}
		iw.newline(depth + 1)
		iw.b = pyjson.AppendString(iw.b, s)
	}
	iw.newline(depth)
	iw.b = append(iw.b, ']')
}
