package telemetry

import (
	"cmp"
	"encoding/binary"
	"hash/maphash"
	"math"
	"slices"
	"strings"

	dto "github.com/prometheus/client_model/go"

	"github.com/aiperf-go/aiperf/metrics"
)

// endpointState is one endpoint's families and fetch statistics.
type endpointState struct {
	url      string
	families map[string]*familyState

	fetches               int64
	firstFetch, lastFetch int64
	latencySum            int64
	updates               int64
	firstUpdate           int64
	lastUpdate            int64
	digest                uint64
	intervals             metrics.Distribution // between updates, ns
}

func newEndpointState(url string) *endpointState {
	return &endpointState{url: url, families: map[string]*familyState{}}
}

// family returns the state of the family AIPerf calls name, creating it
// with typ and help.
func (ep *endpointState) family(name, typ, help string) *familyState {
	fs := ep.families[name]
	if fs == nil {
		name = strings.Clone(name) // a scrape's strings share one buffer
		fs = &familyState{name: name, typ: typ, help: strings.Clone(help), series: map[string]*seriesState{}}
		ep.families[name] = fs
	}
	return fs
}

// fetched records one usable scrape taken at ts in latency ns whose
// content hashed to digest. AIPerf counts an update when the scraped text
// differs from the previous scrape's.
func (ep *endpointState) fetched(ts, latency int64, digest uint64) {
	if ep.fetches == 0 || ts < ep.firstFetch {
		ep.firstFetch = ts
	}
	ep.lastFetch = max(ep.lastFetch, ts)
	ep.fetches++
	ep.latencySum += latency
	if ep.fetches > 1 && digest == ep.digest {
		return
	}
	ep.digest = digest
	if ep.updates == 0 {
		ep.firstUpdate = ts
	} else {
		ep.intervals.Add(float64(ts - ep.lastUpdate))
	}
	ep.updates++
	ep.lastUpdate = ts
}

// info returns AIPerf's ServerMetricsEndpointInfo over every fetch.
func (ep *endpointState) info() EndpointInfo {
	in := EndpointInfo{
		TotalFetches: ep.fetches, FirstFetchNS: ep.firstFetch, LastFetchNS: ep.lastFetch,
		UniqueUpdates: ep.updates, FirstUpdateNS: ep.firstUpdate, LastUpdateNS: ep.lastUpdate,
		MedianUpdateIntervalMS: math.NaN(),
	}
	if ep.fetches > 0 {
		in.AvgFetchLatencyMS = float64(ep.latencySum) / float64(ep.fetches) / 1e6
	}
	if ep.updates > 0 {
		in.DurationSeconds = float64(ep.lastUpdate-ep.firstUpdate) / 1e9
	}
	if ep.updates > 1 {
		in.AvgUpdateIntervalMS = in.DurationSeconds * 1000 / float64(ep.updates-1)
		in.MedianUpdateIntervalMS = ep.intervals.Percentiles(50)[0] / 1e6
	}
	return in
}

// summary returns the endpoint's statistics and schemas.
func (ep *endpointState) summary() ServerEndpoint {
	out := ServerEndpoint{URL: ep.url, Info: ep.info()}
	names := make([]string, 0, len(ep.families))
	for n := range ep.families {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		fs := ep.families[n]
		out.Schemas = append(out.Schemas, fs.schema())
		var series []ServerSeries
		for _, s := range fs.series {
			if s.hasWindow() {
				series = append(series, s.summary())
			}
		}
		if len(series) == 0 {
			continue
		}
		slices.SortFunc(series, func(a, b ServerSeries) int { return compareLabels(a.Labels, b.Labels) })
		out.Metrics = append(out.Metrics, ServerMetric{Name: n, Type: MetricType(fs.typ), Description: fs.help, Series: series})
	}
	return out
}

func compareLabels(a, b []Label) int {
	for i := range min(len(a), len(b)) {
		if c := cmp.Or(strings.Compare(a[i].Name, b[i].Name), strings.Compare(a[i].Value, b[i].Value)); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a), len(b))
}

// familyState is one family: its series and what the metadata file says of
// it (type, help, bucket bounds, quantiles, label values).
type familyState struct {
	name, typ, help string
	series          map[string]*seriesState
	labelValues     map[string]map[string]struct{}
	bounds          map[float64]struct{}
	quantiles       map[float64]struct{}
}

