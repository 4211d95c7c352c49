package telemetry

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"google.golang.org/protobuf/proto"
)

// Builders of parsed families, as ParseExposition returns them.

func labelPairs(kv ...string) []*dto.LabelPair {
	var out []*dto.LabelPair
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, &dto.LabelPair{Name: proto.String(kv[i]), Value: proto.String(kv[i+1])})
	}
	return out
}

func gaugeFam(name string, v float64, kv ...string) *dto.MetricFamily {
	return &dto.MetricFamily{Name: proto.String(name), Type: dto.MetricType_GAUGE.Enum(), Help: proto.String(name + " help"),
		Metric: []*dto.Metric{{Label: labelPairs(kv...), Gauge: &dto.Gauge{Value: proto.Float64(v)}}}}
}

func counterFam(name string, v float64, kv ...string) *dto.MetricFamily {
	return &dto.MetricFamily{Name: proto.String(name), Type: dto.MetricType_COUNTER.Enum(), Help: proto.String(name + " help"),
		Metric: []*dto.Metric{{Label: labelPairs(kv...), Counter: &dto.Counter{Value: proto.Float64(v)}}}}
}

func untypedFam(name string, v float64) *dto.MetricFamily {
	return &dto.MetricFamily{Name: proto.String(name), Type: dto.MetricType_UNTYPED.Enum(),
		Metric: []*dto.Metric{{Untyped: &dto.Untyped{Value: proto.Float64(v)}}}}
}

func histFam(name string, bounds, cum []float64, sum, count float64, kv ...string) *dto.MetricFamily {
	h := &dto.Histogram{SampleSum: proto.Float64(sum), SampleCountFloat: proto.Float64(count)}
	for i, b := range bounds {
		h.Bucket = append(h.Bucket, &dto.Bucket{UpperBound: proto.Float64(b), CumulativeCountFloat: proto.Float64(cum[i])})
	}
	return &dto.MetricFamily{Name: proto.String(name), Type: dto.MetricType_HISTOGRAM.Enum(), Help: proto.String(name + " help"),
		Metric: []*dto.Metric{{Label: labelPairs(kv...), Histogram: h}}}
}

// merge puts several families of the same name (one series each) together.
func fams(fs ...*dto.MetricFamily) map[string]*dto.MetricFamily {
	out := map[string]*dto.MetricFamily{}
	for _, f := range fs {
		if old := out[f.GetName()]; old != nil {
			old.Metric = append(old.Metric, f.Metric...)
			continue
		}
		out[f.GetName()] = f
	}
	return out
}

func serverSample(src string, ts int64, fs ...*dto.MetricFamily) Sample {
	return Sample{Kind: KindServer, Source: src, TimeNS: ts, LatencyNS: 2_000_000, Server: fams(fs...)}
}

// seriesJSON lays a series out as AIPerf's export does (stats, buckets,
// timeslices; absent values left out, numbers as float64), for comparing
// with AIPerf's own output.
func seriesJSON(typ MetricType, s ServerSeries) map[string]any {
	out := map[string]any{}
	put := func(m map[string]any, k string, v float64) {
		if !math.IsNaN(v) {
			m[k] = v
		}
	}
	pct := func(m map[string]any, p [9]float64, suffix string) {
		for i, q := range histogramPercentiles {
			put(m, fmt.Sprintf("p%d%s", int(q), suffix), p[i])
		}
	}
	st := map[string]any{}
	switch typ {
	case TypeCounter:
		c := s.Counter
		put(st, "total", c.Total)
		put(st, "rate", c.Rate)
		put(st, "rate_avg", c.RateAvg)
		put(st, "rate_min", c.RateMin)
		put(st, "rate_max", c.RateMax)
		put(st, "rate_std", c.RateStd)
	case TypeHistogram:
		h := s.Histogram
		st["count"] = num(h.Count)
		put(st, "sum", h.Sum)
		put(st, "avg", h.Avg)
		put(st, "count_rate", h.CountRate)
		put(st, "sum_rate", h.SumRate)
		pct(st, h.P, "_estimate")
	default:
		g := s.Gauge
		put(st, "avg", g.Avg)
		put(st, "min", g.Min)
		put(st, "max", g.Max)
		put(st, "std", g.Std)
		pct(st, g.P, "")
	}
	out["stats"] = st
	buckets := func(bs []Bucket) map[string]any {
		m := map[string]any{}
		for _, b := range bs {
			m[b.LE] = num(b.Count)
		}
		return m
	}
	if typ == TypeHistogram && s.Buckets != nil {
		out["buckets"] = buckets(s.Buckets)
	}
	if s.Timeslices != nil {
		var list []any
		for _, t := range s.Timeslices {
			m := map[string]any{"start_ns": num(t.StartNS), "end_ns": num(t.EndNS)}
			if !t.Complete {
				m["is_complete"] = false
			}
			switch typ {
			case TypeCounter:
				m["total"], m["rate"] = t.Total, t.Rate
			case TypeHistogram:
				m["count"], m["sum"], m["avg"] = num(t.Count), t.Sum, t.Avg
				if t.Buckets != nil {
					m["buckets"] = buckets(t.Buckets)
				}
			default:
				m["avg"], m["min"], m["max"] = t.Avg, t.Min, t.Max
			}
			list = append(list, m)
		}
		if list == nil {
			list = []any{}
		}
		out["timeslices"] = list
	}
	return out
}

// compareJSON reports every difference between want and got (decoded JSON
// values), numbers equal within rel relative (or 1e-12 absolute).
func compareJSON(t *testing.T, path string, want, got any, rel float64) {
	t.Helper()
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			t.Errorf("%s: got %T, want object", path, got)
			return
		}
		keys := map[string]bool{}
		for k := range w {
			keys[k] = true
		}
		for k := range g {
			keys[k] = true
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		for _, k := range sorted {
			wv, wok := w[k]
			gv, gok := g[k]
			switch {
			case !wok:
				t.Errorf("%s.%s: unexpected %v", path, k, gv)
			case !gok:
				t.Errorf("%s.%s: missing, want %v", path, k, wv)
			default:
				compareJSON(t, path+"."+k, wv, gv, rel)
			}
		}
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			t.Errorf("%s: got %v, want %d items %v", path, got, len(w), want)
			return
		}
		for i := range w {
			compareJSON(t, fmt.Sprintf("%s[%d]", path, i), w[i], g[i], rel)
		}
	case json.Number:
		if !strings.ContainsAny(string(w), ".eE") { // an integer: exact
			if g, ok := got.(json.Number); !ok || g != w {
				t.Errorf("%s: got %v, want %v", path, got, w)
			}
			return
		}
		f, _ := w.Float64()
		compareJSON(t, path, f, got, rel)
	case float64:
		g, ok := got.(float64)
		if !ok || !closeTo(g, w, rel) {
			t.Errorf("%s: got %v, want %v", path, got, w)
		}
	default:
		if !slices.Equal([]any{want}, []any{got}) {
			t.Errorf("%s: got %v, want %v", path, got, want)
		}
	}
}

// num is an integer as a JSON number literal.
func num(v int64) json.Number { return json.Number(strconv.FormatInt(v, 10)) }

func closeTo(got, want, rel float64) bool {
	if got == want {
		return true
	}
	return math.Abs(got-want) <= max(rel*math.Abs(want), 1e-12)
}
