package export

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aiperf-go/aiperf/internal/pyjson"
	"github.com/aiperf-go/aiperf/telemetry"
)

// Server metrics export file names (--server-metrics-formats picks them).
const (
	ServerMetricsJSONFile     = "server_metrics_export.json"
	ServerMetricsCSVFile      = "server_metrics_export.csv"
	ServerMetricsJSONLFile    = "server_metrics_export.jsonl"
	ServerMetricsMetadataFile = "server_metrics_metadata.json"
)

// ServerMetricsSchemaVersion is the schema_version of
// server_metrics_export.json, AIPerf 0.13's.
const ServerMetricsSchemaVersion = "1.1"

// ServerMetricsFiles returns the files the given --server-metrics-formats
// produce ("json", "csv", "jsonl", any case), in that order, each once.
// AIPerf's "parquet" is not written by aiperf-go and yields no file.
func ServerMetricsFiles(formats []string) []string {
	var out []string
	for _, f := range [...]struct{ format, file string }{
		{"json", ServerMetricsJSONFile}, {"csv", ServerMetricsCSVFile}, {"jsonl", ServerMetricsJSONLFile},
	} {
		if slices.ContainsFunc(formats, func(s string) bool { return strings.EqualFold(s, f.format) }) {
			out = append(out, f.file)
		}
	}
	return out
}

// WriteServerMetricsJSON writes server_metrics_export.json as AIPerf 0.13
// does (orjson, indented by two spaces, no trailing newline):
// schema_version, aiperf_version, benchmark_id, summary (endpoints,
// start_time, end_time, endpoint_info by URL, phase_time_ranges),
// metrics_phase, metrics (by name: type, description, unit and the series
// of every endpoint, sorted by endpoint URL and labels) and input_config.
// info supplies the version, benchmark id, input_config (already redacted)
// and time zone; its other fields are not used. AIPerf writes no file when
// the summary has no data (see ServerMetricsSummary.HasData).
func WriteServerMetricsJSON(w io.Writer, s *telemetry.ServerMetricsSummary, info *RunInfo) error {
	if info == nil {
		info = &RunInfo{}
	}
	iw := &indentWriter{b: make([]byte, 0, 64<<10)}
	iw.b = append(iw.b, '{')
	iw.key(true, 1, "schema_version")
	iw.b = pyjson.AppendString(iw.b, ServerMetricsSchemaVersion)
	iw.key(false, 1, "aiperf_version")
	iw.b = pyjson.AppendString(iw.b, info.AIPerfVersion)
	if info.BenchmarkID != "" {
		iw.key(false, 1, "benchmark_id")
		iw.b = pyjson.AppendString(iw.b, info.BenchmarkID)
	}
	iw.key(false, 1, "summary")
	appendServerSummary(iw, s, info.location())
	iw.key(false, 1, "metrics_phase")
	iw.b = pyjson.AppendString(iw.b, "profiling")
	iw.key(false, 1, "metrics")
	appendServerMetrics(iw, s)
	iw.key(false, 1, "input_config")
	if info.InputConfig == nil {
		iw.b = append(iw.b, '{', '}')
	} else if err := iw.encodeValue(reflect.ValueOf(info.InputConfig), 1); err != nil {
		return fmt.Errorf("input_config: %w", err)
	}
	iw.newline(0)
	iw.b = append(iw.b, '}')
	if _, err := w.Write(iw.b); err != nil {
		return fmt.Errorf("write server metrics json: %w", err)
	}
	return nil
}

// appendServerSummary writes the "summary" object.
func appendServerSummary(iw *indentWriter, s *telemetry.ServerMetricsSummary, loc *time.Location) {
	urls := make([]string, len(s.Endpoints))
	for i, ep := range s.Endpoints {
		urls[i] = ep.URL
	}
	iw.b = append(iw.b, '{')
	iw.key(true, 2, "endpoints_configured")
	appendStrings(iw, urls, 2)
	iw.key(false, 2, "endpoints_successful")
	appendStrings(iw, urls, 2)
	iw.key(false, 2, "start_time")
	iw.b = pyjson.AppendString(iw.b, pyDatetime(time.Unix(0, s.StartNS), loc))
	iw.key(false, 2, "end_time")
	iw.b = pyjson.AppendString(iw.b, pyDatetime(time.Unix(0, s.EndNS), loc))
	var eps []*telemetry.ServerEndpoint
	for i := range s.Endpoints {
		if len(s.Endpoints[i].Metrics) > 0 {
			eps = append(eps, &s.Endpoints[i])
		}
	}
	slices.SortStableFunc(eps, func(a, b *telemetry.ServerEndpoint) int { return strings.Compare(a.URL, b.URL) })
	if len(eps) > 0 {
		iw.key(false, 2, "endpoint_info")
		iw.b = append(iw.b, '{')
		for i, ep := range eps {
			iw.key(i == 0, 3, ep.URL)
			appendEndpointInfo(iw, &ep.Info)
		}
		iw.newline(2)
		iw.b = append(iw.b, '}')
	}
	iw.key(false, 2, "phase_time_ranges")
	if s.StartNS < s.EndNS {
		iw.b = append(iw.b, '{')
		iw.key(true, 3, "profiling")
		iw.b = append(iw.b, '{')
		iw.key(true, 4, "start_ns")
		iw.b = strconv.AppendInt(iw.b, s.StartNS, 10)
		iw.key(false, 4, "end_ns")
		iw.b = strconv.AppendInt(iw.b, s.EndNS, 10)
		iw.newline(3)
		iw.b = append(iw.b, '}')
		iw.newline(2)
		iw.b = append(iw.b, '}')
	} else {
		iw.b = append(iw.b, '{', '}')
	}
	iw.newline(1)
	iw.b = append(iw.b, '}')
}