// admit checks a new series' label values against the cap of distinct
// values per label, and records them when it passes.
func (fs *familyState) admit(labels []*dto.LabelPair, maxValues int) bool {
	if fs.labelValues == nil {
		fs.labelValues = map[string]map[string]struct{}{}
	}
	for _, l := range labels {
		seen := fs.labelValues[l.GetName()]
		if _, ok := seen[l.GetValue()]; !ok && len(seen) >= maxValues {
			return false
		}
	}
	fs.noteLabels(labels, maxValues)
	return true
}

// noteLabels records label values for the metadata, up to the cap.
func (fs *familyState) noteLabels(labels []*dto.LabelPair, maxValues int) {
	if fs.labelValues == nil {
		fs.labelValues = map[string]map[string]struct{}{}
	}
	for _, l := range labels {
		seen := fs.labelValues[l.GetName()]
		if seen == nil {
			seen = map[string]struct{}{}
			fs.labelValues[strings.Clone(l.GetName())] = seen
		}
		if _, ok := seen[l.GetValue()]; !ok && len(seen) < maxValues {
			seen[strings.Clone(l.GetValue())] = struct{}{}
		}
	}
}

// noteBounds records a histogram's bucket bounds for the metadata.
func (fs *familyState) noteBounds(h *dto.Histogram) {
	if fs.bounds == nil {
		fs.bounds = map[float64]struct{}{}
	}
	for _, b := range h.GetBucket() {
		fs.bounds[b.GetUpperBound()] = struct{}{}
	}
}

// noteSummary records a summary family's quantiles and label values.
func (fs *familyState) noteSummary(f *dto.MetricFamily) {
	if fs.quantiles == nil {
		fs.quantiles = map[float64]struct{}{}
	}
	for _, m := range f.Metric {
		for _, q := range m.GetSummary().GetQuantile() {
			fs.quantiles[q.GetQuantile()] = struct{}{}
		}
		fs.noteLabels(m.Label, DefaultMaxLabelValues)
	}
}

// schema returns the family's metadata.
func (fs *familyState) schema() MetricSchema {
	s := MetricSchema{Name: fs.name, Type: fs.typ, Help: fs.help}
	s.BucketLabels = sortedFloatTexts(fs.bounds, formatLE)
	s.QuantileLabels = sortedFloatTexts(fs.quantiles, formatLE)
	names := make([]string, 0, len(fs.labelValues))
	for n := range fs.labelValues {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		vals := make([]string, 0, len(fs.labelValues[n]))
		for v := range fs.labelValues[n] {
			vals = append(vals, v)
		}
		slices.Sort(vals)
		s.LabelValues = append(s.LabelValues, LabelValues{Name: n, Values: vals})
	}
	return s
}

func sortedFloatTexts(set map[float64]struct{}, format func(float64) string) []string {
	if len(set) == 0 {
		return nil
	}
	fs := make([]float64, 0, len(set))
	for f := range set {
		fs = append(fs, f)
	}
	slices.Sort(fs)
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = format(f)
	}
	return out
}

// hashFamily hashes a family's content (name, type, labels and values) so
// that two scrapes of the same endpoint can be compared for change.
func hashFamily(h *maphash.Hash, name string, f *dto.MetricFamily) uint64 {
	h.Reset()
	var b [8]byte
	num := func(v float64) {
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(v))
		_, _ = h.Write(b[:])
	}
	_, _ = h.WriteString(name)
	_ = h.WriteByte(byte(f.GetType()))
	for _, m := range f.Metric {
		_ = h.WriteByte(0xff)
		for _, l := range m.Label {
			_, _ = h.WriteString(l.GetName())
			_ = h.WriteByte(0xfe)
			_, _ = h.WriteString(l.GetValue())
			_ = h.WriteByte(0xfd)
		}
		switch {
		case m.Gauge != nil:
			num(m.Gauge.GetValue())
		case m.Counter != nil:
			num(m.Counter.GetValue())
		case m.Untyped != nil:
			num(m.Untyped.GetValue())
		case m.Histogram != nil:
			num(histogramCount(m.Histogram))
			num(m.Histogram.GetSampleSum())
			for _, bk := range m.Histogram.Bucket {
				num(bk.GetUpperBound())
				num(bucketCount(bk))
			}
		case m.Summary != nil:
			num(float64(m.Summary.GetSampleCount()))
			num(m.Summary.GetSampleSum())
			for _, q := range m.Summary.Quantile {
				num(q.GetQuantile())
				num(q.GetValue())
			}
		}
	}
	return h.Sum64()
}
