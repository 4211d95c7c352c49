package telemetry

import (
	"strconv"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"google.golang.org/protobuf/proto"
)

// fastParse parses the everyday subset of the classic text format (what
// Prometheus client libraries write: "# HELP"/"# TYPE" lines, samples
// name{label="value",…} value [timestamp] with single spaces, legacy names)
// into exactly the families expfmt's TextParser builds, an order of
// magnitude faster: it allocates the families' objects in a few slabs
// instead of one by one, and takes names and unescaped label values from
// one copy of the body. For anything outside that subset (quoted UTF-8
// names, tabs or extra spaces, escapes it does not handle, gauge
// histograms, fractional histogram counts, malformed input) it returns
// false and the caller parses with expfmt, which then gives the same
// families or the error. A differential fuzz test holds the two together.
func fastParse(body []byte) (map[string]*dto.MetricFamily, bool) {
	if len(body) > 0 && body[len(body)-1] != '\n' {
		return nil, false // expfmt: unexpected end of input stream
	}
	p := &textParser{src: string(body), fams: map[string]*textFamily{}}
	n := strings.Count(p.src, "\n")
	p.metrics = make([]dto.Metric, 0, n)
	p.values = make([]float64, 0, n)
	p.pairs = make([]dto.LabelPair, 0, strings.Count(p.src, "="))
	p.strs = make([]string, 0, 2*cap(p.pairs))
	p.ptrs = make([]*dto.LabelPair, 0, cap(p.pairs))
	p.uints = make([]uint64, 0, n)
	p.buckets = make([]dto.Bucket, 0, strings.Count(p.src, "_bucket{"))
	p.gauges = make([]dto.Gauge, 0, n)
	for line := range strings.Lines(p.src) {
		line = line[:len(line)-1]
		var ok bool
		switch {
		case line == "":
			ok = true
		case line[0] == '#':
			ok = p.comment(line)
		default:
			ok = p.sample(line)
		}
		if !ok {
			return nil, false
		}
	}
	out := make(map[string]*dto.MetricFamily, len(p.fams))
	for name, f := range p.fams {
		if len(f.mf.Metric) > 0 {
			out[name] = f.mf
		}
	}
	return out, true
}

// textParser is fastParse's state: the families and the slabs their
// objects are cut from. fastParse sizes most slabs from counts of the body
// so that they seldom grow; counters and untyped values are not counted
// ahead. A slab that grows leaves the objects already cut where they were
// (the old array stays alive through their pointers), so growth costs
// memory, never correctness.
type textParser struct {
	src     string
	fams    map[string]*textFamily
	metrics []dto.Metric
	values  []float64
	pairs   []dto.LabelPair
	strs    []string
	ptrs    []*dto.LabelPair
	uints   []uint64
	buckets []dto.Bucket
	gauges  []dto.Gauge
	counts  []dto.Counter
	untyped []dto.Untyped
	key     []byte
	labels  []*dto.LabelPair // scratch: one line's labels
	sorted  []*dto.LabelPair // scratch: them sorted
}

type textFamily struct {
	mf      *dto.MetricFamily
	typ     dto.MetricType
	typed   bool                   // a TYPE line or a sample fixed the type
	grouped map[string]*dto.Metric // histogram and summary metrics by labels
}

func (p *textParser) str(s string) *string {
	p.strs = append(p.strs, s)
	return &p.strs[len(p.strs)-1]
}

func (p *textParser) uint(v float64) *uint64 {
	p.uints = append(p.uints, uint64(v))
	return &p.uints[len(p.uints)-1]
}

func (p *textParser) float(v float64) *float64 {
	p.values = append(p.values, v)
	return &p.values[len(p.values)-1]
}

