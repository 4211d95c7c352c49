package export

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/aiperf-go/aiperf/telemetry"
)

// serverCSVRow is one series of the server metrics CSV.
type serverCSVRow struct {
	endpoint, name, description, unit string
	typ                               telemetry.MetricType
	s                                 *telemetry.ServerSeries
}

func (r *serverCSVRow) info() bool { return strings.HasSuffix(r.name, "_info") }

// WriteServerMetricsCSV writes server_metrics_export.csv as AIPerf 0.13
// does: "#" header lines, then one section per type (gauge, counter,
// histogram, unknown; an empty row between sections) with the header
// Endpoint,Type,Metric,Unit,<stats>,<label columns>,Description[,buckets],
// then gauge *_info metrics transposed (Endpoint,Metric,Key,Value,
// Description, one row per label). Rows end in CRLF as Python's csv module
// writes them; floats are "%.4f", absent statistics empty. Label columns
// and rows are ordered by AIPerf's layout (label families, exclusive labels
// before shared ones; rows clustered by which columns they fill).
func WriteServerMetricsCSV(w io.Writer, s *telemetry.ServerMetricsSummary, info *RunInfo) error {
	if info == nil {
		info = &RunInfo{}
	}
	byType := map[telemetry.MetricType][]*serverCSVRow{}
	var infos []*serverCSVRow
	for i := range s.Endpoints {
		ep := &s.Endpoints[i]
		display := endpointDisplay(ep.URL)
		for j := range ep.Metrics {
			m := &ep.Metrics[j]
			unit := serverMetricUnit(m.Name, m.Description)
			for k := range m.Series {
				r := &serverCSVRow{display, m.Name, m.Description, unit, m.Type, &m.Series[k]}
				if m.Type == telemetry.TypeGauge && r.info() {
					infos = append(infos, r)
					continue
				}
				byType[m.Type] = append(byType[m.Type], r)
			}
		}
	}
	benchmarkID := info.BenchmarkID
	if benchmarkID == "" {
		benchmarkID = "None"
	}
	b := []byte("# AIPerf Server Metrics Export (CSV)\n# aiperf_version: " + info.AIPerfVersion +
		"\n# schema_version: 1.0\n# benchmark_id: " + benchmarkID +
		"\n# Note: Same benchmark_id and version appear in JSON and Parquet exports\n#\n")
	first := true
	for _, typ := range []telemetry.MetricType{telemetry.TypeGauge, telemetry.TypeCounter, telemetry.TypeHistogram, telemetry.TypeUnknown} {
		rows := byType[typ]
		if len(rows) == 0 {
			continue
		}
		if !first {
			b = append(b, '\r', '\n')
		}
		first = false
		b = appendServerCSVSection(b, typ, rows)
	}
	if len(infos) > 0 {
		if !first {
			b = append(b, '\r', '\n')
		}
		b = append(b, "Endpoint,Metric,Key,Value,Description\r\n"...)
		slices.SortStableFunc(infos, func(x, y *serverCSVRow) int {
			return cmp.Or(strings.Compare(x.name, y.name), strings.Compare(x.endpoint, y.endpoint))
		})
		for _, r := range infos {
			for _, l := range r.s.Labels { // sorted by name
				b = appendCSVRow(b, r.endpoint, r.name, l.Name, l.Value, r.description)
			}
		}
	}
	if _, err := w.Write(b); err != nil {
		return fmt.Errorf("write server metrics csv: %w", err)
	}
	return nil
}

