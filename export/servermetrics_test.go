package export

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"google.golang.org/protobuf/proto"

	"github.com/aiperf-go/aiperf/telemetry"
)

// The capture of a real AIPerf 0.13 run (telemetry/testdata/server/aiperf_run):
// the scrapes it saw and the exports it wrote from them.
const aiperfRun = "../telemetry/testdata/server/aiperf_run/"

// replayAIPerfRun feeds the captured scrapes through a ServerMetrics as
// AIPerf's profiling phase saw them (from the first profiling scrape, the
// late end-of-warmup scrape left out), with the _info family AIPerf leaves
// out of its JSONL put back, and returns the summary and AIPerf's JSON.
func replayAIPerfRun(t *testing.T) (*telemetry.ServerMetricsSummary, map[string]any) {
	t.Helper()
	raw, err := os.ReadFile(aiperfRun + "server_metrics_export.json")
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&want); err != nil {
		t.Fatal(err)
	}
	types := map[string]string{}
	helps := map[string]string{}
	for name, m := range want["metrics"].(map[string]any) {
		mm := m.(map[string]any)
		types[name], helps[name] = mm["type"].(string), mm["description"].(string)
	}
	f, err := os.Open(aiperfRun + "server_metrics_export.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	acc := telemetry.NewServerMetrics(telemetry.ServerMetricsOptions{SliceDuration: time.Second})
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	started := false
	for sc.Scan() {
		var r struct {
			URL     string `json:"endpoint_url"`
			TS      int64  `json:"timestamp_ns"`
			Latency int64  `json:"endpoint_latency_ns"`
			Phase   string `json:"benchmark_phase"`
			Metrics map[string][]struct {
				Labels  map[string]string  `json:"labels"`
				Value   *float64           `json:"value"`
				Buckets map[string]float64 `json:"buckets"`
				Sum     *float64           `json:"sum"`
				Count   *float64           `json:"count"`
			} `json:"metrics"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		if r.Phase == "profiling" && !started {
			acc.Start(r.TS)
			started = true
		}
		if started && r.Phase != "profiling" {
			continue
		}
		fams := map[string]*dto.MetricFamily{"test:build_info": {
			Name: proto.String("test:build_info"), Help: proto.String(helps["test:build_info"]), Type: dto.MetricType_GAUGE.Enum(),
			Metric: []*dto.Metric{{Label: pairs(map[string]string{"version": "0.0.1", "backend": "python"}), Gauge: &dto.Gauge{Value: proto.Float64(1)}}},
		}}
		for name, samples := range r.Metrics {
			typ, ok := map[string]dto.MetricType{"counter": dto.MetricType_COUNTER, "histogram": dto.MetricType_HISTOGRAM,
				"unknown": dto.MetricType_UNTYPED}[types[name]]
			if !ok {
				typ = dto.MetricType_GAUGE
			}
			fam := &dto.MetricFamily{Name: proto.String(name), Help: proto.String(helps[name]), Type: typ.Enum()}
			for _, s := range samples {
				m := &dto.Metric{Label: pairs(s.Labels)}
				switch typ {
				case dto.MetricType_COUNTER:
					m.Counter = &dto.Counter{Value: s.Value}
				case dto.MetricType_UNTYPED:
					m.Untyped = &dto.Untyped{Value: s.Value}
				case dto.MetricType_HISTOGRAM:
					m.Histogram = &dto.Histogram{SampleSum: s.Sum, SampleCountFloat: s.Count}
					for le, c := range s.Buckets {
						ub := math.Inf(1)
						if le != "+Inf" {
							ub, _ = strconv.ParseFloat(le, 64)
						}
						m.Histogram.Bucket = append(m.Histogram.Bucket, &dto.Bucket{UpperBound: proto.Float64(ub), CumulativeCountFloat: proto.Float64(c)})
					}
					slices.SortFunc(m.Histogram.Bucket, func(a, b *dto.Bucket) int {
						return int(math.Copysign(1, a.GetUpperBound()-b.GetUpperBound()))
					})
				default:
					m.Gauge = &dto.Gauge{Value: s.Value}
				}
				fam.Metric = append(fam.Metric, m)
			}
			fams[name] = fam
		}
		acc.Add(telemetry.Sample{Kind: telemetry.KindServer, Source: r.URL, TimeNS: r.TS, LatencyNS: r.Latency, Server: fams})
	}
	return acc.Summary(), want
}

func pairs(m map[string]string) []*dto.LabelPair {
	var out []*dto.LabelPair
	for k, v := range m {
		out = append(out, &dto.LabelPair{Name: proto.String(k), Value: proto.String(v)})
	}
	return out
}

// aiperfInfo is what AIPerf's export of the captured run says of itself.
var aiperfInfo = &RunInfo{AIPerfVersion: "0.13.0", BenchmarkID: "202c4b794216", Location: time.UTC}

// TestServerMetricsCSVMatchesAIPerf: the CSV written from the replayed run
// is AIPerf's, byte for byte (sections, label columns, row order, "%.4f"
// values, the transposed _info section, CRLF rows).
func TestServerMetricsCSVMatchesAIPerf(t *testing.T) {
	sum, _ := replayAIPerfRun(t)
	var got bytes.Buffer
	if err := WriteServerMetricsCSV(&got, sum, aiperfInfo); err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(aiperfRun + "server_metrics_export.csv")
	if err != nil {
		t.Fatal(err)
	}
	if got.String() != string(want) {
		gl, wl := strings.Split(got.String(), "\n"), strings.Split(string(want), "\n")
		for i := range max(len(gl), len(wl)) {
			g, w := "", ""
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Errorf("line %d\n got %q\nwant %q", i+1, g, w)
			}
		}
	}
}

// TestServerMetricsJSONMatchesAIPerf: the JSON written from the replayed
// run has AIPerf's layout (every key in AIPerf's order) and values (within
// 1e-9), apart from what the replay cannot know (the times of the phases,
// the endpoint's fetches of the left-out warmup scrape) and AIPerf's
// warmup_metrics, which aiperf-go does not compute.
func TestServerMetricsJSONMatchesAIPerf(t *testing.T) {
	sum, want := replayAIPerfRun(t)
	var out bytes.Buffer
	if err := WriteServerMetricsJSON(&out, sum, aiperfInfo); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(aiperfRun + "server_metrics_export.json")
	g, w := keyOrder(t, out.Bytes(), "metrics"), keyOrder(t, raw, "metrics")
	if len(w) < 100 || !slices.Equal(g, w) {
		t.Errorf("metrics keys differ:\n got %v\nwant %v", g, w)
	}
	var got map[string]any
	dec := json.NewDecoder(&out)
	dec.UseNumber()
	if err := dec.Decode(&got); err != nil {
		t.Fatal(err)
	}
	for _, doc := range []map[string]any{got, want} {
		s := doc["summary"].(map[string]any)
		for _, k := range []string{"start_time", "end_time", "phase_time_ranges", "endpoint_info"} {
			delete(s, k)
		}
		delete(doc, "input_config")
		delete(doc, "warmup_metrics") // aiperf-go summarises no warmup phase
	}
	compareDocs(t, "", want, got)
}

// keyOrder lists the object keys inside the top-level member top, in
// document order, indented by depth.
func keyOrder(t *testing.T, doc []byte, top string) []string {
	t.Helper()
	type frame struct{ obj, wantKey bool }
	var stack []frame
	var keys []string
	topKey := ""
	dec := json.NewDecoder(bytes.NewReader(doc))
	for {
		tok, err := dec.Token()
		if err != nil {
			return keys
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			stack = stack[:len(stack)-1]
			continue
		}
		if n := len(stack); n > 0 && stack[n-1].obj {
			if stack[n-1].wantKey {
				k := tok.(string)
				if n == 1 {
					topKey = k
				} else if topKey == top {
					keys = append(keys, strings.Repeat(" ", n)+k)
				}
				stack[n-1].wantKey = false
				continue
			}
			stack[n-1].wantKey = true // a value was read
		}
		if d, ok := tok.(json.Delim); ok {
			stack = append(stack, frame{obj: d == '{', wantKey: d == '{'})
		}
	}
}

// compareDocs compares decoded JSON documents, numbers within 1e-9.
func compareDocs(t *testing.T, path string, want, got any) {
	t.Helper()
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			t.Errorf("%s: got %v, want an object", path, got)
			return
		}
		for k := range w {
			if _, ok := g[k]; !ok {
				t.Errorf("%s.%s missing", path, k)
				continue
			}
			compareDocs(t, path+"."+k, w[k], g[k])
		}
		for k := range g {
			if _, ok := w[k]; !ok {
				t.Errorf("%s.%s unexpected", path, k)
			}
		}
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			t.Errorf("%s: got %v, want %d items", path, got, len(w))
			return
		}
		for i := range w {
			compareDocs(t, path+"["+strconv.Itoa(i)+"]", w[i], g[i])
		}
	case json.Number:
		g, ok := got.(json.Number)
		if !ok {
			t.Errorf("%s: got %v, want %s", path, got, w)
			return
		}
		wf, _ := w.Float64()
		gf, _ := g.Float64()
		isInt := func(n json.Number) bool { return !strings.ContainsAny(string(n), ".eE") }
		if isInt(w) != isInt(g) || (isInt(w) && w != g) || math.Abs(wf-gf) > 1e-9*math.Abs(wf)+1e-12 {
			t.Errorf("%s: got %s, want %s", path, g, w)
		}
	default:
		if want != got {
			t.Errorf("%s: got %v, want %v", path, got, want)
		}
	}
}

// TestServerMetricsGolden pins the three files written from a small
// hand-made summary (regenerate with -update).
func TestServerMetricsGolden(t *testing.T) {
	s := goldenServerSummary()
	info := &RunInfo{AIPerfVersion: "0.13.0", BenchmarkID: "abc", Location: time.UTC,
		InputConfig: map[string]any{"model": "m", "concurrency": 2}}
	for _, c := range []struct {
		file  string
		write func(*bytes.Buffer) error
	}{
		{"servermetrics/export.json.golden", func(b *bytes.Buffer) error { return WriteServerMetricsJSON(b, s, info) }},
		{"servermetrics/export.csv.golden", func(b *bytes.Buffer) error { return WriteServerMetricsCSV(b, s, info) }},
		{"servermetrics/metadata.json.golden", func(b *bytes.Buffer) error { return WriteServerMetricsMetadata(b, s) }},
	} {
		var b bytes.Buffer
		if err := c.write(&b); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join("testdata", c.file)
		if *update {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if b.String() != string(want) {
			t.Errorf("%s differs; got:\n%s", c.file, b.String())
		}
	}
}

// goldenServerSummary is a small summary touching every layout branch: two
// endpoints, every type, labels shared and exclusive, an _info gauge, absent
// statistics, timeslices (empty for one counter), a histogram whose buckets
// went backwards, and schemas with buckets, quantiles and label values.
func goldenServerSummary() *telemetry.ServerMetricsSummary {
	nan := math.NaN()
	const t0 = int64(1_767_225_600_000_000_000) // 2026-01-01T00:00:00Z
	pct := func(base float64) [9]float64 {
		var p [9]float64
		for i := range p {
			p[i] = base + float64(i)*0.125
		}
		return p
	}
	lat := []telemetry.Bucket{{LE: "0.1", Count: 3}, {LE: "1.0", Count: 9}, {LE: "+Inf", Count: 10}}
	ep1 := telemetry.ServerEndpoint{
		URL: "http://localhost:8000/metrics",
		Info: telemetry.EndpointInfo{TotalFetches: 31, FirstFetchNS: t0 - 1e9, LastFetchNS: t0 + 2e9, AvgFetchLatencyMS: 1.25,
			UniqueUpdates: 30, FirstUpdateNS: t0 - 1e9, LastUpdateNS: t0 + 2e9, DurationSeconds: 3,
			AvgUpdateIntervalMS: 103.44827586206897, MedianUpdateIntervalMS: 100},
		Metrics: []telemetry.ServerMetric{
			{Name: "vllm:cache_config_info", Type: telemetry.TypeGauge, Description: "Information of the LLMEngine CacheConfig",
				Series: []telemetry.ServerSeries{{Labels: []telemetry.Label{{Name: "block_size", Value: "16"}, {Name: "cache_dtype", Value: "auto"}},
					Gauge: telemetry.GaugeStats{Avg: 1, Min: 1, Max: 1, P: [9]float64{1, 1, 1, 1, 1, 1, 1, 1, 1}}}}},
			{Name: "vllm:e2e_request_latency_seconds", Type: telemetry.TypeHistogram, Description: "Histogram of end to end request latency in seconds.",
				Series: []telemetry.ServerSeries{{Labels: []telemetry.Label{{Name: "model_name", Value: "m"}},
					Histogram: telemetry.HistogramStats{Count: 7, Sum: 2.5, Avg: 0.35714285714285715, CountRate: 2.3333333333333335,
						SumRate: 0.8333333333333334, P: pct(0.05)}, Buckets: lat,
					Timeslices: []telemetry.Timeslice{
						{StartNS: t0, EndNS: t0 + 1e9, Complete: true, Count: 4, Sum: 1, Avg: 0.25, Buckets: lat},
						{StartNS: t0 + 1e9, EndNS: t0 + 15e8, Count: 3, Sum: 1.5, Avg: 0.5},
					}}}},
			{Name: "vllm:kv_cache_usage_perc", Type: telemetry.TypeGauge, Description: "KV-cache usage. 1 means 100 percent usage.",
				Series: []telemetry.ServerSeries{{Labels: []telemetry.Label{{Name: "engine", Value: "0"}, {Name: "model_name", Value: "m"}},
					Gauge:      telemetry.GaugeStats{Avg: 0.25, Min: 0, Max: 0.5, Std: 0.1, P: pct(0)},
					Timeslices: []telemetry.Timeslice{{StartNS: t0, EndNS: t0 + 1e9, Complete: true, Avg: 0.25, Min: 0, Max: 0.5}}}}},
			{Name: "vllm:prompt_tokens", Type: telemetry.TypeCounter, Description: "Number of prefill tokens processed.",
				Series: []telemetry.ServerSeries{{Labels: []telemetry.Label{{Name: "model_name", Value: "m"}},
					Counter: telemetry.CounterStats{Total: 1200, Rate: 400, RateAvg: 410, RateMin: 380, RateMax: 440, RateStd: 42.42640687119285},
					Timeslices: []telemetry.Timeslice{{StartNS: t0, EndNS: t0 + 1e9, Complete: true, Total: 440, Rate: 440},
						{StartNS: t0 + 1e9, EndNS: t0 + 2e9, Complete: true, Total: 380, Rate: 380}}}}},
			{Name: "vllm:request_success", Type: telemetry.TypeCounter, Description: "Count of successfully processed requests.",
				Series: []telemetry.ServerSeries{
					{Labels: []telemetry.Label{{Name: "finished_reason", Value: "length"}, {Name: "model_name", Value: "m"}},
						Counter: telemetry.CounterStats{Total: 0, Rate: 0, RateAvg: nan, RateMin: nan, RateMax: nan, RateStd: nan}, Timeslices: []telemetry.Timeslice{}},
					{Labels: []telemetry.Label{{Name: "finished_reason", Value: "stop"}, {Name: "model_name", Value: "m"}},
						Counter: telemetry.CounterStats{Total: 7, Rate: 2.3333333333333335, RateAvg: nan, RateMin: nan, RateMax: nan, RateStd: nan}}}},
			{Name: "weird", Type: telemetry.TypeUnknown, Description: `says "hi", twice`,
				Series: []telemetry.ServerSeries{{Labels: []telemetry.Label{{Name: "path", Value: "a,b"}},
					Gauge: telemetry.GaugeStats{Avg: 1e-05, Min: 1.5e-06, Max: 1e16, P: pct(-1)}}}},
		},
		Schemas: []telemetry.MetricSchema{
			{Name: "vllm:e2e_request_latency_seconds", Type: "histogram", Help: "Histogram of end to end request latency in seconds.",
				BucketLabels: []string{"0.1", "1.0", "+Inf"}, LabelValues: []telemetry.LabelValues{{Name: "model_name", Values: []string{"m"}}}},
			{Name: "vllm:queue_seconds", Type: "summary", Help: "A summary.", QuantileLabels: []string{"0.5", "0.99"}},
		},
	}
	ep2 := telemetry.ServerEndpoint{
		URL:  "http://node2:9090/api/metrics",
		Info: telemetry.EndpointInfo{TotalFetches: 2, FirstFetchNS: t0, LastFetchNS: t0 + 1e8, UniqueUpdates: 1, FirstUpdateNS: t0, LastUpdateNS: t0, MedianUpdateIntervalMS: nan},
		Metrics: []telemetry.ServerMetric{
			{Name: "vllm:prompt_tokens", Type: telemetry.TypeCounter, Description: "Number of prefill tokens processed.",
				Series: []telemetry.ServerSeries{{Labels: []telemetry.Label{{Name: "model_name", Value: "m"}},
					Counter: telemetry.CounterStats{Total: 5, Rate: 50, RateAvg: nan, RateMin: nan, RateMax: nan, RateStd: nan}}}},
			{Name: "vllm:e2e_request_latency_seconds", Type: telemetry.TypeHistogram, Description: "Histogram of end to end request latency in seconds.",
				Series: []telemetry.ServerSeries{{Histogram: telemetry.HistogramStats{Count: 0, Sum: nan, Avg: nan, CountRate: nan, SumRate: nan,
					P: [9]float64{nan, nan, nan, nan, nan, nan, nan, nan, nan}}}}},
			{Name: "gpu_temp", Type: telemetry.TypeGauge, Description: "GPU temperature (in C)",
				Series: []telemetry.ServerSeries{{Labels: []telemetry.Label{{Name: "gpu", Value: "0"}},
					Gauge: telemetry.GaugeStats{Avg: 55, Min: 50, Max: 60, Std: 3, P: pct(50)}}}},
		},
	}
	return &telemetry.ServerMetricsSummary{StartNS: t0, EndNS: t0 + 3e9, Endpoints: []telemetry.ServerEndpoint{ep1, ep2}}
}
