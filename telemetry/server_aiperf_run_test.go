package telemetry

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"google.golang.org/protobuf/proto"
)

// The capture of a real AIPerf 0.13 run (testdata/server/aiperf_run/run.sh):
// the raw scrapes it saw (server_metrics_export.jsonl) and what it made of
// them (server_metrics_export.json).
const aiperfRunDir = "testdata/server/aiperf_run/"

// aiperfRecord is one line of AIPerf's server_metrics_export.jsonl.
type aiperfRecord struct {
	EndpointURL string                        `json:"endpoint_url"`
	TimestampNS int64                         `json:"timestamp_ns"`
	LatencyNS   int64                         `json:"endpoint_latency_ns"`
	Phase       string                        `json:"benchmark_phase"`
	Metrics     map[string][]aiperfSampleJSON `json:"metrics"`
}

type aiperfSampleJSON struct {
	Labels  map[string]string  `json:"labels"`
	Value   *float64           `json:"value"`
	Buckets map[string]float64 `json:"buckets"`
	Sum     *float64           `json:"sum"`
	Count   *float64           `json:"count"`
}

// aiperfExport is the part of server_metrics_export.json the tests read.
type aiperfExport struct {
	Summary struct {
		EndpointInfo map[string]map[string]any `json:"endpoint_info"`
	} `json:"summary"`
	Metrics map[string]struct {
		Type        string           `json:"type"`
		Description string           `json:"description"`
		Series      []map[string]any `json:"series"`
	} `json:"metrics"`
}

func loadAIPerfRun(t *testing.T) ([]aiperfRecord, aiperfExport) {
	t.Helper()
	f, err := os.Open(aiperfRunDir + "server_metrics_export.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var recs []aiperfRecord
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var r aiperfRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
	}
	b, err := os.ReadFile(aiperfRunDir + "server_metrics_export.json")
	if err != nil {
		t.Fatal(err)
	}
	var exp aiperfExport
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.UseNumber()
	if err := dec.Decode(&exp); err != nil {
		t.Fatal(err)
	}
	return recs, exp
}

// sampleOf rebuilds the parsed scrape a record came from, typed as AIPerf's
// export says (untyped families it does not list are read as gauges).
func sampleOf(t *testing.T, r aiperfRecord, exp aiperfExport) Sample {
	t.Helper()
	out := map[string]*dto.MetricFamily{}
	for name, samples := range r.Metrics {
		m := exp.Metrics[name]
		f := &dto.MetricFamily{Name: proto.String(name), Help: proto.String(m.Description)}
		switch m.Type {
		case "counter":
			f.Type = dto.MetricType_COUNTER.Enum()
		case "histogram":
			f.Type = dto.MetricType_HISTOGRAM.Enum()
		case "unknown":
			f.Type = dto.MetricType_UNTYPED.Enum()
		default:
			f.Type = dto.MetricType_GAUGE.Enum()
		}
		for _, s := range samples {
			var kv []string
			for k, v := range s.Labels {
				kv = append(kv, k, v)
			}
			dm := &dto.Metric{Label: labelPairs(kv...)}
			switch f.GetType() {
			case dto.MetricType_COUNTER:
				dm.Counter = &dto.Counter{Value: s.Value}
			case dto.MetricType_UNTYPED:
				dm.Untyped = &dto.Untyped{Value: s.Value}
			case dto.MetricType_HISTOGRAM:
				h := &dto.Histogram{SampleSum: s.Sum, SampleCountFloat: s.Count}
				for le, c := range s.Buckets {
					h.Bucket = append(h.Bucket, &dto.Bucket{UpperBound: proto.Float64(parseLE(t, le)), CumulativeCountFloat: proto.Float64(c)})
				}
				slices.SortFunc(h.Bucket, func(a, b *dto.Bucket) int {
					return int(math.Copysign(1, a.GetUpperBound()-b.GetUpperBound()))
				})
				dm.Histogram = h
			default:
				dm.Gauge = &dto.Gauge{Value: s.Value}
			}
			f.Metric = append(f.Metric, dm)
		}
		out[name] = f
	}
	return Sample{Kind: KindServer, Source: r.EndpointURL, TimeNS: r.TimestampNS, LatencyNS: r.LatencyNS, Server: out}
}