// appendServerCSVSection writes one type's header and rows.
func appendServerCSVSection(b []byte, typ telemetry.MetricType, rows []*serverCSVRow) []byte {
	cols := serverLabelColumns(rows)
	names, _ := serverStats(typ, &telemetry.ServerSeries{})
	if typ == telemetry.TypeHistogram { // the CSV orders them differently from the JSON
		names = []string{"count", "count_rate", "sum", "sum_rate", "avg", "p1_estimate", "p5_estimate", "p10_estimate",
			"p25_estimate", "p50_estimate", "p75_estimate", "p90_estimate", "p95_estimate", "p99_estimate"}
	}
	header := append([]string{"Endpoint", "Type", "Metric", "Unit"}, names...)
	header = append(append(header, cols...), "Description")
	if typ == telemetry.TypeHistogram {
		header = append(header, "buckets")
	}
	b = appendCSVRow(b, header...)
	type keyed struct {
		pattern, labels string
		r               *serverCSVRow
	}
	ks := make([]keyed, len(rows))
	for i, r := range rows {
		var p []byte
		for _, c := range cols {
			if hasLabel(r.s.Labels, c) {
				p = append(p, '1')
			} else {
				p = append(p, '0')
			}
		}
		ks[i] = keyed{string(p), pyLabelsRepr(r.s.Labels), r}
	}
	slices.SortStableFunc(ks, func(x, y keyed) int {
		return cmp.Or(strings.Compare(x.pattern, y.pattern), strings.Compare(x.r.name, y.r.name),
			strings.Compare(x.r.endpoint, y.r.endpoint), strings.Compare(x.labels, y.labels))
	})
	for _, k := range ks {
		r := k.r
		row := []string{r.endpoint, string(typ), r.name, r.unit}
		for _, n := range names {
			row = append(row, serverCSVStat(typ, r.s, n))
		}
		for _, c := range cols {
			v := ""
			if !r.info() {
				v = labelValue(r.s.Labels, c)
			}
			row = append(row, v)
		}
		row = append(row, r.description)
		if typ == telemetry.TypeHistogram {
			var bk []string
			for _, x := range r.s.Buckets {
				bk = append(bk, x.LE+"="+strconv.FormatInt(x.Count, 10))
			}
			row = append(row, strings.Join(bk, ";"))
		}
		b = appendCSVRow(b, row...)
	}
	return b
}

// serverCSVStat formats one statistic: integers as such, floats "%.4f",
// absent ones empty.
func serverCSVStat(typ telemetry.MetricType, s *telemetry.ServerSeries, name string) string {
	names, vals := serverStats(typ, s)
	i := slices.Index(names, name)
	if typ == telemetry.TypeHistogram && name == "count" {
		return strconv.FormatInt(s.Histogram.Count, 10)
	}
	if i < 0 || math.IsNaN(vals[i]) {
		return ""
	}
	return strconv.FormatFloat(vals[i], 'f', 4, 64)
}

// serverLabelColumns is AIPerf's _get_optimal_label_order: labels grouped
// into families of co-occurring labels (families ordered by their smallest
// label), each family's labels used by one series only first, then those
// shared by several series, both alphabetically. Info metrics' labels are
// not columns.
func serverLabelColumns(rows []*serverCSVRow) []string {
	var sets [][]telemetry.Label
	for _, r := range rows {
		if !r.info() && len(r.s.Labels) > 0 {
			sets = append(sets, r.s.Labels)
		}
	}
	parent := map[string]string{}
	var find func(string) string
	find = func(x string) string {
		p, ok := parent[x]
		if !ok {
			parent[x] = x
			return x
		}
		if p == x {
			return x
		}
		return find(p)
	}
	uses := map[string]int{}
	for _, ls := range sets { // labels are sorted by name
		for i, l := range ls {
			uses[l.Name]++
			if i > 0 {
				parent[find(l.Name)] = find(ls[i-1].Name)
			} else {
				find(l.Name)
			}
		}
	}
	families := map[string][]string{}
	for l := range uses {
		root := find(l)
		families[root] = append(families[root], l)
	}
	var fams [][]string
	for _, f := range families {
		slices.Sort(f)
		fams = append(fams, f)
	}
	slices.SortFunc(fams, func(a, b []string) int { return strings.Compare(a[0], b[0]) })
	var out []string
	for _, f := range fams {
		for _, l := range f {
			if uses[l] == 1 {
				out = append(out, l)
			}
		}
		for _, l := range f {
			if uses[l] > 1 {
				out = append(out, l)
			}
		}
	}
	return out
}

func hasLabel(ls []telemetry.Label, name string) bool {
	return slices.ContainsFunc(ls, func(l telemetry.Label) bool { return l.Name == name })
}

func labelValue(ls []telemetry.Label, name string) string {
	for _, l := range ls {
		if l.Name == name {
			return l.Value
		}
	}
	return ""
}

// appendCSVRow appends one CRLF-terminated row, cells quoted as Python's
// csv module does.
func appendCSVRow(b []byte, cells ...string) []byte {
	for i, c := range cells {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendCSVCell(b, c)
	}
	return append(b, '\r', '\n')
}