// comment handles a comment line: "# HELP name text", "# TYPE name type",
// or any other comment, which is ignored.
func (p *textParser) comment(line string) bool {
	rest := strings.TrimLeft(line[1:], " \t")
	keyword, _, _ := strings.Cut(rest, " ")
	if i := strings.IndexByte(keyword, '\t'); i >= 0 {
		keyword = keyword[:i]
	}
	if keyword != "HELP" && keyword != "TYPE" {
		return true
	}
	if !strings.HasPrefix(line, "# HELP ") && !strings.HasPrefix(line, "# TYPE ") {
		return false
	}
	name, text, ok := strings.Cut(line[7:], " ")
	if !ok || !legacyMetricName(name) || text == "" || text[0] == ' ' || text[0] == '\t' {
		return false
	}
	f := p.fams[name]
	if f == nil {
		if p.suffixFamily(name) != nil {
			return false // expfmt would resolve it to a histogram or summary
		}
		f = &textFamily{mf: &dto.MetricFamily{Name: proto.String(name)}}
		p.fams[name] = f
	}
	if keyword == "HELP" {
		if f.mf.Help != nil {
			return false
		}
		if strings.Contains(text, `\`) {
			var ok bool
			if text, ok = unescapeHelp(text); !ok {
				return false
			}
		}
		f.mf.Help = proto.String(text)
		return true
	}
	if f.typed {
		return false // expfmt: second TYPE line, or TYPE after samples
	}
	switch text {
	case "counter":
		f.typ = dto.MetricType_COUNTER
	case "gauge":
		f.typ = dto.MetricType_GAUGE
	case "histogram":
		f.typ = dto.MetricType_HISTOGRAM
		f.grouped = map[string]*dto.Metric{}
	case "summary":
		f.typ = dto.MetricType_SUMMARY
		f.grouped = map[string]*dto.Metric{}
	case "untyped":
		f.typ = dto.MetricType_UNTYPED
	default:
		return false
	}
	f.typed = true
	f.mf.Type = f.typ.Enum()
	return true
}

// suffixFamily returns the histogram or summary family a _bucket, _sum or
// _count name belongs to, as expfmt resolves it.
func (p *textParser) suffixFamily(name string) *textFamily {
	for _, s := range [...]string{"_sum", "_count", "_bucket"} {
		base, ok := strings.CutSuffix(name, s)
		if !ok {
			continue
		}
		if f := p.fams[base]; f != nil && (f.typ == dto.MetricType_HISTOGRAM || (f.typ == dto.MetricType_SUMMARY && s != "_bucket")) {
			return f
		}
	}
	return nil
}

// sample handles a sample line.
func (p *textParser) sample(line string) bool {
	i := 0
	for i < len(line) && line[i] != '{' && line[i] != ' ' {
		i++
	}
	name := line[:i]
	if !legacyMetricName(name) {
		return false
	}
	p.labels = p.labels[:0]
	var le, quantile string
	hasLE, hasQ := false, false
	f := p.fams[name]
	suffix := ""
	if f == nil {
		if f = p.suffixFamily(name); f != nil {
			suffix = name[strings.LastIndexByte(name, '_'):]
		} else {
			f = &textFamily{mf: &dto.MetricFamily{Name: proto.String(name)}}
			p.fams[name] = f
		}
	}
	if i < len(line) && line[i] == '{' {
		i++
		for i < len(line) && line[i] != '}' {
			j := strings.IndexByte(line[i:], '=')
			if j <= 0 || j+i+1 >= len(line) || line[i+j+1] != '"' {
				return false
			}
			lname := line[i : i+j]
			if !legacyLabelName(lname) || lname == "__name__" {
				return false
			}
			i += j + 2
			value, n, ok := labelValue(line[i:])
			if !ok {
				return false
			}
			i += n
			if i < len(line) && line[i] == ',' {
				i++
			} else if i >= len(line) || line[i] != '}' {
				return false // expfmt: unexpected end of label value
			}
			switch {
			case lname == "le" && f.typ == dto.MetricType_HISTOGRAM:
				le, hasLE = value, true
			case lname == "quantile" && f.typ == dto.MetricType_SUMMARY:
				quantile, hasQ = value, true
			default:
				for _, l := range p.labels {
					if l.GetName() == lname {
						return false
					}
				}
				p.pairs = append(p.pairs, dto.LabelPair{Name: p.str(lname), Value: p.str(value)})
				p.labels = append(p.labels, &p.pairs[len(p.pairs)-1])
			}
		}
		if i >= len(line) {
			return false
		}
		i++ // '}'
	}
	if i >= len(line) || line[i] != ' ' {
		return false
	}
	valueText, ts, hasTS := strings.Cut(line[i+1:], " ")
	if valueText == "" || strings.ContainsAny(valueText, "pP_\t") {
		return false
	}
	v, err := strconv.ParseFloat(valueText, 64)
	if err != nil {
		return false
	}
	if !f.typed {
		f.typ, f.typed = dto.MetricType_UNTYPED, true
		f.mf.Type = f.typ.Enum()
	}
	switch f.typ {
	case dto.MetricType_HISTOGRAM:
		if hasTS {
			return false
		}
		return p.histogramLine(f, suffix, hasLE, le, v)
	case dto.MetricType_SUMMARY:
		if hasTS {
			return false
		}
		return p.summaryLine(f, suffix, hasQ, quantile, v)
	}
	m := p.newMetric(f)
	switch f.typ {
	case dto.MetricType_COUNTER:
		p.counts = append(p.counts, dto.Counter{Value: p.float(v)})
		m.Counter = &p.counts[len(p.counts)-1]
	case dto.MetricType_GAUGE:
		p.gauges = append(p.gauges, dto.Gauge{Value: p.float(v)})
		m.Gauge = &p.gauges[len(p.gauges)-1]
	default:
		p.untyped = append(p.untyped, dto.Untyped{Value: p.float(v)})
		m.Untyped = &p.untyped[len(p.untyped)-1]
	}
	if hasTS {
		t, err := strconv.ParseInt(ts, 10, 64)
		if err != nil {
			return false
		}
		m.TimestampMs = proto.Int64(t)
	}
	return true
}

// newMetric appends a metric with the line's labels to f.
func (p *textParser) newMetric(f *textFamily) *dto.Metric {
	p.metrics = append(p.metrics, dto.Metric{})
	m := &p.metrics[len(p.metrics)-1]
	if len(p.labels) > 0 {
		start := len(p.ptrs)
		p.ptrs = append(p.ptrs, p.labels...)
		m.Label = p.ptrs[start:len(p.ptrs):len(p.ptrs)]
	}
	f.mf.Metric = append(f.mf.Metric, m)
	return m
}