// appendEndpointInfo writes one endpoint's collection statistics at depth 3.
func appendEndpointInfo(iw *indentWriter, in *telemetry.EndpointInfo) {
	iw.b = append(iw.b, '{')
	ints := func(first bool, k string, v int64) {
		iw.key(first, 4, k)
		iw.b = strconv.AppendInt(iw.b, v, 10)
	}
	floats := func(k string, v float64) {
		if !math.IsNaN(v) {
			iw.key(false, 4, k)
			iw.b = telemetry.AppendJSONFloat(iw.b, v)
		}
	}
	ints(true, "total_fetches", in.TotalFetches)
	ints(false, "first_fetch_ns", in.FirstFetchNS)
	ints(false, "last_fetch_ns", in.LastFetchNS)
	floats("avg_fetch_latency_ms", in.AvgFetchLatencyMS)
	ints(false, "unique_updates", in.UniqueUpdates)
	ints(false, "first_update_ns", in.FirstUpdateNS)
	ints(false, "last_update_ns", in.LastUpdateNS)
	floats("duration_seconds", in.DurationSeconds)
	floats("avg_update_interval_ms", in.AvgUpdateIntervalMS)
	floats("median_update_interval_ms", in.MedianUpdateIntervalMS)
	iw.newline(3)
	iw.b = append(iw.b, '}')
}

// serverSeriesRef is one series with its endpoint, for merging endpoints.
type serverSeriesRef struct {
	url string
	s   *telemetry.ServerSeries
}

// appendServerMetrics writes the "metrics" object: every endpoint's series
// merged under their metric's name, names sorted.
func appendServerMetrics(iw *indentWriter, s *telemetry.ServerMetricsSummary) {
	type merged struct {
		m      *telemetry.ServerMetric
		series []serverSeriesRef
	}
	byName := map[string]*merged{}
	for i := range s.Endpoints {
		ep := &s.Endpoints[i]
		for j := range ep.Metrics {
			m := &ep.Metrics[j]
			g := byName[m.Name]
			if g == nil {
				g = &merged{m: m}
				byName[m.Name] = g
			}
			for k := range m.Series {
				g.series = append(g.series, serverSeriesRef{ep.URL, &m.Series[k]})
			}
		}
	}
	names := make([]string, 0, len(byName))
	for n := range byName {
		names = append(names, n)
	}
	slices.Sort(names)
	if len(names) == 0 {
		iw.b = append(iw.b, '{', '}')
		return
	}
	iw.b = append(iw.b, '{')
	for i, n := range names {
		g := byName[n]
		sortSeriesRefs(g.series)
		iw.key(i == 0, 2, n)
		iw.b = append(iw.b, '{')
		iw.key(true, 3, "type")
		iw.b = pyjson.AppendString(iw.b, string(g.m.Type))
		iw.key(false, 3, "description")
		iw.b = pyjson.AppendString(iw.b, g.m.Description)
		if u := serverMetricUnit(n, g.m.Description); u != "" {
			iw.key(false, 3, "unit")
			iw.b = pyjson.AppendString(iw.b, u)
		}
		iw.key(false, 3, "series")
		iw.b = append(iw.b, '[')
		for j, r := range g.series {
			if j > 0 {
				iw.b = append(iw.b, ',')
			}
			iw.newline(4)
			appendServerSeries(iw, g.m.Type, r)
		}
		iw.newline(3)
		iw.b = append(iw.b, ']')
		iw.newline(2)
		iw.b = append(iw.b, '}')
	}
	iw.newline(1)
	iw.b = append(iw.b, '}')
}

// sortSeriesRefs orders series as AIPerf does: by endpoint URL, then by
// Python's str() of their labels dict ("" without labels).
func sortSeriesRefs(rs []serverSeriesRef) {
	slices.SortStableFunc(rs, func(a, b serverSeriesRef) int {
		return cmp.Or(strings.Compare(a.url, b.url), strings.Compare(pyLabelsRepr(a.s.Labels), pyLabelsRepr(b.s.Labels)))
	})
}

// pyLabelsRepr is Python's repr of a labels dict: {'k': 'v', …}; "" for
// none.
func pyLabelsRepr(ls []telemetry.Label) string {
	if len(ls) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteByte('{')
	for i, l := range ls {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(pyStrRepr(l.Name))
		b.WriteString(": ")
		b.WriteString(pyStrRepr(l.Value))
	}
	b.WriteByte('}')
	return b.String()
}

// pyStrRepr is Python's repr of a str for the printable text labels hold:
// single quotes unless the text has one and no double quote.
func pyStrRepr(s string) string {
	q := "'"
	if strings.Contains(s, "'") && !strings.Contains(s, `"`) {
		q = `"`
	}
	r := strings.NewReplacer(`\`, `\\`, "\n", `\n`, "\r", `\r`, "\t", `\t`, q, `\`+q)
	return q + r.Replace(s) + q
}

// endpointDisplay is AIPerf's normalize_endpoint_display, how its
// summaries and tables name a telemetry source: the URL's network location
// (host and port) and its path without a trailing /metrics, e.g.
// "localhost:9400", or "localhost" for pynvml://localhost. Credentials in
// the network location read "<redacted>" (AIPerf shows them for GPU
// sources).
func endpointDisplay(raw string) string {
	_, rest, ok := strings.Cut(raw, "://")
	if !ok {
		rest = raw
	}
	if i := strings.IndexAny(rest, "?#"); i >= 0 {
		rest = rest[:i]
	}
	host, path, _ := strings.Cut(rest, "/")
	if at := strings.LastIndexByte(host, '@'); at >= 0 {
		host = "<redacted>" + host[at:]
	}
	if path == "" {
		return host
	}
	return host + strings.TrimSuffix("/"+path, "/metrics")
}
