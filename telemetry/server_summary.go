package telemetry

import (
	"math"
	"time"
)

// ServerMetricsSummary is what a ServerMetrics accumulator learned over a run: per
// endpoint, its collection statistics and the statistics of every series
// over the profiling window, as AIPerf computes them for
// server_metrics_export.json and .csv, plus the metric schemas of
// server_metrics_metadata.json.
//
// Optional statistics follow one convention: a NaN float is absent (AIPerf's
// None, left out of the JSON and empty in the CSV).
type ServerMetricsSummary struct {
	// StartNS and EndNS are the profiling window as given to Start and
	// End (0 when not called).
	StartNS, EndNS int64
	// SliceDuration is the timeslice length the series were sliced by;
	// 0 means no timeslices.
	SliceDuration time.Duration
	// Endpoints are the endpoints that answered at least one scrape, in
	// the order of their first sample.
	Endpoints []ServerEndpoint
	// DroppedSeries counts series never tracked because one of their
	// label values would have passed the cap on unique values per label.
	DroppedSeries int64
}

// HasData reports whether any endpoint has a series with statistics. AIPerf
// writes no server metrics JSON or CSV export without any.
func (s *ServerMetricsSummary) HasData() bool {
	for i := range s.Endpoints {
		if len(s.Endpoints[i].Metrics) > 0 {
			return true
		}
	}
	return false
}

// ServerEndpoint is one scraped endpoint.
type ServerEndpoint struct {
	// URL is the endpoint's URL with any credentials redacted.
	URL string
	// Info are its collection statistics over the whole run.
	Info EndpointInfo
	// Metrics are its families with at least one sample in the profiling
	// window, sorted by name. Empty when it had none.
	Metrics []ServerMetric
	// Schemas describe every family it exposed (also summaries, and
	// families without window samples), sorted by name.
	Schemas []MetricSchema
}

// EndpointInfo is AIPerf's ServerMetricsEndpointInfo: how often an endpoint
// was fetched and how often its metrics changed. A fetch is a scrape that
// returned at least one usable family; an update is a fetch whose metrics
// differ from the previous fetch's.
type EndpointInfo struct {
	TotalFetches      int64
	FirstFetchNS      int64
	LastFetchNS       int64
	AvgFetchLatencyMS float64
	UniqueUpdates     int64
	FirstUpdateNS     int64
	LastUpdateNS      int64
	// DurationSeconds is the span from the first to the last update.
	DurationSeconds     float64
	AvgUpdateIntervalMS float64
	// MedianUpdateIntervalMS is NaN with fewer than two updates.
	MedianUpdateIntervalMS float64
}

// ServerMetric is one family's series on one endpoint.
type ServerMetric struct {
	// Name is AIPerf's name for the family: a counter's without _total.
	Name string
	Type MetricType
	// Description is the family's HELP text.
	Description string
	// Series are sorted by their labels.
	Series []ServerSeries
}

// Label is one label of a series.
type Label struct {
	Name, Value string
}

// ServerSeries is one series (a family and a label set) over the profiling
// window. Exactly one of Gauge, Counter and Histogram is meaningful, by the
// family's type (Gauge for gauges and untyped families).
type ServerSeries struct {
	// Labels are sorted by name; nil when the series has none.
	Labels    []Label
	Gauge     GaugeStats
	Counter   CounterStats
	Histogram HistogramStats
	// Buckets are a histogram's cumulative bucket counts gained over the
	// window, in ascending bound order; nil when a bucket went backwards
	// (a reset), as AIPerf then leaves them out.
	Buckets []Bucket
	// Timeslices are the window cut into SliceDuration pieces; nil when
	// absent. A counter sliced with too little data has an empty,
	// non-nil list (AIPerf writes "timeslices": []).
	Timeslices []Timeslice
	// Resets counts the times a counter went backwards in the window.
	Resets int
}

// GaugeStats are a gauge's statistics over its window samples: numpy's
// mean, min, max, sample standard deviation (ddof=1, 0 for one sample) and
// linear-interpolation percentiles p1, p5, p10, p25, p50, p75, p90, p95,
// p99.
type GaugeStats struct {
	Avg, Min, Max, Std float64
	P                  [9]float64
}

// CounterStats are a counter's increase over the window (from the last
// sample before it to the last one in it, clamped at 0 across a reset) and
// its rate per second; the rate statistics are over the complete
// timeslices' rates and NaN without timeslices.
type CounterStats struct {
	Total, Rate                        float64
	RateAvg, RateMin, RateMax, RateStd float64
}

// HistogramStats are a histogram's observations gained over the window.
// With Count 0 every other field is NaN. CountRate and SumRate are NaN when
// the window has no duration; P (the estimated p1…p99, see
// estimatePercentiles) is all NaN when the buckets could not be used.
type HistogramStats struct {
	Count                        int64
	Sum, Avg, CountRate, SumRate float64
	P                            [9]float64
}

// Bucket is one histogram bucket: its le text and a count.
type Bucket struct {
	LE    string
	Count int64
}

// Timeslice is one piece of the window. Complete is false for the last,
// shorter piece. Gauges fill Avg, Min and Max; counters Total and Rate;
// histograms Count, Sum, Avg and Buckets (nil when a bucket went backwards).
type Timeslice struct {
	StartNS, EndNS int64
	Complete       bool
	Avg, Min, Max  float64
	Total, Rate    float64
	Count          int64
	Sum            float64
	Buckets        []Bucket
}

// MetricSchema describes one family an endpoint exposed, as in AIPerf's
// server_metrics_metadata.json.
type MetricSchema struct {
	Name string
	// Type is "gauge", "counter", "histogram", "summary" or "unknown".
	Type string
	Help string
	// BucketLabels are a histogram's le texts in ascending order.
	BucketLabels []string
	// QuantileLabels are a summary's quantiles in ascending order.
	QuantileLabels []string
	// LabelValues are the values seen per label name (up to the cap),
	// sorted by name and value.
	LabelValues []LabelValues
}

// LabelValues are the values seen for one label.
type LabelValues struct {
	Name   string
	Values []string
}

// nan is the absent statistic.
var nan = math.NaN()

// nanPercentiles are nine absent percentiles.
var nanPercentiles = [9]float64{nan, nan, nan, nan, nan, nan, nan, nan, nan}