// TestServerMatchesAIPerfRun replays the scrapes of a real AIPerf run
// through the accumulator and compares every series' statistics, buckets
// and 1 s timeslices with AIPerf's own export. AIPerf tags each scrape with
// the phase running when it started; the profiling window is its
// profiling-tagged scrapes (the end-of-warmup scrape, taken just after
// profiling began, is warmup's), so the replay starts the window at the
// first profiling scrape and leaves the late warmup one out.
func TestServerMatchesAIPerfRun(t *testing.T) {
	recs, exp := loadAIPerfRun(t)
	acc := NewServerMetrics(ServerMetricsOptions{SliceDuration: time.Second})
	started := false
	for _, r := range recs {
		if r.Phase == "profiling" && !started {
			acc.Start(r.TimestampNS)
			started = true
		}
		if started && r.Phase != "profiling" {
			continue
		}
		acc.Add(sampleOf(t, r, exp))
	}
	sum := acc.Summary()
	if len(sum.Endpoints) != 1 {
		t.Fatalf("%d endpoints", len(sum.Endpoints))
	}
	ours := map[string]ServerMetric{}
	for _, m := range sum.Endpoints[0].Metrics {
		ours[m.Name] = m
	}
	compared := 0
	for name, want := range exp.Metrics {
		if strings.HasSuffix(name, "_info") { // not in AIPerf's JSONL
			continue
		}
		got, ok := ours[name]
		if !ok {
			t.Errorf("metric %s missing", name)
			continue
		}
		delete(ours, name)
		if string(got.Type) != want.Type || got.Description != want.Description {
			t.Errorf("%s: %s %q, want %s %q", name, got.Type, got.Description, want.Type, want.Description)
		}
		if len(got.Series) != len(want.Series) {
			t.Errorf("%s: %d series, want %d", name, len(got.Series), len(want.Series))
			continue
		}
		for _, ws := range want.Series {
			gs, ok := seriesByLabels(got.Series, ws["labels"])
			if !ok {
				t.Errorf("%s: no series %v", name, ws["labels"])
				continue
			}
			delete(ws, "endpoint_url")
			delete(ws, "labels")
			compareJSON(t, name+labelText(gs.Labels), ws, seriesJSON(got.Type, gs), 1e-9)
			compared++
		}
	}
	for name := range ours {
		t.Errorf("metric %s is not in AIPerf's export", name)
	}
	if compared < 10 {
		t.Errorf("only %d series compared", compared)
	}
	t.Logf("%d series of %d scrapes match AIPerf's statistics", compared, len(recs))
}

// TestServerEndpointInfoMatchesAIPerfRun: every scrape counts in the
// endpoint's collection statistics.
func TestServerEndpointInfoMatchesAIPerfRun(t *testing.T) {
	recs, exp := loadAIPerfRun(t)
	acc := NewServerMetrics(ServerMetricsOptions{})
	for _, r := range recs {
		acc.Add(sampleOf(t, r, exp))
	}
	sum := acc.Summary()
	ep := sum.Endpoints[0]
	want := exp.Summary.EndpointInfo[ep.URL]
	if want == nil {
		t.Fatalf("AIPerf's export has no endpoint_info for %s", ep.URL)
	}
	in := ep.Info
	got := map[string]any{
		"total_fetches": num(in.TotalFetches), "first_fetch_ns": num(in.FirstFetchNS), "last_fetch_ns": num(in.LastFetchNS),
		"avg_fetch_latency_ms": in.AvgFetchLatencyMS, "unique_updates": num(in.UniqueUpdates),
		"first_update_ns": num(in.FirstUpdateNS), "last_update_ns": num(in.LastUpdateNS),
		"duration_seconds": in.DurationSeconds, "avg_update_interval_ms": in.AvgUpdateIntervalMS,
		"median_update_interval_ms": in.MedianUpdateIntervalMS,
	}
	compareJSON(t, "endpoint_info", any(want), any(got), 1e-12)
}

func seriesByLabels(ss []ServerSeries, want any) (ServerSeries, bool) {
	wl, _ := want.(map[string]any)
	for _, s := range ss {
		if len(s.Labels) != len(wl) {
			continue
		}
		match := true
		for _, l := range s.Labels {
			if wl[l.Name] != l.Value {
				match = false
			}
		}
		if match {
			return s, true
		}
	}
	return ServerSeries{}, false
}

func labelText(ls []Label) string {
	var b strings.Builder
	for _, l := range ls {
		b.WriteString("{" + l.Name + "=" + strconv.Quote(l.Value) + "}")
	}
	return b.String()
}
