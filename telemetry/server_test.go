package telemetry

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

const (
	t0  = int64(1_700_000_000_000_000_000)
	sec = int64(time.Second)
	ep1 = "http://localhost:8000/metrics"
	ep2 = "http://localhost:8001/metrics"
)

// only returns the single series of the named metric on endpoint i.
func only(t *testing.T, s *ServerMetricsSummary, i int, name string) ServerSeries {
	t.Helper()
	for _, m := range s.Endpoints[i].Metrics {
		if m.Name == name {
			if len(m.Series) != 1 {
				t.Fatalf("%s has %d series", name, len(m.Series))
			}
			return m.Series[0]
		}
	}
	t.Fatalf("no metric %s on endpoint %d", name, i)
	return ServerSeries{}
}

func nearly(t *testing.T, what string, got, want float64) {
	t.Helper()
	if !closeTo(got, want, 1e-12) && !(math.IsNaN(got) && math.IsNaN(want)) {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

// TestServerGaugeByHand: the window's samples only (the baseline 100 is
// not one), std with ddof=1, percentiles by linear interpolation.
func TestServerGaugeByHand(t *testing.T) {
	acc := NewServerMetrics(ServerMetricsOptions{})
	acc.Add(serverSample(ep1, t0, gaugeFam("vllm:num_requests_running", 100)))
	acc.Start(t0 + sec)
	for i, v := range []float64{3, 1, 4, 2} {
		acc.Add(serverSample(ep1, t0+int64(i+1)*sec, gaugeFam("vllm:num_requests_running", v)))
	}
	g := only(t, acc.Summary(), 0, "vllm:num_requests_running").Gauge
	nearly(t, "avg", g.Avg, 2.5)
	nearly(t, "min", g.Min, 1)
	nearly(t, "max", g.Max, 4)
	nearly(t, "std", g.Std, math.Sqrt(5.0/3)) // ((1.5²+0.5²)·2)/3
	// index (n-1)·q = 3q between the sorted 1 2 3 4
	for i, want := range []float64{1.03, 1.15, 1.3, 1.75, 2.5, 3.25, 3.7, 3.85, 3.97} {
		nearly(t, "p", g.P[i], want)
	}
}

// TestServerCounterByHand: the increase from the last baseline sample to
// the last window sample, clamped at 0 across a reset, over the time
// between them.
func TestServerCounterByHand(t *testing.T) {
	cases := []struct {
		name        string
		values      []float64 // first is the baseline
		total, rate float64
		resets      int
	}{
		{"steady", []float64{10, 15, 25, 40}, 30, 10, 0},
		{"reset mid-run", []float64{10, 15, 25, 5, 12}, 2, 0.5, 1},
		{"reset below the baseline", []float64{10, 15, 3}, 0, 0, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			acc := NewServerMetrics(ServerMetricsOptions{})
			acc.Add(serverSample(ep1, t0, counterFam("vllm:prompt_tokens_total", c.values[0])))
			acc.Start(t0 + sec/2)
			for i, v := range c.values[1:] {
				acc.Add(serverSample(ep1, t0+int64(i+1)*sec, counterFam("vllm:prompt_tokens_total", v)))
			}
			s := only(t, acc.Summary(), 0, "vllm:prompt_tokens")
			nearly(t, "total", s.Counter.Total, c.total)
			nearly(t, "rate", s.Counter.Rate, c.rate)
			if s.Resets != c.resets {
				t.Errorf("resets = %d, want %d", s.Resets, c.resets)
			}
			if !math.IsNaN(s.Counter.RateAvg) || s.Timeslices != nil {
				t.Errorf("rate stats %v and timeslices %v without slicing", s.Counter.RateAvg, s.Timeslices)
			}
		})
	}
}

// TestServerCounterTimeslicesByHand: 1 s slices of 0,5,10,20,30,30 sampled
// every 0.5 s: [0,1] 10/s, [1,2] 20/s, [2,2.5] partial 0/s; the rate
// statistics are over the two complete slices.
func TestServerCounterTimeslicesByHand(t *testing.T) {
	acc := NewServerMetrics(ServerMetricsOptions{SliceDuration: time.Second})
	acc.Start(t0)
	for i, v := range []float64{0, 5, 10, 20, 30, 30} {
		acc.Add(serverSample(ep1, t0+int64(i)*sec/2, counterFam("requests_total", v)))
	}
	s := only(t, acc.Summary(), 0, "requests")
	nearly(t, "total", s.Counter.Total, 30)
	nearly(t, "rate", s.Counter.Rate, 12)
	nearly(t, "rate_avg", s.Counter.RateAvg, 15)
	nearly(t, "rate_min", s.Counter.RateMin, 10)
	nearly(t, "rate_max", s.Counter.RateMax, 20)
	nearly(t, "rate_std", s.Counter.RateStd, math.Sqrt(50))
	want := []Timeslice{
		{StartNS: t0, EndNS: t0 + sec, Complete: true, Total: 10, Rate: 10},
		{StartNS: t0 + sec, EndNS: t0 + 2*sec, Complete: true, Total: 20, Rate: 20},
		{StartNS: t0 + 2*sec, EndNS: t0 + 5*sec/2, Total: 0, Rate: 0},
	}
	if len(s.Timeslices) != len(want) {
		t.Fatalf("timeslices %+v", s.Timeslices)
	}
	for i := range want {
		g := s.Timeslices[i]
		if g.StartNS != want[i].StartNS || g.EndNS != want[i].EndNS || g.Complete != want[i].Complete ||
			g.Total != want[i].Total || g.Rate != want[i].Rate {
			t.Errorf("slice %d = %+v, want %+v", i, s.Timeslices[i], want[i])
		}
	}
}

// TestServerHistogramByHand: two observations (0.3, then 0.4) land in the
// (0.1, 0.5] bucket in two intervals. AIPerf learns the bucket's mean 0.35
// from them; with fewer than three intervals there is no variance, so the
// two observations are spread uniformly around the dominant bucket's
// average: 0.1 + 0.4·(0.25, 0.75) shifted by 0.35 − 0.3, i.e. 0.25 and
// 0.45, whose linear percentiles are 0.25 + 0.2·q.
func TestServerHistogramByHand(t *testing.T) {
	bounds := []float64{0.1, 0.5, math.Inf(1)}
	acc := NewServerMetrics(ServerMetricsOptions{})
	acc.Add(serverSample(ep1, t0, histFam("vllm:e2e_request_latency_seconds", bounds, []float64{1, 2, 2}, 0.3, 2)))
	acc.Start(t0 + sec/2)
	acc.Add(serverSample(ep1, t0+sec, histFam("vllm:e2e_request_latency_seconds", bounds, []float64{1, 3, 3}, 0.6, 3)))
	acc.Add(serverSample(ep1, t0+2*sec, histFam("vllm:e2e_request_latency_seconds", bounds, []float64{1, 4, 4}, 1.0, 4)))
	s := only(t, acc.Summary(), 0, "vllm:e2e_request_latency_seconds")
	h := s.Histogram
	if h.Count != 2 {
		t.Fatalf("count = %d, want 2", h.Count)
	}
	nearly(t, "sum", h.Sum, 0.7)
	nearly(t, "avg", h.Avg, 0.35)
	nearly(t, "count_rate", h.CountRate, 1) // 2 over the 2 s from the baseline
	nearly(t, "sum_rate", h.SumRate, 0.35)
	want := []Bucket{{"0.1", 0}, {"0.5", 2}, {"+Inf", 2}}
	if len(s.Buckets) != 3 || s.Buckets[0] != want[0] || s.Buckets[1] != want[1] || s.Buckets[2] != want[2] {
		t.Errorf("buckets = %v, want %v", s.Buckets, want)
	}
	for i, q := range histogramPercentiles {
		nearly(t, "estimate", h.P[i], 0.25+0.2*q/100)
	}
}

// TestServerHistogramInfBucket: with nothing learned, the finite bucket's
// observations sit uniformly in it and the +Inf bucket's single one takes
// what is left of the exact sum: [0,1] holds 2 (at 0.25, 0.75), +Inf holds
// 1 at 10 − 1 = 9.
func TestServerHistogramInfBucket(t *testing.T) {
	bounds := []float64{1, math.Inf(1)}
	acc := NewServerMetrics(ServerMetricsOptions{})
	acc.Start(t0)
	acc.Add(serverSample(ep1, t0, histFam("h", bounds, []float64{0, 0}, 0, 0)))
	acc.Add(serverSample(ep1, t0+sec, histFam("h", bounds, []float64{2, 3}, 10, 3)))
	h := only(t, acc.Summary(), 0, "h").Histogram
	// sorted 0.25 0.75 9: p50 = 0.75, p90 = 0.75 + 0.8·8.25
	nearly(t, "p50", h.P[4], 0.75)
	nearly(t, "p90", h.P[6], 0.75+0.8*8.25)
	nearly(t, "p10", h.P[2], 0.25+0.2*0.5)
}

// TestServerSeriesAppearsMidRun: a series with no baseline starts from its
// first window sample.
func TestServerSeriesAppearsMidRun(t *testing.T) {
	acc := NewServerMetrics(ServerMetricsOptions{})
	acc.Add(serverSample(ep1, t0, gaugeFam("g", 1)))
	acc.Start(t0 + sec/2)
	acc.Add(serverSample(ep1, t0+sec, gaugeFam("g", 1)))
	acc.Add(serverSample(ep1, t0+2*sec, gaugeFam("g", 1), counterFam("late_total", 100, "model", "m")))
	acc.Add(serverSample(ep1, t0+4*sec, gaugeFam("g", 1), counterFam("late_total", 130, "model", "m")))
	s := only(t, acc.Summary(), 0, "late")
	nearly(t, "total", s.Counter.Total, 30)
	nearly(t, "rate", s.Counter.Rate, 15)
	if len(s.Labels) != 1 || s.Labels[0] != (Label{"model", "m"}) {
		t.Errorf("labels = %v", s.Labels)
	}
}

// TestServerEndpointMissingScrapes: an endpoint that failed some scrapes
// has fewer fetches and its statistics come from the scrapes it answered;
// the other endpoint is unaffected.
func TestServerEndpointMissingScrapes(t *testing.T) {
	acc := NewServerMetrics(ServerMetricsOptions{})
	acc.Start(t0)
	for i := range int64(10) {
		acc.Add(serverSample(ep1, t0+i*sec, counterFam("c_total", float64(10*i))))
		if i%3 == 0 { // ep2 answers at 0, 3, 6, 9
			acc.Add(serverSample(ep2, t0+i*sec, counterFam("c_total", float64(100*i))))
		}
	}
	s := acc.Summary()
	if len(s.Endpoints) != 2 {
		t.Fatalf("endpoints %d", len(s.Endpoints))
	}
	if s.Endpoints[0].Info.TotalFetches != 10 || s.Endpoints[1].Info.TotalFetches != 4 {
		t.Errorf("fetches %d, %d", s.Endpoints[0].Info.TotalFetches, s.Endpoints[1].Info.TotalFetches)
	}
	nearly(t, "ep1 rate", only(t, s, 0, "c").Counter.Rate, 10)
	nearly(t, "ep2 rate", only(t, s, 1, "c").Counter.Rate, 100)
	in := s.Endpoints[1].Info
	nearly(t, "median interval", in.MedianUpdateIntervalMS, 3000)
	nearly(t, "avg interval", in.AvgUpdateIntervalMS, 3000)
	nearly(t, "duration", in.DurationSeconds, 9)
	nearly(t, "latency", in.AvgFetchLatencyMS, 2)
}

// TestServerEndpointInfoDuplicates: identical scrapes count as fetches but
// not as updates.
func TestServerEndpointInfoDuplicates(t *testing.T) {
	acc := NewServerMetrics(ServerMetricsOptions{})
	acc.Start(t0)
	for i, v := range []float64{1, 1, 1, 2, 2, 3} {
		acc.Add(serverSample(ep1, t0+int64(i)*sec, gaugeFam("g", v)))
	}
	in := acc.Summary().Endpoints[0].Info
	if in.TotalFetches != 6 || in.UniqueUpdates != 3 || in.FirstUpdateNS != t0 || in.LastUpdateNS != t0+5*sec {
		t.Errorf("info %+v", in)
	}
	nearly(t, "avg update interval", in.AvgUpdateIntervalMS, 2500) // 5 s over 2 intervals
	nearly(t, "median update interval", in.MedianUpdateIntervalMS, 2500)
}

// TestServerLabelCap: a label past its cap of distinct values drops the
// new series and counts it; the metadata lists the values kept.
func TestServerLabelCap(t *testing.T) {
	acc := NewServerMetrics(ServerMetricsOptions{MaxLabelValues: 2})
	acc.Start(t0)
	acc.Add(serverSample(ep1, t0, gaugeFam("g", 1, "id", "a"), gaugeFam("g", 2, "id", "b"), gaugeFam("g", 3, "id", "c")))
	s := acc.Summary()
	if s.DroppedSeries != 1 {
		t.Errorf("dropped %d, want 1", s.DroppedSeries)
	}
	if n := len(s.Endpoints[0].Metrics[0].Series); n != 2 {
		t.Errorf("%d series, want 2", n)
	}
	lv := s.Endpoints[0].Schemas[0].LabelValues
	if len(lv) != 1 || len(lv[0].Values) != 2 {
		t.Errorf("label values %v", lv)
	}
}

// TestServerStartRace: a scrape taken after the window began but delivered
// before Start was called still belongs to the window; samples after End
// do too (AIPerf's flush-period and final scrapes).
func TestServerStartRace(t *testing.T) {
	acc := NewServerMetrics(ServerMetricsOptions{})
	acc.Add(serverSample(ep1, t0, counterFam("c_total", 0)))
	acc.Add(serverSample(ep1, t0+2*sec, counterFam("c_total", 20))) // delivered early
	acc.Start(t0 + sec)
	acc.End(t0 + 3*sec)
	acc.Add(serverSample(ep1, t0+4*sec, counterFam("c_total", 40))) // final scrape
	s := acc.Summary()
	c := only(t, s, 0, "c")
	nearly(t, "total", c.Counter.Total, 40)
	nearly(t, "rate", c.Counter.Rate, 10)
	if s.StartNS != t0+sec || s.EndNS != t0+3*sec {
		t.Errorf("window %d..%d", s.StartNS, s.EndNS)
	}
}

// TestServerNoWindow: without Start every sample is baseline: endpoints
// are listed with their fetches but have no statistics.
func TestServerNoWindow(t *testing.T) {
	acc := NewServerMetrics(ServerMetricsOptions{})
	acc.Add(serverSample(ep1, t0, gaugeFam("g", 1)))
	s := acc.Summary()
	if s.HasData() || len(s.Endpoints) != 1 || s.Endpoints[0].Info.TotalFetches != 1 {
		t.Errorf("summary %+v", s)
	}
}

// TestServerFamilyFilter: AIPerf's names and filters: counters lose _total,
// summaries, _created and uptime families are not summarised, non-finite
// values are dropped, untyped families are summarised as gauges.
func TestServerFamilyFilter(t *testing.T) {
	body := `# TYPE a_total counter
a_total 1
# TYPE s summary
s{quantile="0.5"} 1
s_sum 1
s_count 1
# TYPE p_created gauge
p_created 5
# TYPE process_uptime_seconds gauge
process_uptime_seconds 5
# TYPE n gauge
n NaN
u 3
`
	fams, err := ParseExposition([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	acc := NewServerMetrics(ServerMetricsOptions{})
	acc.Start(t0)
	acc.Add(Sample{Kind: KindServer, Source: ep1, TimeNS: t0, Server: fams})
	var names []string
	for _, m := range acc.Summary().Endpoints[0].Metrics {
		names = append(names, m.Name+":"+string(m.Type))
	}
	if got := len(names); got != 2 || names[0] != "a:counter" || names[1] != "u:unknown" {
		t.Errorf("metrics %v, want [a:counter u:unknown]", names)
	}
}

// TestServerNameCollision: prometheus_client names the counter x_total "x",
// like the gauge x; AIPerf keeps the one later in the exposition, which in
// Go's name-sorted expositions is the counter, and so do we (in the stats
// and in the raw record alike).
func TestServerNameCollision(t *testing.T) {
	acc := NewServerMetrics(ServerMetricsOptions{})
	acc.Start(t0)
	for i, v := range []float64{100, 150} {
		s := serverSample(ep1, t0+int64(i)*sec, gaugeFam("go_memstats_alloc_bytes", 7), counterFam("go_memstats_alloc_bytes_total", v))
		acc.Add(s)
		if i == 1 {
			rec := string(AppendServerRecord(nil, s))
			if !strings.Contains(rec, `"go_memstats_alloc_bytes":[{"value":150.0}]`) || strings.Contains(rec, "7.0") {
				t.Errorf("record %s", rec)
			}
		}
	}
	m := acc.Summary().Endpoints[0].Metrics
	if len(m) != 1 || m[0].Type != TypeCounter || m[0].Series[0].Counter.Total != 50 {
		t.Errorf("metrics %+v", m)
	}
}

// TestServerMemoryBounded: a long run (20,000 scrapes, half an hour at
// 0.1 s) leaves every series' state bounded: a continuous gauge keeps at most
// its 0.2% bins, a histogram's learned means stop at exactMeans per bucket,
// counters keep a few numbers; and the percentiles stay within 0.1% of the
// exact ones.
func TestServerMemoryBounded(t *testing.T) {
	acc := NewServerMetrics(ServerMetricsOptions{})
	acc.Start(t0)
	bounds := []float64{0.1, 0.5, math.Inf(1)}
	var exact []float64
	x := uint64(1)
	for i := range 20_000 {
		x = x*6364136223846793005 + 1442695040888963407
		v := 0.5 + float64(x>>11)/float64(1<<53) // continuous, in [0.5, 1.5)
		exact = append(exact, v)
		n := float64(i)
		acc.Add(serverSample(ep1, t0+int64(i)*sec/10,
			gaugeFam("g", v), counterFam("c_total", n),
			histFam("h", bounds, []float64{0, n, n}, 0.3*n, n)))
	}
	eps := acc.endpoints[0]
	for _, f := range eps.families {
		for _, s := range f.series {
			switch {
			case s.gauge != nil:
				if !s.gauge.binned || len(s.gauge.values) > 560 { // ln(3)/ln(1.002) ≈ 550 bins at most
					t.Errorf("gauge keeps %d values (binned %v)", len(s.gauge.values), s.gauge.binned)
				}
			case s.hist != nil:
				for i, b := range s.hist.learn {
					if len(b.means) > exactMeans {
						t.Errorf("bucket %d keeps %d means", i, len(b.means))
					}
				}
			}
		}
	}
	g := only(t, acc.Summary(), 0, "g").Gauge
	for i, q := range histogramPercentiles {
		want := metricsPercentile(exact, q)
		if math.Abs(g.P[i]-want) > 0.001*want {
			t.Errorf("p%v = %v, exact %v", q, g.P[i], want)
		}
	}
}

// metricsPercentile is numpy's linear percentile of values.
func metricsPercentile(values []float64, p float64) float64 {
	sorted := slices.Clone(values)
	slices.Sort(sorted)
	return rankPercentile(int64(len(sorted)), p, func(r int64) float64 { return sorted[r] })
}
